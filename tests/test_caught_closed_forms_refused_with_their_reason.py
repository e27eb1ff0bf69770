"""Questions without a point whose closed form its own certificate caught ("please report", found by the differential
tester: ``benchmarks/differential.py --seed 77 --ops boundary extremum`` and ``--seed 73 --ops boundary``) are refused
with the true reason and what to ask instead. Expected behaviour by brute force over ``Model.evaluate``."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import errors


def test_a_minimum_that_an_infinite_end_may_undercut_is_refused_naming_that_end() -> None:
    # Volkov's arithmetic_throughput_loaded = alpha*simd_width*Min(..., n/(a + alpha*alu_lat + b*theta/(c - theta))): inside
    # the domain theta < c the latency argument falls towards 0 as b grows, so the end b = 0 (shown before as the minimum where
    # no plateau edge holds, then caught) is no minimum there: brute force at Kepler's values falls on to 1e12 cycles
    model = symgpu.load("volkov_2016")
    b = np.geomspace(1.0, 1e12, 25)
    values = model.evaluate("arithmetic_throughput_loaded", preset="kepler", values={"alpha": 4, "n": 8, "x": 0.0982, "b": b}).magnitude
    assert np.all(np.diff(values) < 0) and values[-1] < 1e-6 * values[0]
    with pytest.raises(errors.DerivationError, match=r"cannot be compared with the limit as b -> oo") as refused:
        model.extremum("arithmetic_throughput_loaded", over="b", kind="min")
    assert not isinstance(refused.value, errors.CertificateError) and "ask at a point (--preset, --set)" in str(refused.value)


def test_a_staircase_boundary_without_a_point_is_refused_saying_why() -> None:
    # occupancy's register_limit and smem_limit are staircases in regs_per_SM, each in one of several cases: the closed form is
    # derived for CC 1.x's per-block register allocation, and at cc_1_1 with 256 registers per thread (over the 128 allowed:
    # too_many_registers_per_thread, 0 blocks) the register limit is 0 at every regs_per_SM, so nothing switches there
    model = symgpu.load("occupancy")
    regs = np.arange(1024.0, 2 ** 22, 1024.0)
    limit = model.evaluate("blocks_register_limit", preset="cc_1_1", values={"regs_per_thread": 256, "smem_per_block": 2,
                                                                              "threads_per_block": 256, "regs_per_SM": regs})
    assert np.all(np.asarray(limit.magnitude) == 0)
    with pytest.raises(errors.DerivationError, match=r"register_limit and smem_limit are staircases \(floor/ceiling\) in regs_per_SM"):
        model.boundary("active_blocks_per_SM", between=("register_limit", "smem_limit"), for_="regs_per_SM")


def test_the_row_reduction_body_boundary_without_a_point_is_refused_saying_why(cli) -> None:  # type: ignore[no-untyped-def]
    # t_body = Max(t_memory, t_latency), t_latency a staircase in blocks through waves = ceiling(blocks/(n_SM*resident_blocks)):
    # the closed form is one residency case's (block slots), caught before at a sampled point in the other (warp slots)
    code, out, err = cli("--no-cache", "boundary", "kernel_row_reduction", "t_body", "--for", "blocks", "--between", "memory_bound",
                         "latency_bound")
    assert code == 2 and "value:" not in out
    assert "please report" not in err and "memory_bound and latency_bound are staircases" in err and "ask at a point" in err


def test_a_boundary_of_every_pair_over_a_staircase_at_a_point_is_the_scans_switch_not_the_caught_closed_form(cli) -> None:  # type: ignore[no-untyped-def]
    # without --between the closed form of every pair gave blocks = 240768 = 57*132*32 (the block-slot residency, 32 per SM),
    # but at 256 threads the H100 holds floor(64/8) = 8 blocks per SM: latency binds on both sides of 240768 (brute force),
    # so that was no switch (caught by the check, then refused); now the scan of every pair of t_body's limiters answers, at
    # the last whole number of blocks where memory binds (brute force below: t_body = Max(t_memory, t_latency))
    point = {"rows": 4096, "row_len": 4096, "threads_per_block": 256, "rereads": 1, "rows_per_block": 1}
    model = symgpu.load("kernel_row_reduction")
    blocks = np.array([240767.0, 240768.0, 240769.0])
    memory, latency = (model.evaluate(q, preset="h100_sxm+neusight_fit", values={**point, "blocks": blocks}).to("us").magnitude
                       for q in ("t_memory", "t_latency"))
    assert np.all(latency > memory)
    blocks = np.arange(1.0, 300001.0)
    memory, latency = (np.broadcast_to(model.evaluate(q, preset="h100_sxm+neusight_fit", values={**point, "blocks": blocks})
                                       .to("us").magnitude, blocks.shape) for q in ("t_memory", "t_latency"))
    memory_binds = memory >= latency
    switches = np.flatnonzero(memory_binds[:-1] != memory_binds[1:])
    assert len(switches) == 1 and memory_binds[switches[0]]
    sets = [a for k, v in point.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("--no-cache", "boundary", "kernel_row_reduction", "t_kernel", "--for", "blocks", "--preset",
                         "h100_sxm+neusight_fit", *sets)
    assert code == 0, err
    assert f"value: {blocks[switches[0]]:.0f} block" in out and "checked numerically" in out


def test_the_same_refusal_with_a_rewrite_asks_without_it(cli) -> None:  # type: ignore[no-untyped-def]
    # the scan that answers a named pair runs at a point without rewrites: with --keep the advice says to drop it
    point = {"rows": 4096, "row_len": 4096, "threads_per_block": 256, "rereads": 1, "rows_per_block": 1}
    sets = [a for k, v in point.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("--no-cache", "boundary", "kernel_row_reduction", "t_kernel", "--for", "blocks", "--preset",
                         "h100_sxm+neusight_fit", *sets, "--keep", "miss_fraction")
    assert code == 2 and "value:" not in out
    assert "t_kernel is a staircase (floor/ceiling) in blocks" in err
    assert "ask at the point without --substitute, --omit or --keep" in err
