"""Stored sweep plans (symgpu.sweep.replay, symgpu.sweep.program, symgpu.cli.sweep_replay): a
request run again writes the same file without importing SymPy or pint, a request the plan does
not answer takes the full path, and a stored plan that is not exactly what symgpu wrote is never
used."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grid_programs
import numpy as np
import pytest

import symgpu
from symgpu.cli import sweep_replay
from symgpu.sweep import backends, build_plan, chunks, program, replay
from symgpu.sweep.run import compile_plan

ROOT = Path(__file__).resolve().parent.parent
#: runs the command line in a fresh process and says whether SymPy and pint were imported
PROBE = ("import sys; from symgpu.cli import main; code = main(sys.argv[1:]); "
         "print('imported sympy', 'sympy' in sys.modules, 'pint', 'pint' in sys.modules); sys.exit(code)")

VOLKOV = ["volkov_2016", "memory_throughput", "-p", "maxwell"]
HONG_KIM = ["hong_kim_2009", "Exec_cycles_app", "-p", "table2_example"]
#: requests (without -o) and the file suffix: a Min regime with chunks that split rows, no regime
#: to CSV, a case table with a valid_when domain, no checks
REQUESTS = {
    "min regime, chunks across rows": (VOLKOV + ["-g", "n=1:40", "-g", "alpha=0:99", "--chunk-size", "1500"], ".parquet"),
    "no regime, csv": (VOLKOV + ["-g", "n=1:30", "-g", "alpha=0:49", "--regime-of", ""], ".csv"),
    "cases and a domain": (HONG_KIM + ["-g", "Active_blocks_per_SM=1:8", "-g", "Mem_LD=100:1000:50"], ".parquet"),
    "no checks": (HONG_KIM + ["-g", "Mem_LD=100:1000:10", "--no-checks", "--chunk-size", "7"], ".parquet"),
    # points near a case condition's tie, which the full run decides again in exact arithmetic (symgpu.sweep.settle_ties)
    "cases settled near a tie": ([str(ROOT / "tests" / "fixtures" / "decimal_tie.toml"), "q", "-p", "p", "-g",
                                  "z=0.3,0.30000000000000004,0.29999999999997,0.3000000000001,0.31", "--chunk-size", "2"], ".csv"),
}


def run_cli(args: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYMGPU_NO_CACHE"} | {"SYMGPU_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


def shown(stdout: str, path: Path) -> str:
    """The printed lines without the file's name and the seconds."""
    return re.sub(r"\d+\.\d\d s\)", "S s)", stdout.replace(str(path), "FILE"))


def same_file(first: Path, second: Path) -> None:
    if first.suffix == ".csv":
        assert first.read_text() == second.read_text()
        return
    import pyarrow.parquet as pq

    a, b = pq.read_table(first), pq.read_table(second)
    assert a.schema.equals(b.schema, check_metadata=True)
    assert a.schema.metadata == b.schema.metadata
    assert [f.metadata for f in a.schema] == [f.metadata for f in b.schema]
    assert a.equals(b)
    for name in a.column_names:  # bit for bit, NaN included
        left, right = a.column(name).combine_chunks(), b.column(name).combine_chunks()
        if name == "regime":
            assert left.indices.to_pylist() == right.indices.to_pylist() and left.dictionary.equals(right.dictionary)
        else:
            assert left.to_numpy().tobytes() == right.to_numpy().tobytes()
    assert pq.ParquetFile(first).metadata.num_row_groups == pq.ParquetFile(second).metadata.num_row_groups
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("name", list(REQUESTS))
def test_a_sweep_run_again_writes_the_same_file_from_its_stored_plan_without_sympy_or_pint(name: str, tmp_path: Path) -> None:
    args, suffix = REQUESTS[name]
    first, second = tmp_path / f"first{suffix}", tmp_path / f"second{suffix}"
    full = run_cli(["sweep", *args, "-o", str(first)], tmp_path / "cache")
    assert full.returncode == 0, full.stderr
    assert "imported sympy True" in full.stdout  # the first run: the full path
    again = run_cli(["sweep", *args, "-o", str(second)], tmp_path / "cache")
    assert again.returncode == 0, again.stderr
    assert "imported sympy False pint False" in again.stdout
    assert shown(again.stdout, second).replace("False pint False", "True pint True") == shown(full.stdout, first)
    same_file(first, second)


