"""Exact evaluation at one point: an expression or condition from symbol magnitudes in their
declared units, substituted as 17-digit floats after the base-unit rewrite (no compilation)."""

from __future__ import annotations

import math
from fractions import Fraction
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.evaluate import input_values, scaling
from symgpu.evaluate.state import state_of

if TYPE_CHECKING:
    from symgpu.model import Model


def base_values(model: Model, values: Mapping[sympy.Symbol, float]) -> dict[sympy.Symbol, sympy.Float]:
    """Declared-unit magnitudes -> base-unit SymPy floats, ready for ``xreplace``."""
    return {s: sympy.Float(v * scaling.symbol_scale(model, s.name), 17) for s, v in values.items()}


def exact_base_values(model: Model, symbols: Iterable[sympy.Symbol], preset: str | None,
                      values: Mapping[str, Any]) -> dict[sympy.Symbol, sympy.Expr] | None:
    """Each of ``symbols``' value (the constants, then ``preset``'s, then ``values``) in coherent base
    units as an exact number, read as :func:`evaluator.exact` reads inputs: the shortest decimal of
    the magnitude in the declared unit, times the unit's exact scale (``nsimplify(x, rational=True)``
    keeps 15 digits, and a root that cancels moves by 1e-4 with the 16th and 17th), ready for
    ``xreplace`` into a :func:`scaling.base_expression`; None where a symbol has no value there, or
    a value that is no finite number. A value given as an exact rational (``sympy.Rational``, ``Fraction``) is taken as it is."""
    merged = input_values.merge_values(model, preset, dict(values))
    kept = _preset_numbers(model, preset)
    numbers: dict[sympy.Symbol, sympy.Expr] = {}
    for symbol in symbols:
        if symbol.name not in merged:
            return None
        number = kept.get(symbol.name) if symbol.name not in values else None
        number = _exact_number(model, symbol.name, merged[symbol.name]) if number is None else number
        if number is None:
            return None
        numbers[symbol] = number
    return numbers


def _exact_number(model: Model, name: str, given: Any) -> sympy.Expr | None:
    """One value of :func:`exact_base_values` (None where it is no finite number)."""
    if isinstance(given, (sympy.Rational, Fraction)):  # an exact number in the declared unit (a solve's target 1/33): kept so
        return sympy.Rational(given) * scaling.unit_scale(model.units[name])
    magnitude = float(input_values.to_magnitude(model, name, given))
    if not math.isfinite(magnitude):
        return None
    return sympy.Rational(repr(magnitude)) * scaling.unit_scale(model.units[name])


def _preset_numbers(model: Model, preset: str | None) -> dict[str, sympy.Expr]:
    """The constants' and ``preset``'s exact base-unit numbers (:func:`_exact_number`), made once per model and preset
    (they never change after loading; a sweep's near-tie points each ask for them); those that do not convert are left
    out, to be converted (and refused) on each call as before."""
    key = ("exact preset numbers", preset)
    kept = state_of(model).compiled
    if key not in kept:
        found: dict[str, sympy.Expr] = {}
        for name, given in input_values.merge_values(model, preset, None).items():
            try:
                number = _exact_number(model, name, given)
            except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
                continue
            if number is not None:
                found[name] = number
        kept[key] = found
    return kept[key]  # type: ignore[no-any-return]


def at_point(model: Model, expr: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> Any:
    """Evaluate ``expr`` (number or condition) from magnitudes in declared units.

    The expression is rewritten for coherent base units first (bare literals take their
    siblings' unit), so the result is in base units (ratios and comparisons of like quantities
    are unit-free); a condition gives a ``bool``.

    Raises:
        TypeError: a symbol of ``expr`` has no value (the result is not a number).
    """
    based = scaling.base_expression(model, expr)
    replaced = based.xreplace({s: v for s, v in base_values(model, values).items() if s in based.free_symbols})
    if isinstance(replaced, (sympy.logic.boolalg.Boolean, sympy.core.relational.Relational)) and not isinstance(replaced, sympy.Expr):
        return bool(replaced)
    return float(replaced)


def condition_ratio(model: Model, condition: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> float | None:
    """lhs/rhs of a comparison, both in base units (``None`` if not a comparison, a side is 0
    or not a finite number)."""
    if not isinstance(condition, sympy.core.relational.Relational):
        return None
    based = scaling.base_expression(model, condition)
    mapping = {s: v for s, v in base_values(model, values).items() if s in based.free_symbols}
    try:
        lhs, rhs = float(based.lhs.xreplace(mapping)), float(based.rhs.xreplace(mapping))
    except (TypeError, ValueError):
        return None
    if rhs == 0 or lhs == 0 or not math.isfinite(lhs) or not math.isfinite(rhs):
        return None
    return lhs / rhs
