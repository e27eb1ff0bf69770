"""Staircase quantities are maximised by exhaustive evaluation over an integer grid, ties kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import symgpu
from symgpu import cli, errors
from symgpu.derive import grid_search


def test_grid_extremum_finds_every_block_size_with_the_best_occupancy():
    occ = symgpu.load("occupancy")
    given = {"regs_per_thread": 40, "smem_per_block": 4096}
    d = grid_search.grid_extremum(occ, "active_warps_per_SM", "threads_per_block", "32:1024:32", "max", preset="cc_8_6", values=given)
    brute = {}
    for size in range(32, 1025, 32):
        brute[size] = occ.evaluate("active_warps_per_SM", preset="cc_8_6", threads_per_block=size, **given).magnitude
    best = max(brute.values())
    assert float(d.result) == pytest.approx(best)
    assert [int(x) for x in d.location] == [k for k, v in brute.items() if v == pytest.approx(best)]
    assert "exhaustive evaluation" in d.method


def test_points_outside_the_domain_are_skipped_and_counted(tmp_path):
    # a variant of the occupancy model whose active blocks are undefined above the maximum block size
    text = (Path(symgpu.__file__).parent.parent / "equations" / "occupancy.toml").read_text()
    anchor = 'limiters = { warp_limit = "blocks_warp_limit", block_limit'
    assert text.count(anchor) == 1
    text = text.replace(anchor, 'valid_when = ["threads_per_block <= max_threads_per_block"]\n' + anchor)
    path = tmp_path / "occupancy.toml"
    path.write_text(text)
    occ = symgpu.load(str(path))
    d = grid_search.grid_extremum(occ, "active_warps_per_SM", "threads_per_block", "256:1024:256", "max", preset="cc_1_3",
                             values={"regs_per_thread": 8, "smem_per_block": 0})
    assert d.extra.refused == 2  # 768 and 1024 exceed CC 1.3's 512 threads per block


def test_blocks_that_cannot_launch_count_as_zero_warps_in_the_bundled_model():
    occ = symgpu.load("occupancy")
    d = grid_search.grid_extremum(occ, "active_warps_per_SM", "threads_per_block", "256:1024:256", "max", preset="cc_1_3",
                             values={"regs_per_thread": 8, "smem_per_block": 0})
    assert d.extra.refused == 0
    # CC 1.3: 256 threads = 8 warps, 32 warp slots -> 4 blocks, 32 warps; 512 threads -> 2 blocks, 32 warps
    assert float(d.result) == 32 and [int(x) for x in d.location] == [256, 512]


@pytest.mark.parametrize("grid", ["1:x", "5:1", "1:5:0", "7"])
def test_malformed_grid_is_a_usage_error(grid):
    with pytest.raises(errors.UsageError, match=r"^grid '.*': expected START:STOP"):
        grid_search.parse_grid(grid)


def test_cli_extremum_with_grid_reports_location_and_value(capsys):
    code = cli.main(["extremum", "occupancy", "active_warps_per_SM", "--over", "threads_per_block", "--max",
                     "--grid", "32:1024:32", "--preset", "cc_8_6", "--set", "regs_per_thread=40", "--set", "smem_per_block=4096 B/block", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    data = json.loads(out)
    assert data["unit"] == "warp/SM" and isinstance(data["location_value"], list)
