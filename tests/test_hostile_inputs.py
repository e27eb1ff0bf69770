"""Issue 30 (hangs, blow-ups, internal errors, silently accepted values): every new input surface is
bounded in size and time and refused in one line naming the file or option: sweep grids, measured
CSV cells, model files with hundreds of report entries, device files given as data, hostile Parquet
metadata, deep or binary metric mappings. Each case is bounded by a few seconds."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

import symgpu
from symgpu import errors
from symgpu.cli import main
from symgpu.kernel import mapping
from symgpu.measure import data

from conftest import FIXTURES

REPO = Path(__file__).resolve().parent.parent
MEASURED = ["measured", "volkov_2016_ilp", "dram_throughput", "--preset", "h100_fit_alpha0", "--data"]
SWEEP = ["sweep", "hong_kim_2009", "Exec_cycles_app", "-p", "table2_example"]
#: the most seconds one refusal may take: a hang guard, not a timing (they are all checks before any work;
#: a busy machine slows them several times over, so the guard is far above their usual second)
BUDGET = 60.0


def _refused(capsys, argv: list[str], *needles: str) -> str:
    begin = time.monotonic()
    code = main(argv)
    took = time.monotonic() - begin
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("symgpu: error: "), err
    assert "Traceback" not in err and "internal error" not in err, err
    assert all(n in err for n in needles), err
    assert took < BUDGET, f"refusal took {took:.1f} s"
    return err


# ---------------------------------------------------------------- sweeps
def test_a_grid_of_ten_to_the_twelve_points_is_refused_before_it_starts(tmp_path, capsys):
    _refused(capsys, [*SWEEP, "-g", "Mem_LD=1:1000000", "-g", "Active_blocks_per_SM=1:1000000", "-o", str(tmp_path / "s.csv")],
             "--grid", "points is too many", "at most 1000000000")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("workers", ["0", "-3"])
def test_dask_with_no_workers_is_refused_at_once(tmp_path, capsys, workers):
    _refused(capsys, [*SWEEP, "-g", "Mem_LD=1:10", "--engine", "dask", "--workers", workers, "-o", str(tmp_path / "parts")],
             "--workers", "1 to")


# ---------------------------------------------------------------- measured CSV cells
@pytest.mark.parametrize("cell, needle", [
    ("1" * 50_000 + "x", "characters"),             # made the number pattern backtrack (quadratic)
    ("1" * 5_000 + "." + "1" * 5_000 + "e", "characters"),
    ("1e999", "outside the range of a double"),      # overflowed to inf
    ("1e-999", "outside the range of a double"),     # underflowed to 0
    ("nan", "not a finite decimal number"),
    ("-inf", "not a finite decimal number"),
    ('"1,5"', "decimal point, not a comma"),
])
def test_a_hostile_number_cell_is_refused_quickly_naming_file_row_and_column(tmp_path, capsys, cell, needle):
    path = tmp_path / "m.csv"
    path.write_text(f"n [warp/SM],dram_throughput [GB/s]\n1,{cell}\n", encoding="utf-8")
    _refused(capsys, [*MEASURED, str(path)], f"{path}:2", "dram_throughput", needle)


def test_a_huge_csv_field_is_one_line_not_the_csv_modules_error(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text('n [warp/SM],dram_throughput [GB/s]\n1,"' + "9" * 200_000 + '"\n', encoding="utf-8")
    _refused(capsys, [*MEASURED, str(path)], str(path))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_as_measured_data_or_compiler_output_is_refused_at_once(capsys, device):
    _refused(capsys, [*MEASURED, device], device, "a device", "regular file")
    _refused(capsys, ["kernel", device, "-t", "128", "--cc", "cc_9_0"], device, "a device")


def test_a_named_pipe_as_data_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    pipe = tmp_path / "m.csv"
    os.mkfifo(pipe)
    _refused(capsys, [*MEASURED, str(pipe)], "named pipe")


# ---------------------------------------------------------------- model files with hundreds of report entries
@pytest.mark.parametrize("array, entry, limit", [
    ("plots", 'id = "p{i}"\ntitle = "t"\nx = "I"\ny = ["P"]\nranges = {{ I = "1:20" }}\n', 32),
    ("measurements", 'id = "m{i}"\ntitle = "t"\ndata = "x.csv"\nquantity = "P"\n', 16),
])
def test_hundreds_of_report_entries_are_refused_at_load_with_the_stated_limit(tmp_path, capsys, array, entry, limit):
    text = (FIXTURES / "tiny.toml").read_text(encoding="utf-8")
    text += "".join(f"\n[[{array}]]\n" + entry.format(i=i) for i in range(300))
    path = tmp_path / "tiny.toml"
    path.write_text(text, encoding="utf-8")
    _refused(capsys, ["eval", str(path), "P", "--preset", "toy", "--set", "I=10"], str(path), f"[[{array}]]",
             f"300 entries, more than the {limit}")


# ---------------------------------------------------------------- hostile sweep files given to plot
def _parquet(path: Path, metadata: bytes | None, column=None) -> Path:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"Mem_LD": column if column is not None else [1.0, 2.0, 3.0], "Exec_cycles_app": [4.0, 5.0, 6.0]})
    if metadata is not None:
        table = table.replace_schema_metadata({b"symgpu.sweep": metadata})
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("metadata, needle", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (json.dumps({"grid": ["Mem_LD=1:3"]}).encode(), "no 'units' table"),
    (json.dumps({"units": {"Mem_LD": ["cycle"]}}).encode(), "no 'units' table"),
    (json.dumps({"units": {}, "grid": "Mem_LD"}).encode(), "'grid' is not a list"),
    (json.dumps({"units": {}, "model": "\x1b[2J\u202e"}).encode(), "printable"),
    (b"\xff\xfe\x00binary", "not JSON"),
    (None, "no symgpu.sweep metadata"),
])
def test_plot_of_a_parquet_file_with_hostile_metadata_is_one_line(tmp_path, capsys, metadata, needle):
    path = _parquet(tmp_path / "s.parquet", metadata)
    _refused(capsys, ["plot", str(path), "-o", str(tmp_path / "p.svg")], str(path), needle)


def test_plot_of_a_parquet_file_with_a_text_column_is_one_line(tmp_path, capsys):
    path = _parquet(tmp_path / "s.parquet", json.dumps({"units": {}}).encode(), column=["a", "b", "c"])
    _refused(capsys, ["plot", str(path), "-o", str(tmp_path / "p.svg")], "'Mem_LD' is not numeric")


#: random bytes, the same in every run and every test worker (the test ids must not change between collections)
_NOISE = random.Random(20261127)


@pytest.mark.parametrize("name, raw", [pytest.param("bin.parquet", _NOISE.randbytes(4096), id="bin.parquet-random"),
                                       pytest.param("bin.csv", b"Mem_LD\n\xff\xfe\x00\n", id="bin.csv-not-UTF-8")])
def test_plot_of_binary_bytes_is_one_line(tmp_path, capsys, name, raw):
    path = tmp_path / name
    path.write_bytes(raw)
    _refused(capsys, ["plot", str(path), "-o", str(tmp_path / "p.svg")], str(path))


# ---------------------------------------------------------------- metric mappings
@pytest.mark.parametrize("raw, needle", [
    (b"schema_version = 1\nmodel = " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested too deeply"),
    (b"schema_version = 1\n\xff\xfe\x00\x01binary", "not UTF-8"),
    pytest.param(_NOISE.randbytes(2048), "", id="random-bytes"),
])
def test_a_deep_or_binary_metric_mapping_is_a_model_file_error_naming_it(tmp_path, raw, needle):
    path = tmp_path / "mapping.toml"
    path.write_bytes(raw)
    model = symgpu.load("hong_kim_2009")
    with pytest.raises(errors.ModelFileError) as caught:
        mapping.load(model, path)
    assert str(caught.value).startswith(str(path)) and needle in str(caught.value) and "\n" not in str(caught.value)


def test_a_device_as_metric_mapping_is_refused():
    with pytest.raises(errors.SymgpuError):
        mapping.load(symgpu.load("hong_kim_2009"), "/dev/zero")


def test_number_cells_within_range_still_read():
    read = data.parse_csv("n [1]\n2.5e3\n-1.\n.5\n0.0e-999\n1e308\n", "f.csv")
    assert read.columns[0].values == (2500.0, -1.0, 0.5, 0.0, 1e308)
