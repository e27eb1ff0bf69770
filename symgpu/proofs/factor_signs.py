"""Conditions refuted together by the signs of their polynomial factors.

A closed form's conditions are decided one by one under the declared assumptions; some sets hold
nowhere only together. Hong & Kim's ``Synch_cost`` maximum over ``Active_SMs`` had a critical
point whose conditions were ``(C + U)*(M - D*U) > 0`` (the location positive) and ``S*P*(C + U)**2
*(M - D*U)**5 < 0`` (the second derivative negative): each is open alone, together they say
``M - D*U`` is both positive and negative (``S >= 0`` and ``P > 0`` declared). Here each relation's
difference is factored (numerator and denominator), each factor's sign is read from the
assumptions (``sign``, ``weak_sign``) and from the other relations (a product required positive
makes every factor nonzero, and its one factor of unknown sign takes the sign the others leave),
and a relation whose product then has the wrong sign refutes the set.

Only relations between rational functions are read (a ``Min``/``Max``/``floor``/``Piecewise``
inside leaves a relation out), and only up to :data:`MAX_OPS` operations each: a set not refuted
here may still hold nowhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

#: relations larger than this (operations of the difference) are left out
MAX_OPS = 4000
#: passes of deduction over the relations (each pass may fix the sign of more factors)
PASSES = 3

_NOT_POLYNOMIAL = (sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling, sympy.Abs)


@dataclass(frozen=True)
class _Relation:
    """``coefficient * prod(factor**exponent)`` required of sign ``direction`` (strictly or not)."""

    coefficient: int  # the sign of the constant factor
    factors: tuple[tuple[sympy.Expr, int], ...]  # (factor in its key form, exponent: negative for a denominator)
    direction: int  # +1: the product > 0 (>= 0 when not strict); -1: < 0 (<= 0)
    strict: bool


@dataclass
class _Known:
    """What is known of a factor: its strict sign (+1/-1), else its weak sign (+1: >= 0, -1: <= 0), and
    whether it is nonzero."""

    strict: int | None = None
    weak: int | None = None
    nonzero: bool = False


def refuted_together(conditions: Sequence[sympy.Basic], sign: Callable[[sympy.Expr], int | None],
                     weak_sign: Callable[[sympy.Expr], int | None]) -> bool:
    """True where the relations among ``conditions`` cannot all hold (a proof); False means only
    "not refuted". ``sign``/``weak_sign``: a factor's sign under the declared assumptions (+1, -1,
    0 or None; +1 for ``>= 0``, -1 for ``<= 0`` or None)."""
    relations = [r for r in (_read(c) for c in conditions) if r is not None]
    if not relations:
        return False
    known: dict[sympy.Expr, _Known] = {}
    for relation in relations:
        for factor, _ in relation.factors:
            if factor not in known:
                known[factor] = _assumed(factor, sign, weak_sign)
    for _ in range(PASSES):
        changed = False
        for relation in relations:
            if _product(relation, known) is False:
                return True
            changed |= _deduce(relation, known)
        if not changed:
            break
    return any(_product(r, known) is False for r in relations)


def _read(condition: sympy.Basic) -> _Relation | None:
    """A relation's difference, factored; None for anything else (or a difference this does not factor)."""
    directions = {sympy.StrictGreaterThan: (1, True), sympy.GreaterThan: (1, False),
                  sympy.StrictLessThan: (-1, True), sympy.LessThan: (-1, False)}
    if type(condition) not in directions:
        return None
    direction, strict = directions[type(condition)]
    gap = condition.lhs - condition.rhs
    if gap.has(*_NOT_POLYNOMIAL) or not gap.free_symbols or sympy.count_ops(gap) > MAX_OPS:
        return None
    try:
        numerator, denominator = sympy.fraction(sympy.together(gap))
        coefficient = 1
        factors: dict[sympy.Expr, int] = {}  # exponents of one factor summed (t - s over s - t: a constant -1 where defined)
        for part, power in ((numerator, 1), (denominator, -1)):
            constant, listed = sympy.factor_list(part)
            if not constant.is_Rational or constant == 0:
                return None
            coefficient *= 1 if constant > 0 else -1
            for base, exponent in listed:
                key, flip = _key(base)
                coefficient *= -1 if flip and exponent % 2 else 1
                factors[key] = factors.get(key, 0) + power * int(exponent)
    except (sympy.PolynomialError, TypeError, ValueError, NotImplementedError):
        return None
    return _Relation(coefficient, tuple((f, e) for f, e in factors.items() if e), direction, strict)


def _key(factor: sympy.Expr) -> tuple[sympy.Expr, bool]:
    """The factor's one form (expanded, its sign chosen so ``f`` and ``-f`` share a key) and whether it was negated."""
    expanded = sympy.expand(factor)
    if expanded.could_extract_minus_sign():
        return sympy.expand(-expanded), True
    return expanded, False


def _assumed(factor: sympy.Expr, sign: Callable[[sympy.Expr], int | None],
             weak_sign: Callable[[sympy.Expr], int | None]) -> _Known:
    strict = sign(factor)
    if strict in (1, -1):
        return _Known(strict=strict, weak=strict, nonzero=True)
    return _Known(weak=weak_sign(factor))


def _product(relation: _Relation, known: dict[sympy.Expr, _Known]) -> bool | None:
    """False where the product's known sign contradicts the relation, True where it meets it; None where not decided."""
    strict: int | None = relation.coefficient
    weak: int | None = relation.coefficient
    for factor, exponent in relation.factors:
        k = known[factor]
        even = exponent % 2 == 0
        factor_strict = (1 if even else k.strict) if (k.nonzero or k.strict is not None) else None
        factor_weak = 1 if even else (k.strict if k.strict is not None else k.weak)
        strict = strict * factor_strict if strict is not None and factor_strict is not None else None
        weak = weak * factor_weak if weak is not None and factor_weak is not None else None
    if strict is not None:
        return strict == relation.direction
    if weak is not None and relation.strict and weak == -relation.direction:
        return False  # the product is <= 0 (>= 0) where it must be > 0 (< 0)
    return None


def _deduce(relation: _Relation, known: dict[sympy.Expr, _Known]) -> bool:
    """Under a strict relation every factor is nonzero, and a factor of odd exponent whose sign alone is
    open takes the sign the relation leaves it; True where something new was learned."""
    if not relation.strict:
        return False
    changed = False
    for factor, _ in relation.factors:
        k = known[factor]
        if not k.nonzero:
            k.nonzero, changed = True, True
        if k.strict is None and k.weak is not None:
            k.strict, changed = k.weak, True
    open_ = [(f, e) for f, e in relation.factors if known[f].strict is None and e % 2]
    if len(open_) != 1:
        return changed
    rest = relation.coefficient
    for factor, exponent in relation.factors:
        if factor != open_[0][0] and exponent % 2:
            rest *= known[factor].strict or 0
    if rest:
        known[open_[0][0]].strict = relation.direction * rest
        known[open_[0][0]].weak = known[open_[0][0]].strict
        changed = True
    return changed
