"""Compiled evaluation matches exact SymPy evaluation; bad inputs get clear errors."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from conftest import read_fixture
from symgpu import errors
from symgpu.evaluate import evaluator

ureg = symgpu.ureg


def outputs_for_preset(model, preset, values):
    names = []
    for name in model.quantities:
        needed = set(model.inputs(name)) - set(model.constants) - set(model.preset(preset)) - set(values)
        if not needed:
            names.append(name)
    return names


@pytest.mark.parametrize("preset", ["gtx1080", "k20c"])
def test_compiled_evaluation_matches_exact_sympy_to_1e12(ia, preset):
    values = {"M": 16, "N": 16, "n_X": 19, "P": 4096, "N_exec": 10**6, "n_IF": 1, "n_IM": 2, "L_iota": 672, "d_iota": 8, "d_L2": 64}
    names = outputs_for_preset(ia, preset, values)
    assert "P_K0" in names and "Q_K0" in names and "t_P" in names
    for name in names:
        fast = ia.evaluate(name, preset=preset, **values).magnitude
        exact = evaluator.exact(ia, name, preset=preset, values=values)
        assert fast == pytest.approx(float(sympy.N(exact, 30)), rel=1e-12), name


def test_array_inputs_give_array_results_equal_to_pointwise(ia):
    N = np.arange(6, 64, dtype=float)
    sweep = ia.evaluate("P_K0", preset="gtx1080", M=N, N=N)
    assert sweep.magnitude.shape == N.shape
    for index in (0, 17, len(N) - 1):
        point = ia.evaluate("P_K0", preset="gtx1080", M=N[index], N=N[index])
        assert sweep.magnitude[index] == pytest.approx(point.magnitude, rel=1e-15)


def test_result_carries_the_declared_unit(ia):
    assert ia.evaluate("L_K0_time", preset="gtx1080", M=16, N=16).units == ureg.Unit("ns")
    assert ia.evaluate("Q_K0", preset="gtx1080", M=16, N=16).units == ureg.Unit("thread/SM")


def test_quantity_inputs_are_converted_to_declared_units(ia):
    in_mb = ia.evaluate("P_K0", preset="gtx1080", M=16, N=16, Theta_M=ureg.Quantity(320300, "MB/s"))
    as_text = ia.evaluate("P_K0", preset="gtx1080", M=16, N=16, Theta_M="0.3203 TB/s")
    plain = ia.evaluate("P_K0", preset="gtx1080", M=16, N=16, Theta_M=320.3)
    assert in_mb.magnitude == pytest.approx(plain.magnitude) == pytest.approx(as_text.magnitude)


def test_caller_value_for_an_intermediate_stops_substitution(ia):
    given = ia.evaluate("P_K0", preset="gtx1080", M=16, N=16, L_K0=1000)
    expected = ia.evaluate("P_K0", preset="gtx1080", M=16, N=16) * 1000 / ia.evaluate("L_K0", preset="gtx1080", M=16, N=16).magnitude
    assert given.magnitude == pytest.approx(expected.magnitude)


def test_missing_input_names_it_and_the_fix(ia):
    with pytest.raises(errors.EvaluationError, match=r"^interval_analysis: P_K0 needs a value for N \(not in preset 'gtx1080'\); pass it as NAME=VALUE \(e\.g\. --set N=\.\.\.\)$"):
        ia.evaluate("P_K0", preset="gtx1080", M=16)


def test_wrong_unit_names_both_dimensions(ia):
    with pytest.raises(errors.EvaluationError, match=r"^interval_analysis: Theta_M = 320 GB has dimension \[information\], but Theta_M is \[information\]/\[time\] \(declared unit GB/s\); give it in GB/s or a compatible unit$"):
        ia.evaluate("P_K0", preset="gtx1080", M=16, N=16, Theta_M=ureg.Quantity(320, "GB"))


def test_value_violating_a_declared_assumption_is_refused(ia):
    with pytest.raises(errors.EvaluationError, match=r"^interval_analysis: M = -16 violates the declared assumption 'positive'; give a positive value$"):
        ia.evaluate("P_K0", preset="gtx1080", M=-16, N=16)


def test_outside_the_validity_domain_is_a_domain_error_not_a_number(ia):
    with pytest.raises(errors.DomainError, match=r"^interval_analysis: equation L_K0 \(.*\) is valid only when N >= L_F/t_issue; got L_F = 6 cycle, N = 4, t_issue = 1 cycle\. The model gives no value outside this domain$"):
        ia.evaluate("P_K0", preset="gtx1080", M=4, N=4)


def test_unknown_symbol_and_quantity_and_preset_are_clear(ia):
    with pytest.raises(errors.EvaluationError, match=r"^interval_analysis: unknown symbol 'Theta'"):
        ia.evaluate("P_K0", preset="gtx1080", Theta=1)
    with pytest.raises(errors.UsageError, match=r"^interval_analysis: 'P_K9' is not a quantity defined by an equation"):
        ia.evaluate("P_K9")
    with pytest.raises(errors.UsageError, match=r"^interval_analysis: unknown preset 'gtx9090' \(presets: notes_defaults, gtx1080"):
        ia.evaluate("P_K0", preset="gtx9090")


def test_expression_substitutes_intermediate_equations(ia):
    s = ia.symbols
    expected = s["Theta_M"] * (s["L_M"] + (s["M"] * s["N"] + s["M"]) * s["t_issue"]) / (s["S_elt"] * (s["M"] + s["N"]) * s["phi"])
    assert sympy.simplify(ia.expression("P_K0") - expected) == 0


def test_piecewise_bound_switches_regime_at_the_knee(ia):
    knee = ia.evaluate("P_sat", preset="gtx1080", L_iota=672, d_iota=128).magnitude
    below = ia.evaluate("t_P", preset="gtx1080", L_iota=672, d_iota=128, N_exec=1e6, P=knee * 0.5)
    above = ia.evaluate("t_P", preset="gtx1080", L_iota=672, d_iota=128, N_exec=1e6, P=knee * 2)
    at_bandwidth = ureg.Quantity(1e6 * 128 / 320.3e9, "s")
    assert above.to("s").magnitude == pytest.approx(at_bandwidth.magnitude)
    assert below.to("s").magnitude == pytest.approx(2 * at_bandwidth.magnitude)


SCALES = read_fixture("scales")


def test_prefixes_that_do_not_cancel_are_converted(tmp_path):
    path = tmp_path / "scales.toml"
    path.write_text(SCALES)
    model = symgpu.load(path)
    per_cycle = model.evaluate("per_cycle", BW=1e11, clock=1)
    assert per_cycle.magnitude == pytest.approx((ureg.Quantity(1e11, "B/s") / ureg.Quantity(1, "GHz")).to("B/cycle").magnitude)
    assert float(evaluator.exact(model, "per_cycle", values={"BW": 1e11, "clock": 1})) == pytest.approx(per_cycle.magnitude, rel=1e-12)


def test_dimensionless_units_keep_their_scale(tmp_path):
    path = tmp_path / "scales.toml"
    path.write_text(SCALES)
    model = symgpu.load(path)
    expected = (ureg.Quantity(256, "bit") * ureg.Quantity(8, "bit/B")).to("B")
    assert model.evaluate("bytes_wide", bus_bits=256).magnitude == pytest.approx(expected.magnitude)


def test_bare_literal_is_in_the_declared_unit_of_its_sibling(tmp_path):
    path = tmp_path / "scales.toml"
    path.write_text(SCALES)
    model = symgpu.load(path)
    assert model.evaluate("L_plus", L=999).to("ns").magnitude == pytest.approx(1000)
    assert model.evaluate("whole", L=2.5, clock=1.0).magnitude == pytest.approx(3)


def test_presets_combine_with_plus_later_values_winning(ia):
    combined = ia.preset("notes_defaults+gtx1080")
    assert combined["Theta_M"] == ia.preset("gtx1080")["Theta_M"]
    swapped = ia.preset("gtx1080+notes_defaults")
    assert swapped["Theta_M"] == ia.preset("notes_defaults")["Theta_M"] and swapped["SMs"] == ia.preset("gtx1080")["SMs"]
    with pytest.raises(errors.UsageError, match=r"^interval_analysis: unknown preset 'nope'"):
        ia.preset("gtx1080+nope")


def test_piecewise_quantity_accepts_a_mix_of_scalar_and_array_inputs():
    """Conditions joined with And are lambdified as logical_and.reduce, which needs one shape."""
    hk = symgpu.load("prior_hong_kim")
    alpha = np.array([1.0, 8.0, 64.0, 512.0])
    result = hk.evaluate("arithmetic_throughput", preset="gt200", n=32, alpha=alpha)
    assert result.magnitude.shape == alpha.shape
    for index in range(len(alpha)):
        point = hk.evaluate("arithmetic_throughput", preset="gt200", n=32, alpha=alpha[index])
        assert result.magnitude[index] == pytest.approx(point.magnitude)


def test_a_plot_function_takes_fixed_values_as_arguments_with_numpy_arithmetic():
    from symgpu.evaluate import compiler
    model = symgpu.load("occupancy")
    s = model.symbols
    threads, regs = s["threads_per_block"], s["regs_per_thread"]
    x = np.array([32.0, 64.0, 128.0])
    # a fixed 0 in a denominator is inf, as it would be in an array (not a ZeroDivisionError)
    plain = compiler.declared_unit_function(model, threads + 1 / regs, ["threads_per_block"], {regs: 0.0})
    assert np.all(np.isinf(plain(x)))
    # Piecewise and And conditions mix fixed scalars with the swept array: broadcast, then evaluated
    piecewise = sympy.Piecewise((threads, sympy.And(threads > 40, regs > 16)), (regs, True))
    for fixed, expected in ((32.0, [32.0, 64.0, 128.0]), (8.0, [8.0, 8.0, 8.0])):
        function = compiler.declared_unit_function(model, piecewise, ["threads_per_block"], {regs: fixed})
        assert list(function(x)) == expected
    condition = compiler.declared_unit_function(model, sympy.Or(threads > 40, regs > 16), ["threads_per_block"], {regs: 8.0})
    assert list(condition(x)) == [False, True, True]
