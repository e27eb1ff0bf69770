"""An inequality's closed-form bound holds only inside the quantity's ``valid_when`` domain (the inversion multiplied
through by a divisor whose sign only the domain proves): at a point the answer is the bound's half-line cut by the
declared range and the domain, stated with them, and refused where nothing is left; in symbols the domain is said
beside the bound. Expected sets are computed by hand from the preset's numbers and checked by brute force on
``Model.evaluate`` over a grid (values beyond the domain's end have none)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive.derivation import Derivation

from conftest import bisect_sign_change


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _number(model: symgpu.Model, preset: str, name: str, unit: str) -> Fraction:
    return Fraction(repr(float(model.preset(preset)[name].to(unit).magnitude)))


def _evaluates(model: symgpu.Model, quantity: str, preset: str, values: dict[str, float]) -> float | None:
    """The quantity's value at the point, None where the model gives it none (outside its domain)."""
    try:
        return float(model.evaluate(quantity, preset, values=values).magnitude)
    except errors.DomainError:
        return None


def _declared_part(found: Derivation) -> sympy.Set:
    """The answer's set over the nonnegative values (the relation is read with the variable declared nonnegative)."""
    return sympy.Intersection(found.extra.holds_for.as_set(), sympy.Interval(0, sympy.oo))


def test_a_bound_beyond_the_domains_end_answers_every_value_of_the_domain(volkov: symgpu.Model) -> None:
    # by hand at G80 (c = 81 GB/s, 16 SMs, 128 B/winst, 1.35 GHz): the model gives Latency_loaded a value only where
    # theta_loaded = x*128*16*1.35 < 81, x < 81/2764.8 = 15/512; the closed form x <= c*(300 - a - 2*alu_lat)/(...) is 0.0428
    c, sms = _number(volkov, "g80", "c", "GB/s"), _number(volkov, "g80", "SMs", "SM")
    bpi, clock = _number(volkov, "g80", "bytes_per_inst", "B/winst"), _number(volkov, "g80", "clock", "GHz")
    a, b, alu = (_number(volkov, "g80", n, "cycle") for n in ("a", "b", "alu_lat"))
    end = c / (sms * bpi * clock)
    assert end == Fraction(15, 512)
    closed = c * (300 - a - 2 * alu) / (sms * bpi * clock * (300 - a - 2 * alu + b))
    assert closed > end  # the bound lies beyond the domain's end
    found = volkov.solve("Latency_loaded", "x", target=300, relation=">=", preset="g80", values={"alpha": 2})
    assert found.extra.relation is None and found.extra.bound is None  # a set, not the bound
    # the answer's relation reads x nonnegative (declared), so x >= 0 is implied in it
    assert _declared_part(found) == sympy.Interval.Ropen(0, sympy.Rational(end.numerator, end.denominator))
    assert f"the bound x <= {float(closed):.10g} excludes none" in found.extra.elsewhere
    assert "every admissible x (0 <= x < 0.029296875" in found.extra.elsewhere
    # brute force: every x of the domain holds, beyond it there is no value
    for x in np.linspace(0, float(end), 60, endpoint=False):
        assert _evaluates(volkov, "Latency_loaded", "g80", {"alpha": 2, "x": float(x)}) >= 300
    assert _evaluates(volkov, "Latency_loaded", "g80", {"alpha": 2, "x": float(end) * 1.01}) is None


def test_no_value_of_the_domain_meets_the_reverse_relation_and_the_refusal_says_why(volkov: symgpu.Model) -> None:
    # brute force: Latency_loaded rises from a + 2*alu_lat = 493 cycles at x = 0, so nowhere in the domain is it below 300
    assert _evaluates(volkov, "Latency_loaded", "g80", {"alpha": 2, "x": 0.0}) == 493
    with pytest.raises(errors.NoAnswerHere, match=r"no admissible x satisfies Latency_loaded < 300 .* holds only where x > 0\.0428355"
                                                   r".*a value only where 0 <= x < 0\.029296875"):
        volkov.solve("Latency_loaded", "x", target=300, relation="<", preset="g80", values={"alpha": 2})


def test_a_negative_bound_on_a_nonnegative_bandwidth_answers_the_domain(volkov: symgpu.Model) -> None:
    # by hand: memory_latency = a + b*theta/(c - theta) >= a = 453 > 400 on 0 <= theta < c = 81: every theta of the domain;
    # the closed form theta >= c*(400 - a)/(400 - a + b) = 81*(-53)/8 = -536.625 is below the declared range
    found = volkov.solve("memory_latency", "theta", target=400, relation=">=", preset="g80")
    assert _declared_part(found) == sympy.Interval.Ropen(0, 81)
    assert "the bound theta >= -536.625 excludes none" in found.extra.elsewhere
    for theta in np.linspace(0, 81, 50, endpoint=False):
        assert _evaluates(volkov, "memory_latency", "g80", {"theta": float(theta)}) >= 400
    assert _evaluates(volkov, "memory_latency", "g80", {"theta": 81.5}) is None


