"""Scalar evaluation equation by equation (:mod:`symgpu.evaluate.stepwise`) gives the values of
the compiled expanded expression, and leaves every edge case to the expanded path."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors, units
from symgpu.evaluate import compiler, input_values, stepwise


def expanded_value(model: symgpu.Model, name: str, given: frozenset[str], magnitudes: dict) -> float:
    """The reference: the fully expanded expression of ``name``, compiled, at scalar magnitudes."""
    args, function, base = compiler.compiled(model, name, given)
    inputs = [np.float64(magnitudes[a]) for a in args]
    with np.errstate(all="ignore"):
        return float(function(*(compiler.broadcast(inputs) if base.has(sympy.Piecewise) else inputs)))


def case_values(model: symgpu.Model):
    """(case, quantity, given, magnitudes) for every plain validation case and quantity of ``model``."""
    for case in model.definition.validation:
        if case.derivation:
            continue
        inputs = {name: units.quantity(text, model.units[name]) for name, text in case.inputs}
        for name in model.quantities:
            given, magnitudes = input_values.gather_values(model, name, case.preset or None, inputs)
            yield case, name, given, magnitudes


#: models with no published numbers to reproduce: judged against measurement instead
#: (the NeuSight kernel models: benchmarks/neusight_accuracy.py, tests/test_predict_neusight.py)
MEASURED_ONLY = frozenset({"kernel_gemm", "kernel_row_reduction", "kernel_streaming"})


def test_only_the_measured_kernel_models_have_no_validation_case() -> None:
    assert {m for m in symgpu.list_models() if not symgpu.load(m).definition.validation} == MEASURED_ONLY


@pytest.mark.parametrize("model_id", [m for m in symgpu.list_models() if m not in MEASURED_ONLY])
def test_stepwise_value_equals_the_expanded_expression_at_every_validation_case(model_id: str) -> None:
    model = symgpu.load(model_id)
    compared = 0
    for case, name, given, magnitudes in case_values(model):
        fast = stepwise.value(model, name, given, magnitudes, checks=False)
        if fast is None or fast is stepwise.TIED:  # the expanded expression, or exact arithmetic near a tie, decides
            continue
        assert fast == pytest.approx(expanded_value(model, name, given, magnitudes), rel=1e-13, abs=1e-300), f"{case.id}: {name}"
        compared += 1
    assert compared, f"{model_id}: no quantity was computed equation by equation"


def test_every_published_value_is_computed_equation_by_equation() -> None:
    """The fast path is the one validation takes: no expected value falls back."""
    for model_id in symgpu.list_models():
        model = symgpu.load(model_id)
        for case in model.definition.validation:
            if case.derivation:
                continue
            inputs = {name: units.quantity(text, model.units[name]) for name, text in case.inputs}
            for name, text in case.expect:
                if text.strip().lower() == symgpu.model.schema.DOMAIN_ERROR:
                    continue
                given, magnitudes = input_values.gather_values(model, name, case.preset or None, inputs)
                assert stepwise.value(model, name, given, magnitudes, checks=True) is not None, f"{model_id} {case.id}: {name}"


def test_a_missing_input_falls_back_to_the_expanded_message(ia: symgpu.Model) -> None:
    given, magnitudes = input_values.gather_values(ia, "P_K0", None, {})
    assert stepwise.value(ia, "P_K0", given, magnitudes, checks=True) is None
    with pytest.raises(errors.EvaluationError, match="needs a value for"):
        ia.evaluate("P_K0")


def test_array_inputs_fall_back_to_the_expanded_path(ia: symgpu.Model) -> None:
    values = {"M": 16, "N": np.array([16.0, 32.0, 64.0])}
    given, magnitudes = input_values.gather_values(ia, "P_K0", "gtx1080", values)
    assert stepwise.value(ia, "P_K0", given, magnitudes, checks=True) is None
    each = [ia.evaluate("P_K0", preset="gtx1080", M=16, N=n).magnitude for n in values["N"]]
    assert np.array_equal(ia.evaluate("P_K0", preset="gtx1080", **values).magnitude, each)


def test_a_domain_violation_falls_back_and_raises_the_expanded_paths_error(ia: symgpu.Model) -> None:
    # L_K0 is valid only when N >= L_F/t_issue (see tests/test_numeric.py): 4 < 6/1 on the gtx1080
    values = {"M": 4, "N": 4}
    given, magnitudes = input_values.gather_values(ia, "P_K0", "gtx1080", values)
    assert stepwise.value(ia, "P_K0", given, magnitudes, checks=True) is None
    assert stepwise.value(ia, "P_K0", given, magnitudes, checks=False) is not None
    with pytest.raises(errors.DomainError, match=r"valid only when N >= L_F/t_issue; got L_F = 6 cycle, N = 4, t_issue = 1 cycle\."):
        ia.evaluate("P_K0", preset="gtx1080", **values)


def test_a_point_on_the_edge_of_a_condition_is_left_to_the_expanded_path() -> None:
    """Huang's bandwidth delay needs rho < 1 (rho = lambda_ s, computed): at rho = 1 - 1e-15,
    within rounding of the edge, the expanded expression decides; at rho = 1/2 this path does."""
    huang = symgpu.load("prior_huang")
    for lam, decided in (("0.999999999999999 req/cycle", False), ("0.5 req/cycle", True)):
        values = {"lambda_": lam, "s": "1 cycle/req", "n": 8}
        given, magnitudes = input_values.gather_values(huang, "Bandwidth_delay", "fermi", values)
        fast = stepwise.value(huang, "Bandwidth_delay", given, magnitudes, checks=True)
        assert (fast is not None) == decided
        expected = huang.evaluate("Bandwidth_delay", preset="fermi", **values).magnitude
        assert stepwise.value(huang, "Bandwidth_delay", given, magnitudes, checks=False) == pytest.approx(expected, rel=1e-13)


def test_a_step_that_is_not_finite_falls_back(write_model) -> None:
    # Q = R/I with R = I*B: at I = 0 the step R/I is 0/0, while SymPy cancels the expanded I*B/I to B
    model = symgpu.load(write_model(extra_equation="""
        [symbols.R]
        description = "bandwidth-bound throughput"
        unit = "FLOP/s"
        role = "intermediate"

        [symbols.Q]
        description = "throughput per intensity"
        unit = "B/s"
        role = "output"

        [[equations]]
        id = "bandwidth_bound"
        defines = "R"
        rhs = "I*B"
        source = { ref = "toy2026", locator = "Eq. (2)" }

        [[equations]]
        id = "per_intensity"
        defines = "Q"
        rhs = "R/I"
        source = { ref = "toy2026", locator = "Eq. (3)" }
        """))
    values = {"I": 0.0, "B": 2.0}
    given, magnitudes = input_values.gather_values(model, "Q", None, values, check=False)
    assert stepwise.value(model, "Q", given, magnitudes, checks=False) is None
    assert model.evaluate("Q", values=values, checks=False).magnitude == 2.0


def test_preset_values_converted_once_equal_a_fresh_conversion(ia: symgpu.Model) -> None:
    preset = "gtx1080"
    name = "P_K0"
    _, kept = input_values.gather_values(ia, name, preset, {})
    _, again = input_values.gather_values(ia, name, preset, {})
    fresh = {k: input_values.base_magnitude(ia, k, v) for k, v in input_values.merge_values(ia, preset, None).items()}
    assert kept == again == fresh


def test_a_bad_caller_value_is_refused_even_with_converted_presets(ia: symgpu.Model) -> None:
    ia.evaluate("P_K0", preset="gtx1080", M=16, N=16)
    with pytest.raises(errors.EvaluationError, match=r"^interval_analysis: M = -16 violates the declared assumption 'positive'"):
        input_values.gather_values(ia, "P_K0", "gtx1080", {"M": -16, "N": 16})
