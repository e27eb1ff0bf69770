"""An extremum asked without a point decides signs under its quantity's ``valid_when`` conditions free of the variable
(:mod:`symgpu.derive.extremum_outer`): the model gives the quantity a value only there, so the answer claims nothing
elsewhere. Volkov's two-term loaded latency ``a + b*theta/(c - theta) + b_2*theta/(c_2 - theta) + alpha*alu_lat`` (valid
when ``theta < c`` and ``theta < c_2``, ``theta = x*bytes_per_inst*SMs*clock``) has the slope ``theta/(c - theta)`` in ``b``:
positive inside the domain where ``x > 0``, 0 at ``x = 0``. Its maximum over ``b`` was refused by its own certificate ("held
at none of the 0 presets and sampled points nor at 240 drawn points"): the answer kept the limit as ``b -> oo`` as SymPy's
Piecewise over the sign of ``x/(theta - c)``, whose ``-oo`` branch lies wholly outside the domain, and the one condition
under which ``b = 0`` was the maximum, ``x = 0``, no drawn point meets (found by ``benchmarks/differential.py --seed 231``).

The expected numbers here are by hand from the preset's values (``theta = 0.01*128*16*1.35 GB/s = 27.648 GB/s``) and by brute
force on ``Model.evaluate``, never from the extremum's own answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest
import sympy

import symgpu
from symgpu import derive, errors

MODEL, QUANTITY, PRESET = "volkov_2016", "Latency_loaded_2term", "g80_two_term"
#: G80's two-term fit: a = 441, c = 71 GB/s, b_2 = 156, c_2 = 121 GB/s; x in winst/cycle/SM (16 SMs, 128 B/winst, 1.35 GHz)
WORKLOAD = {"alpha": 2.0, "alu_lat": 20.0}
X = 0.01
THETA = Fraction(16 * 128) * Fraction(135, 100) * Fraction(1, 100)  # GB/s at x = 0.01: 27.648
A, C, B2, C2, ALU = 441, 71, 156, 121, 2 * 20


def _by_hand(b: Fraction, theta: Fraction) -> Fraction:
    """The two-term latency at ``b`` and ``theta`` (GB/s), exactly."""
    return A + b * theta / (C - theta) + B2 * theta / (C2 - theta) + ALU


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load(MODEL)


def test_inside_the_domain_the_latency_grows_with_b_by_its_positive_slope(volkov: symgpu.Model) -> None:
    assert THETA == Fraction(27648, 1000) and 0 < THETA < C < C2  # inside the domain, x > 0
    slope = THETA / (C - THETA)
    assert slope > 0
    previous = -math.inf
    for b in (0, 1, 10, 1000, 10**6, 10**9):
        value = volkov.evaluate(QUANTITY, PRESET, values={**WORKLOAD, "x": X, "b": float(b)}).magnitude
        assert value == pytest.approx(float(_by_hand(Fraction(b), THETA)), rel=1e-12)
        assert value > previous  # no b is the largest: it rises by the slope for every b
        previous = value
    assert previous > float(slope) * 10**9  # beyond any bound as b grows


def test_where_x_is_0_the_latency_does_not_change_with_b(volkov: symgpu.Model) -> None:
    for b in (0.0, 1.0, 1e3, 1e9):
        assert volkov.evaluate(QUANTITY, PRESET, values={**WORKLOAD, "x": 0.0, "b": b}).magnitude == A + ALU


def test_the_maximum_over_b_is_at_b_0_only_where_x_is_0_and_elsewhere_there_is_none(volkov: symgpu.Model) -> None:
    answer = volkov.extremum(QUANTITY, over="b", kind="max")  # refused by its certificate before
    assert answer.certificate.checked, answer.certificate.text()
    assert "where it says there is none" in answer.certificate.where
    assert isinstance(answer.location, sympy.Piecewise) and len(answer.location.args) == 1
    assert answer.extra.elsewhere == ("where no condition above holds there is no maximum: the quantity grows without bound "
                                      "as b -> oo where x > 0")
    at_zero = {**WORKLOAD, "x": 0.0}
    assert derive.evaluate_result(volkov, answer, PRESET, which="location", **at_zero).magnitude == 0
    assert derive.evaluate_result(volkov, answer, PRESET, **at_zero).magnitude == A + ALU
    # at x > 0 it claims no value: there is none (the brute force above)
    assert math.isnan(derive.evaluate_result(volkov, answer, PRESET, **WORKLOAD, x=X).magnitude)
    assert not any("-oo" in sympy.sstr(s.expression) for s in answer.steps if s.justification.startswith("as b -> oo the quantity tends"))


def test_the_minimum_over_b_is_at_b_0_throughout_the_domain(volkov: symgpu.Model) -> None:
    answer = volkov.extremum(QUANTITY, over="b", kind="min")
    assert answer.location == 0 and not answer.extra.elsewhere  # it was a Piecewise of ITEs over the sign of x/(theta - c)
    assert answer.certificate.checked
    for x in (0.0, X, 0.02):
        theta = THETA * Fraction(x).limit_denominator(1000) / Fraction(X).limit_denominator(1000)
        value = derive.evaluate_result(volkov, answer, PRESET, **WORKLOAD, x=x).magnitude
        assert value == pytest.approx(float(_by_hand(Fraction(0), theta)), rel=1e-12)
        for b in (0.5, 4.0, 1e3):  # brute force: no b beats it
            assert volkov.evaluate(QUANTITY, PRESET, values={**WORKLOAD, "x": x, "b": b}).magnitude >= value


def test_at_a_point_with_x_positive_there_is_no_maximum_and_the_minimum_is_at_b_0(volkov: symgpu.Model) -> None:
    with pytest.raises(errors.DerivationError, match=r"has no maximum over b: it tends to oo as b -> oo"):
        volkov.extremum(QUANTITY, over="b", kind="max", preset=PRESET, values={**WORKLOAD, "x": X})
    answer = volkov.extremum(QUANTITY, over="b", kind="min", preset=PRESET, values={**WORKLOAD, "x": X})
    assert answer.extra.value_at is not None
    assert derive.evaluate_result(volkov, answer, PRESET, **WORKLOAD, x=X).magnitude == pytest.approx(
        float(_by_hand(Fraction(0), THETA)), rel=1e-12)


def test_over_b_2_the_refusal_says_it_grows_without_bound_as_b_2_grows(cli: Callable[..., tuple[int, str, str]]) -> None:
    # slope theta/(c_2 - theta) > 0 where x > 0: unbounded as b_2 -> oo, not (as an end at 0 was always named) as b_2 -> 0
    code, out, err = cli("extremum", MODEL, QUANTITY, "--over", "b_2", "--max")
    assert code == 2 and out == ""
    assert "as b_2 -> oo it grows without bound where x > 0" in err and "as b_2 -> 0 it grows" not in err


def test_memory_latencys_maximum_over_b_reads_theta_below_c(volkov: symgpu.Model) -> None:
    # a + b*theta/(c - theta): the limit as b -> oo splits at theta/(c - theta) = 0, a ratio nonnegative inside theta < c
    # (its zero cases are read from the numerator: the limit was dropped and the maximum refused as "may grow without bound")
    answer = volkov.extremum("memory_latency", over="b", kind="max")
    assert answer.certificate.checked
    assert answer.extra.elsewhere == ("where no condition above holds there is no maximum: the quantity grows without bound "
                                      "as b -> oo where theta > 0")
    g80_a = volkov.evaluate("memory_latency", "g80", values={"theta": 0.0, "b": 1e6}).magnitude  # flat in b at theta = 0
    assert derive.evaluate_result(volkov, answer, "g80", theta=0.0).magnitude == g80_a
    assert math.isnan(derive.evaluate_result(volkov, answer, "g80", theta=32.0).magnitude)
