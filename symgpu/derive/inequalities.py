"""Inverting inequalities through floor, ceiling, sums and factors of known sign.

Staircase quantities (occupancy limits, MSHR batches) are built from ``floor`` and
``ceiling``; SymPy cannot solve ``floor(a/x) = k`` for ``x``, but the *inequalities* such
models ask about ("at least k blocks") invert exactly, one layer at a time:

* ``floor(g) >= c``  <=>  ``g >= ceiling(c)``      (``floor(g)`` is an integer)
* ``floor(g) <= c``  <=>  ``g <  floor(c) + 1``
* ``ceiling(g) <= c``  <=>  ``g <= floor(c)``      (so ``ceiling(x/u)*u <= c`` <=> ``x <= floor(c/u)*u``)
* ``ceiling(g) >= c``  <=>  ``g >  ceiling(c) - 1``
* ``1/g >= c`` with ``g, c > 0``  <=>  ``g <= 1/c``  (so ``floor(a/x) >= k`` <=> ``x <= a/k`` for integer k >= 1)
* ``g + t`` and ``g*t`` with ``t`` free of the variable: subtract ``t``; divide by ``t``
  when its sign is proved (a negative factor flips the relation).
* a sum every term of which holds the variable, linear in it (``K*M + N*M``): collected as ``(K + N)*M``.

Each layer is returned as a :class:`~symgpu.derive.derivation.Step` naming the rule used.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from symgpu import errors
from symgpu.derive.derivation import Step
from symgpu.proofs import exact_signs

__all__ = ["invert", "integer_extreme", "peel"]

#: the advice for a sign not proved where no point was given (the caller at a point says what blocks it there)
ASK_AT_A_POINT = "ask at a point (--preset, --set), where its numbers decide it"

_GE, _GT, _LE, _LT = sympy.GreaterThan, sympy.StrictGreaterThan, sympy.LessThan, sympy.StrictLessThan
_FLIP = {_GE: _LE, _GT: _LT, _LE: _GE, _LT: _GT}


def invert(relation: sympy.Basic, var: sympy.Symbol, sign: Callable[[sympy.Expr], int | None],
           nonneg: Callable[[sympy.Expr], bool] | None = None,
           advice: Callable[[sympy.Expr], str] = lambda _: ASK_AT_A_POINT) -> tuple[sympy.Basic, list[Step]]:
    """Rewrite ``relation`` (``f(var) REL c`` or ``c REL f(var)``, ``REL`` one of ``>= > <= <``)
    as ``var REL' bound``, peeling one layer of ``f`` per step.

    Args:
        relation: a SymPy inequality; ``var`` must occur on one side only.
        var: the variable.
        sign: proves signs (+1, -1, 0 or None) under the caller's assumptions.
        nonneg: proves ``expr >= 0`` (default: :func:`symgpu.proofs.exact_signs.nonnegative`).
        advice: what a refusal for an expression's unproved sign suggests beside ``--assume`` (default:
            :data:`ASK_AT_A_POINT`; a caller at a point says why the point's numbers do not decide it).

    Returns ``sympy.true``/``sympy.false`` in place of the relation where a factor of ``var`` is 0 (the
    relation then does not depend on ``var``) and the sign of what is left decides it.

    Raises:
        errors.DerivationError: a layer has no rule (or a sign it needs is not proved).
    """
    op = type(relation)
    if op not in _FLIP:
        raise errors.DerivationError(f"{sympy.sstr(relation)} is not an inequality")
    lhs, rhs = relation.lhs, relation.rhs
    if var in rhs.free_symbols and var not in lhs.free_symbols:
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    if var in rhs.free_symbols:
        lhs, rhs = lhs - rhs, sympy.Integer(0)
    steps: list[Step] = []
    for _ in range(64):
        if lhs == var:
            return op(var, rhs, evaluate=False), steps  # a bound the assumptions decide stays a bound
        if var not in lhs.free_symbols:  # a factor of var was 0: the relation no longer depends on var
            return _decided(lhs, op, rhs, var, sign, advice), steps
        lhs, op, rhs, why = _peel(lhs, op, rhs, var, sign, nonneg or exact_signs.nonnegative, advice)
        steps.append(Step("invert", op(lhs, rhs, evaluate=False), why))
    raise errors.DerivationError(f"cannot isolate {var} in {sympy.sstr(relation)}")  # pragma: no cover


def peel(f: sympy.Expr, op: type[sympy.core.relational.Relational], c: sympy.Expr, var: sympy.Symbol,
         sign: Callable[[sympy.Expr], int | None], nonneg: Callable[[sympy.Expr], bool],
         advice: Callable[[sympy.Expr], str] = lambda _: ASK_AT_A_POINT) -> tuple[sympy.Expr, type[sympy.core.relational.Relational], sympy.Expr, str]:
    """One layer of ``f op c`` peeled (a sum's, a factor's, a ``floor``/``ceiling``'s or a power's): the inner
    expression, the relation, the other side and why (what :func:`invert` does once per step).

    Raises:
        errors.DerivationError: the layer has no rule (or a sign it needs is not proved)."""
    return _peel(f, op, c, var, sign, nonneg, advice)


def _peel(f: sympy.Expr, op: type[sympy.core.relational.Relational], c: sympy.Expr, var: sympy.Symbol,
          sign: Callable[[sympy.Expr], int | None], nonneg: Callable[[sympy.Expr], bool],
          advice: Callable[[sympy.Expr], str]) -> tuple[sympy.Expr, type[sympy.core.relational.Relational], sympy.Expr, str]:
    if f.is_Add:
        inner = sympy.Add(*[t for t in f.args if var in t.free_symbols])
        rest = f - inner
        if rest != 0:
            return inner, op, c - rest, f"subtract {sympy.sstr(rest)} from both sides"
        return _collected(f, op, c, var)
    if f.is_Mul:
        inner = sympy.Mul(*[t for t in f.args if var in t.free_symbols])
        rest = sympy.Mul(*[t for t in f.args if var not in t.free_symbols])
        if rest != 1:
            s = sign(rest)
            if s == 0:
                return (sympy.Integer(0), op, c, f"{sympy.sstr(rest)} is 0, so the left-hand side is 0 whatever {var} is: the relation "
                        f"reads 0 {op.rel_op} {sympy.sstr(c)}")
            if s not in (1, -1):
                raise errors.DerivationError(f"cannot divide by {sympy.sstr(rest)}: its sign is not proved; add --assume "
                                             f"'{sympy.sstr(rest)} > 0' (or '< 0'), or {advice(rest)}")
            return (inner, op if s == 1 else _FLIP[op], c / rest,
                    f"divide by {sympy.sstr(rest)}, which is {'positive' if s == 1 else 'negative (the relation flips)'}")
        raise errors.DerivationError(f"cannot isolate {var} in the product {sympy.sstr(f)}")
    if isinstance(f, sympy.floor):
        g = f.args[0]
        if op is _GE:
            return g, _GE, sympy.ceiling(c), "floor(g) >= c <=> g >= ceiling(c): floor(g) is an integer, so it is >= c exactly when it is >= the least integer >= c, and floor(g) >= n <=> g >= n for an integer n"
        if op is _GT:
            return g, _GE, sympy.floor(c) + 1, "floor(g) > c <=> floor(g) >= floor(c) + 1 <=> g >= floor(c) + 1 (integers)"
        if op is _LE:
            return g, _LT, sympy.floor(c) + 1, "floor(g) <= c <=> floor(g) <= floor(c) <=> g < floor(c) + 1"
        return g, _LT, sympy.ceiling(c), "floor(g) < c <=> floor(g) < ceiling(c) <=> g < ceiling(c) (integers)"
    if isinstance(f, sympy.ceiling):
        g = f.args[0]
        if op is _LE:
            return g, _LE, sympy.floor(c), "ceiling(g) <= c <=> g <= floor(c): ceiling(g) is an integer, so it is <= c exactly when it is <= the greatest integer <= c, and ceiling(g) <= n <=> g <= n for an integer n"
        if op is _LT:
            return g, _LE, sympy.ceiling(c) - 1, "ceiling(g) < c <=> ceiling(g) <= ceiling(c) - 1 <=> g <= ceiling(c) - 1 (integers)"
        if op is _GE:
            return g, _GT, sympy.ceiling(c) - 1, "ceiling(g) >= c <=> ceiling(g) >= ceiling(c) <=> g > ceiling(c) - 1"
        return g, _GT, sympy.floor(c), "ceiling(g) > c <=> ceiling(g) >= floor(c) + 1 <=> g > floor(c)"
    if f.is_Pow and f.exp.is_number and var not in f.exp.free_symbols:
        g, e = f.base, f.exp
        sg, sc = sign(g), sign(c)
        if sg != 1:
            raise errors.DerivationError(f"cannot invert {sympy.sstr(f)}: {sympy.sstr(g)} is not proved positive")
        if e.is_negative:
            if sc == 1:
                return (g, _FLIP[op], c ** (1 / e),
                        f"both sides positive ({sympy.sstr(g)} > 0 and {sympy.sstr(c)} > 0) and x -> x**({sympy.sstr(e)}) is decreasing there: the relation flips")
            if sc is None and nonneg(c):
                return (g, _FLIP[op], c ** (1 / e),
                        f"{sympy.sstr(g)} > 0 and x -> x**({sympy.sstr(e)}) is decreasing for x > 0: the relation flips, "
                        f"provided {sympy.sstr(c)} > 0 (it is >= 0; where it is 0 every {var} qualifies and the bound is infinite)")
            if sc is not None and sc <= 0 and op in (_GE, _GT):
                raise errors.DerivationError(f"{sympy.sstr(f)} {op.rel_op} {sympy.sstr(c)} holds for every positive {sympy.sstr(g)}: no bound on {var}")
            raise errors.DerivationError(f"cannot invert {sympy.sstr(f)} {op.rel_op} {sympy.sstr(c)}: the sign of {sympy.sstr(c)} is not proved")
        if e.is_positive and (sc in (0, 1)):
            return g, op, c ** (1 / e), f"both sides nonnegative and x -> x**{sympy.sstr(e)} is increasing there"
    raise errors.DerivationError(f"no inversion rule for {sympy.sstr(f)} {op.rel_op} {sympy.sstr(c)} in {var}")


def _collected(f: sympy.Expr, op: type[sympy.core.relational.Relational], c: sympy.Expr, var: sympy.Symbol
               ) -> tuple[sympy.Expr, type[sympy.core.relational.Relational], sympy.Expr, str]:
    """A sum every term of which holds ``var`` (``K_out*M + K_red*M``), linear in it: collected as
    ``slope*var + offset`` (the offset subtracted from both sides), so the next layer divides by the slope.

    Raises:
        errors.DerivationError: the sum is not linear in ``var``."""
    slope = sympy.diff(f, var)
    if not f.is_polynomial(var) or var in slope.free_symbols:
        raise errors.DerivationError(f"cannot isolate {var} in the sum {sympy.sstr(f)}: it is not linear in {var}")
    offset = sympy.expand(f - slope * var)
    collected = sympy.Mul(sympy.factor_terms(slope), var, evaluate=False)
    why = f"the terms are linear in {var}: collected as ({sympy.sstr(slope)})*{var}"
    if offset != 0:
        why += f", and {sympy.sstr(offset)} subtracted from both sides"
    return collected, op, c - offset, why


def _decided(lhs: sympy.Expr, op: type[sympy.core.relational.Relational], rhs: sympy.Expr, var: sympy.Symbol,
             sign: Callable[[sympy.Expr], int | None], advice: Callable[[sympy.Expr], str]) -> sympy.Basic:
    """``lhs REL rhs``, free of ``var``, decided by the sign of ``lhs - rhs``: ``sympy.true`` or ``sympy.false``.

    Raises:
        errors.DerivationError: that sign is not proved."""
    s = sign(lhs - rhs)
    if s is None:
        raise errors.DerivationError(f"{sympy.sstr(op(lhs, rhs, evaluate=False))} does not depend on {var}, and whether it holds is not "
                                     f"proved; {advice(lhs - rhs)}")
    return sympy.true if op(sympy.Integer(s), 0) else sympy.false


def integer_extreme(relation: sympy.Basic, kind: str) -> tuple[sympy.Expr, str]:
    """The largest (``kind="max"``) or smallest (``"min"``) integer satisfying ``var REL bound``."""
    op, bound = type(relation), relation.rhs
    if kind == "max":
        if op is _LE:
            return sympy.floor(bound), "the largest integer <= b is floor(b)"
        if op is _LT:
            return sympy.ceiling(bound) - 1, "the largest integer < b is ceiling(b) - 1"
    else:
        if op is _GE:
            return sympy.ceiling(bound), "the smallest integer >= b is ceiling(b)"
        if op is _GT:
            return sympy.floor(bound) + 1, "the smallest integer > b is floor(b) + 1"
    raise errors.DerivationError(f"{sympy.sstr(relation)} has no {kind}imum")
