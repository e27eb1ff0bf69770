"""Issue 25: two disagreements of ``python benchmarks/differential.py --questions 2000 --seed 3``,
each checked against brute force on the evaluate path (or arithmetic written here).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors

import differential_checks as checks
from differential_questions import Point, Question


def test_a_boundary_roots_condition_does_not_keep_a_quantity_that_depends_on_the_variable():
    # blocks_smem_limit switches to smem_per_block_exceeded at max_smem_per_block; the root's condition kept
    # smem_per_block_alloc, itself a function of smem_per_block, so it could not be checked without smem_per_block
    model = symgpu.load("occupancy")
    values = {"regs_per_thread": 37.0, "threads_per_block": 128.0}
    d = model.boundary("blocks_smem_limit", between=("shared_memory", "smem_per_block_exceeded"), for_="smem_per_block")
    for record in derive.roots_of(d) or ():
        assert "smem_per_block" not in {n for s in record.when.free_symbols for n in model.inputs(s.name)
                                        if s.name in model.defining}
    at = float(derive.evaluate_result(model, d, "cc_7_0", **values).magnitude)
    limit = float(model.preset("cc_7_0")["max_smem_per_block"].to("B/block").magnitude)
    assert at == limit
    below = model.evaluate("blocks_smem_limit", "cc_7_0", values={**values, "smem_per_block": limit - 1}).magnitude
    above = model.evaluate("blocks_smem_limit", "cc_7_0", values={**values, "smem_per_block": limit + 1}).magnitude
    assert below > 0 and above == 0  # the block launches up to the limit, not past it
    question = Question(model="occupancy", op="boundary", quantity="blocks_smem_limit", variable="smem_per_block",
                        point=Point("cc_7_0", tuple(sorted({**values, "smem_per_block": 4096.0}.items()))),
                        between=("shared_memory", "smem_per_block_exceeded"))
    assert checks.judge(question).outcome == "agree"


_ILP = {"SMs": 16.0, "a": 453.0, "alpha": 4.0, "alu_lat": 20.0, "b": 0.0, "bytes_per_inst": 128.0, "c": 81.0, "clock": 1.35,
        "inst_latency": 20.0, "peak_ops_per_sched": 8.0}


def test_a_relation_that_holds_on_a_stretch_hidden_in_a_square_root_is_refused_not_given_one_root():
    # with b = 0 the latency root is (n + K - sqrt((n - K)**2))/(2A), A = a + alpha*alu_lat, K = c*A/(SMs*bytes_per_inst*clock):
    # n/A below n = K and K/A = c/(SMs*bytes_per_inst*clock) for every n above, so a target of K/A holds on [K, oo)
    model = symgpu.load("volkov_2016_ilp")
    big_a = 453.0 + 4.0 * 20.0
    k = 81.0 * big_a / (16.0 * 128.0 * 1.35)
    target = 81.0 / (16.0 * 128.0 * 1.35)  # 0.029296875 exactly; the IEEE division rounds one unit low
    ns = np.array([k * 1.01, k * 2, k * 10, k * 100])
    got = model.evaluate("x_latency_root", values={**_ILP, "n": ns}).magnitude
    assert got == pytest.approx(np.full(4, target), rel=1e-12)
    assert float(model.evaluate("x_latency_root", values={**_ILP, "n": k / 2}).magnitude) == pytest.approx(k / 2 / big_a, rel=1e-12)
    with pytest.raises(errors.CertificateError, match="the relation holds on a range of n"):
        model.solve("x_latency_root", for_="n", target="0.029296875", values=_ILP)


def test_a_limit_is_split_where_two_nonnegative_inputs_are_zero_together():
    # CWP_full = (C*Mem_LD + Is*(C + Comp + U) + U*(D*(Upm - 1) + Mem_LD))/(Is*(C + Comp + U)) with C = Coal_Mem_insts,
    # Comp = Comp_insts, U = Uncoal_Mem_insts: as U -> 0 it tends to (C*(Is + Mem_LD) + Comp*Is)/(Is*(C + Comp)), 0/0 where
    # C = Comp = 0 together; there CWP_full = 1 + (D*(Upm - 1) + Mem_LD)/Is for every U, and CWP = Min(N, that)
    model = symgpu.load("hong_kim_2009")
    d = model.limit("CWP", "Uncoal_Mem_insts", "0")
    values = {"Active_blocks_per_SM": 5.0, "Coal_Mem_insts": 0.0, "Comp_insts": 0.0, "Threads_per_block": 128.0, "Uncoal_per_mw": 32.0}
    preset = model.preset("gtx280")
    issue = float(model.constants["Issue_cycles"].magnitude) if "Issue_cycles" in model.constants else \
        float(model.evaluate("Issue_cycles", "gtx280").magnitude)
    departure = float(preset["Departure_del_uncoal"].magnitude)
    flat = 1 + (departure * (32.0 - 1) + float(preset["Mem_LD"].magnitude)) / issue
    warps = 5.0 * 128.0 / 32.0
    by_hand = min(warps, flat)
    along = model.evaluate("CWP", "gtx280", values={**values, "Uncoal_Mem_insts": np.geomspace(1e-9, 1e-3, 4)}).magnitude
    assert along == pytest.approx(np.full(4, by_hand), rel=1e-12)
    assert float(derive.evaluate_result(model, d, "gtx280", **values).magnitude) == pytest.approx(by_hand, rel=1e-12)
    with_reads = {**values, "Coal_Mem_insts": 4.0}
    near = float(model.evaluate("CWP", "gtx280", values={**with_reads, "Uncoal_Mem_insts": 1e-9}).magnitude)
    assert float(derive.evaluate_result(model, d, "gtx280", **with_reads).magnitude) == pytest.approx(near, rel=1e-6)
