"""The occupancy model against an independent brute-force occupancy calculator.

The calculator below is written from NVIDIA's rules (cuda_occupancy.h of CUDA 13.0:
cudaOccMaxBlocksPerSMWarpsLimit, cudaOccMaxBlocksPerSMRegsLimit with its hardware check
on warps rounded up to the sub-partitions, cudaOccMaxBlocksPerSMSmemLimit with the
per-block limit plus reserved memory; CUDA 7.0's per-block register rule for CC 1.x),
in plain integer arithmetic, with its own table of limits per compute capability; CUDA 7.0's
Fermi register granularity (128 instead of 64 for eight listed register counts) and CUDA
13.0's CC 6.0 forward-compatibility check (the launch must also fit a GP10x SM, i.e. the
register limit with 4 sub-partitions must not be 0); and the named-barrier limit of compute
capability 9.0 and later, simulated here by handing out a per-SM pool of barriers block by
block rather than by the header's division. It
shares no code and no numbers with equations/occupancy.toml. Every configuration of a
few thousand per compute capability must give the same active blocks per SM, including
the blocks that cannot launch (0 blocks).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

import symgpu

KB = 1024


@dataclass(frozen=True)
class Arch:
    """Per-compute-capability limits as the Programming Guide tables and cuda_occupancy.h give them."""

    max_threads_per_block: int
    threads_per_sm: int
    blocks_per_sm: int
    regs_per_sm: int
    max_regs_per_thread: int
    reg_unit: int
    subpartitions: int
    smem_per_sm: int
    smem_per_block: int
    smem_unit: int
    smem_reserved: int
    per_block_registers: bool = False
    wide_reg_counts: tuple[int, ...] = ()   # register counts allocated in wide_reg_unit instead
    wide_reg_unit: int = 0
    gp10x_check: bool = False               # CC 6.0: the launch must also fit a GP10x (4 sub-partitions)
    barriers_per_sm: int = 0                # CC >= 9.0: named barriers per SM shared by the blocks; 0 = no barrier limit


# cuda_occupancy.h (CUDA 7.0), cudaOccRegAllocationGranularity, case 2 (Fermi)
FERMI_WIDE_COUNTS = (21, 22, 29, 30, 37, 38, 45, 46)


ARCHS = {
    "cc_1_0": Arch(512, 768, 8, 8 * KB, 128, 256, 1, 16 * KB, 16 * KB, 512, 0, per_block_registers=True),
    "cc_1_3": Arch(512, 1024, 8, 16 * KB, 128, 512, 1, 16 * KB, 16 * KB, 512, 0, per_block_registers=True),
    "cc_2_0": Arch(1024, 1536, 8, 32 * KB, 63, 64, 2, 48 * KB, 48 * KB, 128, 0,
                   wide_reg_counts=FERMI_WIDE_COUNTS, wide_reg_unit=128),
    "cc_3_0": Arch(1024, 2048, 16, 64 * KB, 63, 256, 4, 48 * KB, 48 * KB, 256, 0),
    "cc_3_5": Arch(1024, 2048, 16, 64 * KB, 255, 256, 4, 48 * KB, 48 * KB, 256, 0),
    "cc_5_2": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 96 * KB, 48 * KB, 256, 0),
    "cc_6_0": Arch(1024, 2048, 32, 64 * KB, 255, 256, 2, 64 * KB, 48 * KB, 256, 0, gp10x_check=True),
    "cc_6_1": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 96 * KB, 48 * KB, 256, 0),
    "cc_7_0": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 96 * KB, 96 * KB, 256, 0),
    "cc_7_5": Arch(1024, 1024, 16, 64 * KB, 255, 256, 4, 64 * KB, 64 * KB, 256, 0),
    "cc_8_0": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 164 * KB, 163 * KB, 128, 1 * KB),
    "cc_8_6": Arch(1024, 1536, 16, 64 * KB, 255, 256, 4, 100 * KB, 99 * KB, 128, 1 * KB),
    "cc_8_9": Arch(1024, 1536, 24, 64 * KB, 255, 256, 4, 100 * KB, 99 * KB, 128, 1 * KB),
    # barriers per SM: twice the block slots on CC 9.x/10.x, once on 12.x (cuda_occupancy.h, CUDA 12.6 / 13.0)
    "cc_9_0": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 228 * KB, 227 * KB, 128, 1 * KB, barriers_per_sm=64),
    "cc_10_0": Arch(1024, 2048, 32, 64 * KB, 255, 256, 4, 228 * KB, 227 * KB, 128, 1 * KB, barriers_per_sm=64),
    "cc_12_0": Arch(1024, 1536, 24, 64 * KB, 255, 256, 4, 100 * KB, 99 * KB, 128, 1 * KB, barriers_per_sm=24),
}


def round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def per_warp_register_blocks(arch: Arch, subpartitions: int, regs: int, warps: int) -> int:
    """Blocks the register file allows when registers are allocated per warp (CC >= 2.0)."""
    unit = arch.wide_reg_unit if regs in arch.wide_reg_counts else arch.reg_unit
    per_warp = round_up(regs * 32, unit)
    if per_warp * round_up(warps, subpartitions) > arch.regs_per_sm:   # hardware check (regsPerBlock = per SM)
        return 0
    return ((arch.regs_per_sm // subpartitions) // per_warp) * subpartitions // warps


def blocks_by_barrier_pool(pool: int, barriers: int, big: int) -> int:
    """Blocks that get their named barriers from an SM's pool, handed out one block at a time."""
    if pool == 0 or barriers == 0:     # no barrier limit before CC 9.0, or a kernel without named barriers
        return big
    blocks, left = 0, pool
    while left >= barriers:
        left -= barriers
        blocks += 1
    return blocks


