"""Differential seed 3 (6,000 questions), two findings.

* A root on a closed edge of a ``valid_when`` domain: MDM's ``eq4`` holds for ``W <= W_max``
  (``W_max = 64 warp/SM`` in preset ``table1``); with the target taken at ``W = 64`` the closed-form
  root comes out one unit in the last place above 64, where the evaluate path gives no value. The
  certificate refused the right answer ("lies outside the model's valid_when domain") and the
  tester called it a root where the quantity is undefined. Both now accept a root within 1e-12
  (relative) of a point inside the domain.
* A declared sign the printed formula breaks: Hong & Kim's ``Synch_cost`` (Eq. 26) was declared
  nonnegative, but ``(NpWB - 1)`` makes it negative below one parallel warp per block, so the
  value the model gives there was refused as an input; it now carries no declared sign.
* Behind a first fix (eq26 valid only where ``NpWB >= 1``, not kept: the extremum of Synch_cost
  over Load_bytes_per_warp then claimed a limit outside that domain), a traceback: a ``valid_when``
  condition given a Python ``0.0`` divisor raised ``ZeroDivisionError`` from ``Model.evaluate``.
"""

from __future__ import annotations

import math

import pytest

import symgpu
from symgpu import errors
from symgpu.evaluate import evaluator

import differential_checks as checks
from conftest import tiny_text
from differential_questions import Point, Question

MDM_AT = {"LLCMissRate": 0.5, "L_DRAMService": 0.3733333, "L_NoCService": 0.1706667, "M_Read": 1.0, "M_Write": 1.0}


def test_a_root_on_the_closed_edge_of_the_domain_is_checked_and_is_the_edge():
    model = symgpu.load("mdm_2019")
    w_max = 64.0  # preset table1: W_max = 64 warp/SM
    target = float(model.evaluate("S_Mem_MDM_MSHR", "table1", values={**MDM_AT, "W": w_max}).magnitude)
    with pytest.raises(errors.DomainError):  # one step past the edge the model gives no value
        model.evaluate("S_Mem_MDM_MSHR", "table1", values={**MDM_AT, "W": math.nextafter(w_max, math.inf)})
    answer = model.solve("S_Mem_MDM_MSHR", for_="W", target=repr(target), preset="table1", values=MDM_AT)
    assert "finds no other" in answer.certificate.text()
    roots = symgpu.derive.applying_roots(model, symgpu.derive.roots_of(answer), "table1", MDM_AT, "warp/SM", "W")
    assert [float(r.value.magnitude) for r in roots] == pytest.approx([w_max], rel=1e-12)


def test_the_tester_agrees_with_a_root_on_the_closed_edge_of_the_domain():
    model = symgpu.load("mdm_2019")
    target = float(model.evaluate("S_Mem_MDM_MSHR", "table1", values={**MDM_AT, "W": 64.0}).magnitude)
    point = Point("table1", tuple(sorted({**MDM_AT, "W": 64.0}.items())))
    verdict = checks.judge(Question("solve", "mdm_2019", "S_Mem_MDM_MSHR", "W", point, target=target), limit=0)
    assert verdict.outcome == "agree", verdict.line()


HK_AT = {"Active_SMs": 16.0, "Blocks": 80.0, "Coal_Mem_insts": 0.0, "Comp_insts": 71.0, "Departure_del_coal": 4.0,
         "Departure_del_uncoal": 10.0, "Freq": 1.35e9, "Load_bytes_per_warp": 128.0, "Mem_Bandwidth": 8.64e10, "Mem_LD": 420.0,
         "Synch_insts": 6.0, "Threads_per_block": 128.0, "Uncoal_Mem_insts": 6.0, "Uncoal_per_mw": 32.0}


def test_synchronization_cost_below_one_parallel_warp_is_negative_and_the_tester_agrees_on_its_root():
    model = symgpu.load("hong_kim_2009")
    assert "nonnegative" not in model.symbol_definitions["Synch_cost"].assumptions
    at = {**HK_AT, "Active_blocks_per_SM": 0.1}  # 4 warps per block: 0.4 warp/SM in all, NpWB = 0.4 warp/block
    target = float(model.evaluate("Synch_cost", values=at).magnitude)
    assert target < 0  # (NpWB - 1) < 0: the printed Eq. (26) is negative here, so no sign is declared for it
    point = Point(None, tuple(sorted(at.items())))
    verdict = checks.judge(Question("solve", "hong_kim_2009", "Synch_cost", "Active_blocks_per_SM", point, target=target), limit=0)
    assert verdict.outcome == "agree", verdict.line()


def test_a_domain_condition_that_divides_by_a_zero_input_is_evaluated_not_a_zero_division(write_model):
    # I may be 0 here; the condition 1/I > 0 is inf > 0 there (as NumPy divides), not ZeroDivisionError
    text = tiny_text().replace('unit = "FLOP/B"\nassumptions = ["positive"]', 'unit = "FLOP/B"\nassumptions = ["nonnegative"]')
    text = text.replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, I*B)"\nvalid_when = ["1/I > 0"]')
    assert 'valid_when = ["1/I > 0"]' in text and '["nonnegative"]' in text
    model = symgpu.load(str(write_model(text)))
    assert evaluator.inside_domain(model, "P", "toy", {"I": 0.0}, 1).tolist() == [True]  # the compiled condition itself
    assert float(model.evaluate("P", "toy", values={"I": 0.0}).magnitude) == 0.0  # Min(P_peak, 0*B)
