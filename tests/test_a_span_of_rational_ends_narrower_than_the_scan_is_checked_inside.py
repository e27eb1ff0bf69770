"""An inequality's solution set narrower than the check's scan whose ends are rationals with no short decimal
(Volkov's cusp: ``n_needed >= 53.46`` at maxwell holds for alpha in [5342/111, 70927/1473], 0.025 wide) was printed
right and then refused: "no admissible scanned value of alpha inside the answer's set ... is decided; ... please report
it" (an outside tester's finding, round 15b F1: the README's own example with the target moved near the optimum). Its
ends decide nothing in exact arithmetic (their doubles are not they), so points strictly inside it decide: the set is
now answered, and it is the set a bisection over ``Model.evaluate`` finds."""

from __future__ import annotations

import re
from fractions import Fraction

import symgpu


def _n_needed(alpha: float) -> float:
    return float(symgpu.load("volkov_2016").evaluate("n_needed", "maxwell", values={"alpha": alpha}).magnitude)


def _crossing(low: float, high: float, rising: bool) -> float:
    """Where n_needed passes 53.46 between ``low`` and ``high`` (bisection over Model.evaluate)."""
    for _ in range(60):
        mid = (low + high) / 2
        if (_n_needed(mid) >= 53.46) == rising:
            high = mid
        else:
            low = mid
    return (low + high) / 2


def test_a_span_of_rational_ends_is_answered_and_is_the_bisected_set(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--no-cache", "solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "53.46",
                         "--relation", ">=", "--preset", "maxwell")
    assert code == 0, err
    ends = re.search(r"result: \((\d+)/(\d+) <= alpha\) & \(alpha <= (\d+)/(\d+)\)", out)
    assert ends, out
    low, high = Fraction(int(ends[1]), int(ends[2])), Fraction(int(ends[3]), int(ends[4]))
    assert abs(float(low) - _crossing(40.0, 48.14, rising=True)) < 1e-9   # n_needed rises to its cusp near 48.14 ...
    assert abs(float(high) - _crossing(48.15, 60.0, rising=False)) < 1e-9  # ... and falls after it
    assert _n_needed(float((low + high) / 2)) > 53.46 and _n_needed(float(low) - 1e-3) < 53.46 and _n_needed(float(high) + 1e-3) < 53.46
    assert "own 3 point(s) in exact arithmetic" in out  # its three quarters; neither end is a double
