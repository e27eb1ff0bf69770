"""``symgpu sweep ... -o x.parquet`` end to end against NumPy + pyarrow written by hand, one run.

Every line is a fresh process (start-up, imports and model loading included: what a user waits
for), the lines interleaved round by round, medians of ``--repeat`` rounds:

* ``hand numpy+pyarrow``: a script a skilled user writes from the model file: the constants of
  ``volkov_2016`` at ``maxwell`` as floats, the value ``Min(n/(mem_lat + alpha*alu_lat), mem_thru,
  alu_thru/alpha, issue_thru/(alpha + 1))`` computed with broadcasting block by block (as many
  points per block as symgpu's chunks), and the columns ``n``, ``alpha`` and the value written
  with ``pyarrow.parquet.ParquetWriter`` (zstd, as symgpu writes), one row group per block;
* ``hand ... + regime``: the same with the regime column written as symgpu writes it: the
  binding argument's code (the argmin of the terms over ``alpha``, then the latency term
  against their minimum, ties to the first as the model file orders them) as int16 indices of
  a dictionary of the four labels (``pa.DictionaryArray.from_arrays``), without min/max
  statistics for that column; the file holds the same columns, the same way;
* ``symgpu sweep (no regime)``: ``python -m symgpu sweep volkov_2016 memory_throughput -p
  maxwell -g n=1:N -g alpha=0:999 --regime-of '' -o FILE.parquet``: the same columns as the
  first line, and the ratio is against it;
* ``symgpu sweep``: the same with the regime column (symgpu's default), and ``--backend
  numba``: ratios against the hand line with the regime column;
* ``symgpu sweep, full path``: the same as ``symgpu sweep`` with ``--no-cache``: SymPy, pint and the
  model loaded, the plan built. The warm-up round stores each request's plan
  (:mod:`symgpu.sweep.replay`), so the two lines before it are the plan path (a request run again,
  neither SymPy nor pint imported); the numba line always takes the full path.

The files are checked to hold the same value column (rtol 1e-12) and the same regime labels.
Also printed: the CPU seconds of each process (user + system: steadier than wall time on a
shared machine), points/s, and the copy floor (``np.copyto`` of one float64 column of that many
points, in this process) as a fraction of each line's time. The processes run without
``$PYTHONDONTWRITEBYTECODE`` (the warm-up round writes the bytecode cache an installed package
has). Usage: ``python benchmarks/sweep_parquet_vs_hand.py [--points 1e7] [--repeat 3]``. Timing
here is information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symgpu  # noqa: E402
from symgpu.sweep.run import DEFAULT_CHUNK  # noqa: E402

try:
    import numba  # noqa: F401
except ImportError:  # the numba line is skipped
    numba = None

HAND = r'''
import sys
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
path, count, block, regime = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "regime"
mem_lat, alu_lat, mem_thru, alu_thru, issue_thru = map(float, sys.argv[5:10])
n = np.arange(1.0, count + 1.0)
alpha = np.arange(0.0, 1000.0)
with np.errstate(divide="ignore"):
    terms = np.stack([np.full_like(alpha, mem_thru), alu_thru / alpha, issue_thru / (alpha + 1.0)])
bound = terms.min(axis=0)
bound_code = (terms.argmin(axis=0) + 1).astype(np.int16)  # memory_bound, alu_bound, issue_bound
denominator = mem_lat + alpha * alu_lat
rows = max(1, block // alpha.size)
fields = [("n", pa.float64()), ("alpha", pa.float64()), ("memory_throughput", pa.float64())]
options = {"compression": "zstd"}
if regime:
    labels = pa.array(["latency_bound", "memory_bound", "alu_bound", "issue_bound"])
    fields.append(("regime", pa.dictionary(pa.int16(), pa.string())))
    options["write_statistics"] = ["n", "alpha", "memory_throughput"]
schema = pa.schema(fields)
with pq.ParquetWriter(path, schema, **options) as writer:
    for start in range(0, n.size, rows):
        part = n[start:start + rows]
        value = part[:, None] / denominator
        arrays = []
        if regime:
            code = np.where(value <= bound, np.int16(0), bound_code)
            arrays.append(pa.DictionaryArray.from_arrays(pa.array(code.ravel()), labels))
        np.minimum(value, bound, out=value)
        columns = [np.repeat(part, alpha.size), np.tile(alpha, part.size), value.ravel()]
        writer.write_table(pa.Table.from_arrays([pa.array(c) for c in columns] + arrays, schema=schema))
'''

def constants() -> list[str]:
    values = symgpu.load("volkov_2016").preset("maxwell")
    return [repr(values["mem_lat"].to("cycle").magnitude), repr(values["alu_lat"].to("cycle").magnitude),
            repr(values["mem_thru"].to("winst/cycle/SM").magnitude), repr(values["alu_thru"].to("winst/cycle/SM").magnitude),
            repr(values["issue_thru"].to("winst/cycle/SM").magnitude)]


def cpu_of_children() -> float:
    """User + system CPU seconds of the waited-for child processes so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def batches(pq: Any, path: Path, column: str) -> Iterator[Any]:
    """One column of a Parquet file, batch by batch (the files are checked without reading
    them whole: 10^8 points are gigabytes)."""
    for batch in pq.ParquetFile(path).iter_batches(batch_size=1 << 20, columns=[column]):
        yield batch.column(0)


