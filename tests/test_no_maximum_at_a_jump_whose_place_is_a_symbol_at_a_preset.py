"""A case table that jumps down where ``x = s`` (``k*x`` below ``s``, ``Min(a, h*(x - s) + k*s/2)`` from ``s`` on): at a
preset where ``k*s`` beats ``a`` the quantity approaches ``k*s`` as ``x -> s`` from below and never reaches it, so it has
no maximum. At a preset the jump's edge was not a candidate (only at a literal place, or in symbols), the answer was the
plateau ``a`` and its check refused: "check failed ... please report it" (an outside tester's finding, round 14b F6, shD fj
at p1, p3, p4). Expected values worked out by hand here, in Fractions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from conftest import assert_one_line_refusal, toy_header

MODEL = toy_header("jump", "A jump at a symbol", "A rising line that drops to a plateau where x = s.") + """
[symbols.x]
description = "length"
unit = "1"
assumptions = ["positive"]

[symbols.a]
description = "plateau"
unit = "1"
assumptions = ["positive"]

[symbols.h]
description = "slope after the jump"
unit = "1"
assumptions = ["positive"]

[symbols.s]
description = "where it jumps"
unit = "1"
assumptions = ["positive"]

[symbols.k]
description = "slope before the jump"
unit = "1"
assumptions = ["positive"]

[symbols.fj]
description = "fj"
unit = "1"
role = "output"

[[equations]]
id = "jp"
defines = "fj"
cases = [
  { id = "lo", when = "x < s", value = "k*x" },
  { id = "hi", when = "otherwise", value = "Min(a, h*(x - s) + k*s/2)" },
]
source = { ref = "toy2026", locator = "1" }

[presets.p1]
description = "k*s beats a"
source = { ref = "toy2026", locator = "t" }
[presets.p1.values]
a = "10"
h = "1000"
s = "20"
k = "2"

[presets.p4]
description = "k*s beats a, a gentle slope"
source = { ref = "toy2026", locator = "t" }
[presets.p4.values]
a = "10"
h = "3"
s = "4"
k = "3"

[presets.p2]
description = "a beats k*s"
source = { ref = "toy2026", locator = "t" }
[presets.p2.values]
a = "10"
h = "1000"
s = "5"
k = "2"
"""


@pytest.mark.parametrize("preset, k, s", [("p1", 2, 20), ("p4", 3, 4)])
def test_the_supremum_at_the_jump_is_no_maximum(cli, write_model, preset, k, s) -> None:  # type: ignore[no-untyped-def]
    # below s the line k*x rises to k*s (40; 12), beyond the plateau a = 10; at x = s the other case gives min(a, k*s/2), below k*s
    assert k * s > 10 and min(Fraction(10), Fraction(k * s, 2)) < k * s
    path = write_model(MODEL, name="jump")
    code, out, err = cli("--no-cache", "extremum", str(path), "fj", "--over", "x", "--max", "--preset", preset)
    assert_one_line_refusal(code, out, err, "no maximum", f"tends to {k * s} as x -> {s}")
    assert "check failed" not in err


def test_where_the_plateau_beats_the_jump_the_maximum_is_its_start(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # at p2 k*s = 10 = a: after the jump h*(x - s) + k*s/2 = 1000*(x - 5) + 5 reaches a = 10 at x = 5 + 5/1000
    path = write_model(MODEL, name="jump")
    code, out, err = cli("--no-cache", "extremum", str(path), "fj", "--over", "x", "--max", "--preset", "p2")
    assert code == 0, err
    start = 5 + Fraction(5, 1000)
    assert f"value: 10 at x = {float(start):g}" in out
