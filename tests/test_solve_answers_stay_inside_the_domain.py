"""Issue 25, the solve classes of the differential tester: a solve answer holds only where the model
gives the quantity a value (its ``valid_when`` domain), a range answer covers what brute force
finds, and a root that is a bare symbol is a value, not a condition.

Every expected value is computed here independently of the derivation engine: by brute force on
the evaluate path (``Model.evaluate`` point by point, a ``DomainError`` read as "no value", sign
changes refined by bisection) or by hand. The engine's answers are only compared with them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
import sympy

import differential_oracle as oracle
import symgpu
from differential_questions import Point
from symgpu import derive, errors
from symgpu.derive import certify
from symgpu.derive.certify import Asked

Cli = Callable[..., tuple[int, str, str]]


# ------------------------------------------------------------------ brute force on the evaluate path
def _point(preset: str | None, values: Mapping[str, Any]) -> Point:
    return Point(preset, tuple(sorted((k, float(v)) for k, v in values.items())))


def _value(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str, x: float) -> float:
    """The quantity at ``var = x`` as ``Model.evaluate`` gives it (NaN outside a valid_when domain)."""
    return oracle.scalar(model, quantity, _point(preset, values), var, x)


def _brute_roots(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str,
                 target: float, xs: np.ndarray) -> list[float]:
    """Every root of ``quantity = target`` the grid brackets inside the domain: the differential
    tester's brute force (``differential_oracle.roots``), each bracket's midpoint."""
    point = _point(preset, values)
    isolated, _ = oracle.roots(model, quantity, point, var, target, xs, oracle.evaluate_on(model, quantity, point, var, xs))
    return [0.5 * (b.low + b.high) for b in isolated]


def _applying(model: symgpu.Model, d: derive.Derivation, preset: str | None, values: Mapping[str, Any]) -> list[float]:
    """The roots a solve answer gives at a point, as the command line prints them."""
    records = derive.roots_of(d)
    assert records is not None, d.result
    found = derive.applying_roots(model, records, preset, derive.result_values(d, values), model.unit_text(d.variable), d.variable)
    return sorted(float(r.value.magnitude) for r in found)


# ================================================================== a root past the pole of §6.4's loaded latency
LOADED = ("volkov_2016_h100", "Latency_loaded_2term", "clock", "kepler",
          {"alpha": 4.0, "b_2": 156.0, "c_2": 121.0, "theta": 3.8, "x": 0.09822910432810195}, 416.2405724877614)


def test_the_loaded_latency_has_one_root_in_its_domain_and_the_answer_gives_only_that_one() -> None:
    model_id, quantity, var, preset, values, target = LOADED
    model = symgpu.load(model_id)
    brute = _brute_roots(model, quantity, preset, values, var, target, np.geomspace(1e-3, 1e2, 600))
    assert len(brute) == 1
    d = model.solve(quantity, for_=var, target=repr(target), preset=preset, values=values)
    assert _applying(model, d, preset, values) == pytest.approx(brute, rel=1e-9)
    assert d.certificate is not None and d.certificate.checked


def test_the_second_root_of_the_loaded_latency_quadratic_lies_past_the_pole_where_evaluate_refuses() -> None:
    # the formula continued past theta_loaded = c (checks off) meets the target a second time, above
    # the brute-force root: evaluate refuses that point, so it may not be shown as a root
    model_id, quantity, var, preset, values, target = LOADED
    model = symgpu.load(model_id)
    (inside,) = _brute_roots(model, quantity, preset, values, var, target, np.geomspace(1e-3, 1e2, 600))
    xs = np.geomspace(inside * 1.01, 1e2, 4000)
    continued = model.evaluate(quantity, preset, values={**values, var: xs}, checks=False).magnitude - target
    small = np.isfinite(continued) & (np.abs(continued) < 0.1 * target)  # a crossing, not a jump across a pole
    crossing = np.nonzero(small[:-1] & small[1:] & (np.sign(continued[:-1]) != np.sign(continued[1:])))[0]
    assert len(crossing)
    beyond = float(xs[crossing[0]])
    with pytest.raises(errors.DomainError):
        model.evaluate(quantity, preset, values={**values, var: beyond})
    d = model.solve(quantity, for_=var, target=repr(target), preset=preset, values=values)
    assert all(not math.isclose(r, beyond, rel_tol=1e-2) for r in _applying(model, d, preset, values))


def test_a_root_outside_the_domain_is_refused_by_the_certificate() -> None:
    model_id, quantity, var, preset, values, target = LOADED
    model = symgpu.load(model_id)
    d = derive.solving.solve(model, quantity, for_=var, target=repr(target))
    records = derive.roots_of(d)
    assert records is not None and len(records) == 2
    unguarded = dataclasses.replace(d, extra=d.extra.with_(roots=tuple(dataclasses.replace(r, domain=sympy.true) for r in records)))
    asked = Asked("solve", quantity, var, preset, tuple(values.items()), target=repr(target))
    with pytest.raises(errors.CertificateError, match="outside the model's valid_when domain"):
        certify.certify(model, unguarded, asked)


def test_the_command_line_prints_the_one_root_inside_the_domain(cli: Cli) -> None:
    model_id, quantity, var, preset, values, target = LOADED
    model = symgpu.load(model_id)
    (brute,) = _brute_roots(model, quantity, preset, values, var, target, np.geomspace(1e-3, 1e2, 600))
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v!r}")]
    code, out, err = cli("solve", model_id, quantity, "--for", var, "--target", repr(target), "--preset", preset, *sets)
    assert code == 0, out + err
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    assert float(line.split()[1]) == pytest.approx(brute, rel=1e-9) and "[" not in line.split()[1]


# ================================================================== "every value", but only inside rho < 1
HUANG = ("prior_huang", "arithmetic_throughput_bw", "reqs_per_inst", "fermi", {"alpha": 0.0, "n": 32.0})


def _domain_edge(model: symgpu.Model, quantity: str, preset: str, values: Mapping[str, Any], var: str) -> float:
    """Where evaluate starts refusing ``var`` (a DomainError above, a value below), by bisection."""
    lo, hi = 1e-6, 1e6
    assert math.isfinite(_value(model, quantity, preset, values, var, lo)) and math.isnan(_value(model, quantity, preset, values, var, hi))
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if math.isfinite(_value(model, quantity, preset, values, var, mid)) else (lo, mid)
    return lo


def test_no_arithmetic_gives_zero_throughput_only_where_the_bandwidth_delay_is_defined() -> None:
    model_id, quantity, var, preset, values = HUANG
    model = symgpu.load(model_id)
    edge = _domain_edge(model, quantity, preset, values, var)
    d = model.solve(quantity, for_=var, target="0", preset=preset, values=values)
    assert d.result is not sympy.true  # not "every reqs_per_inst": evaluate refuses rho >= 1
    (flat,) = derive.applying_ranges(model, d, preset, values)
    for x in np.geomspace(edge / 1e3, edge * 1e3, 61):
        inside = math.isfinite(_value(model, quantity, preset, values, var, float(x)))
        if inside:
            assert _value(model, quantity, preset, values, var, float(x)) == 0.0  # alpha = 0: no adds at all
        if not math.isclose(x, edge, rel_tol=1e-6):
            claimed = symgpu.evaluate.active.condition_holds(model, flat.when, preset, {**values, var: float(x)})[0]
            assert claimed == inside, x
    assert d.certificate is not None and d.certificate.checked


def test_the_command_line_says_where_every_value_is_a_root(cli: Cli) -> None:
    model_id, quantity, var, preset, values = HUANG
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v!r}")]
    code, out, err = cli("solve", model_id, quantity, "--for", var, "--target", "0", "--preset", preset, *sets)
    assert code == 0, out + err
    assert f"holds for every {var} where {var} <" in out and "valid_when" in out
    assert "does not depend on" not in out


def test_an_every_value_answer_that_ignores_the_domain_is_refused_by_the_certificate() -> None:
    model_id, quantity, var, preset, values = HUANG
    model = symgpu.load(model_id)
    d = derive.solving.solve(model, quantity, for_=var, target=0, substitute={"alpha": 0}, preset=preset, values=values)
    everywhere = dataclasses.replace(d, result=sympy.true, extra=d.extra.without("holds_for", "ranges"))
    asked = Asked("solve", quantity, var, preset, tuple(values.items()), target=0)
    with pytest.raises(errors.CertificateError, match="outside the model's valid_when domain"):
        certify.certify(model, everywhere, asked)


# ================================================================== an input at 0 where a Min divides by it
def test_no_arithmetic_at_alpha_zero_is_zero_throughput_for_every_issue_rate() -> None:
    model = symgpu.load("volkov_2016_ilp")
    values = {"alpha": 0.0, "alu_lat": 20.0, "alu_thru": 0.25, "mem_lat": 444.0, "mem_thru": 0.0268, "n": 8.0,
              "random_ops": 0.023, "stream_ops": 0.65}
    xs = np.geomspace(5e-4, 500, 121)
    brute = model.evaluate("arithmetic_throughput", None, values={**values, "issue_thru": xs}).magnitude
    assert np.all(np.asarray(brute) == 0.0)  # simd_width*alpha*memory_throughput with alpha = 0, at every issue rate
    d = model.solve("arithmetic_throughput", for_="issue_thru", target="0.0", values=values)
    assert d.result is sympy.true  # alpha = 0 put in first (the ALU bound alu_thru/alpha is +oo there, as evaluate has it)


# ================================================================== a root that is a bare symbol
def test_the_memory_bound_root_mem_thru_equals_memory_throughput_is_a_value_not_a_condition(cli: Cli) -> None:
    model = symgpu.load("volkov_2016")
    values = {"alpha": 4.0, "alu_lat": 20.0, "alu_thru": 0.25, "inst_latency": 301.0, "issue_thru": 0.5, "mem_lat": 444.0,
              "n": 8.0, "peak_ops_per_sched": 1.07}
    target = 0.0005347303004116598
    # by hand: below the other bounds the memory bound binds, memory_throughput = mem_thru
    assert _value(model, "memory_throughput", None, values, "mem_thru", target) == pytest.approx(target, rel=1e-12)
    brute = _brute_roots(model, "memory_throughput", None, values, "mem_thru", target, np.geomspace(1e-6, 1, 400))
    assert brute == pytest.approx([target], rel=1e-9)
    d = model.solve("memory_throughput", for_="mem_thru")
    assert d.result == model.symbols["memory_throughput"] and not derive.holds_on_ranges(d.result)
    assert _applying(model, d, None, {**values, "memory_throughput": target}) == pytest.approx(brute, rel=1e-9)
    assert d.certificate is not None and "cannot evaluate the condition" not in d.certificate.text()


# ================================================================== a domain condition with no value at the point is not checked
def test_a_root_whose_domain_names_a_value_the_point_lacks_is_the_hand_computed_root() -> None:
    # M = Min(M_Read*W, MSHRs) + M_Write*W is valid when W <= W_max, a value only the table1 preset has:
    # evaluate does not check the condition without it, so neither may the answer.
    model = symgpu.load("mdm_2019")
    values = {"L_NoCService": 100.0, "MSHRs": 1000.0, "M_Read": 32.0, "M_Write": 100.0, "SMs": 64.0}
    # by hand at W = 8: M = Min(32*8, 1000) + 100*8 = 1056 requests, S_NoC_half = 64*1056*100/2 = 3379200 cycles
    target = 64 * (min(32 * 8, 1000) + 100 * 8) * 100 / 2
    assert _value(model, "S_NoC_half", None, values, "W", 8.0) == pytest.approx(target, rel=1e-12)
    assert _brute_roots(model, "S_NoC_half", None, values, "W", target, np.geomspace(1e-3, 1e3, 400)) == pytest.approx([8.0])
    d = model.solve("S_NoC_half", for_="W")
    assert _applying(model, d, None, {**values, "S_NoC_half": target}) == pytest.approx([8.0], rel=1e-12)
    assert d.certificate is not None and d.certificate.checked
