"""``symgpu sweep`` whose regime column belongs to a quantity not swept itself (kernel_streaming's ``t_kernel``
shows ``t_body``'s regime): where that quantity is outside its ``valid_when`` domain the point has no regime.

Audit q32b: ``sweep kernel_streaming t_kernel t_memory`` at 1056 threads per block (``resident_blocks`` is valid
only up to 1024) wrote ``t_kernel`` NaN but the regime ``memory_bound``, a regime of ``t_body`` where ``t_body`` has
no value, and counted it among "regimes of t_body" (with ``t_kernel`` alone, or ``t_body`` swept, the point had
none). The regime quantity's domain now bounds every column, as it did where that quantity is swept.

Expected values by hand from equations/kernel_streaming.toml at preset h100_sxm+neusight_fit (132 SMs, 3430 GB/s,
64 warps and 32 blocks per SM, eta_M = 0.902, t_launch = 19.3 us, L_M = 330 ns, 4-byte elements).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

ELEMENTS, OPERANDS, BLOCKS, INFLIGHT = 1e6, 3, 100, 32  # elements, tensors, blocks, bytes in flight per thread


def by_hand_at_256_threads() -> tuple[float, float]:
    """t_kernel and t_memory in us at 256 threads per block: 8 warps, 8 resident blocks, 100/132 active."""
    moved = ELEMENTS * OPERANDS * 4  # B
    t_memory = moved / (0.902 * 3430e9)
    active = min(8, BLOCKS / 132)
    t_latency = moved / (132 * active * 256 * INFLIGHT / 330e-9)
    return (19.3e-6 + max(t_memory, t_latency)) * 1e6, t_memory * 1e6


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_point_outside_the_regime_quantitys_domain_has_no_regime(cli, tmp_path: Path, backend: str) -> None:
    output = tmp_path / f"s_{backend}.csv"
    argv = ("sweep", "kernel_streaming", "t_kernel", "t_memory", "-p", "h100_sxm+neusight_fit",
            "-g", "threads_per_block=256,1056", "-g", f"elements={ELEMENTS:g}", "-g", f"blocks={BLOCKS}",
            "-g", f"operands={OPERANDS}", "-g", f"inflight_per_thread={INFLIGHT}", "-o", output,
            "--backend", backend, "--no-progress")
    for _ in range(2):  # the second run of the request too (a stored plan replays the numpy one)
        code, out, err = cli(*argv)
        assert code == 0, err
        assert "regimes of t_body: latency_bound 1, (none) 1" in out
        assert "1 points outside the model's domain (valid_when): NaN" in out
        with output.open(newline="", encoding="utf-8") as handle:
            inside, outside = list(csv.DictReader(handle))
        t_kernel, t_memory = by_hand_at_256_threads()
        assert float(inside["t_kernel [us]"]) == pytest.approx(t_kernel, rel=1e-14)
        assert float(inside["t_memory [us]"]) == pytest.approx(t_memory, rel=1e-14)
        assert inside["regime"] == "latency_bound"  # 4.834 us of latency over 3.879 us of memory time
        assert float(outside["threads_per_block [thread/block]"]) == 1056
        assert math.isnan(float(outside["t_kernel [us]"]))
        assert outside["regime"] == ""
