"""An extremum located at a root of a polynomial with no radical form (a quintic's ``CRootOf``) is valued, not an
internal error: the evaluator read ``CRootOf`` as an unknown name in the compiled function (NameError; found by a
helper while mending round 13c F11). The expected peak is bisected in exact Fractions here."""

from __future__ import annotations

import re
from fractions import Fraction

from conftest import toy_header

QUINTIC = toy_header("quintic", "A quintic ridge", "A narrow peak where x - 2 meets 4.0005 - x^5/16.") + '''
[symbols]
x = { description = "phase length", unit = "1", assumptions = ["positive"] }
q = { description = "stall", unit = "1", role = "output" }

[[equations]]
id = "zz"
defines = "q"
rhs = "Min(x, 4.001 - x) + Max(0, 1000*Min(x - 2, 2.0005 - x**5/16 + 2))"
source = { ref = "toy2026", locator = "1" }

[presets.g]
description = "no values: x is the only symbol"
source = { ref = "toy2026", locator = "t" }
values = {}
'''


def _peak() -> tuple[float, float]:
    """Where x - 2 = 4.0005 - x^5/16 (125 x^5 + 2000 x - 12001 = 0) on [2, 3], bisected; there q = (4.001 - x) + 1000 (x - 2)."""
    lo, hi = Fraction(2), Fraction(3)
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 125 * mid**5 + 2000 * mid - 12001 < 0 else (lo, mid)
    return float(lo), float(4.001 - lo + 1000 * (lo - 2))


def test_a_maximum_at_a_quintics_root_is_valued_at_the_preset(cli, write_model) -> None:
    path = write_model(QUINTIC, name="quintic")
    code, out, err = cli("--no-cache", "extremum", path, "q", "--over", "x", "--max", "--preset", "g")
    assert code == 0, err
    value, at = (float(v) for v in re.search(r"value: ([0-9.]+) at x = ([0-9.]+)", out).groups())
    where, peak = _peak()
    assert abs(at - where) <= 1e-9 and abs(value - peak) <= 1e-9 * peak
