"""For every bundled model, compiled NumPy evaluation agrees with exact SymPy arithmetic to 1e-12.

Each validation case supplies a preset and inputs; every quantity those values determine is
evaluated both ways (the exact way substitutes rationals and simplifies, in base units).
"""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu import errors, units
from symgpu.evaluate import evaluator

SETS = []
for model_id in symgpu.list_models():
    model = symgpu.load(model_id)
    for case in model.definition.validation:
        if not case.derivation:
            SETS.append((model_id, case.id))


def determined(model, preset, inputs):
    known = set(model.constants) | set(model.preset(preset) if preset else {}) | set(inputs)
    for name in model.quantities:
        if set(model.inputs(name, stop_at=tuple(k for k in inputs if k in model.defining))) <= known:
            yield name


@pytest.mark.parametrize("model_id, case_id", SETS, ids=[f"{m}:{c}" for m, c in SETS])
def test_compiled_evaluation_equals_exact_arithmetic(model_id, case_id):
    model = symgpu.load(model_id)
    case = next(c for c in model.definition.validation if c.id == case_id)
    inputs = {name: units.quantity(text, model.units[name]) for name, text in case.inputs}
    preset = case.preset or None
    checked = 0
    for name in determined(model, preset, inputs):
        try:
            fast = model.evaluate(name, preset=preset, **inputs).magnitude
        except errors.DomainError:
            continue
        exact = sympy.N(evaluator.exact(model, name, preset=preset, values=inputs), 30)
        if not exact.is_real or not math.isfinite(float(fast)):
            continue
        assert float(fast) == pytest.approx(float(exact), rel=1e-12, abs=1e-300), f"{model_id}: {name}"
        checked += 1
    assert checked, f"{model_id}:{case_id} determines no quantity"
