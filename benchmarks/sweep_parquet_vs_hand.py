"""``symgpu sweep ... -o x.parquet`` end to end against NumPy + pyarrow written by hand, one run.

Every line is a fresh process (start-up, imports and model loading included: what a user waits
for), the lines interleaved round by round, medians of ``--repeat`` rounds:

* ``hand numpy+pyarrow``: a script a skilled user writes from the model file: the constants of
  ``volkov_2016`` at ``maxwell`` as floats, the value ``Min(n/(mem_lat + alpha*alu_lat), mem_thru,
  alu_thru/alpha, issue_thru/(alpha + 1))`` computed with broadcasting block by block (as many
  points per block as symgpu's chunks), and the columns ``n``, ``alpha`` and the value written
  with ``pyarrow.parquet.ParquetWriter`` (zstd, as symgpu writes), one row group per block;
* ``symgpu sweep (no regime)``: ``python -m symgpu sweep volkov_2016 memory_throughput -p
  maxwell -g n=1:N -g alpha=0:999 --regime-of '' -o FILE.parquet``: the same columns;
* ``symgpu sweep``: the same with the regime column (symgpu's default), and ``--backend numba``.

The files are checked to hold the same value column (rtol 1e-12). Also printed: points/s, and
the copy floor (``np.copyto`` of one float64 column of that many points, in this process) as a
fraction of each line's time. Usage: ``python
benchmarks/sweep_parquet_vs_hand.py [--points 1e7] [--repeat 3]``. Timing here is information,
never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
path, count, block = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mem_lat, alu_lat, mem_thru, alu_thru, issue_thru = map(float, sys.argv[4:9])
n = np.arange(1.0, count + 1.0)
alpha = np.arange(0.0, 1000.0)
with np.errstate(divide="ignore"):
    bound = np.minimum(np.minimum(alu_thru / alpha, issue_thru / (alpha + 1.0)), mem_thru)
denominator = mem_lat + alpha * alu_lat
rows = max(1, block // alpha.size)
schema = pa.schema([("n", pa.float64()), ("alpha", pa.float64()), ("memory_throughput", pa.float64())])
with pq.ParquetWriter(path, schema, compression="zstd") as writer:
    for start in range(0, n.size, rows):
        part = n[start:start + rows]
        value = part[:, None] / denominator
        np.minimum(value, bound, out=value)
        columns = [np.repeat(part, alpha.size), np.tile(alpha, part.size), value.ravel()]
        writer.write_table(pa.Table.from_arrays([pa.array(c) for c in columns], schema=schema))
'''

def constants() -> list[str]:
    values = symgpu.load("volkov_2016").preset("maxwell")
    return [repr(values["mem_lat"].to("cycle").magnitude), repr(values["alu_lat"].to("cycle").magnitude),
            repr(values["mem_thru"].to("winst/cycle/SM").magnitude), repr(values["alu_thru"].to("winst/cycle/SM").magnitude),
            repr(values["issue_thru"].to("winst/cycle/SM").magnitude)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    count = max(1, int(args.points) // 1000)
    size = count * 1000
    folder = Path(tempfile.mkdtemp(prefix="symgpu-parquet-bench-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sweep = [sys.executable, "-m", "symgpu", "sweep", "volkov_2016", "memory_throughput", "-p", "maxwell",
             "-g", f"n=1:{count}", "-g", "alpha=0:999", "--no-progress"]
    commands = {
        "hand numpy+pyarrow": [sys.executable, "-c", HAND, str(folder / "hand.parquet"), str(count), str(DEFAULT_CHUNK), *constants()],
        "symgpu sweep (no regime)": [*sweep, "--regime-of", "", "-o", str(folder / "plain.parquet")],
        "symgpu sweep": [*sweep, "-o", str(folder / "regime.parquet")],
    }
    if numba is not None:
        commands["symgpu sweep numba"] = [*sweep, "--backend", "numba", "-o", str(folder / "numba.parquet")]
    for command in commands.values():  # warm: OS file cache, symgpu's on-disk cache
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    import pyarrow.parquet as pq  # noqa: PLC0415 - after the children ran, to check their files

    expected = pq.read_table(folder / "hand.parquet").column("memory_throughput").to_numpy()
    for name in ("plain", "regime", "numba"):
        if (folder / f"{name}.parquet").exists():
            got = pq.read_table(folder / f"{name}.parquet").column("memory_throughput").to_numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)
    times: dict[str, list[float]] = {k: [] for k in commands}
    source, target = np.random.default_rng(0).random(size), np.empty(size)
    copies: list[float] = []
    for _ in range(args.repeat):
        begin = time.perf_counter()
        np.copyto(target, source)
        copies.append(time.perf_counter() - begin)
        for name, command in commands.items():
            begin = time.perf_counter()
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - begin)
    seconds = {k: statistics.median(v) for k, v in times.items()}
    hand, floor = seconds["hand numpy+pyarrow"], statistics.median(copies)
    print(f"volkov_2016 memory_throughput at maxwell, {size:.3g} points -> Parquet (zstd), fresh processes, "
          f"medians of {args.repeat}")
    print(f"{'':<26} {'seconds':>8} {'/hand':>6} {'Mpoints/s':>10} {'of floor':>8}")
    for name, t in seconds.items():
        print(f"{name:<26} {t:>8.3f} {t / hand:>6.2f} {size / t / 1e6:>10.1f} {floor / t:>8.1%}")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
