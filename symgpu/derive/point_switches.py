"""The boundaries of a quantity at a point with one variable free, none named: the values where its
regime (the binding argument of every reached ``Min``/``Max``, the case of every case table,
:mod:`symgpu.evaluate.regime_path`) changes, each labelled with the regimes on its two sides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import declared_range
from symgpu.evaluate import active, evaluator, regime_path

if TYPE_CHECKING:
    from symgpu.model import Model

NEAR = 1e-6  # a scanned change this close (relative) to an answer's value is that value


@dataclass(frozen=True)
class PointSwitch:
    """A change of regime at the point.

    Attributes:
        value: the variable's value, in its declared unit.
        label: ``below|above``: the regimes on its two sides (:func:`symgpu.evaluate.regime_path.describe`).
        candidate: the index of the answer's value it is (its closed form), None where only the scan found it.
    """

    value: float
    label: str
    candidate: int | None


def _inside(model: Model, name: str, variable: str, at: float, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Does the model give ``name`` a value at ``variable = at`` (declared sign, ``valid_when``; unreadable counts as yes)?"""
    if declared_range.of(model, variable).failing(np.asarray([at])):
        return False
    try:
        return bool(evaluator.inside_domain(model, name, preset, {**values, variable: at}, 1, check=False)[0])
    except errors.DomainError:
        return False
    except errors.EvaluationError:
        return True


def switches(model: Model, name: str, expr: sympy.Basic, variable: str, candidates: Sequence[tuple[float, str]],
             preset: str | None, values: Mapping[str, Any]) -> tuple[PointSwitch, ...]:
    """Every change of regime of ``expr`` (``name``'s expression) along ``variable`` at the point, in
    increasing order: ``candidates`` (the answer's values with their labels) where the regime differs
    on their two sides (:func:`symgpu.evaluate.active.boundary_sides`) or at the value itself, and every
    change a scan of the regime finds between them (:func:`symgpu.evaluate.regime_path.changes`)."""
    low = 0.0 if declared_range.of(model, variable).relations else None
    found: dict[float, PointSwitch] = {}
    for i, (b, label) in enumerate(candidates):
        around = active.boundary_sides(model, variable, b)
        if not all(_inside(model, name, variable, x, preset, values) for x in {b, *around}):
            continue
        below, above, at = regime_path.codes(model, expr, variable, [*around, b], preset, values)
        if below != above or around[0] != b and at != below:
            found[b] = PointSwitch(b, _label(model, name, expr, (below if around[0] != b else at, above if below != above else at), label), i)
    _, scanned = regime_path.changes(model, expr, variable, [b for b, _ in candidates], preset, values, low)
    for change in scanned:
        b = change.value
        if any(abs(b - v) <= NEAR * max(abs(v), 1e-12) for v in found) or \
                not all(_inside(model, name, variable, x, preset, values) for x in {b, *active.boundary_sides(model, variable, b)}):
            continue  # at or beside it the model gives no value: no switch the model makes
        found[b] = PointSwitch(b, _label(model, name, expr, (change.below, change.above)), None)
    return tuple(found[b] for b in sorted(found))


def _label(model: Model, name: str, expr: sympy.Basic, sides: Sequence[Any], label: str = "") -> str:
    """``below|above``: the regimes on the two sides (:func:`symgpu.evaluate.regime_path.describe`); the
    answer's ``label`` where the cases are those of an intermediate quantity's table, which it names."""
    if label and not isinstance(expr, sympy.Piecewise) and expr.has(sympy.Piecewise):
        return label
    ids = [c.id for c in model.equation_for(name).cases]
    return "|".join(regime_path.describe(expr, side, ids) for side in sides)
