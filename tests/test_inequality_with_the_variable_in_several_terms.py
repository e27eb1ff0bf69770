"""Tester round 7, F6: an inequality whose quantity holds the variable in several terms is answered:
linear in it (kernel_gemm's t_dram = e*(M*K + M*N + K*N)/(eta_M*Theta_M), M in two terms) in closed
form, a numerator not linear in it at a point from the equation's roots; a refusal names the model
and the question. Expected values from the evaluate path (t_dram is linear in M: two values give the
line) and by hand."""

from __future__ import annotations

import math

import pytest

import symgpu
from symgpu import derive, errors

_GEMM = ("a100_sxm4_40gb+neusight_fit", {"K_out": 4096, "K_red": 4096})


def test_a_bound_linear_in_a_variable_in_two_terms_is_solved_in_closed_form():
    model = symgpu.load("kernel_gemm")
    preset, values = _GEMM
    t1, t2 = (float(model.evaluate("t_dram", preset, values={**values, "M": m}).to("us").magnitude) for m in (1.0, 2.0))
    expected = 1.0 + (50.0 - t1) / (t2 - t1)  # the line through (1, t1) and (2, t2) meets 50 us there (~92.213)
    answer = model.solve("t_dram", "M", target="50 us", relation="<=")
    assert answer.extra.relation.rel_op == "<=" and model.symbols["M"] not in answer.result.free_symbols
    here = model.solve("t_dram", "M", target="50 us", relation="<=", preset=preset, values=values)
    assert float(derive.evaluate_result(model, here, preset, **values).magnitude) == pytest.approx(expected, rel=1e-9)


def test_a_bound_quadratic_in_the_variable_is_read_from_the_roots_at_a_point(write_model):
    # P = I*B + I**2*B**2/P_peak at B = 2 TB/s, P_peak = 100 TFLOP/s: 2e12*I + 4e10*I**2 <= 1e13
    # <=> I**2 + 50*I - 250 <= 0 <=> I <= (-50 + sqrt(3500))/2 = 4.5803989... for I > 0
    model = symgpu.load(write_model(rhs="I*B + I**2*B**2/P_peak"))
    here = model.solve("P", "I", target="10 TFLOP/s", relation="<=", preset="toy")
    assert float(derive.evaluate_result(model, here, "toy").magnitude) == pytest.approx((-50 + math.sqrt(3500)) / 2, rel=1e-9)
    with pytest.raises(errors.DerivationError, match=r"^tiny: solving P <= .* for I: .*not linear in I.*at a point \(--preset"):
        model.solve("P", "I", target="10 TFLOP/s", relation="<=")
