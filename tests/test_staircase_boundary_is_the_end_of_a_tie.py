"""A closed-form boundary between two staircase regimes that tie on a whole interval answers the end of the tie (the
last value where the regime below still binds, alone or tied; the other binds alone above it), whichever regime the
model's conditions give the tie, as the scan of the evaluate path and the sibling occupancy boundaries do. Expected
values by brute force over ``Model.evaluate``."""

from __future__ import annotations

import numpy as np

import symgpu

PAIR = ("shared_memory+smem_limit", "per_warp_allocation+ordinary_counts+register_limit")


def _last_register_bound_value(model: symgpu.Model, preset: str, at: dict[str, int]) -> tuple[int, int]:
    """(first value of the tie, last value where registers bind) over every whole smem_per_block 0..60000."""
    smem = np.arange(0.0, 60001.0)
    registers = float(model.evaluate("blocks_register_limit", preset, values=at).magnitude)
    shared = np.asarray(model.evaluate("blocks_smem_limit", preset, values={**at, "smem_per_block": smem}).magnitude, dtype=float)
    binds = np.flatnonzero(registers <= shared)  # registers bind, alone or tied (the Min of the two)
    tied = np.flatnonzero(registers == shared)
    assert binds.size and np.all(np.diff(binds) == 1)  # one run from 0 on
    return int(smem[tied[0]]), int(smem[binds[-1]])


def test_the_smem_register_boundary_is_where_shared_memory_starts_to_bind_alone(cli) -> None:  # type: ignore[no-untyped-def]
    # cc_8_0, 64 registers, 256 threads: 4 blocks by registers; shared memory ties them on 32513..40960 B and
    # limits alone (3 blocks) from 40961 B: the answer was 32512, the start of the tie
    model = symgpu.load("occupancy")
    at = {"regs_per_thread": 64, "threads_per_block": 256}
    tie_start, end = _last_register_bound_value(model, "cc_8_0", at)
    assert tie_start < end  # a real tie interval
    code, out, err = cli("boundary", "occupancy", "active_blocks_per_SM", "--preset", "cc_8_0", "--set", "regs_per_thread=64",
                         "--set", "threads_per_block=256", "--for", "smem_per_block", "--between", *PAIR)
    assert code == 0, err
    assert f"value: {end} B/block" in out
    assert "checked numerically" in out and "not checked" not in out


def test_the_closed_form_and_the_scan_of_the_limiters_give_the_same_end_of_the_tie(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("occupancy")
    at = {"regs_per_thread": 40, "threads_per_block": 128}
    _, end = _last_register_bound_value(model, "cc_3_5", at)
    sets = ["--set", "regs_per_thread=40", "--set", "threads_per_block=128"]
    for between in (PAIR, ("smem_limit", "register_limit")):
        code, out, err = cli("boundary", "occupancy", "active_blocks_per_SM", "--preset", "cc_3_5", *sets, "--for",
                             "smem_per_block", "--between", *between)
        assert code == 0, err
        assert f"value: {end} B/block" in out, between
