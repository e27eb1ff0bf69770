"""An expression's exact value at rational inputs in Python's ``Fraction`` arithmetic, where that is all it takes.

:mod:`symgpu.evaluate.ties` decides, at each point a check visits, whether a case relation is within
:data:`symgpu.evaluate.stepwise.NEAR` of a tie, from the exact values of its sides and of the terms of their
difference. SymPy's ``xreplace`` builds each of those values as SymPy objects, node by node (Hong &
Kim's regime table: some 3600 substitutions, a fifth of ``regimes Exec_cycles_app``); where every node
is rational arithmetic (sums, products, integer powers, ``Min``/``Max``, ``floor``/``ceiling``,
``Abs``, and a ``Piecewise`` whose values and conditions all are) of rational numbers and inputs, the
value is one rational number either way, and ``Fraction`` computes it without building SymPy objects.
Anything else (a float literal, a root, a function, a division by zero, a ``Piecewise`` where no case
holds) gives None: the caller substitutes with SymPy, as before. :func:`symgpu.proofs.exact_signs.signs_at`
reads the signs of the values at the points that refute a sign the same way. Pure SymPy and ``fractions``
(in :mod:`symgpu.proofs`, below both users).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from fractions import Fraction

import sympy

#: a node whose value is no rational number of this arithmetic (kept in the memo as such)
_NO = None

#: each node's value (a condition's: its truth), None where it is not rational arithmetic
Memo = dict[sympy.Basic, Fraction | bool | None]

#: each relation's verdict on two rational numbers, as SymPy's relation of them gives it
COMPARE: dict[type, Callable[[Fraction, Fraction], bool]] = {
    sympy.Eq: operator.eq, sympy.Ne: operator.ne, sympy.StrictGreaterThan: operator.gt,
    sympy.GreaterThan: operator.ge, sympy.StrictLessThan: operator.lt, sympy.LessThan: operator.le}


def inputs(mapping: Mapping[sympy.Symbol, sympy.Basic]) -> Memo:
    """A memo that starts from ``mapping``'s values as fractions (None for a value that is no rational number)."""
    return {s: Fraction(int(v.p), int(v.q)) if isinstance(v, sympy.Rational) else _NO for s, v in mapping.items()}


def value(expr: sympy.Basic, memo: Memo) -> Fraction | None:
    """``expr``'s exact value with each symbol at its value in ``memo`` (:func:`inputs`; shared by the calls of one
    point), or None where a node is not rational arithmetic or has no value (a division by zero)."""
    try:
        return _kept_value(expr, memo)
    except RecursionError:  # too deep for the stack where it was asked: no node on the way down is kept in the memo
        return _NO


def _kept_value(expr: sympy.Basic, memo: Memo) -> Fraction | None:
    """:func:`value`, a RecursionError raised through (so no node above it keeps a value it did not compute)."""
    found = memo.get(expr, memo)
    if found is not memo:
        return found if isinstance(found, Fraction) else _NO
    try:
        out = _value(expr, memo)
    except (ZeroDivisionError, OverflowError):
        out = _NO
    memo[expr] = out
    return out


def sign_at(expr: sympy.Basic, known: Mapping[sympy.Basic, sympy.Basic]) -> int | None:
    """The sign (+1, 0, -1) of ``expr``'s exact value where every symbol it reads has a value in ``known`` (a model's
    constants: :class:`symgpu.proofs.signs.SignReasoner`); None where one has none or the value is no rational number."""
    free = expr.free_symbols
    if not free or not free <= known.keys():
        return None
    found = value(expr, inputs({s: known[s] for s in free}))
    return None if found is None else (found > 0) - (found < 0)


def truth(condition: sympy.Basic, memo: Memo) -> bool | None:
    """A case condition's truth (relations of :func:`value`s, ``And``/``Or``/``Not`` of them, ``true``/``false``)
    with every part decided, or None where a part is not rational arithmetic."""
    try:
        return _kept_truth(condition, memo)
    except RecursionError:  # too deep for the stack where it was asked: nothing on the way down kept
        return None


def _kept_truth(condition: sympy.Basic, memo: Memo) -> bool | None:
    """:func:`truth`, a RecursionError raised through (as :func:`_kept_value`)."""
    found = memo.get(condition, memo)
    if found is not memo:
        return found if isinstance(found, bool) else None
    out: bool | None = None
    if condition is sympy.true or condition is sympy.false:
        out = bool(condition)
    elif type(condition) in COMPARE:
        left, right = _kept_value(condition.lhs, memo), _kept_value(condition.rhs, memo)
        out = None if left is None or right is None else COMPARE[type(condition)](left, right)
    elif isinstance(condition, (sympy.And, sympy.Or, sympy.Not)):
        parts = [_kept_truth(a, memo) for a in condition.args]  # every part, as SymPy's substitution evaluates every part
        if all(p is not None for p in parts):
            out = all(parts) if isinstance(condition, sympy.And) else any(parts) if isinstance(condition, sympy.Or) else not parts[0]
    memo[condition] = out
    return out


def _value(expr: sympy.Basic, memo: Memo) -> Fraction | None:
    if isinstance(expr, sympy.Rational):
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sympy.Symbol):
        return _NO  # a symbol the mapping leaves free
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Min, sympy.Max)):
        found = [_kept_value(a, memo) for a in expr.args]
        parts = [p for p in found if p is not None]
        if len(parts) < len(found):
            return _NO
        if isinstance(expr, sympy.Add):
            return fraction_sum(parts)
        if isinstance(expr, sympy.Mul):
            return fraction_product(parts)
        return min(parts) if isinstance(expr, sympy.Min) else max(parts)
    if isinstance(expr, sympy.Pow):
        exponent = expr.exp
        if not isinstance(exponent, sympy.Integer) or abs(int(exponent)) > 64:
            return _NO
        base = _kept_value(expr.base, memo)
        return _NO if base is None else base ** int(exponent)
    if isinstance(expr, sympy.Piecewise):
        # SymPy's substitution builds every case's value and condition, then takes the first case that holds: where
        # each of them is rational arithmetic, that case's value (none holding: SymPy's nan, left to it)
        values = [_kept_value(e, memo) for e, _ in expr.args]
        verdicts = [_kept_truth(c, memo) for _, c in expr.args]
        if any(v is None for v in values) or any(v is None for v in verdicts):
            return _NO
        return next((v for v, holds in zip(values, verdicts) if holds), _NO)
    if isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Abs)):
        inner = _kept_value(expr.args[0], memo)
        if inner is None:
            return _NO
        if isinstance(expr, sympy.Abs):
            return abs(inner)
        return Fraction(math.floor(inner) if isinstance(expr, sympy.floor) else math.ceil(inner))
    return _NO


def fraction_sum(parts: list[Fraction]) -> Fraction:
    """``sum(parts, Fraction(0))``: the same number, put over one denominator in integers and reduced once (a
    ``Fraction`` is its reduced form, unique, so the same ``Fraction``) rather than reduced after every addition."""
    numerator, denominator = 0, 1
    for part in parts:
        if part.denominator == denominator:
            numerator += part.numerator
        else:
            numerator, denominator = numerator * part.denominator + part.numerator * denominator, denominator * part.denominator
    return Fraction(numerator, denominator)


def fraction_product(parts: list[Fraction]) -> Fraction:
    """``math.prod(parts, start=Fraction(1))``: the same number, its numerators and denominators multiplied in
    integers and reduced once (the same ``Fraction``, as :func:`fraction_sum`)."""
    numerator, denominator = 1, 1
    for part in parts:
        numerator *= part.numerator
        denominator *= part.denominator
    return Fraction(numerator, denominator)
