"""Why a quantity has no value at a scalar point: the term of its formula where exact arithmetic first finds none.

``Model.evaluate`` gives NaN, its "no value", where the formula has none in exact arithmetic either; ``eval``
refuses it. The reason is told as it is: a 0/0 (Volkov's ``traffic_increase`` with no access at all), a
division by zero (``x/(x - y) - z/(x - y)`` at ``x = y``: inf - inf in IEEE arithmetic), an even root or a
fractional power of a negative number, the logarithm of a number that is not positive, each with the term
and the value of its argument there. The formula is walked in coherent base units with the inputs as the
decimals given (:func:`point.exact_base_values`), inner terms first; a ``Piecewise`` is followed into the
branch that applies only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.evaluate import input_values, point, scaling

if TYPE_CHECKING:
    from symgpu.model import Model

#: characters of a term quoted in a reason
SHOWN = 70

_NONE = (sympy.zoo, sympy.nan, sympy.oo, sympy.S.NegativeInfinity)


def _text(expr: sympy.Basic) -> str:
    text = sympy.sstr(expr)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def _valued(value: sympy.Basic) -> bool:
    """Is ``value`` a finite real number?"""
    return isinstance(value, sympy.Expr) and value.is_number and not any(value.has(u) for u in _NONE) and value.is_real is not False


def reason(model: Model, name: str, preset: str | None, values: Mapping[str, Any]) -> str | None:
    """Why ``name`` has no value at the point, as a clause (``its formula is 0/0 there: ...``); None where no
    term of its formula is found without a value in exact arithmetic (or an input has none)."""
    given, _ = input_values.gather_values(model, name, preset, values, check=False)
    expr = scaling.base_expression(model, model.expression(name, stop_at=given))
    numbers = point.exact_base_values(model, expr.free_symbols, preset, values)
    if numbers is None:
        return None
    return _Walk(numbers).at(expr)[1]


class _Walk:
    """Each term's exact value at the point, inner terms first, and the reason of the first one with none."""

    def __init__(self, numbers: Mapping[sympy.Symbol, sympy.Expr]) -> None:
        self.numbers = dict(numbers)

    def value(self, expr: sympy.Basic) -> sympy.Basic:
        return expr.xreplace(self.numbers)

    def at(self, expr: sympy.Basic) -> tuple[sympy.Basic, str | None]:
        """(``expr``'s value, why it has none or None)."""
        if isinstance(expr, sympy.Piecewise):
            for piece in expr.args:
                try:
                    holds = self.value(piece.cond) == sympy.true
                except (TypeError, ValueError):  # a condition with no value there (a division by zero in it)
                    return sympy.nan, f"a case condition of {_text(expr)} has no value there ({_text(piece.cond)})"
                if holds:
                    return self.at(piece.expr)
            return sympy.nan, f"no case of {_text(expr)} applies there"
        if not isinstance(expr, sympy.Expr) or not expr.args:
            return self.value(expr), None
        found = [self.at(arg) for arg in expr.args]
        if isinstance(expr, sympy.Mul):
            divisions = [(arg, value) for arg, (value, _) in zip(expr.args, found) if value in (sympy.zoo, sympy.oo, -sympy.oo)
                         and arg.is_Pow and arg.exp.is_negative and self.value(arg.base) == 0]
            rest = [value for arg, (value, _) in zip(expr.args, found) if (arg, value) not in divisions]
            if divisions and all(_valued(v) for v in rest) and sympy.Mul(*rest) == 0:
                zero = next(v for v in rest if v == 0) if any(v == 0 for v in rest) else sympy.Integer(0)
                numerator = next((arg for arg, (v, _) in zip(expr.args, found) if v == zero and (arg, v) not in divisions), None)
                top = f"{_text(numerator)} = 0" if numerator is not None else "a product that is 0"
                return sympy.nan, f"its formula is 0/0 there: {top} over {_text(divisions[0][0].base)} = 0"
        for _, why in found:
            if why is not None:
                return sympy.nan, why
        value = self.value(expr)
        if _valued(value):
            return value, None
        return value, self._why(expr, [v for v, _ in found])  # a division by zero's zoo: a 0/0 where a product's other factor is 0

    @staticmethod
    def _why(expr: sympy.Expr, args: list[sympy.Basic]) -> str:
        """Why ``expr``, whose arguments ``args`` are finite real numbers, has no real value."""
        if expr.is_Pow and args[1].is_negative and args[0] == 0:
            return f"its formula divides by zero there: {_text(expr)}, where {_text(expr.base)} = 0"
        if expr.is_Pow and args[0].is_negative and not args[1].is_integer:
            kind = "a square root" if args[1] in (sympy.Rational(1, 2), sympy.Rational(-1, 2)) else "a fractional power"
            return f"its formula takes {kind} of a negative number there: {_text(expr)}, where {_text(expr.base)} = {float(args[0]):.10g}"
        if isinstance(expr, sympy.log) and not args[0].is_positive:
            what = "0" if args[0] == 0 else "a negative number"
            return f"its formula takes the logarithm of {what} there: {_text(expr)}, where {_text(expr.args[0])} = {float(args[0]):.10g}"
        return f"its term {_text(expr)} has no real value there"
