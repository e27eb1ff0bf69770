"""The form a derivation's result is shown in, settled as the derivation finishes: a Min/Max among constants of known
value compared by those values (``Min(lit_200_ns, lit_500_ns)`` is ``lit_200_ns``: 200 ns < 500 ns, which SymPy, seeing two
positive symbols, cannot tell), and the unit the formula is written in (:func:`symgpu.evaluate.scaling.written_unit`).
Each change is said as a step."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import pint
import sympy

from symgpu import units
from symgpu.evaluate import scaling
from symgpu.model import substitution

if TYPE_CHECKING:
    from symgpu.model import Model


def settled(model: Model, result: sympy.Basic, unit: str) -> tuple[sympy.Basic, str, list[tuple[str, sympy.Basic, str]]]:
    """``result`` with its Min/Max of known constants folded and the unit it is written in, with a step
    (operation, expression, why) for each change."""
    steps: list[tuple[str, sympy.Basic, str]] = []
    folded = known_constants_folded(model, result)
    if folded is not result and folded != result:
        steps.append(("known constants", folded, "a Min/Max of constants of the model compared by their values, exactly"))
        result = folded
    if unit not in ("", "1") and (written := scaling.written_unit(model, result, unit)) != unit:
        steps.append(("unit of the result", result, f"its bare numbers are in {written} (the terms' beside them), not in "
                      f"{unit}: the result is written, and its value given, in {written}"))
        unit = written
    return result, unit, steps


def of_constants(model: Model, names: Iterable[str]) -> bool:
    """Whether ``names`` (what an expression or a question reads beside the variable asked about and the names it
    substitutes) are one or more constants of the model (a ``[constants]`` entry, a literal made one: ``lit_500_ns``): what
    reads only them has a value with no preset and no values given, the constants' own. The one rule by which a result is
    shown with its value at no point (``lit_100_ns + lit_500_ns``), a limit's case edge is decided by the constants' values
    (``L < lit_500_ns``) and a question is certified at the model's constants alone."""
    listed = set(names)
    return bool(listed) and listed <= set(model.constants)


def _exact_value(model: Model, symbol: Any) -> tuple[Any, Fraction] | None:
    """(dimension, exact base-unit value) of a constant of the model, or None for anything else."""
    if not isinstance(symbol, sympy.Symbol) or symbol.name not in model.constants:
        return None
    value = model.constants[symbol.name]
    magnitude = value.magnitude
    if isinstance(magnitude, bool) or not isinstance(magnitude, (int, float)) or magnitude != magnitude or abs(magnitude) == float("inf"):
        return None
    unit = cast(pint.Unit, value.units)
    return unit.dimensionality, Fraction(repr(magnitude)) * units.base_factor(unit)


def known_constants_folded(model: Model, expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with, in each Min/Max, the constants of known value of one dimension reduced to the one that wins (the
    smallest for Min, the largest for Max); the Min/Max rebuilt as :mod:`symgpu.model.substitution` builds it. A fold
    inside a fold (a Min in a Max) is found on the next pass."""
    if not model.constants or not expr.has(sympy.Min, sympy.Max):
        return expr
    for _ in range(MAX_PASSES):
        folded = _one_pass(model, expr)
        if folded is expr:
            break
        expr = folded
    return expr


#: the most passes of :func:`known_constants_folded` (each folds the outermost Min/Max it changes)
MAX_PASSES = 8


def _one_pass(model: Model, expr: sympy.Basic) -> sympy.Basic:
    rule: dict[sympy.Basic, sympy.Basic] = {}
    for node in sympy.preorder_traversal(expr):
        if not isinstance(node, (sympy.Min, sympy.Max)):
            continue
        best: dict[Any, tuple[Fraction, Any]] = {}
        for arg in node.args:
            known = _exact_value(model, arg)
            if known is None:
                continue
            dimension, number = known
            held = best.get(dimension)
            if held is None or (number < held[0] if node.func is sympy.Min else number > held[0]):
                best[dimension] = (number, arg)
        kept = {arg for _, arg in best.values()}
        dropped = [arg for arg in node.args if _exact_value(model, arg) is not None and arg not in kept]
        if dropped:
            rest = tuple(arg for arg in node.args if arg not in dropped)
            rule[node] = rest[0] if len(rest) == 1 else substitution.min_max(node.func, rest)
    return substitution.xreplace(expr, rule) if rule else expr
