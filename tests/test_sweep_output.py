"""Sweep output: Parquet with units in the metadata, CSV with units in the headers, atomic
writes (an interrupted sweep leaves no file), the dask engine on a 2-worker LocalCluster, the
``symgpu sweep`` / ``symgpu plot`` commands."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import errors
from symgpu.cli import main
from symgpu.sweep import build_plan, readers, sweep, writers
from symgpu.sweep.run import Chunk, iter_chunks

PRESET = "table2_example"
GRID = ["Active_blocks_per_SM=1:8", "Mem_LD=100:1000:50"]
needs_pyarrow = pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="pyarrow not installed")


@pytest.fixture(scope="module")
def hk() -> symgpu.api.Model:
    return symgpu.load("hong_kim_2009")


def test_csv_has_units_in_headers_and_round_trips(hk: symgpu.api.Model, tmp_path: Path) -> None:
    plan = build_plan(hk, ["Exec_cycles_app", "MWP"], preset=PRESET, grid=GRID)
    summary = writers.write(plan, tmp_path / "s.csv", chunk_size=10)
    header = (tmp_path / "s.csv").read_text().splitlines()[0]
    assert header == "Active_blocks_per_SM [block/SM],Mem_LD [cycle],Exec_cycles_app [cycle],MWP [warp/SM],regime"
    table = readers.read(tmp_path / "s.csv")
    memory = sweep(hk, ["Exec_cycles_app", "MWP"], preset=PRESET, grid=GRID)
    assert summary.points == 8 * 19
    for name in ("Exec_cycles_app", "MWP", "Mem_LD"):
        np.testing.assert_array_equal(table.columns[name], memory.columns[name])
    assert table.regime is not None and (table.regime == memory.regime_names()).all()


@needs_pyarrow
def test_parquet_carries_units_and_the_sweep_description(hk: symgpu.api.Model, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID)
    writers.write(plan, tmp_path / "s.parquet", chunk_size=7)
    schema = pq.read_schema(tmp_path / "s.parquet")
    assert schema.field("Mem_LD").metadata[b"unit"] == b"cycle"
    assert schema.field("Exec_cycles_app").metadata[b"unit"] == b"cycle"
    described = json.loads(schema.metadata[writers.METADATA_KEY])
    assert described["preset"] == PRESET and described["grid"] == GRID and described["regime_of"] == "Exec_cycles_app"
    table = readers.read(tmp_path / "s.parquet")
    memory = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=GRID)
    np.testing.assert_array_equal(table.columns["Exec_cycles_app"], memory.columns["Exec_cycles_app"])
    assert table.regime is not None and (table.regime == memory.regime_names()).all()


@pytest.mark.parametrize("fmt", ["csv", pytest.param("parquet", marks=needs_pyarrow)])
def test_interrupted_write_leaves_no_file_and_keeps_the_old_one(hk: symgpu.api.Model, tmp_path: Path, fmt: str) -> None:
    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID)
    target = tmp_path / f"s.{fmt}"
    target.write_text("old\n")

    def interrupted() -> "list[Chunk]":
        for number, chunk in enumerate(iter_chunks(plan, chunk_size=5)):
            if number == 3:
                raise KeyboardInterrupt
            yield chunk

    with pytest.raises(KeyboardInterrupt):
        writers.write_chunks(plan, interrupted(), target, fmt)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"s.{fmt}"]


@needs_pyarrow
def test_parquet_regime_column_is_a_dictionary_of_labels_with_nulls_where_no_regime_applies() -> None:
    column = writers.regime_array(np.array([1, -1, 0, 1], dtype=np.int16), ("latency_bound", "memory_bound"))
    assert column.to_pylist() == ["memory_bound", None, "latency_bound", "memory_bound"]
    whole = writers.regime_array(np.array([1, 0], dtype=np.int16), ("latency_bound", "memory_bound"))
    assert whole.null_count == 0 and whole.to_pylist() == ["memory_bound", "latency_bound"]


@needs_pyarrow
def test_parquet_regime_column_reads_as_names_and_is_counted_like_the_sweep_in_memory(hk: symgpu.api.Model, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID)
    summary = writers.write(plan, tmp_path / "s.parquet", chunk_size=7)
    memory = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=GRID)
    names = list(memory.regime_names())
    assert pq.read_table(tmp_path / "s.parquet").column("regime").to_pylist() == names
    assert dict(summary.regimes) == {label: names.count(label) for label in set(names)}


@needs_pyarrow
def test_parquet_regime_column_reads_as_names_in_pandas(hk: symgpu.api.Model, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    import pyarrow.parquet as pq

    writers.write(build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID), tmp_path / "s.parquet", chunk_size=7)
    frame = pq.read_table(tmp_path / "s.parquet").to_pandas()
    assert list(frame["regime"].astype(str)) == list(sweep(hk, "Exec_cycles_app", preset=PRESET, grid=GRID).regime_names())


@needs_pyarrow
def test_parquet_keeps_statistics_for_number_columns_only(hk: symgpu.api.Model, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID)
    writers.write(plan, tmp_path / "s.parquet", chunk_size=40)
    meta = pq.ParquetFile(tmp_path / "s.parquet").metadata
    for group in range(meta.num_row_groups):
        kept = {meta.row_group(group).column(i).path_in_schema: meta.row_group(group).column(i).statistics is not None
                for i in range(meta.num_columns)}
        assert kept == {"Active_blocks_per_SM": True, "Mem_LD": True, "Exec_cycles_app": True, "regime": False}


def test_unknown_suffix_is_refused() -> None:
    with pytest.raises(errors.UsageError, match=r"^-o 'out\.txt': name a \.parquet or \.csv file, or give --format$"):
        writers.format_of("out.txt")


@needs_pyarrow
@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed not installed")
def test_dask_engine_on_a_two_worker_local_cluster_equals_the_local_sweep(hk: symgpu.api.Model, tmp_path: Path) -> None:
    from symgpu.sweep import distributed

    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID)
    summary = distributed.write_dask(plan, tmp_path / "parts", chunk_size=40, workers=2)
    assert summary.points == 8 * 19
    assert len(list((tmp_path / "parts").glob("part-*.parquet"))) == 4  # ceil(152 / 40)
    table = readers.read(tmp_path / "parts")
    memory = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=GRID)
    np.testing.assert_allclose(table.columns["Exec_cycles_app"], memory.columns["Exec_cycles_app"], rtol=1e-12)
    assert table.regime is not None and (table.regime == memory.regime_names()).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parts"]


def test_cli_sweep_writes_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, figure = tmp_path / "s.csv", tmp_path / "s.svg"
    code = main(["sweep", "hong_kim_2009", "Exec_cycles_app", "-p", PRESET, "--grid", "Mem_LD=100:1000:10",
                 "-o", str(out), "--plot", str(figure)])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"91 points of Exec_cycles_app written to {out} (csv, ")
    assert "regimes of Exec_cycles_app: eq23 " in printed
    assert figure.read_bytes().startswith(b"<?xml")


def test_cli_plot_of_a_two_axis_sweep(tmp_path: Path) -> None:
    out, figure = tmp_path / "s.csv", tmp_path / "map.png"
    assert main(["sweep", "hong_kim_2009", "Exec_cycles_app", "-p", PRESET, "-g", GRID[0], "-g", GRID[1], "-o", str(out)]) == 0
    assert main(["plot", str(out), "-o", str(figure)]) == 0
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_bad_grid_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", "hong_kim_2009", "Exec_cycles_app", "-p", PRESET, "--grid", "Mem_LD=9:1", "-o", str(tmp_path / "s.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "symgpu: error: --grid 'Mem_LD=9:1': STOP is smaller than START\n"
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("labels", [3, 40])  # counted label by label, and by bincount
def test_regime_counts_are_those_of_a_count_by_hand(labels: int) -> None:
    codes = np.random.default_rng(labels).integers(-1, labels, 5000).astype(np.int16)
    expected = [sum(1 for c in codes.tolist() if c == k) for k in range(labels)] + [sum(1 for c in codes.tolist() if c == -1)]
    assert writers.code_counts(codes, labels + 1).tolist() == expected
    assert writers.code_counts(np.abs(codes), labels + 1).tolist()[-1] == 0


@needs_pyarrow
def test_a_regime_code_outside_the_labels_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^regime codes -1\.\.2 outside -1\.\.1$"):
        writers.regime_array(np.array([0, -1, 2], dtype=np.int16), ("a", "b"))


def _sweep_file(path: Path, regime) -> Path:  # type: ignore[no-untyped-def]
    import pyarrow as pa
    import pyarrow.parquet as pq

    metadata = {writers.METADATA_KEY: json.dumps({"units": {"n": "1"}}).encode()}
    table = pa.table({"n": pa.array([1.0, 2.0, 3.0]), "regime": regime}).replace_schema_metadata(metadata)
    pq.write_table(table, path)
    return path


@needs_pyarrow
@pytest.mark.parametrize("kind", ["dictionary", "text"])
def test_reading_a_regime_column_gives_its_labels_and_empty_text_for_nulls(tmp_path: Path, kind: str) -> None:
    import pyarrow as pa

    labels = ["b_bound", None, "a_bound"]
    column = pa.array(labels).dictionary_encode() if kind == "dictionary" else pa.array(labels)
    table = readers.read(_sweep_file(tmp_path / "s.parquet", column))
    assert table.regime is not None and table.regime.tolist() == ["b_bound", "", "a_bound"]


@needs_pyarrow
def test_reading_a_folder_whose_parts_have_different_dictionaries_gives_each_points_label(tmp_path: Path) -> None:
    import pyarrow as pa

    (tmp_path / "parts").mkdir()
    _sweep_file(tmp_path / "parts" / "part-000000.parquet", pa.array(["x", "y", "x"]).dictionary_encode())
    _sweep_file(tmp_path / "parts" / "part-000001.parquet", pa.array(["z", None, "y"]).dictionary_encode())
    table = readers.read(tmp_path / "parts")
    assert table.regime is not None and table.regime.tolist() == ["x", "y", "x", "z", "", "y"]
