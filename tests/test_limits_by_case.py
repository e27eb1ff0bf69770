"""Issue 25, limits: a limit whose value depends on an input's sign, or on a nonnegative input being 0,
is given case by case, and a limit of 0 is certified. Every expected value is computed by hand or by
brute force on the evaluate path (``Model.evaluate`` along a sequence), never copied from the engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgpu
from symgpu import derive


def _along(model: symgpu.Model, quantity: str, preset: str | None, values: dict[str, float], var: str,
           xs: np.ndarray) -> np.ndarray:
    got = model.evaluate(quantity, preset, values={**values, var: xs}).magnitude
    return np.broadcast_to(np.asarray(got, dtype=float), xs.shape)


def _result(model: symgpu.Model, derivation: derive.Derivation, preset: str | None, values: dict[str, float]) -> float:
    return float(derive.evaluate_result(model, derivation, preset, **values).magnitude)


@pytest.mark.parametrize(("uncoal_per_mw", "expected"), [(32.0, math.inf), (0.5, -math.inf), (1.0, 420.0)])
def test_a_limit_times_the_sign_of_an_input_difference_is_split_at_its_zero(uncoal_per_mw: float, expected: float):
    # Mem_L_Uncoal = Mem_LD + (Uncoal_per_mw - 1)*Departure_del_uncoal: +oo, -oo, or Mem_LD = 420 at Uncoal_per_mw = 1
    model = symgpu.load("hong_kim_2009")
    values = {"Mem_LD": 420.0, "Uncoal_per_mw": uncoal_per_mw}
    answer = model.limit("Mem_L_Uncoal", "Departure_del_uncoal", "oo")  # symbolic: no point given
    assert _result(model, answer, None, values) == expected
    far = _along(model, "Mem_L_Uncoal", None, values, "Departure_del_uncoal", np.array([1e6, 1e9]))
    assert np.all(far == 420.0) if expected == 420.0 else np.all(np.sign(far) == np.sign(expected))


def test_a_limit_at_a_zero_input_that_removes_a_term_is_its_own_case():
    # with no uncoalesced loads, Mem_p = C*Mem_LD/C = Mem_LD = 420 cycles for every C > 0, so its limit as C -> 0 is 420
    # (the limit for Uncoal_Mem_insts > 0 is Mem_LD + Departure_del_uncoal*(Uncoal_per_mw - 1) = 730)
    model = symgpu.load("hong_kim_2009_intended")
    values = {"Comp_insts": 10871.0, "Departure_del_uncoal": 10.0, "Mem_LD": 420.0, "Uncoal_Mem_insts": 0.0,
              "Uncoal_per_mw": 32.0}
    near = _along(model, "Mem_p", None, values, "Coal_Mem_insts", np.array([1e-3, 1e-6, 1e-9]))
    assert near == pytest.approx(420.0, rel=1e-12)
    answer = model.limit("Mem_p", "Coal_Mem_insts", "0")
    assert _result(model, answer, None, values) == pytest.approx(420.0, rel=1e-12)
    assert _result(model, answer, None, {**values, "Uncoal_Mem_insts": 6.0}) == pytest.approx(420.0 + 10.0 * 31, rel=1e-12)


def test_a_latency_limit_with_no_load_keeps_the_unloaded_latency():
    # x = 0: the load terms b*theta/(c - theta) vanish for every bytes_per_inst, so the limit is a + alpha*alu_lat
    model = symgpu.load("volkov_2016_ilp")
    values = {"alpha": 4.0, "b_2": 156.0, "c_2": 121.0, "x": 0.0}
    far = _along(model, "Latency_loaded_2term", "kepler_smem", values, "bytes_per_inst", np.array([1e6, 1e12]))
    preset = model.preset("kepler_smem")
    by_hand = preset["a"].magnitude + 4.0 * preset["alu_lat"].magnitude
    assert far == pytest.approx(by_hand, rel=1e-12)
    answer = model.limit("Latency_loaded_2term", "bytes_per_inst", "oo")
    assert _result(model, answer, "kepler_smem", values) == pytest.approx(by_hand, rel=1e-12)


def test_a_limit_of_zero_is_certified_not_refused():
    # Peak_flops = SP_cores*Freq*Flops_per_cycle -> 0 as Flops_per_cycle -> 0: the values shrink with Flops_per_cycle
    model = symgpu.load("hong_kim_2009")
    near = _along(model, "Peak_flops", "8800gtx", {}, "Flops_per_cycle", np.array([1e-3, 1e-6, 1e-9]))
    assert np.all(np.diff(near) < 0) and near[-1] == pytest.approx(near[0] * 1e-6)
    answer = model.limit("Peak_flops", "Flops_per_cycle", "0", preset="8800gtx")
    assert answer.result == 0
    assert answer.certificate is not None and answer.certificate.checked


def test_a_limit_whose_sign_argument_cancels_is_taken_again_on_the_expanded_form(cli):
    # no coalesced loads: Mem_cycles = Mem_L*Uncoal_Mem_insts with Mem_L = 420 + 10*(32 - 1) = 730 > 0: it grows without bound
    model = symgpu.load("hong_kim_2009")
    values = {"Coal_Mem_insts": 0.0, "Departure_del_uncoal": 10.0, "Mem_LD": 420.0, "Uncoal_per_mw": 32.0,
              "inst_ops_rate": 8.0, "ops_full_rate": 8.0}
    ks = np.array([1e2, 1e4, 1e6])
    assert _along(model, "Mem_cycles", None, values, "Uncoal_Mem_insts", ks) == pytest.approx(730 * ks)
    code, out, err = cli("limit", "hong_kim_2009", "Mem_cycles", "--var", "Uncoal_Mem_insts", "--to", "oo",
                         *[a for k, v in values.items() for a in ("--set", f"{k}={v}")])
    assert code == 0, err
    assert "value: oo cycle" in out
