"""The boundaries of a quantity at a point with one variable free, none named: the values where its
regime (the binding argument of every reached ``Min``/``Max``, the case of every case table,
:mod:`symgpu.evaluate.regime_path`) changes, each labelled with the regimes on its two sides; and,
two regimes named, those of them where the two change places (:func:`of_pair`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import declared_range, regime_split
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


def has_value(model: Model, name: str | None, variable: str, at: float, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Does the model give ``name`` a value with ``variable`` at ``at``: ``at`` has the variable's declared sign, and every
    ``valid_when`` condition that can be read there holds (one that cannot be read there counts as holding: the boundary is
    then decided by the regimes alone)? Yes for no ``name``."""
    if declared_range.of(model, variable).failing(np.asarray([at])):
        return False
    try:
        return name is None or bool(evaluator.inside_domain(model, name, preset, {**values, variable: at}, 1, check=False)[0])
    except errors.DomainError:
        return False
    except errors.EvaluationError:  # a value the point lacks: not decided here
        return True


def switches(model: Model, name: str, expr: sympy.Basic, variable: str, candidates: Sequence[tuple[float, str]],
             preset: str | None, values: Mapping[str, Any], pair: Sequence[str] | None = None) -> tuple[PointSwitch, ...]:
    """Every change of regime of ``expr`` (``name``'s expression) along ``variable`` at the point, in
    increasing order: ``candidates`` (the answer's values with their labels) where the regime differs
    on their two sides (:func:`symgpu.evaluate.active.boundary_sides`) or at the value itself, and every
    change a scan of the regime finds between them (:func:`symgpu.evaluate.regime_path.changes`); two regimes named
    (``pair``), those of them where the two change places (:func:`_of_pair`)."""
    low = _low(model, variable)
    found: dict[float, PointSwitch] = {}
    for i, (b, label) in enumerate(candidates):
        around = active.boundary_sides(model, variable, b)
        if not all(has_value(model, name, variable, x, preset, values) for x in {b, *around}):
            continue
        below, above, at = regime_path.codes(model, expr, variable, [*around, b], preset, values)
        if below != above or around[0] != b and at != below:
            found[b] = PointSwitch(b, _label(model, name, expr, (below if around[0] != b else at, above if below != above else at), label), i)
    _, scanned = regime_path.changes(model, expr, variable, [b for b, _ in candidates], preset, values, low)
    for change in scanned:
        b = change.value
        if any(abs(b - v) <= NEAR * max(abs(v), 1e-12) for v in found) or \
                not all(has_value(model, name, variable, x, preset, values) for x in {b, *active.boundary_sides(model, variable, b)}):
            continue  # at or beside it the model gives no value: no switch the model makes
        found[b] = PointSwitch(b, _label(model, name, expr, (change.below, change.above)), None)
    ordered = tuple(found[b] for b in sorted(found))
    return ordered if pair is None else _of_pair(model, name, variable, pair, ordered, preset, values)


def _low(model: Model, variable: str) -> float | None:
    """The scan's lower end: 0 for a variable of declared sign, None (both signs) otherwise."""
    return 0.0 if declared_range.of(model, variable).relations else None


def scanned(model: Model, variable: str, candidates: Sequence[float]) -> tuple[float, float, int]:
    """Where :func:`switches` scans the regime with these candidates: the first and last value and the number of points."""
    return regime_path.span(candidates, _low(model, variable))


def _label(model: Model, name: str, expr: sympy.Basic, sides: Sequence[Any], label: str = "") -> str:
    """``below|above``: the regimes on the two sides (:func:`symgpu.evaluate.regime_path.describe`); the
    answer's ``label`` where the cases are those of an intermediate quantity's table, which it names."""
    if label and not isinstance(expr, sympy.Piecewise) and expr.has(sympy.Piecewise):
        return label
    ids = [c.id for c in model.equation_for(name).cases]
    return "|".join(regime_path.describe(expr, side, ids) for side in sides)


def _of_pair(model: Model, name: str, variable: str, pair: Sequence[str], found: Sequence[PointSwitch], preset: str | None,
             values: Mapping[str, Any]) -> tuple[PointSwitch, ...]:
    """The switches of ``found`` where the two regimes of ``pair``, names of ``name``'s regime table over ``variable`` (a nested
    Min's ``min_arg2+max_arg3``), change places: the table's conditions of one hold just below and not just above, those of the
    other just above and not just below (:func:`symgpu.evaluate.active.boundary_sides`), labelled ``below|above``. A nested Min
    that changes its argument while it binds inside a Max (``c*x`` reaching its cap ``B``) switches two such regimes though the
    Max's own binding argument stays (an outside tester's finding, round 14b F3). Empty where the table does not name both."""
    try:
        table = {r.name: r.conditions for r in regime_split.regimes(model, name, over=variable).regimes}
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return ()
    if len(set(pair)) != 2 or not set(pair) <= set(table):
        return ()

    def held(x: float) -> frozenset[str]:
        at = {**values, variable: x}
        try:
            return frozenset(n for n in pair if all(active.condition_true(model, c, preset, at) for c in table[n]))
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):  # an input the point lacks: not decided
            return frozenset()
    out = []
    for switch in found:
        below, above = (held(x) for x in active.boundary_sides(model, variable, switch.value))
        if len(below) == len(above) == 1 and below != above:
            out.append(PointSwitch(switch.value, f"{min(below)}|{min(above)}", switch.candidate))
    return tuple(out)
