"""Sweep speed and memory: symgpu's chunked sweep vs hand-written NumPy.

Model: hong_kim_2009 ``Exec_cycles_app`` (Eq. 22-24: three cases over nested Min()s) at preset
``table2_example``, swept over Active_blocks_per_SM x Comp_insts x Mem_LD. Every mode runs in
a fresh process (so its peak RSS is its own) on the same chunks of the same grid:

* ``hand``      hand-written NumPy of the same formula, per chunk;
* ``hand-full`` hand-written NumPy on the whole grid at once (what a user writes by hand);
* ``checked``   symgpu, assumption + domain checks fused into the compiled pass;
* ``unchecked`` symgpu with checks off;
* ``regime``    checked, plus the active-regime column;
* ``numba``     checked, numba backend (``symgpu[fast]``: one loop per chunk; compile time
  excluded, reported);
* ``write``     the command line, output written: ``python -m symgpu sweep hong_kim_2009
  Exec_cycles_app --preset table2_example --grid ... -o FILE.parquet`` (in its own process, so
  its peak RSS is the whole command's: evaluation, Arrow buffers, the Parquet writer).

Usage: ``python benchmarks/sweep_speed.py [--points 1e7] [--write-points 1e6] [--write-format csv]
[--huge]`` (``--write-points 1e8`` measures the 10^8-point written sweep, minutes on a 2-core
machine; ``--huge`` adds chunked 10^8-point runs of ``checked`` and ``numba``). Prints seconds,
ratios to ``hand`` (all measured in this one run, one mode after the other) and peak RSS per mode.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symgpu  # noqa: E402
from symgpu.sweep import build_plan, iter_chunks  # noqa: E402
from symgpu.sweep.grid import Axis, Grid  # noqa: E402

PRESET = "table2_example"


def grid_for(points: int) -> Grid:
    """8 x 1250 x (points / 10^4) grid."""
    mem = max(1, points // 10_000)
    return Grid((Axis("Active_blocks_per_SM", np.arange(1.0, 9.0), "Active_blocks_per_SM=1:8"),
                 Axis("Comp_insts", np.arange(1.0, 1251.0), "Comp_insts=1:1250"),
                 Axis("Mem_LD", 100.0 + np.arange(mem, dtype=float), f"Mem_LD=100:{99 + mem}")))


def hand(blocks: np.ndarray, comp: np.ndarray, mem_ld: np.ndarray) -> np.ndarray:
    """Exec_cycles_app of Hong & Kim 2009, Eq. (5)-(24), written out by hand (table2_example)."""
    uncoal, coal, per_mw = 6.0, 0.0, 32.0
    dep_un, dep_co, freq, bw, load, sms = 10.0, 4.0, 1e9, 80e9, 128.0, 16.0
    issue, n_blocks, warps_per_block = 4.0, 80.0, 128.0 / 32.0
    mem_insts = uncoal + coal
    w_un, w_co = uncoal / mem_insts, coal / mem_insts
    mem_l_un = mem_ld + (per_mw - 1) * dep_un
    mem_l = mem_l_un * w_un + mem_ld * w_co
    departure = dep_un * per_mw * w_un + dep_co * w_co
    n = blocks * warps_per_block
    mwp = np.minimum(np.minimum(np.minimum(mem_l / departure, n), bw / (freq * load / mem_l * sms)), n)
    mem_cycles = mem_l_un * uncoal + mem_ld * coal
    comp_cycles = issue * (comp + mem_insts)
    cwp = np.minimum((mem_cycles + comp_cycles) / comp_cycles, n)
    rep = n_blocks / (blocks * sms)
    comp_p = comp_cycles / mem_insts
    return np.where((mwp == n) & (cwp == n), (mem_cycles + comp_cycles + comp_p * (mwp - 1)) * rep,
                    np.where((cwp >= mwp) | (comp_cycles > mem_cycles), (mem_cycles * n / mwp + comp_p * (mwp - 1)) * rep,
                             (mem_l + comp_cycles * n) * rep))


def write_command(points: int, output: str, backend: str = "numpy", chunk: int = 1 << 18) -> list[str]:
    """The ``symgpu sweep`` command line writing the benchmark's grid of ``points`` to ``output``."""
    grids = [f"--grid={a.text}" for a in grid_for(points).axes]
    return ["-m", "symgpu", "sweep", "hong_kim_2009", "Exec_cycles_app", "--preset", PRESET, *grids,
            "--backend", backend, "--chunk-size", str(chunk), "--no-progress", "-o", output]


def write(points: int, chunk: int, fmt: str, backend: str) -> dict[str, float]:
    """Run the written sweep's command line in this process; seconds, peak RSS, file size."""
    from symgpu.cli.app import main as cli  # noqa: PLC0415 - only this mode needs the CLI

    with tempfile.TemporaryDirectory(prefix="sweep_speed.") as folder:
        output = str(Path(folder) / f"sweep.{fmt}")
        begin = time.perf_counter()
        code = cli(write_command(points, output, backend, chunk)[2:])
        seconds = time.perf_counter() - begin
        size = Path(output).stat().st_size if code == 0 else 0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "checksum": float("nan"), "rss_mib": rss, "compile_s": 0.0, "axes": 3,
            "file_mib": size / 2**20, "exit": code}


