"""Exact arithmetic in numbers ``a + b*sqrt(r)`` (``a``, ``b`` rational, ``r`` a positive integer that is no square),
and an expression's exact value at a rational point in it, where that is all it takes.

A case value at a root of a quadratic holds a square root (``(-B + sqrt(B**2 - 4*A*C))/(2*A)``); at a rational
point every value built from it by sums, products, quotients and integer powers is such a number, and so is its
sign, found without rounding: ``a + b*sqrt(r)`` has the sign of ``a`` and ``b`` where they agree, else the sign
of the one whose square is larger (``a**2`` against ``b**2 * r``). So the proofs that read values at sample points
(:mod:`symgpu.proofs.unordered`: a Min's arguments ordered both ways; :func:`symgpu.proofs.exact_signs.nonzero_somewhere`:
not identically 0) read them here too, instead of leaving the question to SymPy's simplification.

- :class:`Surd`: one such number with ``b != 0`` (:func:`surd` gives a plain :class:`~fractions.Fraction` where
  ``b = 0`` or ``r`` is a square, so a rational value is always a ``Fraction``); ``+ - * /``, integer powers and
  comparisons with fractions and with surds of the same root (``sqrt(8)`` and ``sqrt(2)`` are the same root: their
  product is a square). A sum of surds of two unrelated roots raises :class:`Unsupported`; their comparison is
  still exact (:func:`sign_of_two`).
- :func:`sqrt`: the root of a nonnegative rational; of a negative one :class:`NotReal`, of a surd :class:`Unsupported`.
- :func:`value`: an expression's value (sums, products, integer and half-integer powers, ``Min``/``Max``,
  ``floor``/``ceiling``, ``Abs``) with each symbol's value from a lookup, memoised per point.

Pure ``fractions`` and ``math`` (SymPy only to read the expression's nodes; a sum or product of fractions alone reduced once,
as :mod:`.rational_value` reduces it); no model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias, TypeGuard

import sympy

from symgpu.proofs import rational_value


class Unsupported(ArithmeticError):
    """A value outside this arithmetic (a root of a surd, a sum over two unrelated roots, a node not evaluated here)."""


class NotReal(ArithmeticError):
    """The square root of a negative number: the expression is not real at this point."""


#: a value of this arithmetic: a rational number, or an irrational :class:`Surd`
Number: TypeAlias = "Fraction | Surd"


def _square_root(n: int) -> int | None:
    """``sqrt(n)`` where ``n >= 0`` is a perfect square, else None."""
    root = math.isqrt(n)
    return root if root * root == n else None


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


@dataclass(frozen=True, eq=False)
class Surd:
    """``a + b*sqrt(r)`` with ``b != 0`` and ``r > 1`` no square (so never rational): build it with :func:`surd`.
    Equal values may hold different ``r`` (``sqrt(8) = 2*sqrt(2)``), so a surd is compared by value and is not hashable."""

    a: Fraction
    b: Fraction
    r: int

    __hash__ = None  # type: ignore[assignment]

    def sign(self) -> int:
        """-1, 0 or +1, exactly (never 0: ``r`` is no square and ``b != 0``)."""
        sa, sb = _sign(self.a), _sign(self.b)
        if sa == 0 or sa == sb:
            return sb
        return sa if self.a * self.a > self.b * self.b * self.r else sb

    def conjugate(self) -> Surd:
        return Surd(self.a, -self.b, self.r)

    def _common(self, other: Surd) -> Fraction:
        """The factor ``k`` with ``sqrt(other.r) = k * sqrt(self.r)``; :class:`Unsupported` where the roots are unrelated."""
        if other.r == self.r:
            return Fraction(1)
        root = _square_root(self.r * other.r)
        if root is None:
            raise Unsupported(f"sqrt({self.r}) and sqrt({other.r})")
        return Fraction(root, self.r)

    def __neg__(self) -> Surd:
        return Surd(-self.a, -self.b, self.r)

    def __add__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction)):
            return Surd(self.a + other, self.b, self.r)
        if isinstance(other, Surd):
            return surd(self.a + other.a, self.b + other.b * self._common(other), self.r)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction, Surd)):
            return self + (-other)
        return NotImplemented

    def __rsub__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction)):
            return (-self) + other
        return NotImplemented

    def __mul__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction)):
            return surd(self.a * other, self.b * other, self.r)
        if isinstance(other, Surd):
            if self.a == 0 and other.a == 0 and other.r != self.r:  # b*sqrt(r) * d*sqrt(s) = b*d*sqrt(r*s), related or not
                return surd(Fraction(0), self.b * other.b, self.r * other.r)
            k = self._common(other)
            c, d = other.a, other.b * k  # other = c + d*sqrt(self.r)
            return surd(self.a * c + self.b * d * self.r, self.a * d + self.b * c, self.r)
        return NotImplemented

    __rmul__ = __mul__

    def norm(self) -> Fraction:
        """``a**2 - b**2 * r``: the surd times its conjugate (never 0)."""
        return self.a * self.a - self.b * self.b * self.r

    def reciprocal(self) -> Surd:
        n = self.norm()
        return Surd(self.a / n, -self.b / n, self.r)

    def __truediv__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction)):
            return surd(self.a / other, self.b / other, self.r)  # ZeroDivisionError for 0, as Fraction's
        if isinstance(other, Surd):
            return self * other.reciprocal()
        return NotImplemented

    def __rtruediv__(self, other: object) -> Number:
        if isinstance(other, (int, Fraction)):
            return self.reciprocal() * other
        return NotImplemented

    def __pow__(self, exponent: int) -> Number:
        if not isinstance(exponent, int):
            return NotImplemented
        base: Number = self if exponent >= 0 else self.reciprocal()
        out: Number = Fraction(1)
        for _ in range(abs(exponent)):
            out = out * base
        return out

    def __abs__(self) -> Surd:
        return self if self.sign() > 0 else -self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, Fraction)):
            return False  # a surd is irrational
        if isinstance(other, Surd):
            return compare(self, other) == 0
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def _order(self, other: object) -> int | None:
        """The sign of ``self - other``; None for an operand of no kind compared here."""
        if isinstance(other, int):
            other = Fraction(other)
        return compare(self, other) if isinstance(other, (Fraction, Surd)) else None

    def __lt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order < 0

    def __le__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order <= 0

    def __gt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order > 0

    def __ge__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order >= 0

    def floor(self) -> int:
        """The largest integer not above the surd, exactly: ``|b|*sqrt(r)`` has the integer part
        ``isqrt(floor(b**2 * r))``, so the floor is within one of ``floor(a +- that)``, settled by signs."""
        m = self.b * self.b * self.r
        part = math.isqrt(m.numerator // m.denominator)
        k = math.floor(self.a + (part if self.b > 0 else -part)) - 2
        while sign(self - (k + 1)) >= 0:
            k += 1
        return k

    def ceiling(self) -> int:
        return -((-self).floor())


def surd(a: Fraction, b: Fraction, r: int) -> Number:
    """``a + b*sqrt(r)`` (``r >= 0``): a :class:`Fraction` where ``b`` is 0 or ``r`` a square, else a :class:`Surd`."""
    if b == 0:
        return Fraction(a)
    root = _square_root(r)
    if root is not None:
        return Fraction(a) + b * root
    return Surd(Fraction(a), Fraction(b), r)


def sqrt(x: Number) -> Number:
    """The nonnegative square root of a rational ``x >= 0`` (``sqrt(p/q) = sqrt(p*q)/q``).

    Raises:
        NotReal: ``x < 0``.
        Unsupported: ``x`` is a surd (a nested root).
    """
    if isinstance(x, Surd):
        raise Unsupported("the square root of a surd")
    x = Fraction(x)
    if x < 0:
        raise NotReal(x)
    return surd(Fraction(0), Fraction(1, x.denominator), x.numerator * x.denominator)


def sign(x: Number) -> int:
    """-1, 0 or +1, exactly."""
    return x.sign() if isinstance(x, Surd) else _sign(Fraction(x))


def sign_of_two(x: Surd, y: Surd) -> int:
    """The sign of ``x + y`` for surds of unrelated roots, exactly: where their signs differ, the sign of the one
    whose square is larger (``x**2 - y**2`` is a surd of ``x``'s root alone, ``y**2`` being rational by then)."""
    sx, sy = x.sign(), y.sign()
    if sx == sy:
        return sx
    # y = c + d*sqrt(s): |x| > |y| where x**2 > y**2; y**2 = c**2 + d**2 s + 2cd sqrt(s), so compare x - c against
    # d*sqrt(s) instead: x + y = (x + c) + d*sqrt(s), a surd of x's root plus a multiple of sqrt(s) alone
    u = x + y.a  # a surd of x's root (or rational)
    v = Surd(Fraction(0), y.b, y.r)
    su, sv = sign(u), v.sign()
    if su == 0 or su == sv:
        return sv
    # su = -sv: the sign of the larger in magnitude; u**2 - v**2 has v**2 rational, so it is of u's root alone
    return su if sign(u * u - y.b * y.b * y.r) > 0 else sv


def compare(x: Number, y: Number) -> int:
    """The sign of ``x - y``, exactly (also for surds of unrelated roots)."""
    try:
        return sign(x - y)
    except Unsupported:
        assert isinstance(x, Surd) and isinstance(y, Surd)
        return sign_of_two(x, -y)


def power(base: Number, exponent: sympy.Rational, largest: int) -> Number:
    """``base ** exponent`` for an integer exponent, or a half-integer one (``(sqrt base) ** (2*exponent)``), of
    magnitude at most ``largest``; :class:`Unsupported` for any other exponent."""
    if not isinstance(exponent, sympy.Rational) or exponent.q not in (1, 2) or abs(exponent.p) > largest:
        raise Unsupported(exponent)
    if exponent.q == 2:
        base = sqrt(base)
    p = int(exponent.p)
    if isinstance(base, Surd):
        return base ** p
    return Fraction(base) ** p


def floor(x: Number) -> Fraction:
    return Fraction(x.floor() if isinstance(x, Surd) else math.floor(x))


def ceiling(x: Number) -> Fraction:
    return Fraction(x.ceiling() if isinstance(x, Surd) else math.ceil(x))


def _fractions(values: list[Number]) -> TypeGuard[list[Fraction]]:
    """Are all ``values`` fractions (no surd): their sum and product then reduced once (:mod:`.rational_value`)."""
    return all(type(v) is Fraction for v in values)


#: each node kind's value from its arguments' values
FOLDS: dict[type, Callable[[list[Number]], Number]] = {
    sympy.Add: lambda v: rational_value.fraction_sum(v) if _fractions(v) else sum(v, Fraction(0)),
    sympy.Mul: lambda v: rational_value.fraction_product(v) if _fractions(v) else math.prod(v, start=Fraction(1)),
    sympy.Min: min,  # a fraction and a surd compare exactly (Fraction's comparison defers to Surd's)
    sympy.Max: max,
    sympy.floor: lambda v: floor(v[0]),
    sympy.ceiling: lambda v: ceiling(v[0]),
    sympy.Abs: lambda v: -v[0] if sign(v[0]) < 0 else v[0],
}


def value(expr: sympy.Basic, symbol: Callable[[sympy.Symbol], Number], largest: int,
          memo: dict[sympy.Basic, Number] | None = None) -> Number:
    """``expr``'s exact value with each symbol at ``symbol(s)`` (called once per symbol and point where ``memo``, one
    per point, is given), the arguments of a node taken in order; powers up to ``largest`` in magnitude.

    Raises:
        ZeroDivisionError: ``expr`` divides by 0 at this point.
        NotReal: a square root of a negative number.
        Unsupported: a node not evaluated here (a float, a function, another power), or a nested root.
    """
    if memo is not None:
        found = memo.get(expr)
        if found is not None:
            return found
    out: Number
    if expr.is_Symbol:
        out = symbol(expr)
    elif expr.is_Rational:
        out = Fraction(int(expr.p), int(expr.q))
    elif expr.is_Pow:
        base = value(expr.base, symbol, largest, memo)
        out = power(base, expr.exp, largest)
    else:
        fold = FOLDS.get(type(expr))
        if fold is None:
            raise Unsupported(type(expr).__name__)
        out = fold([value(a, symbol, largest, memo) for a in expr.args])
    if memo is not None:
        memo[expr] = out
    return out
