"""An extremum whose only closed form holds where an inequality of nonnegative inputs is an equality.

GPUMech+'s memory latency in MDM (``S_Mem_GPUMech_plus = L_NoContention + SMs*M*(L_NoCService +
L_DRAMService)/2`` with ``M = Min(M_Read*W, MSHRs) + M_Write*W``) rises with M_Read up to MSHRs/W
and is flat beyond. Its minimum over M_Read is at M_Read = 0. The answer was the cusp at MSHRs/W,
"valid when L_DRAMService + L_NoCService <= 0": a minimum only where both service latencies are 0
(the quantity is then flat), with no answer anywhere else.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive
from symgpu.derive import jobs

# the validation case gpumech_plus_vs_mdm_md's inputs (preset table1), read by hand from equations/mdm_2019.toml
INPUTS = {"W": 64.0, "M_Write": 0.0, "LLCMissRate": 0.5, "L_NoCService": 1.0, "L_DRAMService": 1.0}
TABLE1 = {"SMs": 28.0, "MSHRs": 128.0, "L_MinLLC": 120.0, "L_MinDRAM": 220.0}


def test_gpumech_plus_memory_latency_is_least_with_no_read_misses() -> None:
    model = symgpu.load("mdm_2019")
    answer = model.extremum("S_Mem_GPUMech_plus", over="M_Read", kind="min")
    assert answer.location == 0
    s = {name: sympy.Symbol(name) for name in ("L_MinLLC", "LLCMissRate", "L_MinDRAM", "SMs", "M_Write", "W",
                                                "L_NoCService", "L_DRAMService")}
    # Eq. (6) plus the two half-wait queues of Section 4 with M = M_Write*W (no read misses), by hand
    by_hand = (s["L_MinLLC"] + s["LLCMissRate"] * s["L_MinDRAM"]
               + s["SMs"] * s["M_Write"] * s["W"] * (s["L_NoCService"] + s["L_DRAMService"]) / 2)
    got = answer.result.xreplace({sym: s[sym.name] for sym in answer.result.free_symbols})
    assert sympy.expand(got - by_hand) == 0
    assert not answer.extra.valid_when or all("Service" not in str(c) for c in answer.extra.valid_when)


def test_the_minimum_is_what_a_scan_of_the_evaluate_path_finds() -> None:
    model = symgpu.load("mdm_2019")
    reads = np.linspace(0.0, 8.0, 801)
    scanned = model.evaluate("S_Mem_GPUMech_plus", "table1", values={**INPUTS, "M_Read": reads}).to("cycle").magnitude
    answer = model.extremum("S_Mem_GPUMech_plus", over="M_Read", kind="min", preset="table1", values=INPUTS)
    by_hand = TABLE1["L_MinLLC"] + INPUTS["LLCMissRate"] * TABLE1["L_MinDRAM"]  # M_Write = 0: no queue at all
    assert float(np.min(scanned)) == by_hand == float(scanned[0])
    assert answer.extra.value_at == by_hand and answer.extra.location_at == 0


def test_a_weak_sign_proves_a_nonstrict_relation_and_refutes_only_the_strict_one_the_other_way() -> None:
    model = symgpu.load("mdm_2019")
    job, ctx = jobs.start(model, "extremum", "S_Mem_GPUMech_plus", "M_Read")
    dram, noc, mshrs, sms = (job.symbol(n) for n in ("L_DRAMService", "L_NoCService", "MSHRs", "SMs"))
    gap = sms * (mshrs + 1) * (dram + noc) / 2 - sms * (dram + noc) / 2  # = SMs*MSHRs*(dram + noc)/2, may be 0
    assert ctx.sign(gap) is None
    assert ctx.decide(sympy.GreaterThan(gap, 0)) is True
    assert ctx.decide(sympy.StrictLessThan(gap, 0)) is False
    assert ctx.decide(sympy.LessThan(gap, 0)) is None  # holds where both latencies are 0
    assert ctx.decide(sympy.StrictGreaterThan(gap, 0)) is None



H100_POINT = {"BW": 74.0, "SMs": 16.0, "alpha": 0.0, "alu_lat": 20.0, "alu_thru": 0.25, "clock": 1.35, "ilp": 1.0, "issue_thru": 0.5,
              "mem_lat": 444.0, "n": 8.0, "schedulers": 4.0, "warps_in_block": 17.0}


def test_a_piecewise_answer_whose_location_and_value_collapse_differently_still_answers() -> None:
    # differential seed 32: the location's and the value's Piecewise had different numbers of branches, and dropping a
    # redundant equality branch indexed one by the other (IndexError)
    model = symgpu.load("volkov_2016_h100")
    assert isinstance(model.extremum("dram_throughput_ilp", over="bytes_per_inst", kind="max").result, sympy.Piecewise)
    answer = model.extremum("dram_throughput_ilp", over="bytes_per_inst", kind="max", values=H100_POINT)
    grid = np.geomspace(1e-3, 1e6, 20001)
    scanned = model.evaluate("dram_throughput_ilp", None, values={**H100_POINT, "bytes_per_inst": grid}).to("GB/s").magnitude
    assert answer.extra.value_at == pytest.approx(float(np.max(scanned)), rel=1e-9)


def test_a_weak_sign_expands_small_powers_of_sums_only() -> None:
    model = symgpu.load("mdm_2019")
    _, ctx = jobs.start(model, "extremum", "S_Mem_GPUMech_plus", "M_Read")
    a, b = sympy.Symbol("a", nonnegative=True), sympy.Symbol("b", nonnegative=True)
    assert ctx.weak_sign((a + b) ** 2 - a ** 2) == 1  # 2*a*b + b**2 once expanded
    # (a + b)**6 - a**6 is as nonnegative, but a power of a sum above MAX_EXPANDED_POWER is not multiplied out
    # ((a + b + c + d)**20 would be 1,771 terms): the weak sign is left undecided
    assert ctx.weak_sign((a + b) ** 6 - a ** 6) is None


MDM_POINT = {"LLCMissRate": 0.5, "L_DRAMService": 1.0, "L_NoCService": 1.0, "M_Read": 5.0, "W": 64.0}


@pytest.mark.parametrize("m_write", [0.0, 10.0])
def test_an_open_end_whose_regime_depends_on_an_input_is_compared_where_that_regime_holds(m_write: float) -> None:
    # differential seed 35: MDM's S_Mem_MDM over MSHRs falls towards L0 + SMs*M_Write*W*L as MSHRs -> 0 (the md
    # regime, where M_Read > 0) and is flat at the nmd plateau past M_Read*W; which regime holds near 0 depends on
    # M_Read, so that end was left out and the plateau edge was the minimum even where the end beats it (M_Write < M_Read)
    model = symgpu.load("mdm_2019")
    answer = model.extremum("S_Mem_MDM", over="MSHRs", kind="min")
    values = {**MDM_POINT, "M_Write": m_write}
    at = float(derive.evaluate_result(model, answer, "table1", **values).magnitude)
    grid = np.geomspace(1e-6, 1e6, 24001)
    scanned = model.evaluate("S_Mem_MDM", "table1", values={**values, "MSHRs": grid}).to("cycle").magnitude
    # by hand (table1: L_MinLLC 120, L_MinDRAM 220, SMs 28): the end 230 + 28*M_Write*64*2, the plateau 230 + 28*64*(5 + M_Write)
    end, plateau = 230 + 28 * m_write * 64 * 2, 230 + 28 * 64 * (5 + m_write)
    assert float(scanned.min()) == pytest.approx(min(plateau, end), rel=1e-3)
    if end < plateau:  # no minimum: the end is approached, not attained
        assert math.isnan(at)
    else:
        assert at == pytest.approx(plateau, rel=1e-12)
