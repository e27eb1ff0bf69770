"""Issue 25, the boundary classes: a boundary answer at a point is where the active regime, as
:func:`symgpu.evaluate.active.active_regime` decides it, really switches between the named pair.

Every expected value is computed independently of the derivation engine: by hand (the arithmetic
is in the test) or by brute force on the evaluate path (``active_regime`` on a grid of the
variable, each switch refined by bisection). Nothing is copied from symgpu's output.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors
from symgpu.evaluate import active

import differential_oracle as oracle
from differential_questions import Point


def _regime(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str, x: float) -> str | None:
    """The active limiter or case at ``var = x`` (None where the model gives no value)."""
    try:
        return active.active_regime(model, quantity, preset, **{**values, var: x})[0]
    except (errors.EvaluationError, errors.DerivationError):
        return None


def _switches(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str,
              xs: Sequence[float], pair: tuple[str, str], *, integer: bool = False) -> list[float]:
    """Where the active regime switches between the two of ``pair`` along ``xs``, each bisected (to
    adjacent integers for an integer variable: the last value of the first regime is returned)."""
    names = [_regime(model, quantity, preset, values, var, float(x)) for x in xs]
    found = []
    for i in range(len(xs) - 1):
        if names[i] == names[i + 1] or {names[i], names[i + 1]} != set(pair):
            continue
        lo, hi = float(xs[i]), float(xs[i + 1])
        for _ in range(80):
            if integer and hi - lo <= 1:
                break
            mid = math.floor((lo + hi) / 2) if integer else (lo + hi) / 2
            if _regime(model, quantity, preset, values, var, mid) == names[i]:
                lo = mid
            else:
                hi = mid
        found.append(lo if integer else (lo + hi) / 2)
    return found


def _answer(model: symgpu.Model, quantity: str, pair: tuple[str, str], var: str, preset: str | None,
            values: Mapping[str, Any]) -> list[float]:
    """The boundaries the answer gives at the point (as the command line prints them)."""
    d = model.boundary(quantity, pair, for_=var)
    return sorted(float(r.value.magnitude) for r in derive.applying_boundaries(model, d, preset, values))


# ------------------------------------------------------------------ a case switch on a branch's edge
def test_sims_texec_switches_case_where_n_reaches_the_peak_bandwidth_mwp():
    # Kepler: MWP = Min(n, BW*mem_lat/(clock*bytes_per_inst*SMs)) = Min(n, 154e9*301/(1.124e9*128*8));
    # CWP = Min(n, 1 + 301/(2*Max(9/n, 1/4))) = n for n up to ~600: CWP > MWP exactly when n > 40.27
    model = symgpu.load("prior_sim")
    values = {"alpha": 1.0}
    hand = 154e9 * 301 / (1.124e9 * 128 * 8)
    pair = ("cwp_above_mwp", "cwp_at_most_mwp")
    brute = _switches(model, "Texec", "kepler", values, "n", np.geomspace(1, 500, 400), pair)
    assert brute == pytest.approx([hand], rel=1e-9)
    assert _answer(model, "Texec", pair, "n", "kepler", values) == pytest.approx([hand], rel=1e-9)


def test_hong_kim_time_leaves_the_latency_case_where_cwp_falls_below_n():
    # GT200, n = 4: MWP = Min(4, 12.36) = 4 = n; CWP = Min(4, 1 + 434/(4*(alpha + 1))) = 4 while
    # alpha + 1 <= 434/12: latency_bound up to alpha = 422/12, then CWP < MWP: compute_bound
    model = symgpu.load("prior_hong_kim")
    values = {"n": 4.0}
    pair = ("compute_bound", "latency_bound")
    brute = _switches(model, "Time", "gt200", values, "alpha", np.linspace(0.5, 200, 400), pair)
    assert brute == pytest.approx([422 / 12], rel=1e-9)
    assert _answer(model, "Time", pair, "alpha", "gt200", values) == pytest.approx([422 / 12], rel=1e-9)


# ------------------------------------------------------------------ exact ties, domains
def test_an_exact_tie_of_two_limiters_is_no_switch_and_the_oracle_names_it_as_active_regime_does():
    # ind_mem_req = 3 of mem_req = 6: N_pw = N*3/(6 - 3) = N exactly, and MWP_Without_BW = Min(full, N):
    # where the departure bound reaches N the two limiters are equal; the first in the file's order binds
    model = symgpu.load("hong_kim_2009_intended")
    values = {"ind_mem_req": 3.0, "mem_req": 6.0}
    xs = np.geomspace(0.005, 5.0, 241)
    names = {_regime(model, "MWP_pw", "table2_example", values, "Active_blocks_per_SM", float(x)) for x in xs}
    assert names == {"departure_bound"}
    point = Point("table2_example", tuple(sorted(values.items())))
    assert set(oracle.regime_labels(model, "MWP_pw", point, "Active_blocks_per_SM", xs)) == {"departure_bound"}
    assert _answer(model, "MWP_pw", ("departure_bound", "parallel_warp_bound"), "Active_blocks_per_SM", "table2_example", values) == []


def test_the_command_line_says_the_two_limiters_are_tied_where_they_bind_together(cli: Any):
    # below the departure bound's cap, MWP_Without_BW = N = N_pw: the two limiters are equal, by hand
    # at Active_blocks_per_SM = 0.5 (4 warps/block x 0.5 = 2 warps/SM each, N_pw = 2*3/(6 - 3) = 2)
    model = symgpu.load("hong_kim_2009_intended")
    values = {"ind_mem_req": 3.0, "mem_req": 6.0, "Active_blocks_per_SM": 0.5}
    numbers = [float(model.evaluate(q, "table2_example", values=values).magnitude) for q in ("MWP_Without_BW", "N_pw")]
    assert numbers == pytest.approx([2.0, 2.0], rel=1e-12)
    code, out, err = cli("boundary", "hong_kim_2009_intended", "MWP_pw", "--for", "Active_blocks_per_SM", "--between", "departure_bound",
                         "parallel_warp_bound", "--preset", "table2_example", "--set", "ind_mem_req=3", "--set", "mem_req=6")
    assert code == 1 and "value:" not in out and len(err.strip().splitlines()) == 1, out + err
    assert "departure_bound and parallel_warp_bound are tied" in err and "does not switch" in err, err


def test_no_regime_is_named_outside_a_valid_when_domain():
    # N_pw = N*ind/(mem - ind) is valid only for 0 < ind_mem_req < mem_req = 6
    model = symgpu.load("hong_kim_2009")
    point = Point("table2_example", (("Coal_Mem_insts", 0.0), ("ind_mem_req", 3.0), ("mem_req", 6.0)))
    xs = np.array([1.0, 5.9, 6.0, 6.2, 50.0])
    labels = oracle.regime_labels(model, "MWP_pw", point, "ind_mem_req", xs)
    assert [label is None for label in labels] == [False, False, True, True, True]
    values = {"Coal_Mem_insts": 0.0, "mem_req": 6.0}
    pair = ("parallel_warp_bound", "departure_bound")
    brute = _switches(model, "MWP_pw", "table2_example", values, "ind_mem_req", np.linspace(0.01, 40, 800), pair)
    assert len(brute) == 1 and 0 < brute[0] < 6
    assert _answer(model, "MWP_pw", pair, "ind_mem_req", "table2_example", values) == pytest.approx(brute, rel=1e-9)


# ------------------------------------------------------------------ integer variables, the end of a range
def test_two_staircase_limiters_equal_at_one_block_slot_are_no_boundary_between_integers():
    # 88 registers x 640 threads = 56,320 of 65,536: one block by registers; no shared memory, so the
    # shared-memory limit is the block slots: the two are equal at max_blocks_per_SM = 1, where the
    # block-slot limit binds (first in the file's order); from 2 on the register limit binds
    model = symgpu.load("occupancy")
    values = {"barriers_per_block": 0.0, "regs_per_thread": 88.0, "smem_per_block": 0.0, "threads_per_block": 640.0}
    pair = ("smem_limit", "register_limit")
    assert _regime(model, "active_blocks_per_SM", "cc_6_0", values, "max_blocks_per_SM", 1.0) == "block_limit"
    assert _switches(model, "active_blocks_per_SM", "cc_6_0", values, "max_blocks_per_SM", range(1, 65), pair, integer=True) == []
    assert _answer(model, "active_blocks_per_SM", pair, "max_blocks_per_SM", "cc_6_0", values) == []


def test_a_flag_switches_cases_between_zero_and_one():
    # Eq(barrier_limit_applies, 0): no barrier limit at 0, the named-barrier case at 1 (the flag is a
    # nonnegative integer: 0 is the last value of the first case and nothing lies below it)
    model = symgpu.load("occupancy")
    values = {"regs_per_thread": 37.0, "smem_per_block": 0.0, "threads_per_block": 320.0}
    pair = ("no_barrier_limit", "named_barriers")
    assert _switches(model, "blocks_barrier_limit", "cc_7_0", values, "barrier_limit_applies", range(0, 5), pair, integer=True) == [0]
    assert _answer(model, "blocks_barrier_limit", pair, "barrier_limit_applies", "cc_7_0", values) == [0]


def test_a_root_where_the_quantity_is_undefined_on_one_side_is_no_boundary():
    # no coalesced and no uncoalesced loads: MWP_Without_BW's departure delay is 0/0 at Uncoal_Mem_insts = 0
    # (outside Eq. 14's domain: no value), the departure bound binds for every positive value: no switch
    # between the two limiters, though the closed form (a multiple of Coal_Mem_insts) is 0 here
    model = symgpu.load("hong_kim_2009_intended")
    values = {"Active_blocks_per_SM": 5.0, "Coal_Mem_insts": 0.0, "Comp_insts": 71.0, "Departure_del_coal": 4.0,
              "Departure_del_uncoal": 10.0, "Mem_LD": 420.0, "Threads_per_block": 128.0, "Uncoal_per_mw": 32.0}
    with pytest.raises(errors.DomainError):
        model.evaluate("MWP_Without_BW", "table2_example", values={**values, "Uncoal_Mem_insts": 0.0})
    pair = ("warp_bound", "departure_bound")
    xs = np.concatenate([[0.0], np.geomspace(1e-9, 1e4, 200)])
    assert _switches(model, "MWP_Without_BW", "table2_example", values, "Uncoal_Mem_insts", xs, pair) == []
    d = model.boundary("MWP_Without_BW", pair, for_="Uncoal_Mem_insts", preset="table2_example", values=values)
    assert derive.applying_boundaries(model, d, "table2_example", values) == ()


def test_a_boundary_at_zero_of_a_nonnegative_input_with_one_regime_on_both_sides_is_none():
    model = symgpu.load("volkov_2016_ilp")
    values = {"alpha": 32.0, "cuda_cpi": 0.25, "cuda_insts": 100.0, "dual_issues": 5.0, "gmem2_cpi": 24.6, "gmem2_insts": 5.0,
              "gmem_cpi": 12.3, "gmem_insts": 5.0, "issue_cpi": 0.25, "n": 32.0, "reissues": 15.0, "sfu_cpi": 1.0, "sfu_insts": 5.0,
              "smem2_cpi": 2.0, "smem2_insts": 10.0, "smem_cpi": 1.0, "smem_insts": 10.0}
    pair = ("sfu_units", "warp_scheduler")
    xs = np.concatenate([[0.0], np.geomspace(1e-6, 1e6, 200)])
    assert _switches(model, "cycles_per_warp", "gt200", values, "single_issues", xs, pair) == []
    assert _answer(model, "cycles_per_warp", pair, "single_issues", "gt200", values) == []


def test_a_case_that_holds_at_one_value_only_has_its_boundary_there():
    # Algorithm 1: coalesced only when Eq(index_stride, 1) (with 4-byte elements, aligned): the active case
    # is uncoalesced just below and just above 1 and coalesced at 1 itself: the regimes switch there
    model = symgpu.load("hong_kim_2009")
    values = {"elem_size": 4.0, "half_warp_misaligned": 0.0}
    names = [_regime(model, "alg1_per_mw", "table2_example", values, "index_stride", x) for x in (1 - 1e-7, 1.0, 1 + 1e-7)]
    assert names == ["uncoalesced", "coalesced", "uncoalesced"]
    assert _answer(model, "alg1_per_mw", ("coalesced", "uncoalesced"), "index_stride", "table2_example", values) == [1.0]
    d = model.boundary("alg1_per_mw", ("coalesced", "uncoalesced"), for_="index_stride", preset="table2_example", values=values)
    assert d.certificate is not None and d.certificate.checked


# ------------------------------------------------------------------ a limiter that is itself a Min
HK_COALESCED = {"Coal_Mem_insts": 6.0, "Uncoal_Mem_insts": 0.0}


def _bisect_peak_bw_to(model: symgpu.Model, cap: str, lo: float, hi: float) -> float:
    """Where MWP_peak_BW reaches ``cap`` as Mem_Bandwidth grows (bisection on the evaluate path)."""
    def gap(bw: float) -> float:
        at = {**HK_COALESCED, "Mem_Bandwidth": bw}
        return float(model.evaluate("MWP_peak_BW", "table2_example", values=at).magnitude
                     - model.evaluate(cap, "table2_example", values=at).magnitude)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def test_mwp_switches_from_the_bandwidth_bound_to_eq17s_warp_cap_not_to_the_departure_bound():
    # coalesced loads at Table 2's machine: Active_warps_per_SM = 5 x 128/32 = 20 = N caps Eq. (17), the departure
    # bound MWP_Without_BW_full = 420/4 = 105 is far above; MWP_peak_BW = BW x 420/(1e9 x 128 x 16) reaches 20 at
    # BW = 20 x 1e9 x 128 x 16/420: bandwidth_bound below, warp_bound above (an outside tester's finding: refused, and
    # the switch was given to departure_bound, Eq. (5)'s name for MWP_Without_BW, which there is the warp cap)
    model = symgpu.load("hong_kim_2009")
    hand = 20 * 1e9 * 128 * 16 / 420
    brute = _bisect_peak_bw_to(model, "Active_warps_per_SM", 1e9, 1e12)
    assert brute == pytest.approx(hand, rel=1e-12)
    for bw, binding in ((hand * (1 - 1e-6), "MWP_peak_BW"), (hand * (1 + 1e-6), "Active_warps_per_SM")):
        at = {**HK_COALESCED, "Mem_Bandwidth": bw}
        mwp = float(model.evaluate("MWP", "table2_example", values=at).magnitude)
        assert mwp == pytest.approx(float(model.evaluate(binding, "table2_example", values=at).magnitude), rel=1e-12)
        assert float(model.evaluate("MWP_Without_BW_full", "table2_example", values=at).magnitude) == pytest.approx(105.0)
    assert _answer(model, "MWP", ("warp_bound", "bandwidth_bound"), "Mem_Bandwidth", "table2_example", HK_COALESCED) == \
        pytest.approx([hand], rel=1e-9)
    assert _answer(model, "MWP", ("departure_bound", "bandwidth_bound"), "Mem_Bandwidth", "table2_example", HK_COALESCED) == []


def test_mwp_switches_from_eq17s_warp_cap_to_the_departure_bound_where_the_active_warps_reach_it():
    # at 1000 GB/s (MWP_peak_BW = 205) MWP = min(105, Active_blocks_per_SM x 128/32): the warp cap binds below
    # 105/4 = 26.25 blocks, the departure bound above (Eq. 5's N equals the cap, so the two are one regime there)
    model = symgpu.load("hong_kim_2009")
    values = {**HK_COALESCED, "Mem_Bandwidth": 1000e9}
    for blocks, binding in ((26.0, "Active_warps_per_SM"), (26.5, "MWP_Without_BW_full")):
        at = {**values, "Active_blocks_per_SM": blocks}
        assert float(model.evaluate("MWP", "table2_example", values=at).magnitude) == \
            pytest.approx(float(model.evaluate(binding, "table2_example", values=at).magnitude), rel=1e-12)
    pair = ("warp_bound", "departure_bound")
    assert _answer(model, "MWP", pair, "Active_blocks_per_SM", "table2_example", values) == pytest.approx([105 / 4], rel=1e-9)


def test_the_command_line_names_the_switch_there_is_instead_of_the_departure_bound(cli: Any):
    hand = 20 * 1e9 * 128 * 16 / 420  # as above
    point = ("--preset", "table2_example", "--set", "Coal_Mem_insts=6", "--set", "Uncoal_Mem_insts=0")
    code, out, err = cli("boundary", "hong_kim_2009", "MWP", "--for", "Mem_Bandwidth", "--between", "warp_bound", "bandwidth_bound",
                         *point, "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(hand, rel=1e-9)
    code, out, err = cli("boundary", "hong_kim_2009", "MWP", "--for", "Mem_Bandwidth", "--between", "departure_bound", "bandwidth_bound",
                         *point)
    assert code == 1 and "value:" not in out and len(err.strip().splitlines()) == 1, out + err
    assert "departure_bound and bandwidth_bound do not meet" in err and "switches from bandwidth_bound to warp_bound" in err, err


def test_a_bound_that_is_another_argument_in_its_applying_case_does_not_bind_in_its_own_name():
    # Volkov's alu_bound_ilp is ipc_per_SM (the memory bound) at alpha <= 0, its case memory_only, "not binding at
    # alpha = 0": the switch along mem_lat is memory_bound -> latency_bound (the regime table's names, and the
    # differential tester's brute force), so a boundary between latency_bound and alu_bound is no answer there
    # (before: the memory/latency switch was given as the alu/latency one, 4 times in the differential tester's runs)
    model = symgpu.load("volkov_2016_h100")
    values = {"alpha": 0.0, "ilp": 1.0, "n": 8.0}
    brute = _switches(model, "memory_throughput_ilp", "h100", values, "mem_lat", np.geomspace(1, 1e4, 400),
                      ("memory_bound", "latency_bound"))
    assert len(brute) == 1
    assert _answer(model, "memory_throughput_ilp", ("latency_bound", "memory_bound"), "mem_lat", "h100", values) == \
        pytest.approx(brute, rel=1e-6)
    assert _answer(model, "memory_throughput_ilp", ("latency_bound", "alu_bound"), "mem_lat", "h100", values) == []
