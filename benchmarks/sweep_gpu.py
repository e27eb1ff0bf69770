"""Sweep throughput on a GPU: points/s of the cupy (or jax) backend for hong_kim_2009
``Exec_cycles_app`` (preset table2_example), next to the NumPy backend on this machine's CPU.

Usage: ``python benchmarks/sweep_gpu.py [--points 1e8] [--chunk 4194304] [--backend cupy]``.
Exits 0 with a "skipped" line when the backend or a GPU is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import symgpu  # noqa: E402
from symgpu.sweep import backends, build_plan, iter_chunks  # noqa: E402
from symgpu.sweep.grid import Axis, Grid  # noqa: E402


def gpu_name(backend: str) -> str | None:
    """The GPU the backend runs on, or None (package missing, no CUDA device, jax on CPU only)."""
    if not backends.available(backend):
        return None
    module = backends.load(backend).module
    if backend == "cupy":
        props = module.cuda.runtime.getDeviceProperties(module.cuda.Device().id)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    gpus = [d for d in module.devices() if d.platform == "gpu"]
    return str(gpus[0].device_kind) if gpus else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=1e8)
    parser.add_argument("--chunk", type=int, default=1 << 22)
    parser.add_argument("--backend", default="cupy", choices=("cupy", "jax"))
    args = parser.parse_args()
    device = gpu_name(args.backend)
    if device is None:
        print(f"skipped: backend {args.backend} has no GPU here (no package, no CUDA device, or jax on CPU only)")
        return
    print(f"{args.backend} on {device}")
    model = symgpu.load("hong_kim_2009")
    mem = max(1, int(args.points) // 10_000)
    grid = Grid((Axis("Active_blocks_per_SM", np.arange(1.0, 9.0), "Active_blocks_per_SM=1:8"),
                 Axis("Comp_insts", np.arange(1.0, 1251.0), "Comp_insts=1:1250"),
                 Axis("Mem_LD", 100.0 + np.arange(mem, dtype=float), f"Mem_LD=100:{99 + mem}")))
    plan = build_plan(model, ["Exec_cycles_app"], preset="table2_example", grid=grid, regime_of="")
    sums = {}
    for backend in (args.backend, "numpy"):
        next(iter(iter_chunks(plan, backend, 1024)))  # compile and warm up
        begin = time.perf_counter()
        sums[backend] = sum(float(np.nansum(c.columns["Exec_cycles_app"])) for c in iter_chunks(plan, backend, args.chunk))
        seconds = time.perf_counter() - begin
        print(f"{backend:<6} {grid.size:.0e} points in {seconds:.2f} s: {grid.size / seconds:.3g} points/s")
    print("sums agree to 1e-12:", abs(sums[args.backend] / sums["numpy"] - 1) < 1e-12)


if __name__ == "__main__":
    main()
