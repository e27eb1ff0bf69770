"""Dimension checking of SymPy expressions against pint dimensionalities.

Rules (documented in ``equations/README.md``):

* terms of a sum, arguments of ``Min``/``Max``, branches of ``Piecewise`` and both sides
  of a comparison must have the same dimension;
* ``Mul`` and ``Pow`` combine dimensions; exponents and the arguments of ``log``/``exp``
  must be dimensionless; ``floor``, ``ceiling`` and ``Abs`` pass their argument through;
* a bare numeric literal is *free*: in a sum, ``Min``/``Max`` or comparison it takes the
  dimension of its siblings (``MWP - 1`` is one warp), and elsewhere it is a pure number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import sympy
from pint.util import UnitsContainer

from symgpu import units

DIMENSIONLESS = UnitsContainer()


class _Free:
    """Marker: a literal whose dimension is set by its context."""

    def __repr__(self) -> str:
        return "FREE"


class _Boolean:
    """Marker: a condition (relational or boolean), which has no dimension."""

    def __repr__(self) -> str:
        return "BOOLEAN"


FREE = _Free()
BOOLEAN = _Boolean()
Dimension = Any  # UnitsContainer | _Free | _Boolean


class Mismatch(Exception):
    """A dimensional inconsistency inside an expression.

    Attributes:
        expr: the offending sub-expression.
        problem: a sentence saying what disagrees.
        found: dimension found (for hints), or None.
        expected: dimension expected (for hints), or None.
    """

    def __init__(self, expr: sympy.Basic, problem: str, found: Any = None, expected: Any = None) -> None:
        super().__init__(problem)
        self.expr = expr
        self.problem = problem
        self.found = found
        self.expected = expected


def dimension_of_unit(unit_text: str, counts: Iterable[str] = ()) -> UnitsContainer:
    """Return the dimensionality of a unit string, with ``counts`` dimensions removed."""
    return without_counts(units.unit(unit_text).dimensionality, counts)


def without_counts(dim: UnitsContainer, counts: Iterable[str]) -> UnitsContainer:
    """Drop the dimensions named in ``counts`` (``"warp"`` or ``"[warp]"``) from ``dim``."""
    names = {c if c.startswith("[") else f"[{c}]" for c in counts}
    if not names:
        return dim
    return UnitsContainer({k: v for k, v in dict(dim).items() if k not in names})


def show(dim: Dimension) -> str:
    """Format a dimension for messages (``[clock]/[time]``, ``1``, ``a pure number``)."""
    if dim is FREE:
        return "a pure number"
    if dim is BOOLEAN:
        return "a condition"
    return units.format_dimension(dim)


def dimension_of(expr: sympy.Basic, dims: Mapping[sympy.Symbol, UnitsContainer], *, as_written: bool = False) -> Dimension:
    """Return the dimension of ``expr``; raise :class:`Mismatch` where it is inconsistent.

    Args:
        expr: a SymPy expression or condition.
        dims: dimension of every symbol that may appear.
        as_written: ``expr`` is an unevaluated tree (``expressions.parse_expression(as_written=True)``):
            messages quote its terms in the order written.
    """
    return _Walker(dims, as_written).walk(expr)


def consistent(expr: sympy.Basic, dims: Mapping[sympy.Symbol, UnitsContainer]) -> bool:
    """Are ``expr``'s dimensions consistent as it is written (:func:`dimension_of` raises no :class:`Mismatch`)?"""
    try:
        dimension_of(expr, dims)
    except Mismatch:
        return False
    return True


def settle(dim: Dimension) -> UnitsContainer:
    """Turn a free literal into a pure number; leave real dimensions alone."""
    return DIMENSIONLESS if dim is FREE else dim


class _Text:
    """An expression quoted in a message: SymPy's text, or, for a tree read as written, its terms in
    the order written."""

    def __init__(self, expr: Any, as_written: bool) -> None:
        self.expr = expr
        self.as_written = as_written

    def __format__(self, spec: str) -> str:
        return sympy.sstr(self.expr, order="none") if self.as_written else str(self.expr)


