"""A staircase's extremum over a grid (occupancy over the block size) is given as the exact number it is (``1``,
``1/2``), not as a 15-digit float (``1.00000000000000``). The expected values are CUDA occupancy by hand for CC 8.0
with 32 registers per thread and no shared memory (no register or shared-memory limit binds there: 1,024 registers
per warp, 64 warps' worth per SM): min(32 blocks, floor(64 warps / w)) * w / 64 with w = ceil(t/32) warps per block."""

from __future__ import annotations

from fractions import Fraction
import math

import pytest
import sympy

import symgpu
from symgpu.derive import grid_search

POINT = {"regs_per_thread": 32, "smem_per_block": 0}
GRID = range(32, 1025, 32)


def occupancy_by_hand(threads: int) -> Fraction:
    warps = math.ceil(threads / 32)
    return Fraction(min(32, 64 // warps) * warps, 64)


@pytest.fixture(scope="module")
def occupancy_model() -> symgpu.Model:
    return symgpu.load("occupancy")


@pytest.mark.parametrize("kind", ["max", "min"])
def test_the_grid_extremum_of_occupancy_is_the_exact_rational_at_every_tied_block_size(occupancy_model, kind):
    found = grid_search.grid_extremum(occupancy_model, "occupancy", "threads_per_block", "32:1024:32", kind, preset="cc_8_0", values=POINT)
    values = {t: occupancy_by_hand(t) for t in GRID}
    best = max(values.values()) if kind == "max" else min(values.values())
    assert isinstance(found.result, sympy.Rational) and found.result == sympy.Rational(best.numerator, best.denominator)
    assert sympy.sstr(found.result) == ("1" if kind == "max" else "1/2")
    assert tuple(found.location) == tuple(sympy.Integer(t) for t, v in values.items() if v == best)


def test_the_command_line_prints_the_exact_extremum_of_a_staircase(cli):
    code, out, err = cli("extremum", "occupancy", "occupancy", "--over", "threads_per_block", "--max", "-p", "cc_8_0",
                         "--set", "regs_per_thread=32", "--set", "smem_per_block=0", "--grid", "32:1024:32")
    assert code == 0, err
    assert "  result: 1\n" in out and "1.0000" not in out
