"""An inequality's solution set narrower than the check's scan (a single point ``{6}``, a span ``[5.00004, 5.00006]``)
was computed right and then refused: "no admissible scanned value ... inside the answer's set ... is decided" (an
outside tester's finding, round 14b F7). The check now decides the set's own points (the point; a span's closed ends
and quarters) in exact arithmetic. The expected sets are worked out by hand here, in Fractions."""

from __future__ import annotations

import math
from fractions import Fraction

from conftest import toy_header


MODEL = toy_header("narrow", "Narrow sets", "Inequalities whose solution set is a point or a narrow span.") + """
[symbols.x]
description = "length"
unit = "1"
assumptions = ["positive"]

[symbols.fe]
description = "a floor beside a falling line"
unit = "1"
role = "output"

[symbols.f2]
description = "a narrow tooth"
unit = "1"
role = "output"

[[equations]]
id = "e1"
defines = "fe"
rhs = "Min(floor(x/3)*3, 10 - x)"
source = { ref = "toy2026", locator = "1" }

[[equations]]
id = "e2"
defines = "f2"
rhs = "Min(x, 1) + Max(0, 10000*Min(x - 5, 5.0001 - x))"
source = { ref = "toy2026", locator = "2" }

[presets.p]
description = "nothing to give"
source = { ref = "toy2026", locator = "t" }
[presets.p.values]
"""


def _fe(x: Fraction) -> Fraction:
    return min(math.floor(x / 3) * 3, 10 - x)


def _f2(x: Fraction) -> Fraction:
    return min(x, Fraction(1)) + max(Fraction(0), 10000 * min(x - 5, Fraction(50001, 10000) - x))


def test_a_one_point_solution_set_is_answered_and_checked_at_the_point(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # floor(x/3)*3 >= 4 needs x >= 6, 10 - x >= 4 needs x <= 6: the set is {6}, where fe = 4 exactly
    assert _fe(Fraction(6)) == 4 and _fe(Fraction(6) - Fraction(1, 10**9)) < 4 and _fe(Fraction(6) + Fraction(1, 10**9)) < 4
    path = write_model(MODEL, name="narrow")
    code, out, err = cli("--no-cache", "solve", str(path), "fe", "--for", "x", "--target", "4", "--relation", ">=")
    assert code == 0, err
    assert "result: Eq(x, 6)" in out
    assert "at this point alone" in out and "own 1 point(s) in exact arithmetic" in out


def test_a_span_narrower_than_the_scan_is_answered_and_checked_at_its_ends_and_quarters(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # for x > 1: 1 + 10000*min(x - 5, 5.0001 - x) >= 1.4 needs x - 5 >= 0.00004 and 5.0001 - x >= 0.00004
    low, high = 5 + Fraction(4, 100000), Fraction(50001, 10000) - Fraction(4, 100000)
    assert _f2(low) == Fraction(14, 10) and _f2(high) == Fraction(14, 10) and _f2((low + high) / 2) > Fraction(14, 10)
    path = write_model(MODEL, name="narrow")
    code, out, err = cli("--no-cache", "solve", str(path), "f2", "--for", "x", "--target", "1.4", "--relation", ">=")
    assert code == 0, err
    assert f"result: ({low.numerator}/{low.denominator} <= x) & (x <= {high.numerator}/{high.denominator})" in out
    assert "own 5 point(s) in exact arithmetic" in out  # both ends and the three quarters
