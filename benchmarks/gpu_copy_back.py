"""What bringing a sweep's column back from the GPU costs, by the ways CuPy can do it, in one run.

A sweep returns NumPy arrays, so its floor on a GPU is the copy of each column to the host. For one
float64 column of ``--points`` points (default 5 x 10^7, 400 MB), medians of ``--repeat`` runs:

* ``device copy``: ``cupy.copyto`` on the GPU (the device's own copy bandwidth, for scale);
* ``asnumpy (new array)``: ``cupy.asnumpy``, what hand-written CuPy does (pageable memory, new pages);
* ``get(out=new array)``: ``ndarray.get(out=np.empty(n))`` (what :mod:`symgpu.sweep.device` does: the
  result's slice, pages not yet touched);
* ``get(out=touched array)``: the same into an array whose pages are already mapped;
* ``pinned: allocate + get``: a new page-locked array (``cudaHostAlloc``) then ``get(out=)`` (DMA);
* ``pinned: get``: into a page-locked array allocated once;
* ``staged through pinned``: chunks of ``--stage`` points copied asynchronously into two page-locked
  buffers, each copied on the host into a new array while the next comes over the bus;
* ``host memcpy (new array)``: ``np.copyto`` of a mapped array into a new one (the host's own floor).

Prints seconds, GB/s and the ratio to ``asnumpy``. Exits 0 with a "skipped" line without CuPy or a GPU.
Usage: ``python benchmarks/gpu_copy_back.py [--points 5e7] [--stage 4194304] [--repeat 5]``. Timing is
information, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def median_seconds(function: Callable[[], Any], repeat: int, synchronize: Callable[[], None]) -> float:
    """The median wall time of ``repeat`` calls of ``function``, each ended by a device synchronisation."""
    function()
    synchronize()
    times = []
    for _ in range(repeat):
        begin = time.perf_counter()
        function()
        synchronize()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def staged(cp: Any, source: Any, stage: int) -> np.ndarray:
    """``source`` brought to a new host array through two page-locked buffers of ``stage`` points: the
    copy of one part over the bus overlaps the host's copy of the part before."""
    out = np.empty(source.size)
    buffers = [cp.cuda.alloc_pinned_memory(stage * 8) for _ in range(2)]
    views = [np.frombuffer(b, dtype=np.float64, count=stage) for b in buffers]
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    parts = [(lo, min(lo + stage, source.size)) for lo in range(0, source.size, stage)]
    pending: list[tuple[int, int, int]] = []
    for i, (lo, hi) in enumerate(parts):
        k = i % 2
        if len(pending) == 2:  # the buffer about to be reused: wait for its copy, then empty it
            plo, phi, pk = pending.pop(0)
            streams[pk].synchronize()
            np.copyto(out[plo:phi], views[pk][:phi - plo])
        source[lo:hi].get(stream=streams[k], out=views[k][:hi - lo], blocking=False)
        pending.append((lo, hi, k))
    for plo, phi, pk in pending:
        streams[pk].synchronize()
        np.copyto(out[plo:phi], views[pk][:phi - plo])
    return out


def fresh_pinned(cp: Any, n: int) -> np.ndarray:
    """A new page-locked array of ``n`` float64 (``cudaHostAlloc`` each time: not from CuPy's pool, which
    would keep it after the result is dropped)."""
    memory = cp.cuda.PinnedMemoryPointer(cp.cuda.PinnedMemory(n * 8), 0)
    return np.ndarray((n,), dtype=np.float64, buffer=memory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=float, default=5e7)
    parser.add_argument("--stage", type=int, default=1 << 22)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if importlib.util.find_spec("cupy") is None:
        print("skipped: CuPy is not installed")
        return
    import cupy as cp
    import cupyx
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means no usable GPU
        print(f"skipped: no CUDA GPU ({type(exc).__name__})")
        return
    n = int(args.points)
    source, target = cp.random.random(n), cp.empty(n)
    touched, pinned = np.ones(n), cupyx.empty_pinned(n)
    expected = cp.asnumpy(source)
    sync = cp.cuda.Device().synchronize
    functions: dict[str, Callable[[], Any]] = {
        "device copy": lambda: cp.copyto(target, source),
        "asnumpy (new array)": lambda: cp.asnumpy(source),
        "get(out=new array)": lambda: source.get(out=np.empty(n)),
        "get(out=touched array)": lambda: source.get(out=touched),
        "pinned: allocate + get": lambda: source.get(out=fresh_pinned(cp, n)),
        "pinned: get": lambda: source.get(out=pinned),
        "staged through pinned": lambda: staged(cp, source, args.stage),
        "host memcpy (new array)": lambda: np.copyto(np.empty(n), touched),
    }
    for name in ("get(out=new array)", "pinned: allocate + get", "staged through pinned"):
        if not np.array_equal(functions[name](), expected):
            raise SystemExit(f"{name}: the copy differs from cupy.asnumpy")
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    seconds = {name: median_seconds(f, args.repeat, sync) for name, f in functions.items()}
    print(f"{device}; one float64 column of {n:.3g} points ({n * 8 / 1e6:.0f} MB), medians of {args.repeat}; stage {args.stage} points")
    print(f"{'':<26} {'seconds':>8} {'GB/s':>8} {'/asnumpy':>9}")
    for name, t in seconds.items():
        print(f"{name:<26} {t:>8.4f} {n * 8 / t / 1e9:>8.1f} {t / seconds['asnumpy (new array)']:>9.2f}")


if __name__ == "__main__":
    main()