class _Walker:
    def __init__(self, dims: Mapping[sympy.Symbol, UnitsContainer], as_written: bool = False) -> None:
        self.dims = dims
        self.as_written = as_written

    def text(self, expr: Any) -> _Text:
        return _Text(expr, self.as_written)

    def walk(self, expr: Any) -> Dimension:
        if isinstance(expr, (bool, sympy.logic.boolalg.BooleanAtom)):
            return BOOLEAN
        if expr.is_Number or expr.is_NumberSymbol or expr in (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            return FREE
        if expr.is_Symbol:
            if expr not in self.dims:
                raise Mismatch(expr, f"symbol '{self.text(expr)}' has no declared unit")
            return self.dims[expr]
        if expr.is_Add:
            return self.same(expr, expr.args, "terms")
        if isinstance(expr, (sympy.Min, sympy.Max)):
            return self.same(expr, expr.args, "arguments")
        if expr.is_Mul:
            result: Dimension = FREE
            for arg in expr.args:
                dim = self.walk(arg)
                self.no_condition(expr, arg, dim)
                if dim is FREE:
                    continue
                result = dim if result is FREE else result * dim
            return result if result is FREE else _snapped(result)
        if expr.is_Pow:
            return self.power(expr)
        if isinstance(expr, sympy.Piecewise):
            values = []
            for value, condition in expr.args:
                self.condition(condition)
                values.append(value)
            return self.same(expr, values, "branches")
        if isinstance(expr, sympy.core.relational.Relational):
            self.same(expr, expr.args, "sides")
            return BOOLEAN
        if isinstance(expr, (sympy.And, sympy.Or, sympy.Not, sympy.Xor)):
            for arg in expr.args:
                self.condition(arg)
            return BOOLEAN
        if isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Abs, sympy.sign, sympy.re, sympy.im)):
            return self.walk(expr.args[0])
        if isinstance(expr, (sympy.exp, sympy.log)):
            for arg in expr.args:
                dim = self.walk(arg)
                if settle(dim) != DIMENSIONLESS:
                    raise Mismatch(expr, f"the argument of {type(expr).__name__} must be a pure number, but '{self.text(arg)}' is {show(dim)}", dim, DIMENSIONLESS)
            return DIMENSIONLESS
        raise Mismatch(expr, f"cannot check the dimension of {type(expr).__name__} '{self.text(expr)}'")

    def no_condition(self, parent: Any, arg: Any, dim: Dimension) -> None:
        if dim is BOOLEAN:
            raise Mismatch(parent, f"condition '{self.text(arg)}' is used as a value")

    def condition(self, expr: Any) -> None:
        dim = self.walk(expr)
        if dim is not BOOLEAN:
            raise Mismatch(expr, f"'{self.text(expr)}' is used as a condition but is {show(dim)}")

    def same(self, parent: Any, args: Iterable[Any], what: str) -> Dimension:
        found: list[tuple[Any, Dimension]] = []
        for arg in args:
            dim = self.walk(arg)
            self.no_condition(parent, arg, dim)
            if dim is not FREE:
                found.append((arg, dim))
        if not found:
            return FREE
        first_arg, first = found[0]
        for arg, dim in found[1:]:
            if dim != first:
                raise Mismatch(
                    parent,
                    f"{what} of '{self.text(parent)}' disagree: '{self.text(first_arg)}' is {show(first)}, but '{self.text(arg)}' is {show(dim)}",
                    dim, first,
                )
        return first

    def power(self, expr: sympy.Pow) -> Dimension:
        base, exponent = expr.args
        base_dim = self.walk(base)
        exp_dim = self.walk(exponent)
        self.no_condition(expr, base, base_dim)
        if settle(exp_dim) != DIMENSIONLESS:
            raise Mismatch(expr, f"the exponent of '{self.text(expr)}' must be a pure number, but '{self.text(exponent)}' is {show(exp_dim)}", exp_dim, DIMENSIONLESS)
        if base_dim is FREE:
            return FREE
        if base_dim == DIMENSIONLESS:
            return DIMENSIONLESS
        if not exponent.free_symbols and not exponent.is_Rational:
            exponent = exponent.doit()  # an exponent written as arithmetic, '(1/2)', read unevaluated
        if not exponent.is_Rational:
            raise Mismatch(expr, f"'{self.text(base)}' has dimension {show(base_dim)} but is raised to the non-numeric power '{self.text(exponent)}'", base_dim, DIMENSIONLESS)
        power = int(exponent) if exponent.is_Integer else float(exponent)
        return _snapped(base_dim**power)


def _snapped(dim: UnitsContainer) -> UnitsContainer:
    """``dim`` with each exponent that rounding left within 1e-12 of a fraction of denominator at most 1000
    put on it, an integer as an ``int``, and a zero one dropped: fractional exponents are floats in pint
    (``clock**(2/3)*clock**(1/3)/clock`` came out as ``clock**5.55e-17``, no match for a dimensionless value)."""
    snapped = {}
    for name, exponent in dim.items():
        if isinstance(exponent, float):
            near = Fraction(exponent).limit_denominator(1000)
            if abs(exponent - near) < 1e-12:  # rounding noise (about 1e-16 per step), not a power such as 1e-10
                exponent = int(near) if near.denominator == 1 else float(near)
        if exponent != 0:
            snapped[name] = exponent
    return UnitsContainer(snapped)
