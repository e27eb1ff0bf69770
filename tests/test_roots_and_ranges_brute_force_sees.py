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
        assert "smem_per_block" not in {n for s in record["when"].free_symbols for n in model.inputs(s.name)
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
    target = 81.0 / (16.0 * 128.0 * 1.35)
    ns = np.array([k * 1.01, k * 2, k * 10, k * 100])
    got = model.evaluate("x_latency_root", values={**_ILP, "n": ns}).magnitude
    assert got == pytest.approx(np.full(4, target), rel=1e-12)
    assert float(model.evaluate("x_latency_root", values={**_ILP, "n": k / 2}).magnitude) == pytest.approx(k / 2 / big_a, rel=1e-12)
    with pytest.raises(errors.CertificateError, match="the relation holds on a range of n"):
        model.solve("x_latency_root", for_="n", target=repr(target), values=_ILP)
