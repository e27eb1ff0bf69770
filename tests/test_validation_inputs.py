"""A validation case is read once, when the model is built (``model.records.ValidationInputs``):
its inputs as quantities in the declared units, its printed values in the unit they are printed
in; ``validation``, the report's scenarios and ``compare`` use that reading."""

from __future__ import annotations

import dataclasses

import pytest

import symgpu
from symgpu import validation
from symgpu.report import scenarios

CASE = '''
[[validation]]
id = "kilo"
preset = "toy"
inputs = { I = "10000 FLOP/kB" }
expect = { P = "20 TFLOP/s" }
source = { ref = "toy2026", locator = "Table 1" }
'''


@pytest.fixture
def tiny(write_model) -> symgpu.Model:
    """The tiny roofline model with the case ``kilo``."""
    return symgpu.load(write_model(raw=write_model().read_text(encoding="utf-8") + CASE))


def test_a_cases_inputs_are_read_in_declared_units_when_the_model_is_built(tiny: symgpu.Model) -> None:
    read = tiny.validation_inputs["kilo"]
    (name, value), = read.inputs
    # 10000 FLOP per kilobyte = 10 FLOP per byte, the declared unit of I
    assert name == "I" and format(value.units, "~") == "FLOP / B" and value.magnitude == pytest.approx(10.0)
    (quantity, printed), = read.expect
    assert quantity == "P" and format(printed.units, "~") == "TFLOP / s" and printed.magnitude == 20


def test_validation_and_the_report_use_the_reading_made_at_load(tiny: symgpu.Model) -> None:
    case = tiny.definition.validation[0]
    assert tiny.validation_case(case) is tiny.validation_inputs["kilo"]
    # min(100 TFLOP/s, 10 FLOP/B * 2 TB/s = 20 TFLOP/s) = 20 TFLOP/s, as printed
    (result,) = validation.run_case(tiny, case)
    assert result.ok and result.computed == pytest.approx(20.0) and result.unit == "TFLOP/s"  # the words the case wrote
    with_case = scenarios.scenarios(tiny, "toy")[1]
    assert with_case.inputs == tiny.validation_inputs["kilo"].inputs


def test_a_case_changed_after_loading_keeps_the_values_read_at_load(tiny: symgpu.Model) -> None:
    case = dataclasses.replace(tiny.definition.validation[0], abs_tol=1e-9)
    read = tiny.validation_case(case)
    assert read.case is case and read.inputs is tiny.validation_inputs["kilo"].inputs
