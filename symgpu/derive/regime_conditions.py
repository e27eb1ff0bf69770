"""Conditions of regimes: a branch condition as ``h > 0``/``h >= 0`` (:class:`_Cond`), read from
SymPy booleans; pairs of conditions whose ``h`` cancel (a contradiction, or a surface ``h = 0`` where
a regime holds alone); and the neighbour that covers a surface a dropped degenerate regime held on
(:func:`_covering_sibling`). Used by :mod:`.regime_split` (which re-exports these names for
:mod:`.case_boundary`, :mod:`.solving` and :mod:`.stored`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy.core.parameters import global_parameters

from symgpu.memo import Memo, memoised
from symgpu.derive import roots
from symgpu.proofs import exact_signs, forms, sample_points, surds

@dataclass(frozen=True)
class _Cond:
    """A branch condition: ``h > 0`` (strict) or ``h >= 0``; or an opaque boolean."""

    h: sympy.Expr | None
    strict: bool = False
    boolean: sympy.Basic | None = None

    @functools.cached_property
    def relational(self) -> sympy.Basic:
        if self.h is None:
            return self.boolean
        return _relation(self.h, self.strict, global_parameters.evaluate)

    def xreplace(self, mapping: Mapping[Any, Any], memo: dict[sympy.Basic, tuple[sympy.Basic, bool]] | None = None) -> _Cond:
        """The condition with ``mapping`` put in (``xreplace``, each Min/Max rebuilt once per argument tuple,
        :func:`symgpu.proofs.forms.xreplaced`); ``memo``: the substitution's outcome per node, shared by calls
        with the same ``mapping``."""
        rule, memo = dict(mapping), {} if memo is None else memo
        if self.h is None:
            assert self.boolean is not None  # a condition without h is an opaque boolean
            return _Cond(None, boolean=forms.xreplaced(self.boolean, rule, memo)[0])
        return _Cond(forms.xreplaced(self.h, rule, memo)[0], self.strict)


@memoised("derive.regime_conditions.relations", 20000)
def _relation(h: sympy.Expr, strict: bool, evaluating: bool) -> sympy.Basic:
    """``h > 0`` (``strict``) or ``h >= 0``, built once per expression: the branches of a regime table
    share most of their conditions (occupancy's 228 regimes, each a new :class:`_Cond`), and SymPy
    compares the sides again at every relation it builds. ``evaluating``: SymPy's evaluation switch,
    under which the relation is built (part of the key)."""
    return sympy.StrictGreaterThan(h, 0) if strict else sympy.GreaterThan(h, 0)


def _conds_of(condition: sympy.Basic, negate: bool = False) -> list[_Cond]:
    if condition in (True, sympy.true):
        return [] if not negate else [_Cond(None, boolean=sympy.false)]
    if isinstance(condition, sympy.And) and not negate:
        return [c for arg in condition.args for c in _conds_of(arg)]
    if isinstance(condition, sympy.Or) and negate:
        return [c for arg in condition.args for c in _conds_of(arg, True)]
    if isinstance(condition, sympy.Not):
        return _conds_of(condition.args[0], not negate)
    if isinstance(condition, sympy.core.relational.Relational) and not isinstance(condition, (sympy.Eq, sympy.Ne)):
        rel = condition
        if negate:
            rel = {sympy.StrictGreaterThan: sympy.LessThan, sympy.GreaterThan: sympy.StrictLessThan,
                   sympy.StrictLessThan: sympy.GreaterThan, sympy.LessThan: sympy.StrictGreaterThan}[type(rel)](rel.lhs, rel.rhs)
        if isinstance(rel, (sympy.StrictGreaterThan, sympy.GreaterThan)):
            return [_Cond(rel.lhs - rel.rhs, isinstance(rel, sympy.StrictGreaterThan))]
        return [_Cond(rel.rhs - rel.lhs, isinstance(rel, sympy.StrictLessThan))]
    return [_Cond(None, boolean=sympy.Not(condition) if negate else condition)]


#: the generic point of :func:`_generic_value`
_POINT = sample_points.GenericPoint()
#: values at that point (a clear of this memo alone is safe: the values are found again at the same point)
_VALUES: Memo[sympy.Basic, sympy.Basic | None] = Memo("derive.regime_split.generic_values", 20000)
_CANCELS: Memo[tuple[sympy.Basic, sympy.Basic], bool] = Memo("derive.regime_split.cancels", 20000)
#: exact values at that point in :mod:`symgpu.proofs.surds`' arithmetic (cleared with it)
_SURDS: Memo[sympy.Basic, Any] = Memo("derive.regime_split.generic_surds", 20000)


def _generic_value(h: sympy.Basic) -> sympy.Basic | None:
    """The exact value of ``h`` at one fixed point allowed by its symbols' assumptions (each symbol its
    own odd number, a prime for the first 25 symbols seen, over 7 where it need not be an integer, negated
    where it must be negative); None where ``h`` is undefined there, has huge powers, is not rational there
    or the point is not admissible. Only a nonzero sum of two such values is used (a proof that the sum is not 0)."""
    if h in _VALUES:
        return _VALUES[h]
    exact = _generic_surd(h)
    found: sympy.Basic | None
    if isinstance(exact, Fraction):
        found = sympy.Rational(exact.numerator, exact.denominator)
    elif exact is not None:
        found = None  # a + b*sqrt(r): irrational, so no rational value at the point (SymPy's substitution is not rational either)
    else:
        point = _POINT.at(h.free_symbols)
        admissible = exact_signs.modest_powers(h) and all(sample_points.meets(v, s, undecided_ok=True) for s, v in point.items())
        values = exact_signs.values_at((h,), point, exact_signs.symbolic_exponents(h)) if admissible else None
        found = values[0] if values is not None and values[0].is_Rational else None
    _VALUES[h] = found
    return found


#: :func:`_generic_surd`'s verdict where the point is not admissible, ``h`` has no real value there or is not of
#: :mod:`symgpu.proofs.surds`' arithmetic
_NO_SURD = "none"


def _generic_surd(h: sympy.Basic) -> surds.Number | None:
    """``h``'s exact value at :func:`_generic_value`'s point in :mod:`symgpu.proofs.surds`' arithmetic (rational, or
    ``a + b*sqrt(r)`` where square roots come in: a case value at a quadratic's root), without building SymPy's
    numbers; None where the point is not admissible, ``h`` has no real value there, or holds a node of no such value."""
    found = _SURDS.get(h)
    if found is None:
        point = _POINT.at(h.free_symbols)
        found = _NO_SURD
        if exact_signs.modest_powers(h) and all(sample_points.meets(v, s, undecided_ok=True) for s, v in point.items()):
            try:
                found = exact_signs.surd_at(h, point)
            except (ZeroDivisionError, ArithmeticError):  # surds.NotReal, surds.Unsupported among them
                found = _NO_SURD
        _SURDS[h] = found
    return None if found is _NO_SURD else found  # type: ignore[return-value]


def cancel_to_zero(a: sympy.Expr, b: sympy.Expr) -> bool:
    """``a + b`` cancels to 0 (``sympy.cancel``). A nonzero exact value of ``a + b`` at one admissible
    point refutes it first (rational, or ``a + b*sqrt(r)``: :func:`_generic_surd`); for the pairs that point
    cannot tell apart (floors that are 0 there), a nonzero value of the sum at a few more admissible points
    (:func:`exact_signs.nonzero_somewhere`); cancel runs only where neither refutes it (memoised)."""
    if a + b == 0:
        return True
    if len(_POINT) > 20000:
        _VALUES.clear()  # the point and the values at it go together (never one without the other,
        _SURDS.clear()
        _POINT.clear()  # and never between the two values compared below)
    sa, sb = _generic_surd(a), _generic_surd(b)
    if sa is not None and sb is not None and surds.compare(sa, -sb) != 0:  # the sign of sa + sb, exactly
        return False
    va, vb = _generic_value(a), _generic_value(b)
    if va is not None and vb is not None and va + vb != 0:
        return False
    key = (a, b)
    if key not in _CANCELS:
        total = a + b
        _CANCELS[key] = not exact_signs.nonzero_somewhere(total) and sympy.cancel(total) == 0
    return _CANCELS[key]


def _opposite_pairs(conds: Sequence[_Cond]) -> list[tuple[_Cond, _Cond]]:
    """The pairs of conditions whose ``h`` cancel (``a.h + b.h`` is 0). Each ``h``'s exact value
    at one admissible point (:func:`_generic_value`) is looked up against the others' negated
    values, so only the pairs that point cannot tell apart reach :func:`cancel_to_zero`."""
    with_h = [c for c in conds if c.h is not None]
    values = [_generic_value(c.h) for c in with_h if c.h is not None]
    by_value: dict[sympy.Basic, list[int]] = {}
    unknown: list[int] = []
    for i, value in enumerate(values):
        (unknown if value is None else by_value.setdefault(value, [])).append(i)
    candidates: set[tuple[int, int]] = set()
    for i, value in enumerate(values):
        others = unknown if value is None else by_value.get(-value, []) + unknown
        candidates.update((min(i, j), max(i, j)) for j in others if j != i)
    pairs = [(with_h[i], with_h[j]) for i, j in sorted(candidates)]
    return [(a, b) for a, b in pairs if a.h is not None and b.h is not None and cancel_to_zero(a.h, b.h)]


def _opposition(conds: Sequence[_Cond]) -> tuple[bool, sympy.Expr | None]:
    """(contradicted, surface) from the conditions' opposite pairs: two conditions ``h > 0`` and
    ``-h >= 0`` contradict; ``h >= 0`` and ``-h >= 0`` (both non-strict) hold only on the
    surface ``h = 0``, returned as that ``h`` (None: no such pair)."""
    pairs = _opposite_pairs(conds)
    if any(a.strict or b.strict for a, b in pairs):
        return True, None
    return False, next((a.h for a, b in pairs), None)


def _tied(h: sympy.Expr, surface: sympy.Expr) -> bool:
    """Is ``h > 0`` one side of the surface ``surface = 0`` (``h`` is the surface or its negative)?"""
    return cancel_to_zero(h, -surface) or cancel_to_zero(h, surface)


def _covering_sibling(kept: Sequence[tuple[str, tuple[sympy.Basic, ...], sympy.Expr, tuple[str, ...], tuple[_Cond, ...]]],
                      surface: sympy.Expr, conds: tuple[_Cond, ...], value: sympy.Expr) -> int | None:
    """The kept regime that covers a dropped degenerate regime (one that holds only on ``surface = 0``,
    where two tied Min/Max arguments are equal) once its one strict condition on that surface (which it may
    state more than once) is made non-strict: its other conditions are the dropped regime's or hold on the surface, and its value
    equals the dropped regime's there. None when no kept regime does: a case condition that is strict
    on the same surface (MDM's ``M_Read*W > MSHRs``) gives another value there and is left as it is."""
    symbols = sorted(surface.free_symbols, key=str)
    solved = next(((x, r[0]) for x in symbols for r in [roots.real_roots(surface, x) or []] if len(r) == 1), None)
    if solved is None:
        return None
    own = {c.relational for c in conds}
    for index, (_, _, sibling, _, raw) in enumerate(kept):
        strict = [c for c in raw if c.strict and c.h is not None and _tied(c.h, surface)]
        rest = [c for c in raw if c not in strict]
        # one strict condition on the surface, however often the branch repeats it (MDM's S_Mem reads the same
        # Min of M and the same case of Eq. 5 once in S_NoC and once in S_DRAM)
        if len(set(strict)) != 1 or not all(c.relational in own or (c.h is not None and _tied(c.h, surface)) for c in rest):
            continue
        if forms.small_simplify((value - sibling).xreplace({solved[0]: solved[1]})) == 0:
            return index
    return None


def boolean_at(ctx: Any, boolean: sympy.Basic, var: sympy.Symbol, point: sympy.Expr,
               held: Sequence[sympy.Expr] = ()) -> sympy.Basic:
    """An opaque case condition (``Eq(MWP, N) & Eq(CWP, N)``, its negation) with ``var`` replaced by
    ``point``, read under ``ctx``'s assumptions: the arguments of a ``Min``/``Max`` that cancel to one
    another merged (at Hong & Kim's cusp ``N`` and ``MWP_peak_BW`` are one value), an ``Eq`` of a term
    with a ``Min`` (``Max``) that has it as an argument read as that term at most (at least) each other
    argument, an ``Eq`` of two sides that cancel read as true, and each relation decided where the
    assumptions decide it, or true where it says ``h >= 0`` for an ``h`` in ``held`` (known to be
    nonnegative there). ``true``, ``false`` or what is left undecided."""
    at = boolean.xreplace({var: point})

    def merged(e: sympy.Basic) -> sympy.Basic:
        kept: list[sympy.Basic] = []
        for a in e.args:
            if not any(cancel_to_zero(a, -k) for k in kept):
                kept.append(a)
        return e.func(*kept)

    def equality(e: sympy.Basic) -> sympy.Basic:
        for term, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(other, (sympy.Min, sympy.Max)) and any(cancel_to_zero(term, -a) for a in other.args):
                bound = sympy.LessThan if isinstance(other, sympy.Min) else sympy.GreaterThan
                return sympy.And(*(bound(term, a) for a in other.args if not cancel_to_zero(term, -a)))
        return sympy.true if cancel_to_zero(e.lhs, -e.rhs) else e

    def decided(e: sympy.Basic) -> sympy.Basic:
        if isinstance(e, (sympy.GreaterThan, sympy.LessThan)):
            side = e.lhs - e.rhs if isinstance(e, sympy.GreaterThan) else e.rhs - e.lhs
            if any(cancel_to_zero(side, -h) for h in held):
                return sympy.true
        verdict = ctx.decide(e)
        return e if verdict is None else sympy.sympify(verdict)

    at = at.replace(lambda e: isinstance(e, (sympy.Min, sympy.Max)), merged)
    at = at.replace(lambda e: isinstance(e, sympy.Eq), equality)
    return at.replace(lambda e: isinstance(e, sympy.core.relational.Relational) and not isinstance(e, (sympy.Eq, sympy.Ne)), decided)
