"""``symgpu measure``: microbenchmarks on the user's NVIDIA GPU (optional extra ``symgpu[cuda]``, CuPy).

Writes measured-data CSVs in the format of :mod:`symgpu.measure.data` (units in the headers,
provenance in ``#`` lines: device, driver, runtime, clock, date):

* ``latency.csv``: pointer chase, one thread, ``ld.global.cg``, 256 B lines in a random cycle;
  ``mem_lat [cycle]`` per footprint (L2 hits for small footprints, DRAM for large ones);
* ``fma.csv``: dependent FP32 FMA latency ``alu_lat [cycle]`` (one warp, one chain of FMAs);
* ``stream.csv``: streaming read ``dram_throughput [GB/s]`` vs ``n [warp/SM]`` x ``ilp`` x
  ``alpha``, warps per SM pinned with dynamic shared memory and checked with the occupancy API.

Without CuPy or a GPU every entry point raises :class:`~symgpu.errors.UsageError` saying so;
nothing here runs in CI.
"""

from __future__ import annotations

import datetime
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.measure import data

_CHASE = r"""
extern "C" __global__ void chase(const unsigned long long* next, long long steps, unsigned long long* out, long long* cycles) {
    unsigned long long p = 0;
    for (int i = 0; i < 64; ++i) { p = __ldcg(next + p); }              // warm the TLB and the path
    long long start = clock64();
    for (long long i = 0; i < steps; ++i) { p = __ldcg(next + p); }
    long long stop = clock64();
    out[0] = p; cycles[0] = stop - start;
}
"""
_FMA = r"""
extern "C" __global__ void fma_chain(float* out, long long iters, long long* cycles) {
    float x = threadIdx.x;
    long long start = clock64();
    for (long long i = 0; i < iters; ++i) {
        #pragma unroll
        for (int k = 0; k < 64; ++k) { x = fmaf(x, 0.999f, 0.5f); }   // one dependent chain, the loop's cost spread over 64
    }
    long long stop = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0 && blockIdx.x == 0) cycles[0] = stop - start;
}
"""
_STREAM = r"""
template <int ILP>
__device__ void body(const float* a, long long n, int alpha, float* out, int* smids) {
    extern __shared__ float pin[];                                       // pins warps per SM
    if (threadIdx.x == 0) { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); smids[blockIdx.x] = (int)s; }
    long long stride = (long long)gridDim.x * blockDim.x * ILP;
    float acc = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x * ILP + threadIdx.x; i + (ILP - 1) * blockDim.x < n; i += stride) {
        float v[ILP];
        #pragma unroll
        for (int k = 0; k < ILP; ++k) v[k] = __ldcg(a + i + k * blockDim.x);
        for (int j = 0; j < alpha; ++j) {                                   // the ilp chains interleaved, step by step
            #pragma unroll
            for (int k = 0; k < ILP; ++k) v[k] = fmaf(v[k], 0.999f, 0.5f);
        }
        #pragma unroll
        for (int k = 0; k < ILP; ++k) acc += v[k];
    }
    if (acc == -1.0f) { out[0] = acc + pin[0]; }
}
extern "C" __global__ void stream1(const float* a, long long n, int alpha, float* out, int* smids) { body<1>(a, n, alpha, out, smids); }
extern "C" __global__ void stream2(const float* a, long long n, int alpha, float* out, int* smids) { body<2>(a, n, alpha, out, smids); }
extern "C" __global__ void stream4(const float* a, long long n, int alpha, float* out, int* smids) { body<4>(a, n, alpha, out, smids); }
"""


def cupy_module() -> Any:
    """CuPy, or a clear error when it (or a GPU) is missing."""
    try:
        cupy = importlib.import_module("cupy")
    except ImportError:
        raise errors.UsageError("symgpu measure needs CuPy and an NVIDIA GPU: pip install 'symgpu[cuda]'") from None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise errors.UsageError("symgpu measure: no NVIDIA GPU found")
    except cupy.cuda.runtime.CUDARuntimeError as exc:
        raise errors.UsageError(f"symgpu measure: no usable NVIDIA GPU ({exc})") from None
    return cupy


#: cudaDeviceAttr numbers (CUDA runtime API) of the attributes read, by :class:`DeviceAttributes` field;
#: read with cudaDeviceGetAttribute, since CUDA 13's cudaDeviceProp no longer has ``clockRate``
ATTRIBUTES = {"clock_khz": 13, "sms": 16, "max_threads_per_sm": 39, "major": 75, "minor": 76,
              "smem_per_sm": 81, "smem_per_block_optin": 97}


