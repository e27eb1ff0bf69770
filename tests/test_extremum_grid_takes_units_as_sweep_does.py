"""``extremum --grid`` reads numbers with a unit as ``sweep --grid`` does (``1KiB/block:64KiB/block:1KiB/block``, or the
same in B/block), converted exactly to the variable's declared unit, where it refused them ("whole numbers only"; a
newcomer's question, round 34g); a grid whose values are not whole in the declared unit is refused, saying what they
are there. Many tied grid points are folded on the value line (64 were listed whole).

Expected by brute force on ``Model.evaluate`` at every grid point (my_tile at H100, 8 warps per block):
warps_sm = 8*min(floor(228/smem_block), 32).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from conftest import FIXTURES

MY_TILE = FIXTURES / "my_tile.toml"
POINT = ("-p", "h100", "-s", "warps_per_block=8")


def _brute(kind: str) -> tuple[float, list[int]]:
    grid = np.arange(1, 65)
    warps = np.asarray(symgpu.load(MY_TILE).evaluate("warps_sm", "h100", warps_per_block=8, smem_block=grid.astype(float)).magnitude)
    best = warps.max() if kind == "max" else warps.min()
    return float(best), [int(g) for g in grid[warps == best]]


@pytest.mark.parametrize(("kind", "grid"), [("max", "1KiB/block:64KiB/block:1KiB/block"), ("min", "1024B/block:65536B/block:1024B/block")])
def test_a_grid_in_units_gives_the_brute_force_extremum(cli, kind: str, grid: str) -> None:  # type: ignore[no-untyped-def]
    best, where = _brute(kind)
    code, out, err = cli("extremum", MY_TILE, "warps_sm", "--over", "smem_block", f"--{kind}", "--grid", grid, *POINT)
    assert code == 0, err
    assert f"value: {best:.10g} warp/SM at smem_block = {', '.join(map(str, where))} KiB/block" in out


def test_a_grid_not_whole_in_the_declared_unit_is_refused_saying_its_values(cli) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("extremum", MY_TILE, "warps_sm", "--over", "smem_block", "--max", "--grid", "512B/block:4096B/block:512B/block", *POINT)
    assert code == 2
    assert "in smem_block's declared unit KiB/block that is 0.5, 1, 1.5, 2, …" in err


def test_many_tied_grid_points_are_folded_on_the_value_line(cli) -> None:  # type: ignore[no-untyped-def]
    # bare numbers are KiB/block: from 1024 up, floor(228/smem_block) = 0 everywhere, 64 tied points
    tied = np.arange(1024, 65537, 1024)
    warps = symgpu.load(MY_TILE).evaluate("warps_sm", "h100", warps_per_block=8, smem_block=tied.astype(float)).magnitude
    assert np.all(np.asarray(warps) == 0)
    code, out, err = cli("extremum", MY_TILE, "warps_sm", "--over", "smem_block", "--min", "--grid", "1024:65536:1024", *POINT)
    assert code == 0, err
    assert "value: 0 warp/SM at smem_block = 1024, 2048, …, 65536 (64 values, every 1024) KiB/block" in out
