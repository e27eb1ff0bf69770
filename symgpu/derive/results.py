"""Numeric evaluation of derivation results at a preset and/or values, with units."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pint
import sympy

from symgpu import errors
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import evaluator, input_values
from symgpu.evaluate.active import condition_holds

if TYPE_CHECKING:
    from symgpu.model import Model


def _base_magnitudes(model: Model, preset: str | None, values: Mapping[str, Any]) -> dict[str, float]:
    return {k: input_values.base_magnitude(model, k, v) for k, v in input_values.merge_values(model, preset, values).items()}


def _evaluate(model: Model, expr: Any, preset: str | None, values: Mapping[str, Any], unit: str | None = None) -> Any:
    """Magnitude of ``expr`` in ``unit`` (the declared unit it stands for) at a preset / values."""
    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    return evaluator.evaluate_expression(model, expr, unit or None, preset=preset, values=values).magnitude


def result_values(derivation: Derivation, values: Mapping[str, Any] | None) -> dict[str, Any]:
    """``values`` with the derivation's own: a numeric solve target kept as the value of its
    quantity (extra ``target_value``, numbers in the quantity's declared unit) wins over them."""
    merged = dict(values or {})
    for name, number in dict(derivation.extra).get("target_value", {}).items():
        merged[name] = float(number)
    return merged


def evaluate_result(model: Model, derivation: Derivation, preset: str | None = None, *, which: str = "result",
                    **values: Any) -> pint.Quantity:
    """Evaluate a derivation's result (or ``which="location"``) numerically, with units.

    Values are numbers in the symbols' declared units, pint quantities or quantity strings;
    they override the preset's values. A solve target kept as its quantity's value
    (:func:`result_values`) is given too.
    """
    values = result_values(derivation, values)
    if which == "location":
        expr = derivation.location
        unit_name = derivation.variable
        unit = model.unit_text(unit_name) if unit_name in model.symbols else ""
    else:
        expr = derivation.result
        unit = derivation.unit
    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    return evaluator.evaluate_expression(model, expr, unit or None, preset=preset, values=values)


@dataclass(frozen=True)
class RootValue:
    """One root of a solve or boundary that applies at a point.

    Attributes:
        regime: the regime (or case switch) the root belongs to.
        root: the root, symbolic.
        value: its value at the point, in the variable's declared unit.
        because: the conditions of the regime, evaluated at the point (why it applies).
    """

    regime: str
    root: sympy.Expr
    value: pint.Quantity
    because: str


def roots_of(derivation: Derivation) -> list[dict[str, Any]] | None:
    """The ``[{regime, root, when}]`` records of a solve or boundary (None where it has none)."""
    for key, value in derivation.extra:
        if key == "roots":
            return list(value)
    return None


def applying_roots(model: Model, roots: Sequence[Mapping[str, Any]], preset: str | None, values: Mapping[str, Any],
                   unit: str | None) -> tuple[RootValue, ...]:
    """The roots whose regime conditions hold at the preset / values, each evaluated there
    (the conditions decided numerically by :func:`symgpu.evaluate.active.condition_holds`, the
    rule every regime question uses); a root found in two regimes with the same value at the
    point is given once, under the first."""
    out: list[RootValue] = []
    for record in roots:
        holds, shown = condition_holds(model, record["when"], preset, values)
        if not holds:
            continue
        value = evaluator.evaluate_expression(model, record["root"], unit or None, preset=preset, values=values)
        if any(abs(value.magnitude - o.value.magnitude) <= 1e-12 * max(abs(value.magnitude), abs(o.value.magnitude)) for o in out):
            continue
        out.append(RootValue(str(record["regime"]), record["root"], value, shown))
    return tuple(out)
