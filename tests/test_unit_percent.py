"""A pure number can be asked for, and given, in percent: `--unit percent` or `--unit %` (occupancy as Nsight Compute
and `symgpu kernel` print it; outside round 11a, F6: 'unknown unit', "character '%' is not allowed")."""

from __future__ import annotations

from symgpu import units

POINT = ("-p", "cc_8_6", "-s", "threads_per_block=96", "-s", "regs_per_thread=40", "-s", "smem_per_block=4 KiB/block")


def test_occupancy_in_percent_is_a_hundred_times_the_fraction(cli):
    # cc_8_6: 96 threads = 3 warps a block, at most 16 blocks an SM: 48 of the 48 warp slots, a fraction of 1 (by hand)
    code, out, err = cli("eval", "occupancy", "occupancy", *POINT)
    assert code == 0 and out.startswith("occupancy = 1\n"), err
    for unit in ("percent", "%"):
        code, out, err = cli("eval", "occupancy", "occupancy", *POINT, "--unit", unit)
        assert code == 0 and out.startswith("occupancy = 100 percent\n"), err


def test_a_percent_sign_in_unit_text_reads_as_hundredths():
    assert units.quantity("75 %").to("dimensionless").magnitude == 0.75
    assert units.quantity("12.5 percent").to("dimensionless").magnitude == 0.125
