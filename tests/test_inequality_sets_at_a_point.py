"""An inequality asked at a point whose answer is a set, or a largest/smallest value read from that set
(outside tester round 10b, F6, F10, F12): answered and checked, not refused.

Expected values by brute force over Model.evaluate (a dense scan, a bisection on the evaluate path), never
taken from the answer.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify, checked
from symgpu.derive.certify_path import Asked

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


def _alpha_ends() -> tuple[float, float]:
    """Where Volkov's n_needed (preset maxwell) meets 50 warp/SM, bisected on the evaluate path: it is 49.98 at alpha = 41,
    above 50 between, 49.996 at alpha = 54.7 and tends to 24 (4 x 6) as alpha grows."""
    model = symgpu.load("volkov_2016")

    def n(a: float) -> float:
        return float(model.evaluate("n_needed", "maxwell", values={"alpha": a}).magnitude)

    grid = np.linspace(0, 200, 2001)
    above = grid[np.array([n(float(a)) >= 50 for a in grid])]
    assert len(above) and np.allclose(np.diff(above), grid[1] - grid[0])  # one run of the scan: one interval
    ends = []
    for lo, hi in ((float(above[0]) - 0.1, float(above[0])), (float(above[-1]), float(above[-1]) + 0.1)):
        rising = n(hi) > n(lo)
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if (n(mid) >= 50) == rising else (mid, hi)
        ends.append((lo + hi) / 2)
    return ends[0], ends[1]


def _set_ends(model: str, *args: str, **options: Any) -> list[float]:
    """The ends of the set a solve answers (through the API: the same derivation the command prints), interval by interval."""
    derivation = symgpu.load(model).solve(*args, **options)
    assert derivation.certificate is not None and derivation.certificate.checked, derivation.certificate
    found = derivation.extra.holds_for.as_set()
    parts = found.args if isinstance(found, sympy.Union) else (found,)
    return [float(e) for p in sorted(parts, key=lambda p: p.start) for e in (p.start, p.end)]


def test_an_inequality_holding_on_one_inner_interval_answers_the_interval(cli: Any) -> None:
    # F6: refused with exit 2 ("no single bound alpha REL b gives that set"). By hand: memory bound (368 + 6a) x 0.0814 = 50 at
    # a = 16704/407 = 41.042; issue bound 4 (368 + 6a)/(a + 1) = 50 at a = 711/13 = 54.692; the bisection says the same
    low, high = _alpha_ends()
    assert (low, high) == pytest.approx((16704 / 407, 711 / 13), rel=1e-9)
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "50", "--relation", ">=", "--preset", "maxwell", "--json")
    assert code == 0, out + err
    assert json.loads(out)["extra"]["holds_for"] == "(16704/407 <= alpha) & (alpha <= 711/13)"
    assert _set_ends("volkov_2016", "n_needed", "alpha", target="50", relation=">=", preset="maxwell") == pytest.approx([low, high], rel=1e-9)
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "50", "--relation", ">=", "--preset", "maxwell")
    assert code == 0 and "holds for every alpha where (16704/407 <= alpha) & (alpha <= 711/13) (at no other admissible alpha" in out, out + err


@pytest.mark.parametrize("relation", ["<=", ">="])
def test_an_inequality_crossing_twice_answers_its_set(cli: Any, relation: str) -> None:
    # F12 without --kind: P_K0 <= 1000 on [low, high]; P_K0 >= 1000 on [6, low] and [high, 800], the domain's ends
    low, high = _p_k0_crossings()
    want = [low, high] if relation == "<=" else [6.0, low, high, 800.0]
    code, out, err = cli("solve", *IA, "--relation", relation)
    assert code == 0 and "holds for every N where" in out, out + err
    assert _set_ends("interval_analysis", "P_K0", "N", target="1000 thread", relation=relation, preset="gtx1080",
                     substitute={"M": "N"}) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("end, moved", [(0, 1), (1, -1)])
def test_a_set_with_an_end_moved_off_the_true_one_fails_the_check(end: int, moved: int) -> None:
    model = symgpu.load("volkov_2016")
    right = checked.solve(model, "n_needed", "alpha", target=50, relation=">=", preset="maxwell")
    ends = [sympy.Rational(16704, 407), sympy.Rational(711, 13)]  # by hand, as above
    ends[end] += moved
    alpha = model.symbols["alpha"]
    wrong_set = (ends[0] <= alpha) & (alpha <= ends[1])
    wrong = dataclasses.replace(right, result=wrong_set, extra=right.extra.with_(holds_for=wrong_set), certificate=None)
    asked = Asked("solve", "n_needed", "alpha", preset="maxwell", target=50, relation=">=")
    with pytest.raises(errors.CertificateError, match=r"at alpha = [0-9.]+ the relation n_needed >= target (holds|fails), but the answer's set"):
        certify.certify(model, wrong, asked)


OCC = ("occupancy", "active_warps_per_SM", "--for", "threads_per_block", "--relation", ">=", "--target", "48", "-p", "cc_8_6",
       "-s", "regs_per_thread=40", "-s", "smem_per_block=4 KiB/block")


def _occupancy_holds() -> list[int]:
    """The integer threads_per_block (1..2048: past the device's 1024 a block cannot launch, 0 warps) where active_warps_per_SM
    >= 48 at cc_8_6 with 40 registers per thread and 4 KiB of shared memory per block, by brute force on the evaluate path."""
    model = symgpu.load("occupancy")
    values = {"regs_per_thread": 40, "smem_per_block": 4096}
    blocks = np.arange(1, 2049)
    warps = np.asarray(model.evaluate("active_warps_per_SM", "cc_8_6", values={**values, "threads_per_block": blocks}).magnitude)
    return [int(t) for t in blocks[warps >= 48]]


@pytest.fixture(scope="module")
def occupancy_holds() -> list[int]:
    return _occupancy_holds()


def _candidates(found: sympy.Set, low: int, high: int) -> list[int]:
    """The integers in low..high that may be in ``found``, in order: each interval part's floor(start)..ceiling(end), and
    every integer of the range where a part is not an interval (only integers no part can hold are left out)."""
    parts = found.args if isinstance(found, sympy.Union) else (found,)
    if not all(isinstance(part, sympy.Interval) for part in parts):
        return list(range(low, high + 1))
    kept: set[int] = set()
    for part in parts:
        first = low if part.start == -sympy.oo else max(low, int(sympy.floor(part.start)))
        last = high if part.end == sympy.oo else min(high, int(sympy.ceiling(part.end)))
        kept.update(range(first, last + 1))
    return sorted(kept)


@pytest.mark.parametrize("kind", ["min", "max"])
def test_a_staircase_product_bounded_by_a_case_gives_its_smallest_and_largest_block(cli: Any, kind: str, occupancy_holds: list[int]) -> None:
    # F10: refused ("no rule inverts the relation at the point"): ceiling(T/32)*floor(48/ceiling(T/32)) >= 48 is split step by
    # step inside the case T <= max_threads_per_block. By hand (the tester): warps = ceil(T/32), 48 warp slots: smallest 65
    # (3 warps x 16 blocks), largest 768 (24 warps x 2 blocks); the brute force says the same
    assert (occupancy_holds[0], occupancy_holds[-1]) == (65, 768)
    code, out, err = cli("solve", *OCC, "--kind", kind, "--json")
    assert code == 0, out + err
    assert json.loads(out)["value"] == (occupancy_holds[0] if kind == "min" else occupancy_holds[-1])


def test_a_staircase_product_bounded_by_a_case_gives_its_set_of_blocks(occupancy_holds: list[int]) -> None:
    derivation = symgpu.load("occupancy").solve("active_warps_per_SM", "threads_per_block", target="48", relation=">=", preset="cc_8_6",
                                                values={"regs_per_thread": 40, "smem_per_block": "4 KiB/block"})
    assert derivation.certificate is not None and derivation.certificate.checked, derivation.certificate
    found = derivation.extra.holds_for.as_set()
    assert [t for t in _candidates(found, 1, 2048) if found.contains(t) is sympy.true] == occupancy_holds
