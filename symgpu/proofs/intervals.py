"""Interval arithmetic over the declared ranges of symbols: a sound, cheap enclosure of an expression's values.

Each symbol ranges over what its assumptions allow (``positive`` -> ``(0, oo)``, ``positive`` and
``integer`` -> ``[1, oo)``, ``nonnegative`` -> ``[0, oo)``, a real symbol without one -> the real
line) unless a range is given for it. :func:`enclose` evaluates ``Add``, ``Mul``, ``Pow``, ``Min``,
``Max``, ``Abs``, ``floor`` and ``ceiling`` over those ranges with exact rational endpoints, open
or closed, so an :class:`Interval` that excludes 0 proves the sign of the expression at every
admissible point where it is defined. Arguments are treated as independent (the usual dependency
problem), so the enclosure may be wider than the true range, never narrower. Anything else
(``Piecewise``, unknown functions, a quantity that may be complex) gives ``None``: no claim.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

import sympy

from symgpu.memo import Memo

#: an endpoint: an exact rational, or -inf / +inf
End = Union[Fraction, float]
_INF = math.inf
#: relative margin that widens endpoints computed in floating point (fractional powers, irrational numbers)
_MARGIN = Fraction(1, 10**9)


def _infinite(x: End) -> bool:
    return isinstance(x, float) and math.isinf(x)


@dataclass(frozen=True)
class Interval:
    """The set of reals between ``lo`` and ``hi``; an open end excludes its endpoint (an infinite end is always open)."""

    lo: End
    hi: End
    lo_open: bool = False
    hi_open: bool = False

    def __post_init__(self) -> None:
        if self.lo > self.hi or self.lo == _INF or self.hi == -_INF:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")
        if _infinite(self.lo) and not self.lo_open:
            object.__setattr__(self, "lo_open", True)
        if _infinite(self.hi) and not self.hi_open:
            object.__setattr__(self, "hi_open", True)

    @classmethod
    def point(cls, value: Fraction) -> Interval:
        return cls(value, value)

    def contains(self, value: Any) -> bool:
        """Is the real ``value`` (int, Fraction, float, SymPy number) inside?"""
        if isinstance(value, sympy.Basic):
            value = Fraction(int(value.p), int(value.q)) if value.is_Rational else float(value)
        above = value > self.lo or (value == self.lo and not self.lo_open)
        below = value < self.hi or (value == self.hi and not self.hi_open)
        return bool(above and below)

    def sign(self) -> int | None:
        """+1 or -1 if every value has that sign, 0 if the interval is {0}, else None."""
        if self.lo > 0 or (self.lo == 0 and self.lo_open):
            return 1
        if self.hi < 0 or (self.hi == 0 and self.hi_open):
            return -1
        if self.lo == self.hi == 0:
            return 0
        return None


REALS = Interval(-_INF, _INF, True, True)


def declared(symbol: sympy.Symbol) -> Interval | None:
    """The range a symbol's assumptions allow; None if it is not known to be real."""
    if symbol.is_real is not True:
        return None
    integer = symbol.is_integer is True
    if symbol.is_zero:
        return Interval.point(Fraction(0))
    if symbol.is_positive:
        return Interval(Fraction(1), _INF) if integer else Interval(Fraction(0), _INF, lo_open=True)
    if symbol.is_negative:
        return Interval(-_INF, Fraction(-1)) if integer else Interval(-_INF, Fraction(0), hi_open=True)
    if symbol.is_nonnegative:
        return Interval(Fraction(0), _INF)
    if symbol.is_nonpositive:
        return Interval(-_INF, Fraction(0))
    return REALS


def enclose(expr: Any, bounds: Mapping[sympy.Symbol, Interval] | None = None) -> Interval | None:
    """An interval holding every value of ``expr`` over its symbols' ranges (``bounds`` first,
    the declared assumptions otherwise); None where no sound enclosure is known."""
    memo: dict[sympy.Basic, Interval | None] | Memo[sympy.Basic, Interval | None] = _DECLARED if not bounds else {}
    return _enclose(sympy.sympify(expr, strict=True), bounds or {}, memo)


#: each node's enclosure over its symbols' declared ranges alone (no ``bounds``): a function of the node (a symbol's
#: assumptions are part of it), shared by every call of the process (the sign reasoner asks about the same limits
#: of a regime table in one difference after another: 2500 nodes for 88 differences of the occupancy table)
_DECLARED: Memo[sympy.Basic, Interval | None] = Memo("proofs.intervals.declared_enclosures", 20000)


