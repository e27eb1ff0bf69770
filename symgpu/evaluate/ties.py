"""Case conditions that IEEE rounding may decide at one point, decided again in exact arithmetic.

A relation whose sides are equal in exact arithmetic may come out either way in doubles: prior_sim's
``CWP = MWP`` at 13.5 is ``13.500000000000002 > 13.5`` in IEEE arithmetic, and a condition written as
a difference (``-MWP + CWP > 0``: ``1.8e-15 > 0``) hides from the tie rule the size of the terms it
cancels. As :func:`evaluator.evaluate` does for a quantity's own cases (:mod:`.stepwise`), a relation
within :data:`stepwise.NEAR` of a tie at the point, measured against the largest of its sides and of
the terms of their difference, is decided with the inputs as the decimals given
(:func:`point.exact_base_values`), and a ``Piecewise`` with such a relation is evaluated exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu.evaluate import compiler, one_sided, piece_select, point, scaling, stepwise
from symgpu.evaluate.state import state_of

if TYPE_CHECKING:
    from symgpu.model import Model


def near_relations(model: Model, relations: Iterable[sympy.Basic], preset: str | None,
                   values: Mapping[str, Any]) -> dict[sympy.Basic, bool]:
    """Of ``relations`` (declared units), those within :data:`stepwise.NEAR` of a tie at the point,
    each with its verdict in exact arithmetic; empty where the point gives no exact value (an array,
    a missing or non-finite input)."""
    based = {r: scaling.base_expression(model, r) for r in relations}
    mapping = _exact_point(model, set().union(*[b.free_symbols for b in based.values()]) if based else set(), preset, values)
    if mapping is None:
        return {}
    out = {}
    for relation, rewritten in based.items():
        verdict = _near_verdict(rewritten, mapping)
        if verdict is not None:
            out[relation] = verdict
    return out


def tie_value(model: Model, expr: sympy.Basic, target: pint.Unit, preset: str | None, values: Mapping[str, Any]) -> float | None:
    """``expr`` (in ``target``) at a scalar point in exact arithmetic where a relation of its
    ``Piecewise`` conditions is within :data:`stepwise.NEAR` of a tie; None elsewhere (or where the
    exact value is no finite real number: the compiled value stands)."""
    if not expr.has(sympy.Piecewise):
        return None
    based = compiler.expression_base(model, expr, target)
    mapping = _exact_point(model, based.free_symbols, preset, values)
    if mapping is None or not any(_near_verdict(r, mapping) is not None for r in _relations(model, based)):
        return None
    try:
        value = complex(one_sided.substitute(based, mapping))
    except (TypeError, ValueError, ArithmeticError):
        return None
    return value.real if value.imag == 0 and np.isfinite(value.real) else None


def _relations(model: Model, based: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """The relations of ``based``'s ``Piecewise`` conditions (cached per model and expression)."""
    kept = state_of(model).compiled
    key = ("tie relations", based)
    if key not in kept:
        found: dict[sympy.Basic, None] = {}
        for piecewise in based.atoms(sympy.Piecewise):
            for _, condition in piecewise.args:
                piece_select.collect_relations(condition, found)
        kept[key] = tuple(found)
    return kept[key]  # type: ignore[no-any-return]


def _exact_point(model: Model, symbols: Iterable[sympy.Symbol], preset: str | None,
                 values: Mapping[str, Any]) -> dict[sympy.Symbol, sympy.Expr] | None:
    if any(np.ndim(v) for v in values.values() if not isinstance(v, (str, pint.Quantity))) \
            or any(np.ndim(v.magnitude) for v in values.values() if isinstance(v, pint.Quantity)):
        return None
    try:
        return point.exact_base_values(model, symbols, preset, values)
    except (TypeError, ValueError, ArithmeticError):
        return None


def _near_verdict(relation: sympy.Basic, mapping: Mapping[sympy.Symbol, sympy.Expr]) -> bool | None:
    """The exact verdict of a base-unit ``relation`` where its sides are within :data:`stepwise.NEAR` of
    a tie (against the largest of the sides and of the terms of their difference); None where they
    are not, or a value is no finite real number."""
    if not isinstance(relation, sympy.core.relational.Relational):
        return None
    difference = relation.lhs - relation.rhs
    parts = [relation.lhs, relation.rhs, *sympy.Add.make_args(difference)]
    try:
        numbers = [one_sided.substitute(p, mapping) for p in parts]
        magnitudes = [abs(float(n)) for n in numbers]
        gap = abs(float(one_sided.substitute(difference, mapping)))
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not all(np.isfinite(magnitudes)) or gap > stepwise.NEAR * max(magnitudes):
        return None
    verdict = relation.func(numbers[0], numbers[1])
    return bool(verdict) if isinstance(verdict, sympy.logic.boolalg.BooleanAtom) else None