@pytest.fixture(scope="module")
def csv_plan_kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the plan of the "no regime, csv" request, kept by one full run (each test copies it)."""
    where = tmp_path_factory.mktemp("csv_plan")
    args, _ = REQUESTS["no regime, csv"]
    full = run_cli(["sweep", *args, "-o", str(where / "s.csv")], where / "cache")
    assert full.returncode == 0 and "imported sympy True" in full.stdout, full.stderr  # the plan is kept
    return where / "cache"


@pytest.mark.parametrize("where", ["missing/s.csv", "a_file/s.csv", "a_folder"])
def test_an_output_that_cannot_be_written_gets_the_full_paths_one_line_error_and_exit_code(where: str, tmp_path: Path,
                                                                                           csv_plan_kept: Path) -> None:
    args, _ = REQUESTS["no regime, csv"]
    shutil.copytree(csv_plan_kept, tmp_path / "cache")
    (tmp_path / "a_file").write_text("")
    (tmp_path / "a_folder").mkdir()
    target = str(tmp_path / where)
    again = run_cli(["sweep", *args, "--format", "csv", "-o", target], tmp_path / "cache")
    full = run_cli(["--no-cache", "sweep", *args, "--format", "csv", "-o", target], tmp_path / "cache")
    assert again.returncode == full.returncode == 2
    assert again.stderr == full.stderr and again.stderr.count("\n") == 1 and "Traceback" not in again.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "a_folder", "cache"]


def test_a_request_with_other_axes_takes_the_full_path_and_keeps_its_own_plan(tmp_path: Path) -> None:
    args = VOLKOV + ["-g", "n=1:20", "-g", "alpha=0:9"]
    assert run_cli(["sweep", *args, "-o", str(tmp_path / "a.csv")], tmp_path / "cache").returncode == 0
    other = VOLKOV + ["-g", "n=1:20", "-g", "alpha=0:19"]
    full = run_cli(["sweep", *other, "-o", str(tmp_path / "b.csv")], tmp_path / "cache")
    assert full.returncode == 0 and "imported sympy True" in full.stdout
    again = run_cli(["sweep", *other, "-o", str(tmp_path / "c.csv")], tmp_path / "cache")
    assert again.returncode == 0 and "imported sympy False" in again.stdout
    assert (tmp_path / "b.csv").read_text() == (tmp_path / "c.csv").read_text()
    assert len((tmp_path / "b.csv").read_text().splitlines()) == 1 + 20 * 20  # header + every point


def test_an_edited_base_model_file_sends_its_variants_request_to_the_full_path(tmp_path: Path) -> None:
    for name in ("hong_kim_2009", "hong_kim_2009_intended"):
        (tmp_path / f"{name}.toml").write_bytes((ROOT / "equations" / f"{name}.toml").read_bytes())
    args = [str(tmp_path / "hong_kim_2009_intended.toml"), "Exec_cycles_app", "-p", "table2_example", "-g", "Mem_LD=100:1000:100"]
    assert "imported sympy True" in run_cli(["sweep", *args, "-o", str(tmp_path / "a.csv")], tmp_path / "cache").stdout
    assert "imported sympy False" in run_cli(["sweep", *args, "-o", str(tmp_path / "b.csv")], tmp_path / "cache").stdout
    with open(tmp_path / "hong_kim_2009.toml", "a", encoding="utf-8") as stream:
        stream.write("\n# edited\n")
    edited = run_cli(["sweep", *args, "-o", str(tmp_path / "c.csv")], tmp_path / "cache")
    assert edited.returncode == 0 and "imported sympy True" in edited.stdout
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text() == (tmp_path / "c.csv").read_text()


@pytest.mark.parametrize("argv", [
    ["sweep", *VOLKOV, "-g", "n=1:4", "--set", "mem_lat=300", "-o", "x.parquet"],
    ["sweep", *VOLKOV, "-g", "n=1:4", "--backend", "numba", "-o", "x.parquet"],
    ["sweep", *VOLKOV, "-g", "n=1:4", "--engine", "dask", "-o", "x"],
    ["sweep", *VOLKOV, "-g", "n=1:4", "--plot", "x.svg", "-o", "x.parquet"],
    ["--no-cache", "sweep", *VOLKOV, "-g", "n=1:4", "-o", "x.parquet"],
    ["sweep", *VOLKOV, "-g", "n=1:4", "--out", "x.parquet"],  # an abbreviation: argparse's to judge
    ["sweep", *VOLKOV, "-g", "n=1:4", "-o", "x.txt"],  # no format: the full path's error
    ["sweep", *VOLKOV, "-g", "n=1:4", "--chunk-size", "0", "-o", "x.parquet"],
    ["sweep", "-h"],
    ["sweep"],
    ["eval", *VOLKOV],
])
def test_a_command_line_the_plan_path_does_not_answer_is_left_to_the_full_path(argv: list[str]) -> None:
    assert sweep_replay.request_of(argv) is None


def test_a_plain_command_line_is_read_into_its_request() -> None:
    found = sweep_replay.request_of(["sweep", *VOLKOV, "-g", "n=1:4", "--grid=alpha=0:3", "--regime-of", "", "--no-checks",
                                     "--chunk-size", "9", "--no-progress", "-o", "x.pq"])
    assert found is not None
    assert found[0] == replay.Request("volkov_2016", ("memory_throughput",), "maxwell", ("n=1:4", "alpha=0:3"), "", False, 9, "parquet")


# ---------------------------------------------------------------- the entry read back


@pytest.fixture(scope="module")
def hong_kim() -> tuple[replay.Request, Any, Any, str]:
    """A case-table sweep with a domain: its request, plan, program and stored entry."""
    model = symgpu.load("hong_kim_2009")
    grid = ("Active_blocks_per_SM=1:8", "Mem_LD=100:1000:50")
    plan = build_plan(model, ["Exec_cycles_app"], preset="table2_example", grid=list(grid))
    function = compile_plan(plan, backends.load("numpy"))
    request = replay.Request("hong_kim_2009", ("Exec_cycles_app",), "table2_example", grid, None, True, 1 << 18, "parquet")
    text = replay.entry(request, plan, function)
    assert text is not None
    return request, plan, function, text


def test_the_stored_program_computes_every_chunk_bit_for_bit_as_the_generated_code(hong_kim: tuple[replay.Request, Any, Any, str]) -> None:
    request, plan, function, text = hong_kim
    stored = replay.find_in(request, text)
    assert stored is not None
    assert any(s.ufunc == "**" for s in stored.program.steps) and any(s.ufunc == "copyto" for s in stored.program.steps)
    for size in (7, 100, 1 << 18):
        for mine, theirs in zip(chunks.buffered_chunks(stored, stored.compiled(), size), chunks.buffered_chunks(plan, function, size)):
            assert (mine.start, mine.stop, mine.outside) == (theirs.start, theirs.stop, theirs.outside)
            assert mine.regime is not None and theirs.regime is not None and np.array_equal(mine.regime, theirs.regime)
            for name in ("Active_blocks_per_SM", "Mem_LD", "Exec_cycles_app"):
                assert mine.columns[name].tobytes() == theirs.columns[name].tobytes()


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        where: Any = data
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = value
    return change


def _step(index: int, value: Any) -> Callable[[dict[str, Any]], None]:
    return _set(("program", "steps", 0, index), value)


def _nested(data: dict[str, Any]) -> None:
    tree: list[Any] = ["const", True]
    for _ in range(replay.MAX_DEPTH + 5):
        tree = ["not", tree]
    data["regime"]["trees"][0] = tree


#: hostile or damaged entries, each refused
DAMAGE: dict[str, Callable[[dict[str, Any]], None]] = {
    "a function that is not a ufunc": _step(0, "system"),
    "an import": _step(0, "__import__"),
    "a method name": _step(0, "tofile"),
    "a register not yet computed": _step(1, [["r", 10_000], ["r", 0]]),
    "a negative register": _step(1, [["r", -1], ["r", 0]]),
    "a number as text": _step(1, [["k", "1e3"], ["r", 0]]),
    "null as a number": _step(1, [["k", None], ["r", 0]]),
    "a list as a number": _step(1, [["k", [1.0]], ["r", 0]]),
    "a whole number too large": _step(1, [["k", 2**60], ["r", 0]]),
    "too many operands": _step(1, [["r", 0]] * 5),
    "a buffer out of range": _set(("program", "floats"), 0),
    "a buffer of no kind": _set(("program", "steps", 0, 2), ["x", 0]),
    "more arguments than the request has": _set(("program", "arguments"), 1),
    "fewer outputs than quantities": _set(("program", "returns"), []),
    "a deferred step that is not a Min/Max": _set(("program", "deferred"), [[0, "add", [0, 1]]]),
    "an unknown regime kind": _set(("regime", "kind"), "median"),
    "a label missing": lambda d: d["regime"]["labels"].pop(),
    "a relation of no kind": _set(("regime", "trees", 2), ["rel", "=~", 0, 1, None]),
    "a condition reading no output": _set(("regime", "trees", 2), ["rel", ">", 0, 10_000, None]),
    "a condition nested too deep": _nested,
    "the domain past the outputs": _set(("domain",), 10_000),
    "a field added": _set(("extra",), 1),
    "another format": _set(("format",), 2),
    "another model file": _set(("files", 0, 1), "0" * 64),
    "axes of another request": _set(("axes", 1), "Mem_LD=100:1000:51"),
    "columns out of order": lambda d: d["columns"].reverse(),
    "metadata not as written": _set(("metadata",), '{"b": 1, "a": 2}'),
    "a scale as text": _set(("scales", 0), "1"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_or_hostile_entry_is_not_used(damage: str, hong_kim: tuple[replay.Request, Any, Any, str]) -> None:
    request, _, _, text = hong_kim
    data = json.loads(text)
    assert data["program"]["steps"][0][0] == "+"  # the step the damage edits: x0 = Coal_Mem_insts + Uncoal_Mem_insts
    changed = copy.deepcopy(data)
    DAMAGE[damage](changed)
    assert changed != data
    assert replay.find_in(request, json.dumps(changed)) is None


@pytest.mark.parametrize("body", ["", "not json", "[]", "null", "[" * 100_000 + "]" * 100_000, '{"format": 1}'])
def test_an_entry_that_is_not_a_plan_is_not_used(body: str, hong_kim: tuple[replay.Request, Any, Any, str]) -> None:
    assert replay.find_in(hong_kim[0], body) is None


def test_the_undamaged_entry_is_used(hong_kim: tuple[replay.Request, Any, Any, str]) -> None:
    request, plan, _, text = hong_kim
    stored = replay.find_in(request, text)
    assert stored is not None and stored.regime == plan.regime and stored.fixed == plan.fixed
    assert stored.metadata() == plan.metadata() and stored.columns() == plan.columns()


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_every_bundled_regime_program_read_back_from_its_entry_computes_the_same_bits(model_id: str) -> None:
    for quantity, plan, _, function in grid_programs.regime_plans(model_id, defer=True):
        if function is None:
            continue
        recorded = program.record(function, len(plan.grid.axes) + len(plan.fixed))
        assert recorded is not None, quantity
        read = program.program_of(json.loads(json.dumps(recorded.as_data())), recorded.arguments, 1)
        assert read == recorded, quantity
        stored = program.compiled(read)
        assert (stored.floats_needed, stored.bools_needed, stored.deferred) == (function.floats_needed, function.bools_needed, function.deferred)
        coords, shape, values = grid_programs.axes_and_values(plan)
        with np.errstate(all="ignore"):
            want = grid_programs.run_program(function, coords, values, shape, [np.empty(shape)])
            got = grid_programs.run_program(stored, coords, values, shape, [np.empty(shape)])
        assert len(want) == len(got), quantity
        for index, (a, b) in enumerate(zip(want, got)):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), (quantity, index)


def test_a_program_step_names_only_numpy_ufuncs_where_or_python_operators() -> None:
    assert all(isinstance(getattr(np, name), np.ufunc) or name == "where" for name in program.UFUNCS)
    assert set(program.OPERATORS) == {"+", "-", "*", "/", "//", "%", "**", "neg", "pos"}
