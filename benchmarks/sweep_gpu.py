"""Sweeps on a GPU: symgpu's cupy (or jax) backend against CuPy written by hand, in one run.

``hong_kim_2009 Exec_cycles_app`` at preset ``table2_example`` over Active_blocks_per_SM = 1..8 x
Comp_insts = 1..1250 x Mem_LD = 100.. (``--points``, default 5 x 10^7, the most an in-memory sweep keeps), as ``sweep_vs_hand.py`` sweeps
it on the CPU. Medians of ``--repeat`` runs, each ended by a device synchronisation:

* ``device copy floor``: ``cupy.copyto`` of one float64 column of the grid's size on the GPU;
* ``hand cupy``: ``sweep_vs_hand.hong_kim_hand`` with ``xp=cupy`` (the axes broadcast on the
  device, as a skilled user writes it), the result left on the GPU; ``+ to host``: and copied to
  a NumPy array, which is what a sweep returns;
* ``symgpu <backend>``: ``symgpu.sweep.sweep(..., backend=...)`` (checks on, value column alone,
  columns returned as NumPy arrays), chunks of ``--chunk`` points; ``+ regime``: with its regime column
  (Eq. 22-24, a case table: decided on the device for both backends);
* ``symgpu numpy`` on this machine's CPU, once, for scale.

Every value column is checked against the hand-written one (rtol 1e-12) before timing.
Usage: ``python benchmarks/sweep_gpu.py [--points 5e7] [--chunk 16777216] [--backend cupy] [--repeat 3]``.
Exits 0 with a "skipped" line when the backend or a GPU is missing. Timing is information, never
a pass/fail test.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import symgpu  # noqa: E402
from symgpu.sweep import backends, sweep  # noqa: E402
from sweep_vs_hand import hong_kim_constants, hong_kim_grid, hong_kim_hand, median_times  # noqa: E402

QUANTITY, PRESET = "Exec_cycles_app", "table2_example"


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
    parser.add_argument("--points", type=float, default=5e7)  # symgpu.sweep.run.MAX_IN_MEMORY
    parser.add_argument("--chunk", type=int, default=1 << 24)
    parser.add_argument("--backend", default="cupy", choices=("cupy", "jax"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    device = gpu_name(args.backend)
    if device is None:
        print(f"skipped: backend {args.backend} has no GPU here (no package, no CUDA device, or jax on CPU only)")
        return
    import cupy as cp  # the hand-written baseline and the copy floor are CuPy (jax runs the sweep only)

    model = symgpu.load("hong_kim_2009")
    texts = hong_kim_grid(int(args.points))
    axes = [a.values for a in symgpu.sweep.build_plan(model, [QUANTITY], preset=PRESET, grid=texts, regime_of="").grid.axes]
    size = int(np.prod([a.size for a in axes]))
    constants = hong_kim_constants(model)
    on_device = [cp.asarray(a) for a in axes]
    source, target = cp.random.random(size), cp.empty(size)

    def symgpu_run(backend: str, regime_of: str | None = "") -> Callable[[], Any]:
        return lambda: sweep(model, QUANTITY, grid=texts, preset=PRESET, backend=backend, regime_of=regime_of, chunk_size=args.chunk)

    functions: dict[str, Callable[[], Any]] = {
        "device copy floor": lambda: cp.copyto(target, source),
        "hand cupy": lambda: hong_kim_hand(constants, *on_device, xp=cp),
        "hand cupy + to host": lambda: cp.asnumpy(hong_kim_hand(constants, *on_device, xp=cp)),
        f"symgpu {args.backend}": symgpu_run(args.backend),
        f"symgpu {args.backend} + regime": symgpu_run(args.backend, None),
    }
    expected = cp.asnumpy(hong_kim_hand(constants, *on_device, xp=cp)).ravel()
    np.testing.assert_allclose(np.ravel(hong_kim_hand(constants, *axes)), expected, rtol=1e-12, err_msg="hand numpy")
    got = functions[f"symgpu {args.backend}"]()  # warm-up: compiles, and the same numbers
    np.testing.assert_allclose(got.columns[QUANTITY], expected, rtol=1e-12, err_msg=f"symgpu {args.backend}")
    got = functions[f"symgpu {args.backend} + regime"]()
    np.testing.assert_allclose(got.columns[QUANTITY], expected, rtol=1e-12, err_msg=f"symgpu {args.backend} + regime")
    del got
    synchronize = cp.cuda.Device().synchronize
    # each call ends when the device has finished (its work is asynchronous), the calls interleaved
    synchronized = {name: (lambda f=function: (f(), synchronize())) for name, function in functions.items()}
    synchronize()
    seconds = median_times(synchronized, args.repeat)
    seconds["symgpu numpy (CPU, once)"] = median_times({"numpy": symgpu_run("numpy")}, 1)["numpy"]
    print(f"{args.backend} on {device}; {size:.3g} points ({' x '.join(texts)}), chunks of {args.chunk}, medians of {args.repeat}")
    print(f"{'':<26} {'seconds':>8} {'/hand cupy':>10} {'/+to host':>10} {'Gpoints/s':>10} {'of floor':>8}")
    for name, t in seconds.items():
        print(f"{name:<26} {t:>8.4f} {t / seconds['hand cupy']:>10.2f} {t / seconds['hand cupy + to host']:>10.2f} "
              f"{size / t / 1e9:>10.2f} {seconds['device copy floor'] / t:>8.1%}")


if __name__ == "__main__":
    main()
