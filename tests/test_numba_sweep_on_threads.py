"""A local numba sweep runs its loop on several threads, each on a box of consecutive points
(:func:`symgpu.sweep.fused.split`); the columns, regime codes and near-tie flags are those of one thread,
bit for bit."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import symgpu
from symgpu.sweep import backends, fused
from symgpu.sweep import run as sweep_run
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.plan import build_plan


def _flat(shape: tuple[int, ...], bounds: tuple[tuple[int, int], ...]) -> list[int]:
    """The flat (C order) indices of a box, by enumeration."""
    return [int(np.ravel_multi_index(index, shape)) if shape else 0 for index in itertools.product(*(range(lo, hi) for lo, hi in bounds))]


@pytest.mark.parametrize("seed", range(40))
def test_a_box_is_cut_into_parts_of_consecutive_points_that_cover_it_once(seed: int) -> None:
    rng = random.Random(seed)
    shape = tuple(rng.randint(1, 7) for _ in range(rng.randint(1, 4)))
    grid = Grid(tuple(Axis(f"x{k}", np.arange(n, dtype=float), f"x{k}") for k, n in enumerate(shape)))
    start = rng.randrange(grid.size)
    stop = rng.randint(start + 1, grid.size)
    parts_wanted = rng.randint(1, 5)
    for first, bounds in grid.boxes(start, stop):
        box = _flat(shape, bounds)
        assert box == list(range(first, first + len(box)))  # a grid's box: consecutive points (what split relies on)
        parts = fused.split(first, bounds, parts_wanted)
        assert 1 <= len(parts) <= parts_wanted
        covered: list[int] = []
        for part_first, part_bounds in parts:
            points = _flat(shape, part_bounds)
            assert points == list(range(part_first, part_first + len(points)))
            covered += points
        assert covered == box


def test_a_box_is_cut_only_where_it_is_large_and_there_are_threads() -> None:
    small, large = ((0, 2), (0, 100)), ((0, 64), (0, 4096))  # 200 points; 2**18 points
    assert fused.pieces(small, 4) == 1 and fused.pieces(large, 1) == 1
    assert fused.pieces(large, 2) == 2 * fused.PARTS_PER_THREAD
    assert len(fused.split(0, large, fused.pieces(large, 2))) == 2 * fused.PARTS_PER_THREAD


@pytest.mark.parametrize("threads", [2, 3])
def test_a_hong_kim_sweep_on_threads_equals_one_thread_bit_for_bit(threads: int) -> None:
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    model = symgpu.load("hong_kim_2009")
    # 8 x 125 x 100 = 100,000 points (above SPLIT_POINTS): MWP == N ties, both equations and the regime column
    plan = build_plan(model, ["Exec_cycles_app"], preset="table2_example",
                      grid=["Active_blocks_per_SM=1:8", "Comp_insts=10:1250:10", "Mem_LD=100:1090:10"])
    assert plan.grid.size == 100_000 > fused.SPLIT_POINTS and plan.regime is not None
    runner = backends.load("numba")
    function = sweep_run.compile_plan(plan, runner)
    results = []
    for count in (1, threads):
        out = np.empty((len(plan.quantities), plan.grid.size))
        codes = np.empty(plan.grid.size, dtype=np.int16)
        outside, near = sweep_run._fused_run(plan, runner, function, 0, out, codes, count)
        results.append((out, codes, outside, near))
    (out1, codes1, outside1, near1), (out2, codes2, outside2, near2) = results
    assert np.array_equal(out1.view(np.int64), out2.view(np.int64))  # bit for bit, NaN included
    assert np.array_equal(codes1, codes2) and outside1 == outside2
    assert (near1 is None) == (near2 is None) and (near1 is None or np.array_equal(near1, near2))
    assert len(set(codes1.tolist())) > 1  # both regimes occur: the comparison covers each case's points