def test_a_domain_end_on_the_other_side_of_the_bound_is_its_lower_end(volkov: symgpu.Model) -> None:
    # by hand at theta = 30: a + 30*b/(c - 30) >= 1000  <=>  0 < c - 30 <= 30*61/547  <=>  30 < c <= 18240/547
    found = volkov.solve("memory_latency", "c", target=1000, relation=">=", preset="g80", values={"theta": 30})
    top = Fraction(30) + Fraction(30 * 61, 1000 - 453)
    assert top == Fraction(18240, 547)
    assert found.extra.holds_for.as_set() == sympy.Interval.Lopen(30, sympy.Rational(18240, 547))
    assert "holds only inside the model's domain (30 < c: valid_when c > theta, c positive)" in found.extra.elsewhere
    for c in np.linspace(30.01, 100, 400):  # brute force, away from the top end
        if abs(c - float(top)) > 1e-6:
            assert (_evaluates(volkov, "memory_latency", "g80", {"theta": 30, "c": float(c)}) >= 1000) == (c <= float(top)), c
    for c in (10.0, 29.9, 30.0):
        assert _evaluates(volkov, "memory_latency", "g80", {"theta": 30, "c": c}) is None


def test_a_bound_the_domain_takes_nothing_from_stays_the_answer(volkov: symgpu.Model) -> None:
    # by hand: a + b*theta/(c - theta) <= 500  <=>  theta <= 47*c/(b + 47) = 81*47/108 = 35.25, inside theta < 81: the bound
    # alone is the answer
    found = volkov.solve("memory_latency", "theta", target=500, relation="<=", preset="g80")
    assert found.extra.bound and found.extra.relation.rel_op == "<=" and found.extra.elsewhere is None
    assert float(found.result.subs({volkov.symbols[n]: float(volkov.preset("g80")[n].magnitude) for n in ("a", "b", "c")})) \
        == pytest.approx(35.25, rel=1e-12)


def test_in_symbols_the_domain_is_said_beside_the_bound() -> None:
    # L_K0_time <= 1 ms for N: N <= (L_K0_time*phi - L_M - M*t_issue)/(M*t_issue), but the model gives a value only where
    # L_F/t_issue <= N <= 2*L_M/t_issue (interval analysis' valid_when)
    model = symgpu.load("interval_analysis")
    found = model.solve("L_K0_time", "N", target="1 ms", relation="<=")
    assert found.extra.bound
    assert found.extra.elsewhere == ("inside the model's domain only: N >= L_F/t_issue and N <= 2*L_M/t_issue (valid_when; L_K0_time "
                                     "has no value outside it)")


def test_the_cli_states_the_domain_of_the_answer(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "volkov_2016", "Latency_loaded", "--for", "x", "--relation", ">=", "--target", "300", "-p", "g80",
                         "--set", "alpha=2")
    assert code == 0, err
    assert "result: x < 15/512" in out
    assert "every admissible x (0 <= x < 0.029296875, where Latency_loaded has a value" in out
    assert "inside the answer's set (" in out and "0 outside" in out


def test_a_set_split_by_regimes_at_a_point_states_the_domains_end_too() -> None:
    # n_knee_h100 (a Min inside: split regime by regime at the point) >= 177.994 warp/SM over plateau_fraction, valid when
    # plateau_fraction < 1: it rises in f, so the answer is [f*, 1), not 'plateau_fraction >= f*' (which claimed f = 1.001,
    # where the model gives no value); f* by bisection on Model.evaluate
    model = symgpu.load("volkov_2016_h100")
    at = {"alpha": 0.0, "ilp": 1.0}
    found = model.solve("n_knee_h100", "plateau_fraction", target=177.994, relation=">=", preset="h100_stream", values=at)
    assert found.extra.relation is None
    stated = found.extra.holds_for.as_set()
    assert isinstance(stated, sympy.Interval) and stated.end == 1 and stated.right_open and not stated.left_open

    def gap(f: float) -> float:
        return float(model.evaluate("n_knee_h100", "h100_stream", values={**at, "plateau_fraction": f}).magnitude) - 177.994

    assert float(stated.start) == pytest.approx(bisect_sign_change(gap, 0.5, 0.99), rel=1e-12)
    for f in np.linspace(0.01, 0.999, 200):  # brute force
        assert (gap(float(f)) >= 0) == bool(stated.contains(sympy.Float(f))) or abs(f - float(stated.start)) < 1e-9
    assert _evaluates(model, "n_knee_h100", "h100_stream", {**at, "plateau_fraction": 1.001}) is None
