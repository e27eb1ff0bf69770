"""An equality asked at a point on a staircase of the unknown's reciprocal (``floor(smem_sm/smem_block)``: blocks per SM
from shared memory) is answered with the range of roots where the staircase's step gives the target, not refused
("SymPy finds no closed form"; a newcomer's question, round 34g). The range is checked at and beside its ends.

Expected by brute force on ``Model.evaluate`` over smem_block = 0.01 .. 100 KiB/block (step 0.01) at H100's 228 KiB/SM,
32 block slots and 8 warps per block: warps_sm = 8*min(floor(228/smem_block), 32) is 40 exactly where
floor(228/smem_block) = 5, i.e. 38 < smem_block <= 45.6 (the grid's first and last hits 38.01 and 45.6; 38 itself gives
6 blocks, 48 warps).
"""

from __future__ import annotations

import numpy as np

import symgpu
from conftest import FIXTURES

#: a newcomer's model file (round 34g): shared memory in KiB, a case table and a floor
MY_TILE = FIXTURES / "my_tile.toml"
POINT = ("-p", "h100", "-s", "warps_per_block=8")


def test_the_equality_holds_on_the_step_that_gives_the_target(cli) -> None:  # type: ignore[no-untyped-def]
    tile = symgpu.load(MY_TILE)
    grid = np.round(np.arange(1, 10001) * 0.01, 2)
    warps = np.asarray(tile.evaluate("warps_sm", "h100", warps_per_block=8, smem_block=grid).magnitude)
    hits = grid[warps == 40]
    assert (hits.min(), hits.max(), len(hits)) == (38.01, 45.6, 760)  # one run of hits: the range is (38, 45.6]
    assert tile.evaluate("warps_sm", "h100", warps_per_block=8, smem_block=38).magnitude == 48
    code, out, err = cli("solve", MY_TILE, "warps_sm", "--for", "smem_block", "--target", "40", *POINT)
    assert code == 0, err
    assert "here that is every smem_block in (38, 45.6] KiB/block" in out
    assert "the relation holds at the 3 values of smem_block tested inside the answer's ranges (beside their ends and between), " \
           "at none of the 2 beside them outside" in out


def test_a_target_no_step_gives_holds_for_no_value(cli) -> None:  # type: ignore[no-untyped-def]
    # 8*k is never 41: no smem_block gives it
    code, out, err = cli("solve", MY_TILE, "warps_sm", "--for", "smem_block", "--target", "41", *POINT)
    assert code == 1
    assert "the relation holds for no smem_block" in err


def test_a_step_its_regime_excludes_gives_no_range_at_the_point(cli) -> None:  # type: ignore[no-untyped-def]
    # 256 warps: 32 blocks, the slots' regime (and no shared memory); the step floor(228/smem_block) = 32 lies in the
    # regime where the slots do not bind (max_blocks > floor(...)): it is empty here and not listed
    code, out, err = cli("solve", MY_TILE, "warps_sm", "--for", "smem_block", "--target", "256", *POINT)
    assert code == 0, err
    assert "floor(smem_sm/smem_block) = 32" not in out
    assert "holds for every smem_block where smem_block <= 0 (regime no_smem" in out
