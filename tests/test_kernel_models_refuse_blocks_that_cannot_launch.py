"""kernel_streaming and kernel_row_reduction give no time for a block of more threads than the GPU allows
(1024 on every compute capability from 2.0 on, CUDA C++ Programming Guide, 'Technical Specifications per
Compute Capability': such a launch fails with cudaErrorInvalidConfiguration), as the occupancy model
answers 0 blocks for it (block_too_large); a block of 1024 threads is still answered."""

from __future__ import annotations

import pytest

import symgpu
from conftest import assert_one_line_refusal

STREAMING = {"eta_M": "0.902", "t_launch": "19.3 us", "L_M": "330 ns", "elem_size": "4 B", "operands": "3",
             "inflight_per_thread": "4 B/thread", "elements": "1e6", "blocks": "100 block"}


@pytest.mark.parametrize("threads", [1025, 2048])
def test_streaming_kernel_time_refused_for_a_block_over_1024_threads(cli, threads):
    sets = [a for name, value in STREAMING.items() for a in ("-s", f"{name}={value.split()[0]}")]
    code, out, err = cli("eval", "kernel_streaming", "t_kernel", "-p", "h100_sxm", *sets, "-s", f"threads_per_block={threads}")
    assert_one_line_refusal(code, out, err, "threads_per_block <= max_threads_per_block", "max_threads_per_block = 1024 thread/block",
                            f"threads_per_block = {threads} thread/block")


def test_row_reduction_time_refused_for_a_block_of_2048_threads(cli):
    code, out, err = cli("eval", "kernel_row_reduction", "t_kernel", "-p", "a100_pcie_40gb", "-s", "eta_R=0.689", "-s", "t_launch=18.5",
                         "-s", "L_M=330", "-s", "elem_size=4", "-s", "reads=1", "-s", "writes=1", "-s", "rereads=1", "-s", "rows=4096",
                         "-s", "row_len=4096", "-s", "rows_per_block=1", "-s", "blocks=4096", "-s", "threads_per_block=2048")
    assert_one_line_refusal(code, out, err, "max_threads_per_block = 1024 thread/block", "threads_per_block = 2048 thread/block")


def test_a_block_over_the_warp_slots_of_a_t4_names_the_thread_limit_not_a_pole(cli):
    # T4 (CC 7.5): 32 warps per SM; 1056 threads = 33 warps leave floor(32/33) = 0 resident blocks, which the time divides by
    code, out, err = cli("eval", "kernel_streaming", "resident_blocks", "-p", "t4", "-s", "threads_per_block=1056")
    assert_one_line_refusal(code, out, err, "max_threads_per_block = 1024 thread/block", "threads_per_block = 1056 thread/block")
    assert "pole" not in err


def test_a_block_of_1024_threads_is_still_answered():
    model = symgpu.load("kernel_streaming")
    values = {**STREAMING, "threads_per_block": "1024 thread/block"}
    # h100_sxm: 132 SMs, 3430 GB/s, 64 warps and 32 blocks per SM. 1024 threads = 32 warps: floor(64/32) = 2 blocks per SM
    assert model.evaluate("resident_blocks", "h100_sxm", values=values).magnitude == pytest.approx(2, rel=1e-15)
    # 100 blocks < one wave: 100/132 blocks per SM in flight; Little's law: 100 * 1024 threads * 4 B / 330 ns;
    # bytes 1e6 * 3 * 4 B = 12e6 B; t_memory = 12e6 / (0.902 * 3430e9) s = 3.8786 us < t_latency, so
    # t_kernel = 19.3 us + 12e6 B / (100 * 1024 * 4 / 330 GB/s) = 19.3 + 9.66797 us
    t_latency_us = 12e6 / (100 * 1024 * 4 / 330) / 1e3
    t_memory_us = 12e6 / (0.902 * 3430e9) * 1e6
    assert t_memory_us < t_latency_us
    assert model.evaluate("t_kernel", "h100_sxm", values=values).magnitude == pytest.approx(19.3 + t_latency_us, rel=1e-12)