def one(mode: str, points: int, chunk: int, fmt: str = "parquet") -> dict[str, float]:
    """Run one mode in this process; return seconds, a checksum and peak RSS (MiB)."""
    if mode.startswith("write-"):
        return write(points, chunk, fmt, mode.removeprefix("write-"))
    model = symgpu.load("hong_kim_2009")
    grid = grid_for(points)
    names = grid.names
    total = 0.0
    compile_s = 0.0
    if mode == "hand-full":
        begin = time.perf_counter()
        coords = np.meshgrid(*[a.values for a in grid.axes], indexing="ij")
        total = float(np.nansum(hand(*coords)))
        seconds = time.perf_counter() - begin
    elif mode == "hand":
        begin = time.perf_counter()
        for start, stop in grid.chunks(chunk):
            total += float(np.nansum(hand(*grid.chunk(start, stop))))
        seconds = time.perf_counter() - begin
    else:
        plan = build_plan(model, ["Exec_cycles_app"], preset=PRESET, grid=grid, checks=mode != "unchecked",
                          regime_of=None if mode == "regime" else "")
        backend = "numba" if mode == "numba" else "numpy"
        begin = time.perf_counter()
        warm = build_plan(model, ["Exec_cycles_app"], preset=PRESET, grid=grid_for(10_000), checks=plan.checks,
                          regime_of=None if mode == "regime" else "")
        for _ in iter_chunks(warm, backend, 16):  # compile (numba: jit) outside the timing
            break
        compile_s = time.perf_counter() - begin
        begin = time.perf_counter()
        for part in iter_chunks(plan, backend, chunk):
            total += float(np.nansum(part.columns["Exec_cycles_app"]))
        seconds = time.perf_counter() - begin
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "checksum": total, "rss_mib": rss, "compile_s": compile_s, "axes": len(names)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=1e7)
    parser.add_argument("--chunk", type=int, default=1 << 18)
    parser.add_argument("--huge", action="store_true", help="also 10^8 points, chunked (checked, numba)")
    parser.add_argument("--write-points", type=float, default=1e6,
                        help="points of the written sweep (symgpu sweep ... -o FILE); 1e8 for the 10^8 claim, 0 to skip")
    parser.add_argument("--write-format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, int(args.points), args.chunk, args.write_format)))
        return
    try:
        import numba  # noqa: F401, PLC0415
        has_numba = True
    except ImportError:
        has_numba = False
    runs = [(m, int(args.points)) for m in ("hand", "hand-full", "checked", "unchecked", "regime")]
    runs += [("numba", int(args.points))] if has_numba else []
    if args.huge:
        runs += [("checked", 10**8)] + ([("numba", 10**8)] if has_numba else [])
    if args.write_points:
        runs += [("write-numpy", int(args.write_points))] + ([("write-numba", int(args.write_points))] if has_numba else [])
    results = {}
    for mode, points in runs:
        out = subprocess.run([sys.executable, __file__, "--one", mode, "--points", str(points), "--chunk", str(args.chunk),
                              "--write-format", args.write_format], check=True, capture_output=True, text=True)
        results[(mode, points)] = json.loads(out.stdout.splitlines()[-1])
    print(f"hong_kim_2009 Exec_cycles_app, preset {PRESET}, chunk {args.chunk} points")
    print(f"{'mode':<10} {'points':>10} {'seconds':>8} {'/hand':>6} {'peak RSS MiB':>13} {'compile s':>9}")
    for (mode, points), r in results.items():
        if mode.startswith("write-"):
            continue
        base = results.get(("hand", points)) or results[("hand", int(args.points))]
        scale = points / int(args.points) if ("hand", points) not in results else 1.0
        ratio = r["seconds"] / (base["seconds"] * scale)
        print(f"{mode:<10} {points:>10.0e} {r['seconds']:>8.2f} {ratio:>6.2f} {r['rss_mib']:>13.0f} {r['compile_s']:>9.2f}")
    if ("numba", int(args.points)) in results:
        speedup = results[("hand", int(args.points))]["seconds"] / results[("numba", int(args.points))]["seconds"]
        print(f"numba backend (checked) is {speedup:.2f}x faster than hand-written NumPy (chunked), same run")
    for (mode, points), r in results.items():
        if mode.startswith("write-"):
            print(f"{mode}: {points:.0e} points written as {args.write_format} ({r['file_mib']:.0f} MiB) in "
                  f"{r['seconds']:.1f} s, peak RSS {r['rss_mib']:.0f} MiB, exit {r['exit']:.0f}; the command: "
                  f"python {' '.join(write_command(points, 'OUT.' + args.write_format, mode.removeprefix('write-'), args.chunk))}")
    sums = {k: v["checksum"] for k, v in results.items() if k[1] == int(args.points) and not k[0].startswith("write-")}
    reference = sums[("hand", int(args.points))]
    print("checksums agree with hand NumPy to 1e-12:", all(abs(s / reference - 1) < 1e-12 for s in sums.values()))


if __name__ == "__main__":
    main()