@dataclass(frozen=True)
class DeviceAttributes:
    """What the microbenchmarks read of the device: its compute capability, SM count and clock (kHz),
    and the per-SM limits the pinning of warps works against (threads, shared memory in bytes)."""

    clock_khz: int
    sms: int
    max_threads_per_sm: int
    major: int
    minor: int
    smem_per_sm: int
    smem_per_block_optin: int


def attributes(cupy: Any) -> DeviceAttributes:
    """Device 0's :class:`DeviceAttributes`."""
    return DeviceAttributes(**{field: int(cupy.cuda.runtime.deviceGetAttribute(number, 0)) for field, number in ATTRIBUTES.items()})


def provenance(cupy: Any) -> tuple[str, ...]:
    """Device, driver, runtime, SM count and clock lines for the CSV header."""
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    props = attributes(cupy)
    return (
        f"device: {name}, CC {props.major}.{props.minor}, {props.sms} SMs",
        f"driver {cupy.cuda.runtime.driverGetVersion()}, runtime {cupy.cuda.runtime.runtimeGetVersion()}, "
        f"max SM clock {props.clock_khz / 1000:.0f} MHz (clock64 cycles are SM cycles)",
        f"measured {datetime.date.today().isoformat()} by symgpu measure",
    )


def pointer_chase(cupy: Any, footprints: list[int], steps: int = 20000, line: int = 256) -> list[float]:
    """Cycles per dependent load for each footprint (bytes)."""
    kernel = cupy.RawKernel(_CHASE, "chase")
    result = []
    rng = np.random.default_rng(12345)
    for index, footprint in enumerate([footprints[0], *footprints]):  # the first, twice: the clocks ramp up
        slots = footprint // line
        stride = line // 8
        order = rng.permutation(slots)
        table = np.zeros(slots * stride, dtype=np.uint64)
        table[order * stride] = np.roll(order, -1) * stride
        next_ = cupy.asarray(table)
        out = cupy.zeros(1, dtype=cupy.uint64)
        cycles = cupy.zeros(1, dtype=cupy.int64)
        kernel((1,), (1,), (next_, np.int64(steps), out, cycles))
        cupy.cuda.Device(0).synchronize()
        if index:
            result.append(float(cycles.get()[0]) / steps)
    return result


def fma_latency(cupy: Any, iters: int = 1 << 12) -> float:
    """Cycles per dependent FP32 FMA: one warp, one chain of ``64 * iters`` FMAs, after a warm-up run."""
    kernel = cupy.RawKernel(_FMA, "fma_chain")  # not "fma": CUDA declares fma() with C linkage
    out = cupy.zeros(32, dtype=cupy.float32)
    cycles = cupy.zeros(1, dtype=cupy.int64)
    for _ in range(2):
        kernel((1,), (32,), (out, np.int64(iters), cycles))
    cupy.cuda.Device(0).synchronize()
    return float(cycles.get()[0]) / (64 * iters)


def occupancy_pinned(cupy: Any, kernel: Any, threads: int, smem: int) -> int:
    """Blocks per SM the occupancy API allows for this launch shape."""
    return int(cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, threads, smem))


