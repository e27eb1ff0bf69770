"""The public functions that take a model (docs/api.md) refuse a model id or path with a TypeError that says to pass
``symgpu.load(ID)``. An outside tester's finding: ``symgpu.validate("interval_analysis")`` raised a bare
``AttributeError: 'str' object has no attribute 'definition'`` from inside symgpu/validation.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import derivation
from symgpu.evaluate import evaluator

CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("symgpu.validate", lambda m: symgpu.validate(m)),
    ("symgpu.evaluate.evaluator.evaluate", lambda m: evaluator.evaluate(m, "P_K0", preset="gtx1080", values={"M": 16, "N": 16})),
    ("symgpu.evaluate.evaluator.evaluate_expression", lambda m: evaluator.evaluate_expression(m, sympy.Symbol("M"), None, values={"M": 16})),
    ("symgpu.derive.derivation.as_evaluated", lambda m: derivation.as_evaluated(m, None, sympy.Symbol("M"))),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("function", "call"), CALLS)
@pytest.mark.parametrize("given", ["interval_analysis", Path("equations/interval_analysis.toml")])
def test_an_id_or_path_for_a_model_is_a_type_error_naming_the_function_and_the_cure(function: str, call: Callable[[Any], Any],
                                                                                    given: Any) -> None:
    with pytest.raises(TypeError) as caught:
        call(given)
    assert isinstance(caught.value, errors.NotAModelError)
    assert str(caught.value) == (f"{function} takes a model, not {given!r} (a {type(given).__name__}): "
                                 f"pass symgpu.load({str(given)!r})")


def test_the_loaded_model_is_still_validated_and_evaluated() -> None:
    model = symgpu.load("interval_analysis")
    results = symgpu.validate(model)
    assert results and all(r.ok for r in results)
    # M = 16 given: evaluate_expression of the bare symbol M reads it back
    assert evaluator.evaluate_expression(model, sympy.Symbol("M"), None, values={"M": 16}).magnitude == 16
