"""A regime dropped as degenerate (it holds only on a surface where two tied Min/Max arguments are
equal) leaves that surface to a neighbour with the same value there; the neighbour's strict
condition on the surface is made non-strict so that the table has no gap on it.

MDM 2019's S_NoC (Eq. 5) switches at ``M_Read*W = MSHRs`` (the case ``md`` is strict, so the tie is
non-divergent), and M = M_Write*W + Min(MSHRs, M_Read*W) ties there too. The nmd regime with
``MSHRs`` binding holds only on the tie and was dropped, and the other nmd regime said
``MSHRs > M_Read*W``: at the tie no regime held ("no regime applies"), though the model gives 1792
cycles there at Table 1 with 64 warps of 2 reads.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import symgpu

TIE = {"W": 64.0, "M_Read": 2.0, "M_Write": 0.0, "L_NoCService": 1.0}


def test_the_tie_of_the_md_switch_is_in_the_nmd_regime_with_the_models_value() -> None:
    model = symgpu.load("mdm_2019")
    assert model.presets["table1"]["MSHRs"].magnitude == TIE["W"] * TIE["M_Read"]  # the point is the tie
    answer = model.regimes("S_NoC", preset="table1", values=TIE)
    assert [r.name for r in answer.extra.active_regimes] == ["nmd"]
    nmd = next(r for r in answer.regimes if r.name == "nmd")
    at_tie = symgpu.evaluate.evaluator.evaluate_expression(model, nmd.expression, "cycle", preset="table1", values=TIE).magnitude
    assert at_tie == pytest.approx(model.evaluate("S_NoC", "table1", values=TIE).magnitude, rel=1e-12)
    assert answer.certificate is not None and answer.certificate.checks


def test_the_degenerate_regime_is_still_dropped_and_md_stays_strict() -> None:
    model = symgpu.load("mdm_2019")
    answer = model.regimes("S_NoC", over="W")
    assert sorted(r.name for r in answer.regimes) == ["md", "nmd"]
    assert any(s.operation == "drop degenerate" for s in answer.steps)
    md = next(r for r in answer.regimes if r.name == "md")
    assert any(str(c).startswith("W >") or " > " in str(c) for c in md.conditions)  # the tie is not md's: its value doubles there


# MDM's S_Mem and S_Total_MDM read the same Min of M and the same case of Eq. 5 twice (once in S_NoC, once in
# S_DRAM): the covering nmd regime states its strict condition MSHRs > M_Read*W twice, and was not relaxed
# ("no regime applies" at M_Read*W = MSHRs). The tie: 4 reads * 32 warps = 128 MSHRs of Table 1.
SERVICE = {"M_Read": 4.0, "M_Write": 1.0, "LLCMissRate": 0.5}


@pytest.mark.parametrize("quantity", ["S_Mem", "S_Total_MDM", "S_Total_MDM_MSHR", "S_MSHR_MDM"])
@pytest.mark.parametrize("warps", [31.0, 32.0, 33.0])
def test_a_quantity_that_reads_the_tie_twice_has_a_regime_with_the_models_value_at_it_and_beside_it(quantity: str, warps: float) -> None:
    model = symgpu.load("mdm_2019")
    values = {**SERVICE, "W": warps}
    expected = model.evaluate(quantity, "table1_gpumech_service", values=values).magnitude  # brute force: the model itself
    for over in (None, "W"):
        answer = model.regimes(quantity, over=over, preset="table1_gpumech_service", values=values)
        active = [r.name for r in answer.extra.active_regimes]
        assert active, f"{quantity} at W = {warps}: no regime applies"
        for name in active:
            regime = next(r for r in answer.regimes if r.name == name)
            value = symgpu.evaluate.evaluator.evaluate_expression(model, regime.expression, model.unit_text(quantity),
                                                                  preset="table1_gpumech_service", values=values).magnitude
            assert value == pytest.approx(expected, rel=1e-12)


def test_the_tie_value_of_s_total_mdm_is_the_hand_computed_nmd_value() -> None:
    # nmd at M_Read*W = 128 = MSHRs: M = min(128, 128) + 1*32 = 160 req/SM; L0 = 120 + 0.5*220 = 230 cycles;
    # S_Mem = 230 + 0.5*28*160*(0.1706667 + 0.3733333) = 1448.56 cycles, S_MSHR = 0 (ceiling(1) - 1)
    model = symgpu.load("mdm_2019")
    answer = model.regimes("S_Total_MDM", over="W", preset="table1_gpumech_service", values={**SERVICE, "W": 32.0})
    assert [r.name for r in answer.extra.active_regimes] == ["nmd"]
    nmd = next(r for r in answer.regimes if r.name == "nmd")
    value = symgpu.evaluate.evaluator.evaluate_expression(model, nmd.expression, "cycle", preset="table1_gpumech_service",
                                                          values={**SERVICE, "W": 32.0}).magnitude
    assert value == pytest.approx(230 + 0.5 * 28 * 160 * (0.1706667 + 0.3733333), rel=1e-12)


def test_a_target_attained_at_the_tie_is_solved_there(cli: Callable[..., tuple[int, str, str]]) -> None:
    # nmd below and at the tie: S_Mem = 0.5*28*(4*W + 1*W)*(0.5 + 0.5) = 70*W cycles, so 2240 cycles at W = 32 (= 128/4, the tie)
    code, out, err = cli("solve", "mdm_2019", "S_Mem", "--for", "W", "--target", "2240", "--preset", "table1", "--set", "M_Read=4",
                         "--set", "M_Write=1", "--set", "LLCMissRate=0", "--set", "L_NoCService=0.5", "--set", "L_DRAMService=0.5",
                         "--set", "L_MinLLC=0", "--set", "L_MinDRAM=0")
    assert code == 0, err
    assert "value: 32 (nmd)" in out
