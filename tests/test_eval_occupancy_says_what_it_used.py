"""``eval --occupancy`` in text mode says what it used and gave: the compute capability, the launch, the blocks and
warps per SM of the device's maximum, the binding limit and the values it set (it printed only the quantity; a
fresh-question audit's finding). The numbers are checked by hand from the CUDA occupancy rules of CC 1.3."""

from __future__ import annotations

import json


def test_the_occupancy_line_names_cc_1_3_and_four_blocks_of_16_warps_by_shared_memory(cli) -> None:
    # by hand, GTX 280 = CC 1.3: 32 warps, 8 blocks, 16 KiB shared memory per SM, shared memory allocated in 512 B
    # units: 3960 B -> 4096 B per block, 16384/4096 = 4 blocks (registers: 18*128 = 2304 -> 2560 of 16384, 6 blocks;
    # warps: 32/4 = 8 blocks), so 4 blocks of 128/32 = 4 warps: 16 warps of 32, occupancy 0.5
    argv = ("eval", "hong_kim_2009", "Exec_cycles_app", "--preset", "gtx280+tiled_matmul", "--occupancy", "threads=128,regs=18,smem=3960")
    code, out, err = cli(*argv)
    assert code == 0, err
    line = out.splitlines()[1]
    assert line.startswith("  occupancy on cc_1_3 (threads_per_block = 128 thread/block, regs_per_thread = 18 reg/thread, "
                           "smem_per_block = 3960 B/block): 4 block/SM, 16 warp/SM of 32 (occupancy 0.5), limited by smem_limit"), line
    assert line.endswith("sets Active_blocks_per_SM = 4 block/SM, Active_warps_per_SM = 16 warp/SM, Threads_per_block = 128 thread/block")
    code, out, err = cli(*argv, "--json")
    used = json.loads(out)["occupancy"]
    assert code == 0 and (used["cc"], used["active_blocks"], used["active_warps"], used["max_warps"], used["occupancy"]) == ("cc_1_3", 4, 16, 32, 0.5)
    assert used["limiting"] == ["smem_limit"]
