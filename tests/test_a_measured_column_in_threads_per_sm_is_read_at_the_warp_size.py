"""``measured`` and ``fit`` read an input column given in a unit a rate relates to its symbol's, as ``eval --set`` reads
such a value: ``n [thread/SM]`` for Volkov's n in warp/SM, at the model's warp size (32 thread/warp), said in the
output; it was refused as another dimension (a fresh-question audit's finding). The second path: the same data with
the column in warp/SM (each value 1/32 of the thread count) gives the same comparison, number for number."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.conftest import REPO

DATA = REPO / "data" / "h100" / "stream_read_vs_warps_model.csv"


def _in_threads(path: Path) -> Path:
    """The data file with its ``n [warp/SM]`` column written in thread/SM (each value times 32, exact in doubles)."""
    rows = list(csv.reader(io.StringIO("".join(line for line in DATA.read_text(encoding="utf-8").splitlines(True) if not line.startswith("#")))))
    k = rows[0].index("n [warp/SM]")
    rows[0][k] = "n [thread/SM]"
    for row in rows[1:]:
        row[k] = repr(float(row[k]) * 32)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_a_thread_per_sm_column_gives_the_comparison_its_warp_per_sm_twin_gives(cli, tmp_path: Path) -> None:
    ask = ("measured", "volkov_2016_ilp", "dram_throughput", "--preset", "h100_fit_alpha0", "--where", "alpha=0", "--json")
    code, out, err = cli(*ask[:3], "--data", str(_in_threads(tmp_path / "threads.csv")), *ask[3:])
    assert code == 0, err
    code, twin, err = cli(*ask[:3], "--data", str(DATA), *ask[3:])
    assert code == 0, err
    assert json.loads(out)["points"] == json.loads(twin)["points"]  # n read as n/32 warp/SM: the same inputs and model values
    code, out, err = cli(*ask[:3], "--data", str(tmp_path / "threads.csv"), *ask[3:-1])
    assert code == 0 and "  column n [thread/SM] read in warp/SM at warp size simd_width = 32 thread / warp\n" in out, (out, err)


def test_a_thread_per_sm_column_is_refused_where_the_warp_size_is_a_column_too(cli, tmp_path: Path) -> None:
    # the warp size varying from row to row: no one rate reads n's column; refused in one line naming both columns
    path = _in_threads(tmp_path / "threads.csv")
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    rows[0].append("simd_width [thread/warp]")
    for row in rows[1:]:
        row.append("32")
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    code, out, err = cli("measured", "volkov_2016_ilp", "dram_throughput", "--data", str(path), "--preset", "h100_fit_alpha0",
                         "--where", "alpha=0")
    assert code == 2 and out == "", (out, err)
    assert "column 'n [thread/SM]'" in err and "simd_width is a column of the data: give 'n' in warp/SM" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
