"""``symgpu predict --kernel``: a --set input from which the launch is derived re-derives it (the grid follows
--set block), a GEMM's batch B multiplies its rows, and a name the operator does not read is refused, never
ignored (round 15a S2, S3). Expected values worked by hand from the model files' preset values."""

from __future__ import annotations

import math
import re

import pytest

import symgpu
from symgpu.cli.app import main
from symgpu.predict import describe, explain, mapping

# kernel_streaming neusight_fit and h100_sxm values (equations/kernel_streaming.toml)
T_LAUNCH_EW, L_M, ETA_M, THETA_H100 = 19.3e-6, 330e-9, 0.902, 3430e9
# kernel_gemm neusight_fit and a100_pcie_40gb values (equations/kernel_gemm.toml)
T_LAUNCH_GEMM, ETA_F, E_FLOP, SMS_A100, PEAK_A100, BOARD_A100 = 41.4e-6, 0.839, 14.2e-12, 108, 19492e9, 250.0


def _latency_us(row) -> float:
    return explain.explain(mapping.assign(row)).latency_us


def test_a_1024_thread_block_launches_the_grid_of_1024_thread_blocks_and_turns_latency_bound():
    row = describe.kernel_row("relu", "h100_sxm", {"B": "100", "H": "1000", "block": "1024"})
    blocks = math.ceil(100 * 1000 / (1024 * 4))                # 4 elements per thread: 25 blocks, not 196
    assert row.grid == (blocks, 1, 1) and blocks == 25
    moved = 100 * 1000 * 2 * 4                                 # relu: one tensor read, one written, 4 B each
    little = blocks * 1024 * 16 / L_M                          # one partial wave: every block resident, 16 B in flight per thread
    assert little < ETA_M * THETA_H100                         # latency-bound by hand
    assert _latency_us(row) == pytest.approx((T_LAUNCH_EW + moved / little) * 1e6, rel=1e-9)   # 19.9445 us


@pytest.mark.parametrize(("kind", "sizes", "grid"), [
    ("softmax", {"B": "1000", "H": "100", "block": "256"}, math.ceil(1000 / (256 // 32))),   # one row per warp
    ("ln", {"B": "1000", "H": "100", "block": "256"}, 1000),                                  # one row per block
    ("softmax", {"B": "1000", "H": "4000", "block": "1024"}, 1000),                           # cunn_SoftMaxForward: one row per block
    ("add", {"B": "1000", "H": "1000", "block": "64"}, math.ceil(1e6 / (64 * 4))),
])
def test_the_grid_follows_a_given_block_by_each_kernels_rows_per_block(kind, sizes, grid):
    row = describe.kernel_row(kind, "t4", sizes)
    assert row.grid == (grid, 1, 1) and row.block == (int(sizes["block"]), 1, 1)


def test_a_given_grid_that_disagrees_with_a_given_block_is_refused_in_one_line():
    with pytest.raises(symgpu.errors.UsageError, match=r"^--set grid=196: with --set block=1024 --kernel relu launches 25 blocks"):
        describe.kernel_row("relu", "h100_sxm", {"B": "100", "H": "1000", "block": "1024", "grid": "196"})
    assert describe.kernel_row("relu", "h100_sxm", {"B": "100", "H": "1000", "block": "1024", "grid": "25"}).grid == (25, 1, 1)


def test_a_gemm_batch_multiplies_its_rows_as_a_batched_linear_does():
    row = describe.kernel_row("gemm", "a100_pcie_40gb", {"B": "4", "M": "1024", "N": "1024", "K": "1024"})
    assert row.grid == (1024 // 128, 4 * 1024 // 128, 1)
    blocks = 8 * 32
    waves = math.ceil(blocks / SMS_A100)                        # 3 waves of 108 one-block SMs
    rate = ETA_F * min(PEAK_A100, BOARD_A100 / E_FLOP)          # power-capped: 250 W / 14.2 pJ
    t_tile = 2 * 128 * 128 * 1024 / (rate / SMS_A100)
    assert _latency_us(row) == pytest.approx((T_LAUNCH_GEMM + waves * t_tile) * 1e6, rel=1e-9)   # 777.41 us, not 286.7


@pytest.mark.parametrize(("kind", "sizes", "name", "reads"), [
    ("softmax", {"B": "4", "H": "1024", "K": "77"}, "K", "B, H, grid, block"),
    ("softmax", {"B": "4", "H": "1024", "tile": "64x64"}, "tile", "B, H, grid, block"),
    ("relu", {"B": "4", "H": "1024", "split_k": "2"}, "split_k", "B, H, grid, block"),
    ("gemm", {"M": "8", "N": "8", "K": "8", "H": "77"}, "H", "B, M, N, K, tile, split_k, grid"),
    ("gemm", {"M": "8", "N": "8", "K": "8", "block": "128"}, "block", "B, M, N, K, tile, split_k, grid"),
])
def test_a_name_the_operator_does_not_read_is_refused_naming_the_ones_it_reads(kind, sizes, name, reads):
    with pytest.raises(symgpu.errors.UsageError, match=rf"^--set {name}: --kernel {kind} does not read {name} \(it reads {re.escape(reads)}\)"):
        describe.kernel_row(kind, "h100_sxm", sizes)


def test_a_grid_given_alone_that_is_not_pytorchs_is_said_on_stderr(capsys):
    assert main(["predict", "--kernel", "gemm", "--gpu", "h100_sxm", "--set", "M=1000", "--set", "N=1000", "--set", "K=1000",
                 "--set", "grid=300"]) == 0
    tiles = math.ceil(1000 / 128) ** 2                                                 # 64 tiles of 128 x 128
    err = capsys.readouterr().err
    assert f"note: --set grid=300: PyTorch launches {tiles} blocks" in err and err.count("\n") == 1
