"""An inequality asked at a point whose answer is a set, or a largest/smallest value read from that set
(outside tester round 10b, F6, F10, F12): answered and checked, not refused.

Expected values by brute force over Model.evaluate (a dense scan, a bisection on the evaluate path), never
taken from the answer.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import symgpu

IA = ("interval_analysis", "P_K0", "--for", "N", "--target", "1000 thread", "--preset", "gtx1080", "--substitute", "M=N")


def _p_k0(model: symgpu.Model, n: float) -> float:
    return float(model.evaluate("P_K0", "gtx1080", values={"N": n, "M": n}).magnitude)


def _p_k0_crossings() -> tuple[float, float]:
    """Where P_K0 (M = N) equals 1000 thread, bisected on the evaluate path on each side of its minimum: it falls from
    1704.9 at N = 6 (the domain's low end, N >= L_F/t_issue) below 1000 and rises to 18549 at N = 800 (its high end,
    L_M >= N*t_issue/2), checked at the scan below."""
    model = symgpu.load("interval_analysis")
    grid = np.linspace(6, 800, 795)
    values = np.array([_p_k0(model, float(n)) for n in grid])
    below = grid[values <= 1000]
    assert len(below) and np.all(np.diff(below) == grid[1] - grid[0])  # one run of the scan: one interval
    ends = []
    for lo, hi in ((6.0, float(below[0])), (float(below[-1]), 800.0)):
        rising = _p_k0(model, hi) > _p_k0(model, lo)
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if (_p_k0(model, mid) > 1000) == rising else (mid, hi)
        ends.append((lo + hi) / 2)
    return ends[0], ends[1]


@pytest.mark.parametrize("relation, kind, expected", [("<=", "max", "high"), ("<=", "min", "low"), (">=", "max", 800.0), (">=", "min", 6.0)])
def test_a_convex_quantity_with_two_crossings_gives_the_ends_of_its_one_interval(cli: Any, relation: str, kind: str, expected: Any) -> None:
    # F12: the refusal claimed "holds on several intervals"; P_K0 <= 1000 holds on one, [14.366, 27.843] (the tester's numpy
    # scan), and P_K0 >= 1000 on [6, 14.366] and [27.843, 800], whose ends 6 and 800 are the valid_when domain's
    low, high = _p_k0_crossings()
    want = {"low": low, "high": high}.get(expected, expected)
    code, out, err = cli("solve", *IA, "--relation", relation, "--kind", kind, "--json")
    assert code == 0, out + err
    assert json.loads(out)["value"] == pytest.approx(want, rel=1e-9)
