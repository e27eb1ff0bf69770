"""A sweep decides a case condition that holds exactly at the model's numbers as ``evaluate`` and
its own regime column do (an outside tester's finding: at a tie that IEEE arithmetic misses by a
unit in the last place the value was another case's, beside a regime column naming the right one)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import symgpu
from symgpu.evaluate import rule
from symgpu.sweep import backends, sweep
from symgpu.sweep.tie_conditions import tie_aware

BACKENDS = ["numpy"] + (["numba"] if backends.available("numba") else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_hong_kim_fixed_time_at_cwp_equal_to_n_is_the_latency_bound_case(backend):
    # CWP_full = 1 + mem_lat/(4*(alpha + 1)) = 1 + 55/4.4 = 13.5 exactly (13.499999999999998 in floats) = n,
    # MWP_peak_bw = 1417*55/(1.296*128*30) = 15.66 > 13.5: MWP = CWP = n, latency bound, so
    # Time = mem_lat + alu_lat*alpha = 55 + 24*0.1 = 57.4 cycles (by hand; compute bound would be 4.4*13.5 = 59.4)
    model = symgpu.load("prior_hong_kim_fixed")
    values = {"mem_lat": 55, "pin_BW": 1417, "alpha": 0.1}
    result = sweep(model, "Time", preset="gt200", grid=["n=13.5"], values=values, backend=backend)
    assert float(result.columns["Time"][0]) == pytest.approx(57.4, rel=1e-12)
    assert result.regime_names()[0] == "latency_bound"
    assert float(model.evaluate("Time", preset="gt200", n=13.5, **values).magnitude) == pytest.approx(57.4, rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prior_sim_texec_on_a_line_of_exact_cwp_mwp_ties_is_the_cwp_at_most_mwp_case(backend):
    # CWP_full = 1 + 115/(2.3*4) = 13.5 = MWP_peak_bw = 1728*115/(1*128*115) exactly: for n >= 13.5 the case is
    # cwp_at_most_mwp, Texec = max(Tcomp, Tmem + Tcomp/n) with Tcomp = Tmem = 4.6*n: 4.6*n + 9.2 (by hand):
    # 184, 193.2, 202.4 at n = 19, 20, 21 (the other case gave 174.8, 184, 193.2)
    model = symgpu.load("prior_sim")
    values = {"mem_lat": 115, "alu_lat": 1, "alu_thru": 0.25, "BW": 1728, "clock": 1, "SMs": 115, "alpha": 1.3}
    result = sweep(model, "Texec", preset="fermi", grid=["n=19,20,21"], values=values, backend=backend)
    assert [float(v) for v in result.columns["Texec"]] == pytest.approx([184, 193.2, 202.4], rel=1e-12)
    assert list(result.regime_names()) == ["cwp_at_most_mwp"] * 3


def test_each_relation_is_the_tie_rule_at_and_beside_a_tie():
    x, y = sympy.symbols("x y", positive=True)
    near, far = 13.5 * (1 - 1e-15), 13.4  # within the tie (1e-12 relative) of 13.5, and beyond it
    for op, at_tie, below in [("<=", True, True), ("<", False, True), (">=", True, False), (">", False, False),
                              ("==", True, False), ("!=", False, True)]:
        f = sympy.lambdify((x, y), tie_aware(sympy.Piecewise((1, sympy.Rel(x, y, op)), (0, True))), "numpy")
        assert bool(f(near, 13.5) == 1) is at_tie, op
        assert bool(f(far, 13.5) == 1) is below, op


@pytest.mark.parametrize("op", ["==", "!=", ">=", ">", "<=", "<"])
def test_each_relation_decides_as_relation_number_at_zeros_infinities_nan_and_huge_sides(op):
    # the regime column's rule (symgpu.evaluate.rule.relation_number) is the reference; 1.5e308 against
    # 1.5e308*(1 - 0.8e-12) is within the tie only where the width is not capped below the larger side
    x, y = sympy.symbols("x y", real=True)
    values = [0.0, -0.0, 1.0, -1.0, 13.5, 13.499999999999998, 1e-310, 1.5e308, 1.5e308 * (1 - 0.8e-12),
              1.7976931348623157e308, math.inf, -math.inf, math.nan]
    decide = sympy.lambdify((x, y), tie_aware(sympy.Piecewise((1.0, sympy.Rel(x, y, op)), (0.0, True))), "math")
    for a in values:
        for b in values:
            with np.errstate(all="ignore"):
                want = rule.relation_number(rule.RELATION_CODES[op], a, b, rule.larger_magnitude(a, b))
            assert (decide(a, b) == 1.0) is bool(want), (op, a, b)
