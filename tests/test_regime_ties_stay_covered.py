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
