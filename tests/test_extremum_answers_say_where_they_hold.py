"""Issue 25: an extremum asked without a point says where its closed form holds, and is checked
at points that give every input the answer names.

Found by ``python benchmarks/differential.py --questions 10000 --seed 1 --limit 2 --jobs 2``
(the extremum class of its last 66 disagreements). Expected values come from brute force on the
evaluate path (``Model.evaluate`` on a dense grid) or arithmetic written here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, errors

import differential_checks as checks
from differential_questions import Point, Question


def _on(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str, xs: np.ndarray) -> np.ndarray:
    got = model.evaluate(quantity, preset, values={**values, var: xs}).magnitude
    return np.broadcast_to(np.asarray(got, dtype=float), xs.shape).copy()


def test_the_certificate_draws_inputs_that_only_the_answer_names():
    # Q_K0 never uses L_F, but its domain N >= L_F/t_issue makes L_F enter the answer's ends: the check used to
    # give up ("needs a value for L_F") and show the answer unchecked
    answer = symgpu.load("interval_analysis").extremum("Q_K0", over="N", kind="max")
    assert answer.certificate is not None and not answer.certificate.unchecked
    model = symgpu.load("interval_analysis")
    assert "L_F" not in model.inputs("Q_K0") and "L_F" in {s.name for s in answer.location.free_symbols}


def test_a_maximum_that_grows_without_bound_is_declined_not_shown_at_an_end():
    # S_Mem_MDM = LLCMissRate*L_MinDRAM + ...: its slope in L_MinDRAM is LLCMissRate >= 0, undecided, so no limit at oo
    # was taken and the end L_MinDRAM = 0 was printed as the maximum, unchecked
    model = symgpu.load("mdm_2019")
    values = {"LLCMissRate": 0.5, "L_DRAMService": 0.3733333, "L_NoCService": 0.1706667, "M_Read": 5.0, "M_Write": 1.0, "W": 64.0}
    ys = _on(model, "S_Mem_MDM", "table1", values, "L_MinDRAM", np.geomspace(1.0, 1e9, 50))
    assert np.all(np.diff(ys) > 0) and ys[-1] > 1e8  # grows without bound at a point the preset gives
    with pytest.raises(errors.DerivationError, match="may grow without bound"):  # its slope LLCMissRate may be positive
        model.extremum("S_Mem_MDM", over="L_MinDRAM", kind="max")


def test_a_stated_condition_is_printed_with_the_answer(cli):
    # max over MSHRs of Min(MSHRs, M_Read*W) is reached at MSHRs = M_Read*W only where that is a positive MSHRs count
    model = symgpu.load("mdm_2019")
    answer = model.extremum("M_ReadConcurrent", over="MSHRs", kind="max")
    assert answer.extra.valid_when == (model.symbols["M_Read"] > 0,)
    assert answer.to_dict()["extra"]["valid_when"] == ["M_Read > 0"]  # the JSON holds the printed relations
    code, out, _ = cli("extremum", "mdm_2019", "M_ReadConcurrent", "--over", "MSHRs", "--max")
    assert code == 0 and "  valid when M_Read > 0" in out.splitlines()
    xs = np.linspace(0.25, 100.0, 400)
    flat = _on(model, "M_ReadConcurrent", "table1", {"M_Read": 0.0, "W": 64.0}, "MSHRs", xs)
    assert np.all(flat == 0.0)  # M_Read = 0: every MSHRs gives 0, and MSHRs = 0 itself is outside MSHRs > 0
    rising = _on(model, "M_ReadConcurrent", "table1", {"M_Read": 3.0, "W": 4.0}, "MSHRs", xs)
    assert rising.max() == 12.0 and xs[np.argmax(rising)] == pytest.approx(12.0, abs=0.25)  # M_Read*W = 3*4
    assert float(derive.evaluate_result(model, answer, "table1", which="location", M_Read=3.0, W=4.0).magnitude) == 12.0


_CWP = {"Comp_insts": 0.0, "Freq": 1296000000.0, "Uncoal_Mem_insts": 6.0, "Uncoal_per_mw": 32.0}


def test_no_minimum_is_said_where_the_quantity_only_approaches_one(cli):
    # CWP_full falls with Coal_Mem_insts towards (Issue_cycles + Mem_LD)/Issue_cycles and never reaches it
    model = symgpu.load("hong_kim_2009")
    answer = model.extremum("CWP_full", over="Coal_Mem_insts", kind="min")
    assert "there is no minimum" in answer.extra.elsewhere
    assert math.isnan(float(derive.evaluate_result(model, answer, "gtx280", **_CWP).magnitude))
    issue = float(model.evaluate("Issue_cycles", "gtx280").magnitude) if "Issue_cycles" in model.defining else \
        float(model.constants["Issue_cycles"].magnitude)
    mem_ld = float(model.preset("gtx280")["Mem_LD"].magnitude)
    ys = _on(model, "CWP_full", "gtx280", _CWP, "Coal_Mem_insts", np.geomspace(1e-3, 1e9, 200))
    assert np.all(np.diff(ys) < 0)
    assert ys[-1] == pytest.approx((issue + mem_ld) / issue, rel=1e-6) and np.all(ys > (issue + mem_ld) / issue)
    code, out, _ = cli("extremum", "hong_kim_2009", "CWP_full", "--over", "Coal_Mem_insts", "--min")
    assert code == 0 and "there is no minimum" in out


def _question(**changes: Any) -> Question:
    base = Question(model="hong_kim_2009", op="extremum", quantity="CWP_full", variable="Coal_Mem_insts", kind="min",
                    point=Point("gtx280", tuple(sorted({**_CWP, "Coal_Mem_insts": 10.0}.items()))))
    return dataclasses.replace(base, **changes)


def test_the_tester_agrees_with_a_stated_no_minimum_only_where_brute_force_finds_none():
    unattained = checks.judge(_question())
    assert unattained.outcome == "agree" and "no extremum here (stated)" in unattained.answer
    # the same statement where the quantity has an attained extreme inside the scan: n_needed peaks at the cusp
    # alpha = alu_thru/mem_thru (or issue_thru/mem_thru - 1) on every GPU of Volkov's study
    peaked = Question(model="volkov_2016", op="extremum", quantity="n_needed", variable="alpha", kind="max",
                      point=Point("kepler", (("alpha", 4.0),)))
    assert checks.judge(peaked).outcome == "agree"  # the real answer, the cusp, agrees
    real, _ = checks.ask(peaked, 60.0)
    assert isinstance(real, derive.Derivation), real
    claimed = dataclasses.replace(real, result=sympy.nan, location=sympy.nan,
                                  extra=real.extra.with_(elsewhere="where no condition above holds there is no minimum"))
    verdict = checks.judge(peaked, answer_of=lambda q, limit: (claimed, 0.0))
    assert verdict.outcome == "disagree" and "says there is none here" in verdict.reason


def test_the_tester_declines_a_point_outside_the_answers_stated_conditions():
    question = Question(model="mdm_2019", op="extremum", quantity="M_ReadConcurrent", variable="MSHRs", kind="max",
                        point=Point("table1", (("M_Read", 0.0), ("W", 64.0))))
    verdict = checks.judge(question)
    assert verdict.outcome == "declined" and "valid when M_Read > 0" in verdict.reason
    inside = dataclasses.replace(question, point=Point("table1", (("M_Read", 3.0), ("W", 4.0))))
    assert checks.judge(inside).outcome == "agree"


def test_a_maximum_over_a_regime_whose_slope_sign_is_open_is_declined_without_a_point():
    # S_MSHR_MDM_MSHR = (ceiling(M_Read*W/MSHRs) - 1)*(... + L_MinLLC) where MSHRs < M_Read*W: its slope in L_MinLLC is
    # positive there and 0 elsewhere, so "the maximum is at L_MinLLC = 0" (the old answer) is wrong where reads exceed MSHRs
    model = symgpu.load("mdm_2019")
    values = {"LLCMissRate": 0.5, "L_DRAMService": 0.3733333, "L_NoCService": 0.1706667, "M_Read": 5.0, "M_Write": 1.0, "W": 64.0}
    ys = _on(model, "S_MSHR_MDM_MSHR", "table1", values, "L_MinLLC", np.array([0.0, 1.0, 10.0, 1e3, 1e6]))
    assert np.all(np.diff(ys) > 0) and ys[-1] - ys[0] == pytest.approx(1e6 * (math.ceil(5.0 * 64.0 / float(
        model.preset("table1")["MSHRs"].magnitude)) - 1), rel=1e-9)
    with pytest.raises(errors.DerivationError, match="may grow without bound"):
        model.extremum("S_MSHR_MDM_MSHR", over="L_MinLLC", kind="max")


_HUANG_POINTS = (("synthetic", {"alpha": 16.0, "n": 16.0}), ("fermi", {"alpha": 0.0, "n": 17.0, "reqs_per_inst": 2.0}))


def _no_alu_near_zero(model: symgpu.Model, preset: str, values: Mapping[str, float]) -> float:
    # NO_alu = Max(0, Min(p*(alu_lat - 1), 1)*(n/issue_units - 1) - alu_lat + 1), p = (1 + alpha)/(mem_lat + alpha*alu_lat):
    # at alu_lat = 0 the Min is -(1 + alpha)/mem_lat
    mem_lat = float(model.preset(preset)["mem_lat"].magnitude)
    issue_units = float(model.preset(preset)["issue_units"].magnitude)
    return max(0.0, 1.0 - (values["n"] / issue_units - 1.0) * (values["alpha"] + 1.0) / mem_lat)


def test_a_critical_point_negative_wherever_it_is_real_is_no_branch_of_the_maximum():
    # Huang's NO_alu over alu_lat kept the critical point -mem_lat/alpha - sqrt(alpha + 1)*sqrt(alpha + mem_lat)*
    # sqrt(n - issue_units)/(alpha*sqrt(issue_units)), negative wherever it is a finite real, and a branch without its
    # domain condition alu_lat > 0: the answer put the maximum at alu_lat = -1.008 (synthetic, alpha 16, n 16) and at
    # alu_lat = 1 (fermi, alpha 0), where the quantity falls from its supremum at alu_lat -> 0, never attained
    model = symgpu.load("prior_huang")
    answer = model.extremum("NO_alu", over="alu_lat", kind="max")
    assert "there is no maximum" in answer.extra.elsewhere
    xs = np.geomspace(1e-9, 1e4, 4000)
    for preset, values in _HUANG_POINTS:
        ys = _on(model, "NO_alu", preset, values, "alu_lat", xs)
        assert ys[0] == pytest.approx(_no_alu_near_zero(model, preset, values), rel=1e-6) and np.all(ys[1:] < ys[0])
        assert math.isnan(float(derive.evaluate_result(model, answer, preset, **values).magnitude))
        question = Question(model="prior_huang", op="extremum", quantity="NO_alu", variable="alu_lat", kind="max",
                            point=Point(preset, tuple(sorted({**values, "alu_lat": 4.0}.items()))))
        assert checks.judge(question).outcome == "agree"


_ISSUE_ALU = {"alu_lat": 64.0, "alu_thru": 1.0, "issue_thru": 64.0, "mem_lat": 3.0, "mem_thru": 128.0}


def test_the_cusp_where_issue_and_alu_bounds_cross_is_the_maximum_when_alu_latency_exceeds_memory_latency():
    # n_needed = (alpha*alu_lat + mem_lat)*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)): with issue_thru < mem_thru
    # memory never binds; the issue branch rises (alu_lat > mem_lat) until issue_thru/(alpha + 1) = alu_thru/alpha, at
    # alpha = 1/63, where n = 64 + 3/alpha = 253; the answer gave alpha = 0 (192) because the side of that crossing was
    # undecided until the crossing is known to lie at alpha > 0 (issue_thru > alu_thru)
    hand_alpha, hand_n = 1.0 / 63.0, 64.0 + 3.0 * 63.0
    model = symgpu.load("volkov_2016")
    xs = np.unique(np.concatenate([np.geomspace(1e-4, 1e4, 4001), [hand_alpha]]))
    ys = _on(model, "n_needed", "sample_kernel", _ISSUE_ALU, "alpha", xs)
    assert float(np.max(ys)) == pytest.approx(hand_n, rel=1e-12) and xs[np.argmax(ys)] == pytest.approx(hand_alpha, rel=1e-12)
    anywhere = model.extremum("n_needed", over="alpha", kind="max")
    at_point = model.extremum("n_needed", over="alpha", kind="max", preset="sample_kernel", values=_ISSUE_ALU)
    for answer in (anywhere, at_point):
        assert float(derive.evaluate_result(model, answer, "sample_kernel", **_ISSUE_ALU).magnitude) == pytest.approx(hand_n, rel=1e-12)
        assert float(derive.evaluate_result(model, answer, "sample_kernel", which="location", **_ISSUE_ALU).magnitude) == \
            pytest.approx(hand_alpha, rel=1e-12)


def test_an_end_point_value_that_cancels_a_divisor_holds_only_where_the_divisor_is_nonzero():
    # traffic_increase = (c*b + d*t*T)/((c + d)*b): at d = 0 SymPy cancels c*b/(c*b) to 1, but with no
    # coalesced access (c = 0) it is 0/0 there. Found by differential.py --questions 3000 --seed 41.
    model = symgpu.load("volkov_2016_h100")
    answer = model.extremum("traffic_increase", over="diverged_accesses", kind="min")
    given = {"bytes_per_inst": 128.0, "txn_bytes_diverged": 32.0, "txns_per_diverged": 32.0}
    # c = 0: the quantity is 0/0 at d = 0 (brute force) and the answer claims no minimum there
    assert math.isnan(float(model.evaluate("traffic_increase", values={**given, "coalesced_accesses": 0.0,
                                                                       "diverged_accesses": 0.0}).magnitude))
    assert math.isnan(float(derive.evaluate_result(model, answer, None, **given, coalesced_accesses=0.0)))
    # c = 4: the end d = 0 is the minimum, and its value is the quantity there, 4*128/(4*128)
    xs = np.linspace(0.0, 1000.0, 2001)
    brute = _on(model, "traffic_increase", None, {**given, "coalesced_accesses": 4.0}, "diverged_accesses", xs)
    assert int(np.argmin(brute)) == 0
    got = float(derive.evaluate_result(model, answer, None, **given, coalesced_accesses=4.0))
    assert got == pytest.approx(brute[0]) and got == pytest.approx(4 * 128 / (4 * 128))


def test_where_a_factor_of_the_slope_free_of_the_variable_vanishes_the_answer_says_the_quantity_is_flat(cli):
    # the slope of traffic_increase in d is c*(t*T - b)/(b*(c + d)**2): with c = 0 (or t*T = b) it is the same for
    # every d > 0, so "no minimum" would be wrong there; brute force: constant over a grid of d at c = 0
    model = symgpu.load("volkov_2016_h100")
    given = {"bytes_per_inst": 128.0, "txn_bytes_diverged": 32.0, "txns_per_diverged": 32.0, "coalesced_accesses": 0.0}
    ys = _on(model, "traffic_increase", None, given, "diverged_accesses", np.linspace(1.0, 1000.0, 999))
    assert np.ptp(ys) == 0 and ys[0] == pytest.approx(32 * 32 / 128)
    code, out, _ = cli("extremum", "volkov_2016_h100", "traffic_increase", "--over", "diverged_accesses", "--min", "--full")
    assert code == 0
    assert "where coalesced_accesses = 0 or " in out and "traffic_increase does not change with diverged_accesses" in out


def test_a_plateau_edge_met_by_a_cusp_is_no_minimum_where_the_quantity_falls_on_towards_zero() -> None:
    # Volkov's warp throughput is flat while the memory system binds and falls as 1/(issue_cpi*(... + dual_issues))
    # once the warp scheduler does: towards 0 as dual_issues grows, so there is no minimum. The memory-system
    # plateau edge, merged with the cusp where the two bounds meet, used to be given as the minimum (7.9e-7).
    from symgpu.evaluate import evaluator
    model = symgpu.load("volkov_2016_ilp")
    point = {"cuda_cpi": 100, "cuda_insts": 100, "gmem2_cpi": 64, "gmem2_insts": 4096, "gmem_cpi": 1000, "gmem_insts": 1000,
             "issue_cpi": 128, "n": 1000, "reissues": 4096, "sfu_cpi": 1, "sfu_insts": 32, "single_issues": 8, "smem2_cpi": 4096,
             "smem2_insts": 2, "smem_cpi": 1, "smem_insts": 16, "warp_latency": 1}
    falls = [model.evaluate("warp_throughput", "g80", values={**point, "dual_issues": d}).magnitude for d in (1e4, 1e6, 1e9, 1e12)]
    assert all(a > b > 0 for a, b in zip(falls, falls[1:])) and falls[-1] < 1e-14  # beyond the plateau 1/(1e6 + 64*4096)
    answer = model.extremum("warp_throughput", over="dual_issues", kind="min")
    unit = model.units["warp_throughput"]
    at = evaluator.evaluate_expression(model, answer.result, unit, preset="g80", values=point).magnitude
    assert math.isnan(at)  # no branch holds there: no minimum
    assert "approaches 0 as dual_issues -> oo" in answer.extra.elsewhere
    # at the point: no minimum, the infimum 0 approached as dual_issues -> oo (a refusal before tester round 13a, F5)
    here = model.extremum("warp_throughput", over="dual_issues", kind="min", preset="g80", values=point)
    assert here.location is None and "no minimum: the infimum 0 " in here.extra.elsewhere and "dual_issues -> oo" in here.extra.elsewhere


def test_a_far_limit_is_taken_from_the_regimes_that_can_hold_far_out() -> None:
    # Volkov's warps needed with ILP, n_needed_ilp, is flat while issue or ALU throughput binds and falls as
    # 1/bytes_per_inst once memory does: towards 0. SymPy takes no limit of the whole Min (a Piecewise for
    # alpha = 0 inside), and the regimes did not agree (the flat ones cannot hold far out), so that end was dropped
    # and a plateau edge was given as the minimum.
    from symgpu.evaluate import evaluator
    model = symgpu.load("volkov_2016_ilp")
    point = {"alpha": 16, "ilp": 256}
    falls = [model.evaluate("n_needed_ilp", "g80", values={**point, "bytes_per_inst": b}).magnitude for b in (1e3, 1e6, 1e9, 1e12)]
    assert all(a > b > 0 for a, b in zip(falls, falls[1:])) and falls[-1] < 1e-9
    answer = model.extremum("n_needed_ilp", over="bytes_per_inst", kind="min")
    assert "approaches 0 as bytes_per_inst -> oo" in answer.extra.elsewhere
    at = evaluator.evaluate_expression(model, answer.result, model.units["n_needed_ilp"], preset="g80", values=point).magnitude
    assert math.isnan(at)  # no minimum there: it gave 0.0466, beaten by every larger bytes_per_inst


def test_a_maximum_at_a_point_still_answers_where_an_end_value_is_a_piecewise() -> None:
    # memory_throughput_ilp over ilp at g80, alpha = 10, n = 8: a cusp; a review found that comparing a plateau edge
    # at the cusp's point with an open end whose value is a Piecewise (alpha <= 0 inside) made it unreadable (an ITE)
    model = symgpu.load("volkov_2016_ilp")
    point = {"alpha": 10, "n": 8}
    answer = model.extremum("memory_throughput_ilp", over="ilp", kind="max", preset="g80", values=point)
    xs = np.geomspace(1e-3, 1e3, 6001)
    ys = np.asarray(model.evaluate("memory_throughput_ilp", "g80", values={**point, "ilp": xs}).magnitude, dtype=float)
    assert answer.extra.value_at == pytest.approx(float(np.nanmax(ys)), rel=1e-6)  # brute force on the evaluate path
    there = model.evaluate("memory_throughput_ilp", "g80", values={**point, "ilp": answer.extra.location_at}).magnitude
    assert there == pytest.approx(answer.extra.value_at, rel=1e-9)  # the model's value at the location is the maximum