def brute_force_blocks(arch: Arch, threads: int, regs: int, smem: int, barriers: int = 1) -> int:
    """Active blocks per SM by NVIDIA's occupancy rules, in integers (0 = cannot launch); ``barriers``
    named barriers per block (the header's default is 1)."""
    big = 1 << 30
    warps = -(-threads // 32)
    # warp slots
    if threads > arch.max_threads_per_block:
        by_warps = 0
    elif arch.per_block_registers:                     # CC 1.x: warps allocated in pairs
        by_warps = (arch.threads_per_sm // 32) // round_up(warps, 2)
    else:
        by_warps = (arch.threads_per_sm // 32) // warps
    # registers
    if regs > arch.max_regs_per_thread:
        by_regs = 0
    elif regs == 0:
        by_regs = big
    elif arch.per_block_registers:
        by_regs = arch.regs_per_sm // round_up(regs * 32 * round_up(warps, 2), arch.reg_unit)
    else:
        by_regs = per_warp_register_blocks(arch, arch.subpartitions, regs, warps)
        if by_regs and arch.gp10x_check and per_warp_register_blocks(arch, 4, regs, warps) == 0:
            by_regs = 0
    # shared memory
    allocated = round_up(smem + arch.smem_reserved, arch.smem_unit)
    if allocated > arch.smem_per_block + arch.smem_reserved:
        by_smem = 0
    elif allocated == 0:
        by_smem = big
    else:
        by_smem = arch.smem_per_sm // allocated
    by_barriers = blocks_by_barrier_pool(arch.barriers_per_sm, barriers, big)
    return min(by_warps, arch.blocks_per_sm, by_regs, by_smem, by_barriers)


THREADS = sorted({1, 31, 33, 100, 200, 320, 500, 513, 1000, 1023, 1025, 1056} | set(range(32, 1025, 32)))
REGS = [0, 1, 8, 16, 17, 21, 22, 23, 24, 25, 29, 30, 32, 33, 37, 38, 40, 45, 46, 48, 63, 64, 65, 72, 88, 96, 128, 129,
        168, 200, 255]
SMEM = [0, 1, 1000, 2048, 3072, 3073, 8 * KB, 16 * KB, 16 * KB + 1, 40 * KB, 48 * KB, 48 * KB + 1,
        64 * KB, 64 * KB + 1, 96 * KB, 96 * KB + 1, 99 * KB, 99 * KB + 1, 163 * KB, 163 * KB + 1, 227 * KB, 227 * KB + 1]


@pytest.fixture(scope="module")
def occ():
    return symgpu.load("occupancy")


@pytest.mark.parametrize("preset", sorted(ARCHS))
def test_model_equals_brute_force_occupancy_calculator_including_blocks_that_cannot_launch(occ, preset):
    arch = ARCHS[preset]
    grid = list(itertools.product(THREADS, REGS, SMEM))
    assert len(grid) > 5000
    threads, regs, smem = (np.array(column, dtype=float) for column in zip(*grid))
    model = occ.evaluate("active_blocks_per_SM", preset=preset,
                         values={"threads_per_block": threads, "regs_per_thread": regs, "smem_per_block": smem}).magnitude
    expected = np.array([brute_force_blocks(arch, *point) for point in grid], dtype=float)
    mismatches = [(grid[i], model[i], expected[i]) for i in np.flatnonzero(model != expected)[:5]]
    assert not mismatches, f"{preset}: (threads, regs, smem), model, brute force: {mismatches}"
    launchable = int(np.count_nonzero(expected))
    assert 0 < launchable < len(grid)        # the grid covers both sides of every launch limit


BARRIER_PRESETS = ["cc_8_0", "cc_9_0", "cc_10_0", "cc_12_0"]
BARRIERS = list(range(0, 17))


@pytest.mark.parametrize("preset", BARRIER_PRESETS)
def test_model_equals_brute_force_with_0_to_16_named_barriers_per_block(occ, preset):
    arch = ARCHS[preset]
    grid = list(itertools.product(THREADS, [0, 16, 32, 64, 128, 255], [0, 3072, 48 * KB, 227 * KB + 1], BARRIERS))
    threads, regs, smem, barriers = (np.array(column, dtype=float) for column in zip(*grid))
    model = occ.evaluate("active_blocks_per_SM", preset=preset,
                         values={"threads_per_block": threads, "regs_per_thread": regs, "smem_per_block": smem,
                                 "barriers_per_block": barriers}).magnitude
    expected = np.array([brute_force_blocks(arch, *point) for point in grid], dtype=float)
    mismatches = [(grid[i], model[i], expected[i]) for i in np.flatnonzero(model != expected)[:5]]
    assert not mismatches, f"{preset}: (threads, regs, smem, barriers), model, brute force: {mismatches}"
    without_barriers = np.array([brute_force_blocks(arch, t, r, s, 0) for t, r, s, _ in grid], dtype=float)
    barrier_bound = int(np.count_nonzero(expected < without_barriers))
    if arch.barriers_per_sm:
        assert barrier_bound > 0             # the grid reaches configurations the barriers limit
    else:
        assert barrier_bound == 0            # before CC 9.0 barriers never limit


def test_three_named_barriers_give_21_blocks_on_hopper_and_none_limit_ampere():
    # 64 barriers per SM (2 x 32 slots): 3 + 3 + ... 21 blocks take 63, one barrier is left over
    assert blocks_by_barrier_pool(64, 3, 1 << 30) == 21
    assert brute_force_blocks(ARCHS["cc_9_0"], 64, 32, 0, 3) == 21
    assert brute_force_blocks(ARCHS["cc_8_0"], 64, 32, 0, 16) == 32     # block slots, not barriers
    # CC 12.x: 24 barriers (1 x 24 slots); one barrier per block ties the 24 block slots
    assert brute_force_blocks(ARCHS["cc_12_0"], 32, 32, 0, 2) == 12


def test_issue_example_200_registers_320_threads_cannot_launch_on_hopper_but_256_threads_can():
    assert brute_force_blocks(ARCHS["cc_9_0"], 320, 200, 0) == 0
    assert brute_force_blocks(ARCHS["cc_9_0"], 256, 200, 0) == 1


def test_fermi_rounds_the_listed_register_counts_to_128_per_warp_and_others_to_64():
    fermi = ARCHS["cc_2_0"]
    # 21 x 32 = 672 -> 768 (128 granularity): 16384 // 768 = 21 warps per sub-partition, 42 per SM, 42 // 11 = 3
    assert brute_force_blocks(fermi, 352, 21, 0) == 3
    # 25 x 32 = 800 -> 832 (64 granularity): 16384 // 832 = 19, 38 per SM, 38 // 11 = 3; 20 x 32 = 640: 25, 50 -> 4 (warps 48 // 11)
    assert brute_force_blocks(fermi, 352, 20, 0) == 4


def test_cc60_launch_that_fits_gp100_but_not_gp10x_gets_zero_blocks():
    # 88 x 32 = 2816 per warp; GP100: (32768 // 2816) x 2 = 22 warps >= 21; GP10x: (16384 // 2816) x 4 = 20 < 21
    assert brute_force_blocks(ARCHS["cc_6_0"], 672, 88, 0) == 0
    assert brute_force_blocks(ARCHS["cc_6_0"], 640, 88, 0) == 1
    assert brute_force_blocks(ARCHS["cc_6_1"], 640, 88, 0) == 1