def aligned(first: Iterator[Any], second: Iterator[Any]) -> Iterator[tuple[Any, Any]]:
    """The two streams of arrays in pieces of equal length; an error where one ends first."""
    a = b = None
    while True:
        if a is None or len(a) == 0:
            a = next(first, None)
        if b is None or len(b) == 0:
            b = next(second, None)
        if a is None or b is None:
            if a is not None or b is not None:
                raise SystemExit("the files hold different numbers of points")
            return
        size = min(len(a), len(b))
        yield a.slice(0, size), b.slice(0, size)
        a, b = a.slice(size), b.slice(size)


def regime_codes(column: Any, names: list[str]) -> np.ndarray:
    """A dictionary array of regime labels as each point's index in ``names`` (-1: null), by
    its codes: no Python string per point."""
    lookup = np.array([names.index(label) for label in column.dictionary.to_pylist()] + [-1], dtype=np.int16)
    return lookup[column.indices.fill_null(-1).to_numpy(zero_copy_only=False)]  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    count = max(1, int(args.points) // 1000)
    size = count * 1000
    folder = Path(tempfile.mkdtemp(prefix="symgpu-parquet-bench-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(ROOT)}
    sweep = [sys.executable, "-m", "symgpu", "sweep", "volkov_2016", "memory_throughput", "-p", "maxwell",
             "-g", f"n=1:{count}", "-g", "alpha=0:999", "--no-progress"]
    hand = [sys.executable, "-c", HAND]
    # line -> (command, the hand line it is compared with)
    commands = {
        "hand numpy+pyarrow": ([*hand, str(folder / "hand.parquet"), str(count), str(DEFAULT_CHUNK), "value", *constants()], "hand numpy+pyarrow"),
        "hand ... + regime": ([*hand, str(folder / "hand_regime.parquet"), str(count), str(DEFAULT_CHUNK), "regime", *constants()],
                              "hand ... + regime"),
        "symgpu sweep (no regime)": ([*sweep, "--regime-of", "", "-o", str(folder / "plain.parquet")], "hand numpy+pyarrow"),
        "symgpu sweep": ([*sweep, "-o", str(folder / "regime.parquet")], "hand ... + regime"),
        "symgpu sweep, full path": ([sweep[0], "-m", "symgpu", "--no-cache", *sweep[3:], "-o", str(folder / "full.parquet")],
                                    "hand ... + regime"),
    }
    if numba is not None:
        commands["symgpu sweep numba"] = ([*sweep, "--backend", "numba", "-o", str(folder / "numba.parquet")], "hand ... + regime")
    for command, _ in commands.values():  # warm: OS file cache, bytecode, symgpu's on-disk cache
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    import pyarrow.parquet as pq  # noqa: PLC0415 - after the children ran, to check their files

    names = ["latency_bound", "memory_bound", "alu_bound", "issue_bound"]
    for name in ("hand_regime", "plain", "regime", "full", "numba"):
        if (folder / f"{name}.parquet").exists():
            for a, b in aligned(batches(pq, folder / "hand.parquet", "memory_throughput"), batches(pq, folder / f"{name}.parquet", "memory_throughput")):
                np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=1e-12, err_msg=name)
            if name != "plain":
                for a, b in aligned(batches(pq, folder / "hand_regime.parquet", "regime"), batches(pq, folder / f"{name}.parquet", "regime")):
                    if not np.array_equal(regime_codes(a, names), regime_codes(b, names)):
                        raise SystemExit(f"{name}: the regime column differs from the hand-written one")
    times: dict[str, list[float]] = {k: [] for k in commands}
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    source, target = np.random.default_rng(0).random(size), np.empty(size)
    copies: list[float] = []
    for _ in range(args.repeat):
        begin = time.perf_counter()
        np.copyto(target, source)
        copies.append(time.perf_counter() - begin)
        for name, (command, _) in commands.items():
            used, begin = cpu_of_children(), time.perf_counter()
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - begin)
            cpu[name].append(cpu_of_children() - used)
    seconds = {k: statistics.median(v) for k, v in times.items()}
    cpus = {k: statistics.median(v) for k, v in cpu.items()}
    floor = statistics.median(copies)
    print(f"volkov_2016 memory_throughput at maxwell, {size:.3g} points -> Parquet (zstd), fresh processes, "
          f"medians of {args.repeat}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'':<26} {'seconds':>8} {'/hand':>6} {'cpu s':>7} {'/hand':>6} {'Mpoints/s':>10} {'of floor':>8}")
    for name, t in seconds.items():
        base = commands[name][1]
        print(f"{name:<26} {t:>8.3f} {t / seconds[base]:>6.2f} {cpus[name]:>7.3f} {cpus[name] / cpus[base]:>6.2f} "
              f"{size / t / 1e6:>10.1f} {floor / t:>8.1%}")
    print("(/hand: against the hand line writing the same columns: the first for 'no regime', the second for the rest)")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
