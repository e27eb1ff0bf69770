"""Solving an inequality whose sides are rational in the variable: Volkov's exposed latency.

``Exposed latency = mem_lat - (n - 1)(alpha + 1) arithmetic_time(n) <= 0`` with the latency
branch ``arithmetic_time = alu_lat/n`` has ``n`` in a denominator; the solver multiplies
through by ``n`` (declared positive) before isolating ``n``.
"""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu import derive, errors

REQUEST = "exposed_latency_hidden_latency_bound"
ALPHA = 39  # (alpha + 1)*alu_lat = 800 cycles > mem_lat = 444 cycles on G80: the latency branch is feasible


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.fixture(scope="module")
def hidden_bound(volkov):
    request = next(r for r in volkov.definition.derivations if r.id == REQUEST)
    return derive.run_request(volkov, request)


def test_the_latency_branch_inequality_gives_a_lower_bound_on_n_derived_by_hand(volkov, hidden_bound):
    mem_lat, alu_lat, alpha, n, one_warp = (volkov.symbols[k] for k in ("mem_lat", "alu_lat", "alpha", "n", "one_warp"))
    # by hand: times n (> 0): mem_lat*n - (n - one_warp)*(alpha + 1)*alu_lat <= 0
    #          <=> n*(mem_lat - (alpha + 1)*alu_lat) <= -(alpha + 1)*alu_lat*one_warp
    #          <=> n >= (alpha + 1)*alu_lat*one_warp/((alpha + 1)*alu_lat - mem_lat)   (the slope is negative)
    by_hand = (alpha + 1) * alu_lat * one_warp / ((alpha + 1) * alu_lat - mem_lat)
    assert sympy.simplify(hidden_bound.result - by_hand) == 0
    relation = hidden_bound.extra.relation
    assert isinstance(relation, sympy.GreaterThan) and relation.lhs == n
    assert derive.expect_holds(hidden_bound) is True


def test_multiplying_by_the_positive_denominator_is_a_recorded_step(hidden_bound):
    step = next(s for s in hidden_bound.steps if s.operation == "multiply by the denominator")
    assert step.justification == "n > 0, so multiplying by n keeps the direction"
    assert isinstance(step.expression, sympy.LessThan)  # the direction of "<= 0" is kept


def test_the_exposed_latency_changes_sign_at_the_solved_bound(volkov, hidden_bound):
    values = volkov.preset("g80")
    mem_lat, alu_lat = values["mem_lat"].to("cycle").magnitude, values["alu_lat"].to("cycle").magnitude
    boundary = (ALPHA + 1) * alu_lat / ((ALPHA + 1) * alu_lat - mem_lat)  # warp/SM, computed from the preset here
    symbols = volkov.symbols
    solved = hidden_bound.result.xreplace({symbols["alpha"]: ALPHA, symbols["alu_lat"]: alu_lat,
                                           symbols["mem_lat"]: mem_lat, symbols["one_warp"]: 1})
    assert float(solved) == pytest.approx(boundary, rel=1e-12)
    # the latency branch applies there: n < alu_lat*alu_thru
    assert boundary < alu_lat * values["alu_thru"].magnitude
    below = volkov.evaluate("exposed_latency", preset="g80", values={"n": boundary * 0.999, "alpha": ALPHA})
    at = volkov.evaluate("exposed_latency", preset="g80", values={"n": boundary, "alpha": ALPHA})
    above = volkov.evaluate("exposed_latency", preset="g80", values={"n": boundary * 1.001, "alpha": ALPHA})
    assert below.to("cycle").magnitude > 0  # exposed: the solved relation n >= bound fails
    assert abs(at.to("cycle").magnitude) < 1e-9 * mem_lat
    assert above.to("cycle").magnitude < 0  # hidden: n >= bound holds


def test_a_denominator_of_unknown_sign_is_refused_with_a_request_for_an_assumption(volkov):
    with pytest.raises(errors.DerivationError, match=r"denominator alu_lat\*n - mem_lat\*one_warp needs its sign.*assume"):
        volkov.solve("exposed_latency", "n", target="0", relation="<=", stop_at=["arithmetic_time"],
                     substitute={"arithmetic_time": "alu_lat/(n - mem_lat*one_warp/alu_lat)"})


@pytest.mark.parametrize("assume", [
    ["(alpha + 1)*alu_lat > mem_lat", "alu_lat*n - mem_lat*one_warp > 0"],
    # the other order: the later assumption rewrites mem_lat inside the positive recorded first
    ["alu_lat*n - mem_lat*one_warp > 0", "(alpha + 1)*alu_lat > mem_lat"],
])
def test_the_assumption_asked_for_lets_the_same_relation_be_solved_in_either_order(volkov, assume):
    derivation = volkov.solve("exposed_latency", "n", target="0", relation="<=", stop_at=["arithmetic_time"],
                              substitute={"arithmetic_time": "alu_lat/(n - mem_lat*one_warp/alu_lat)"}, assume=assume)
    mem_lat, alu_lat, alpha, n, one_warp = (volkov.symbols[k] for k in ("mem_lat", "alu_lat", "alpha", "n", "one_warp"))
    # by hand, times alu_lat*n - mem_lat*one_warp (> 0): mem_lat*(alu_lat*n - mem_lat*one_warp) <= (alpha + 1)*alu_lat**2*(n - one_warp)
    #   <=> n*alu_lat*(mem_lat - (alpha + 1)*alu_lat) <= mem_lat**2*one_warp - (alpha + 1)*alu_lat**2*one_warp
    relation = derivation.extra.relation
    slope = alu_lat * (mem_lat - (alpha + 1) * alu_lat)
    offset = mem_lat**2 * one_warp - (alpha + 1) * alu_lat**2 * one_warp
    #   <=> n >= offset/slope (the slope is negative under the second assumption)
    assert isinstance(relation, sympy.GreaterThan) and relation.lhs == n
    assert sympy.simplify(relation.rhs - offset / slope) == 0


@pytest.mark.parametrize("kind", ["MAX", "maximum", "Min", ""])
def test_a_kind_other_than_max_or_min_is_refused_not_ignored(volkov, kind):
    # before, kind="MAX" answered the inequality's bound as if no kind were given (an outside
    # tester's finding: the smallest admissible value printed where the largest was asked for)
    with pytest.raises(errors.UsageError, match="must be 'max' or 'min'"):
        volkov.solve("Latency", for_="mem_lat", target=300, relation="<=", kind=kind)


def test_a_kind_without_an_inequality_is_refused_not_ignored(volkov):
    with pytest.raises(errors.UsageError, match="give relation too"):
        volkov.solve("Latency", for_="mem_lat", target=300, kind="max")