def sign(expr: Any, bounds: Mapping[sympy.Symbol, Interval] | None = None) -> int | None:
    """The sign of ``expr`` if its enclosure proves one (see :meth:`Interval.sign`), else None."""
    found = enclose(expr, bounds)
    return None if found is None else found.sign()


def _enclose(e: sympy.Basic, bounds: Mapping[sympy.Symbol, Interval],
             memo: dict[sympy.Basic, Interval | None] | Memo[sympy.Basic, Interval | None]) -> Interval | None:
    if e in memo:
        return memo[e]
    out: Interval | None
    if e.is_Symbol:
        out = bounds[e] if e in bounds else declared(e)  # type: ignore[arg-type]
    elif e.is_Number:
        out = _number(e)
    elif e.is_number and not e.args:
        out = _constant(e)  # pi, E, ...
    else:
        rule = _RULES.get(type(e)) or next((r for t, r in _RULES.items() if isinstance(e, t)), None)
        found = [] if rule is None else [_enclose(a, bounds, memo) for a in e.args]
        args = [a for a in found if a is not None]
        out = None if rule is None or len(args) != len(found) else rule(e, args)
    memo[e] = out
    return out


def _number(e: sympy.Basic) -> Interval | None:
    if e.is_Rational:
        return Interval.point(Fraction(int(e.p), int(e.q)))
    if e.is_Float and e.is_finite:
        exact = sympy.Rational(e)  # the binary value of the Float, exactly
        return Interval.point(Fraction(int(exact.p), int(exact.q)))
    return None  # oo, zoo, nan


def _constant(e: sympy.Basic) -> Interval | None:
    if e.is_real is not True or e.is_finite is not True:
        return None
    value = sympy.Rational(e.evalf(30))
    return _widen(Fraction(int(value.p), int(value.q)))


def _widen(value: Fraction) -> Interval:
    """A closed interval around a value known to about 15 significant digits."""
    pad = abs(value) * _MARGIN + Fraction(1, 10**30)
    return Interval(value - pad, value + pad)


def _add(_: sympy.Basic, args: list[Interval]) -> Interval:
    lo: End = Fraction(0)
    hi: End = Fraction(0)
    for a in args:
        lo, hi = lo + a.lo, hi + a.hi
    return Interval(lo, hi, any(a.lo_open for a in args), any(a.hi_open for a in args))


def _times(x: End, y: End) -> End:
    # 0 * oo counts as 0: an interval's values are finite, and a factor 0 makes the product 0
    return Fraction(0) if x == 0 or y == 0 else x * y


def _product(a: Interval, b: Interval) -> Interval:
    combos = []
    for x, x_open in ((a.lo, a.lo_open), (a.hi, a.hi_open)):
        for y, y_open in ((b.lo, b.lo_open), (b.hi, b.hi_open)):
            value = _times(x, y)
            closed = (not x_open and not y_open) or (x == 0 and not x_open) or (y == 0 and not y_open)
            combos.append((value, closed and not _infinite(value)))
    lo = min(v for v, _ in combos)
    hi = max(v for v, _ in combos)
    return Interval(lo, hi, not any(c for v, c in combos if v == lo), not any(c for v, c in combos if v == hi))


def _mul(_: sympy.Basic, args: list[Interval]) -> Interval:
    out = Interval.point(Fraction(1))
    for a in args:
        out = _product(out, a)
    return out


def _reciprocal(a: Interval) -> Interval:
    """1/x over ``a`` where x != 0 (the real line if ``a`` straddles 0: 1/x is unbounded both ways)."""
    positive = a.lo > 0 or (a.lo == 0 and a.lo_open)
    negative = a.hi < 0 or (a.hi == 0 and a.hi_open)
    if not (positive or negative):
        return REALS

    def inv(x: End) -> End:
        if _infinite(x):
            return Fraction(0)
        return (_INF if positive else -_INF) if x == 0 else 1 / x  # type: ignore[operator]

    return Interval(inv(a.hi), inv(a.lo), a.hi_open, a.lo_open)


#: the largest integer exponent raised exactly (a larger one keeps only the sign: no huge numbers)
MAX_EXACT_EXPONENT = 64


def _power(a: Interval, n: int) -> Interval:
    """x**n over ``a`` for an integer n >= 1."""
    if n > MAX_EXACT_EXPONENT:
        return _power_sign(a, n)
    lo, hi = _times_n(a.lo, n), _times_n(a.hi, n)
    if n % 2 == 1 or a.lo >= 0:
        return Interval(lo, hi, a.lo_open, a.hi_open)
    if a.hi <= 0:
        return Interval(hi, lo, a.hi_open, a.lo_open)
    top = max(lo, hi)
    top_open = all(o for v, o in ((lo, a.lo_open), (hi, a.hi_open)) if v == top)
    return Interval(Fraction(0), top, False, top_open)