def pinning(props: DeviceAttributes, warps: int) -> tuple[int, int, int] | None:
    """(blocks per SM, threads per block, dynamic shared memory in bytes) that hold ``warps`` warps
    on every SM: one block of 32*w threads up to 32 warps, two blocks of 16*w threads above (as
    ``data/h100/README.md``'s runs), each asking for just over 1/(blocks + 1) of the SM's shared
    memory so that no further block fits. None where the SM cannot hold that many warps."""
    blocks = 1 if warps <= 32 else 2
    if warps * 32 > props.max_threads_per_sm or warps % blocks:
        return None
    smem = min(props.smem_per_sm // (blocks + 1) + 1024, props.smem_per_block_optin)
    return blocks, warps * 32 // blocks, smem


def elements_read(size: int, grid: int, threads: int, ilp: int) -> int:
    """Floats the stream kernel reads: per thread, ``ilp`` per trip of its grid-stride loop
    (``i + (ilp - 1)*blockDim.x < size``), so the bytes behind each GB/s are the bytes read."""
    starts = np.arange(grid, dtype=np.int64)[:, None] * (threads * ilp) + np.arange(threads, dtype=np.int64)[None, :]
    stride = grid * threads * ilp
    trips = -((starts - (size - (ilp - 1) * threads)) // stride)  # ceil((limit - start) / stride)
    return int(ilp * np.maximum(trips, 0).sum())


def stream(cupy: Any, warps: list[int], ilps: list[int], alphas: list[int], size: int = 1 << 28,
           repeats: int = 3) -> list[tuple[int, int, int, float]]:
    """(ilp, alpha, warps/SM, GB/s): the median of ``repeats`` timed runs after a warm-up, the
    warps pinned with shared memory (:func:`pinning`) and every SM seen (``%smid``) to hold
    exactly that many blocks.

    Raises:
        errors.UsageError: the occupancy API or the SMs' blocks disagree with the pinning.
    """
    props = attributes(cupy)
    sms = props.sms
    module = cupy.RawModule(code=_STREAM, options=("-std=c++14",))
    array = cupy.ones(size, dtype=cupy.float32)
    out = cupy.zeros(1, dtype=cupy.float32)
    rows = []
    for ilp in ilps:
        kernel = module.get_function(f"stream{ilp}")
        for alpha in alphas:
            for w in warps:
                pinned = pinning(props, w)
                if pinned is None:
                    continue
                blocks, threads, smem = pinned
                kernel.max_dynamic_shared_size_bytes = smem
                if occupancy_pinned(cupy, kernel, threads, smem) != blocks:
                    raise errors.UsageError(f"symgpu measure: could not pin {blocks} block(s) of {threads} threads per SM")
                grid = blocks * sms
                smids = cupy.full(grid, -1, dtype=cupy.int32)
                arguments = (array, np.int64(size), np.int32(alpha), out, smids)
                kernel((grid,), (threads,), arguments, shared_mem=smem)  # warm-up
                held = np.unique(smids.get(), return_counts=True)
                if held[0].size != sms or held[0][0] < 0 or (held[1] != blocks).any():
                    raise errors.UsageError(f"symgpu measure: {w} warps/SM: blocks per SM were {sorted(set(held[1].tolist()))}, "
                                            f"not {blocks} on each of {sms} SMs")
                times = []
                for _ in range(repeats):
                    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
                    start.record()
                    kernel((grid,), (threads,), arguments, shared_mem=smem)
                    stop.record()
                    stop.synchronize()
                    times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
                rows.append((ilp, alpha, w, elements_read(size, grid, threads, ilp) * 4 / float(np.median(times)) / 1e9))
    return rows


def run_all(folder: Path, *, quick: bool = False) -> list[Path]:
    """Run every microbenchmark and write the CSVs into ``folder``.

    Raises:
        errors.UsageError: no CuPy or no GPU.
    """
    cupy = cupy_module()
    folder.mkdir(parents=True, exist_ok=True)
    lines = provenance(cupy)
    footprints = [1 << 20, 1 << 24, 1 << 30] if quick else [1 << k for k in range(20, 33, 2)]
    chase = pointer_chase(cupy, footprints)
    written = []
    latency = data.MeasuredData("latency.csv", (data.Column("footprint", "B", tuple(float(f) for f in footprints)),
                                                data.Column("mem_lat", "cycle", tuple(chase))), lines)
    data.write_csv(folder / "latency.csv", latency)
    written.append(folder / "latency.csv")
    fma = data.MeasuredData("fma.csv", (data.Column("alu_lat", "cycle", (fma_latency(cupy),)),), lines)
    data.write_csv(folder / "fma.csv", fma)
    written.append(folder / "fma.csv")
    warps = [1, 4, 16, 32, 64] if quick else [1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64]
    rows = stream(cupy, warps, [1] if quick else [1, 2, 4], [0] if quick else [0, 8, 32, 128])
    table = data.MeasuredData("stream.csv", (
        data.Column("ilp", "winst/warp", tuple(float(r[0]) for r in rows)),
        data.Column("alpha", "1", tuple(float(r[1]) for r in rows)),
        data.Column("n", "warp/SM", tuple(float(r[2]) for r in rows)),
        data.Column("dram_throughput", "GB/s", tuple(r[3] for r in rows)),
    ), lines)
    data.write_csv(folder / "stream.csv", table)
    written.append(folder / "stream.csv")
    return written