def _power_sign(a: Interval, n: int) -> Interval:
    """What the sign of ``a`` alone says about x**n (n >= 1)."""
    zero = Fraction(0)
    if a.lo >= 0 or n % 2 == 0:
        excludes_zero = a.lo > 0 or (a.lo == 0 and a.lo_open) or a.hi < 0 or (a.hi == 0 and a.hi_open)
        return Interval(zero, _INF, excludes_zero, True)
    if a.hi <= 0:
        return Interval(-_INF, zero, True, a.hi_open or a.hi < 0)
    return REALS


def _times_n(x: End, n: int) -> End:
    if _infinite(x):
        return x if n % 2 == 1 or x > 0 else _INF
    return x ** n  # type: ignore[operator]


def _fractional(a: Interval, exponent: Fraction) -> Interval | None:
    """x**exponent over ``a`` for a non-integer rational exponent: x must be >= 0 (else the value may be complex)."""
    if a.lo < 0:
        return None
    if exponent < 0:
        base = _fractional(a, -exponent)
        return None if base is None else _reciprocal(base)

    def bound(x: End, down: bool) -> End:
        if _infinite(x) or x == 0:
            return x
        try:
            power = float(x) ** float(exponent)
        except OverflowError:
            return _INF if not down else Fraction(0)
        if x < sys.float_info.min or power < sys.float_info.min:
            # x or its power below the normal floats (subnormal: too imprecise for the margin; or 0.0):
            # 0 < x < 1 here, so 0 < x**exponent < 1
            return Fraction(0) if down else Fraction(1)
        value = Fraction(power)
        return value * (1 - _MARGIN) if down else value * (1 + _MARGIN)

    lo, hi = bound(a.lo, True), bound(a.hi, False)
    return Interval(lo, hi, a.lo_open and a.lo == 0, a.hi_open and _infinite(hi))


def _pow(e: sympy.Basic, args: list[Interval]) -> Interval | None:
    base, exponent = args
    exp = e.args[1]
    if exp.is_Integer:
        n = int(exp)
        if n == 0:
            return Interval.point(Fraction(1))
        powered = _power(base, abs(n))
        return powered if n > 0 else _reciprocal(powered)
    if exp.is_Rational:
        return _fractional(base, Fraction(int(exp.p), int(exp.q)))
    if base.lo > 0 or (base.lo == 0 and base.lo_open):
        return Interval(Fraction(0), _INF, True, True)  # a positive real to a real power is positive
    return None


def _min(_: sympy.Basic, args: list[Interval]) -> Interval:
    lo, hi = min(a.lo for a in args), min(a.hi for a in args)
    return Interval(lo, hi, all(a.lo_open for a in args if a.lo == lo), all(a.hi_open for a in args if a.hi == hi))


def _max(_: sympy.Basic, args: list[Interval]) -> Interval:
    lo, hi = max(a.lo for a in args), max(a.hi for a in args)
    return Interval(lo, hi, all(a.lo_open for a in args if a.lo == lo), all(a.hi_open for a in args if a.hi == hi))


def _abs(_: sympy.Basic, args: list[Interval]) -> Interval:
    (a,) = args
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return Interval(-a.hi, -a.lo, a.hi_open, a.lo_open)
    top = max(-a.lo, a.hi)
    return Interval(Fraction(0), top, False, all(o for v, o in ((-a.lo, a.lo_open), (a.hi, a.hi_open)) if v == top))


def _round(function: Callable[[Fraction], int]) -> Callable[[sympy.Basic, list[Interval]], Interval]:
    def rule(_: sympy.Basic, args: list[Interval]) -> Interval:
        (a,) = args
        lo = a.lo if _infinite(a.lo) else Fraction(function(a.lo))  # type: ignore[arg-type]
        hi = a.hi if _infinite(a.hi) else Fraction(function(a.hi))  # type: ignore[arg-type]
        return Interval(lo, hi)  # closed: a rounded open end may be reached by nearby values

    return rule


_RULES: dict[type, Callable[[sympy.Basic, list[Interval]], Interval | None]] = {
    sympy.Add: _add,
    sympy.Mul: _mul,
    sympy.Pow: _pow,
    sympy.Min: _min,
    sympy.Max: _max,
    sympy.Abs: _abs,
    sympy.floor: _round(math.floor),
    sympy.ceiling: _round(math.ceil),
}
