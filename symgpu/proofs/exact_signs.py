"""Signs of one expression decided exactly: by SymPy's assumptions, or refuted by exact values at
admissible points.

- :func:`basic_sign`, :func:`factor_sign`: the sign SymPy's assumptions prove for an expression
  (for a product: factor by factor), else None; :func:`nonnegative`: ``expr >= 0`` proved
  structurally (``floor``/``ceiling`` of nonnegative arguments included, which SymPy does not infer).
- :func:`refuted`: two of the signs -, 0, + taken at points allowed by the symbols' declared
  assumptions (:mod:`symgpu.proofs.sample_points`; exact rational values, so a True is a proof that
  no sign can be decided); :func:`nonzero_somewhere`: a nonzero value at such a point (a proof that
  the expression is not identically 0, read in :mod:`.surds`' exact arithmetic where square roots come in:
  :func:`surd_at`); :func:`modest_powers` keeps those values small, and
  :func:`modest_at` the exponents that hold symbols, point by point; :func:`values_at` puts a point
  in behind that check (every exact value at a point is taken through it), and :func:`signs_at`
  reads the signs of those values, in Python's rational arithmetic where an expression allows it.

No model, no cache on disk: :class:`symgpu.proofs.signs.SignReasoner` uses them under the declared
assumptions, and :mod:`symgpu.derive.regime_split` at its generic point.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy

from symgpu.memo import Memo
from symgpu.proofs import rational_value, sample_points, surds


def basic_sign(e: sympy.Basic) -> int | None:
    """+1, -1 or 0 where SymPy's assumptions prove it (``is_positive``, ...), else None."""
    if e.is_zero:
        return 0
    if e.is_positive:
        return 1
    if e.is_negative:
        return -1
    return None


def factor_sign(e: sympy.Expr) -> int | None:
    """The sign of a product from :func:`basic_sign` of each factor (None if one is undecided)."""
    sign = 1
    for factor in sympy.Mul.make_args(e):
        s = basic_sign(factor)
        if s is None:
            return None
        sign *= s
    return sign


def nonnegative(expr: Any) -> bool:
    """Structurally proved ``expr >= 0``: sums, products and positive powers of nonnegative
    parts, ``floor``/``ceiling`` of nonnegative arguments (SymPy does not infer the latter)."""
    if not isinstance(expr, sympy.Basic):
        return False
    if expr.is_nonnegative:
        return True
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return nonnegative(expr.args[0])
    if expr.is_Add or expr.is_Mul:
        return all(nonnegative(a) for a in expr.args)
    if expr.is_Pow:
        return nonnegative(expr.base) and bool(expr.exp.is_real)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return all(nonnegative(a) for a in expr.args)
    return False


#: the most points evaluated to refute a sign claim
REFUTE_POINTS = 10
_REFUTED: Memo[Any, bool] = Memo("proofs.exact_signs.refuted", 20000)


def _value_sign(value: sympy.Basic) -> int | None:
    if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or not value.is_number:
        return None
    if value.is_Rational:
        return (value.p > 0) - (value.p < 0)
    if value.is_extended_real is not True:
        return None
    return basic_sign(value)


#: the largest exponent (numerator or denominator) under which exact values at points are computed
MAX_POINT_EXPONENT = 64


def modest_powers(expr: sympy.Basic) -> bool:
    """Are all numeric exponents of ``expr`` small enough that its exact value at a rational point
    stays small (``x**(10**9)`` at x = 3 would have half a billion digits)?"""
    return all(not p.exp.is_Rational or (abs(p.exp.p) <= MAX_POINT_EXPONENT and p.exp.q <= MAX_POINT_EXPONENT)
               for p in expr.atoms(sympy.Pow))


def symbolic_exponents(expr: sympy.Basic) -> tuple[sympy.Expr, ...]:
    """The exponents of ``expr`` that hold symbols (``ilp**(s_fork*(c - theta))``): at a point they may
    be numbers too large for :func:`modest_powers` to have seen."""
    return tuple(p.exp for p in expr.atoms(sympy.Pow) if p.exp.free_symbols)


def modest_at(exponents: Iterable[sympy.Expr], point: dict[sympy.Symbol, sympy.Expr]) -> bool:
    """Do the symbolic ``exponents`` stay within :data:`MAX_POINT_EXPONENT` at ``point``? Putting in a
    point whose exponent is 10**8 (a solved root of Volkov's H100 model, ``3**(10**8)``) would
    compute a number of 50 million digits before any sign is read."""
    for exponent in exponents:
        try:
            value = exponent.xreplace(point)
        except (TypeError, ValueError, ZeroDivisionError, ArithmeticError, RecursionError):
            return False
        if value.is_Rational and (abs(value.p) > MAX_POINT_EXPONENT or value.q > MAX_POINT_EXPONENT):
            return False
        if value.free_symbols or (value.is_number and not value.is_Rational and not value.is_finite):
            return False
    return True


def values_at(exprs: Sequence[sympy.Basic], point: dict[sympy.Symbol, sympy.Expr],
              exponents: Sequence[sympy.Expr] = ()) -> tuple[sympy.Basic, ...] | None:
    """Each of ``exprs`` at ``point`` (exact: ``xreplace``), or None where one of their symbolic
    ``exponents`` (:func:`symbolic_exponents`) is huge there (:func:`modest_at`) or a substitution fails."""
    if exponents and not modest_at(exponents, point):
        return None
    try:
        return tuple(e.xreplace(point) for e in exprs)
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError, RecursionError):
        return None


def signs_at(exprs: Sequence[sympy.Basic], point: dict[sympy.Symbol, sympy.Expr],
             exponents: Sequence[sympy.Expr] = (), rationals: rational_value.Memo | None = None) -> tuple[int | None, ...] | None:
    """The sign of each of :func:`values_at`'s values (:func:`_value_sign`: None for a value with no
    sign), None where :func:`values_at` is None. An expression :mod:`.rational_value` evaluates gets
    its value in Python's rational arithmetic (the same exact value), one with square roots in it
    :func:`surd_at`'s (exact too); the others, and one with a division by 0 or a root of a negative
    number there, SymPy's substitution. Errors of :func:`_value_sign` propagate, as for a value of
    :func:`values_at` read by the caller. ``rationals``: :mod:`.rational_value`'s memo of this same point, shared
    with other calls at it (by default one for this call)."""
    if exponents and not modest_at(exponents, point):
        return None
    if rationals is None:
        rationals = rational_value.inputs(point)  # one memo for the point: the expressions' shared parts once
    signs: list[int | None] = []
    left: list[int] = []
    for i, e in enumerate(exprs):
        value = rational_value.value(e, rationals)
        if value is None:
            signs.append(None)
            left.append(i)
            continue
        signs.append((value > 0) - (value < 0))
    if left:  # then in surds' arithmetic (a + b*sqrt(r): a value at a quadratic's root), exactly, where it is defined there
        shared: dict[sympy.Basic, surds.Number] = {}
        rest = []
        for i in left:
            try:
                signs[i] = surds.sign(surd_at(exprs[i], point, shared))
            except (ZeroDivisionError, ArithmeticError):  # no real value there, or not that arithmetic: SymPy's substitution
                rest.append(i)
        left = rest
    if left:
        values = values_at([exprs[i] for i in left], point)
        if values is None:
            return None
        for i, substituted in zip(left, values):
            signs[i] = _value_sign(substituted)
    return tuple(signs)


def refuted(expr: sympy.Basic, positives: Iterable[sympy.Expr] = ()) -> bool:
    """True if ``expr`` takes two of the signs -, 0, + at points allowed by its symbols' assumptions
    (and where every expression in ``positives`` is positive): exact rational values, so a True
    is a proof that no sign (positive, negative or identically zero) can be decided. False means
    only "not refuted"."""
    known = tuple(positives)
    key = (expr, known)
    if key in _REFUTED:
        return _REFUTED[key]
    seen = _signs_seen(expr, known, lambda seen: len(seen) == 2)
    _REFUTED[key] = len(seen) == 2
    if not known and {-1, 1} <= seen:
        # :func:`both_ways` reads the same points in the same order, so it would see these two signs too
        _BOTH_WAYS[expr] = True
    return _REFUTED[key]


_BOTH_WAYS: Memo[Any, bool] = Memo("proofs.exact_signs.both_ways", 20000)


def both_ways(expr: sympy.Basic) -> bool:
    """True if ``expr`` takes a positive and a negative value at points allowed by its symbols'
    assumptions (the points :func:`refuted` reads, exact values): a proof that neither ``expr >= 0``
    nor ``expr <= 0`` holds, so no sound proof of either (:func:`nonnegative` of any form equal to
    ``expr`` where it is defined) can succeed. False means only "not shown"."""
    if _REFUTED.get((expr, ())) is False:
        return False  # the same points showed fewer than two signs
    if expr not in _BOTH_WAYS:
        _BOTH_WAYS[expr] = {-1, 1} <= _signs_seen(expr, (), lambda seen: {-1, 1} <= seen)
    return _BOTH_WAYS[expr]


def _signs_seen(expr: sympy.Basic, known: tuple[sympy.Expr, ...], enough: Callable[[set[int]], bool]) -> set[int]:
    """The signs ``expr`` takes at admissible points where every one of ``known`` is positive, the
    points read in their fixed order until ``enough`` holds of the signs seen."""
    symbols = sample_points.ordered(expr.free_symbols.union(*[p.free_symbols for p in known]))
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    seen: set[int] = set()
    if symbols and all(pools) and not expr.has(sympy.Derivative, sympy.Integral) and all(modest_powers(e) for e in (expr, *known)):
        # NOTE: then the corner where every symbol that may be 0 is 0 (the others at their first
        # admissible value): a sum of nonnegative terms that vanishes only there (Hong & Kim's
        # (Coal_Mem_insts + Uncoal_Mem_insts)**2 times positive factors) is refuted at once, not
        # after factoring and simplify (0.05-0.1 s each) have failed to prove a sign it lacks.
        # Any refutation is a proof that no sign holds, so no verdict changes: only work is saved.
        # Last, a point per symbol with that symbol large (sample_points.one_large): Huang's
        # (alpha + 1)*(alu_lat - 1)/(alpha*alu_lat + mem_lat) - 1 is positive only where alu_lat
        # outgrows alpha + mem_lat + 1, which none of the draws above reaches (0.1-0.3 s of
        # factoring and simplify saved per such condition, a few exact values each). Then the same with the others at
        # their smallest nonzero values (sample_points.one_large_over_small): Hong & Kim's
        # I*(C + Cp + U) + M*(C + U) + Ddu*U*(Upm - 1) is negative where Ddu is large and Upm < 1, which the first
        # values (Upm = 1) never show (0.07 s of factoring and simplify in their boundary question for no sign).
        corner = {s: sympy.Integer(0) if 0 in pool else pool[0] for s, pool in zip(symbols, pools)}
        exponents = tuple(itertools.chain.from_iterable(symbolic_exponents(e) for e in (expr, *known)))
        # the sign read at each point so far (None: none there), kept for the next scan of this expression: refuted and
        # both_ways read the same points in the same order, each until its own criterion holds
        read = _READ.get((expr, known))
        if read is None:
            read = _READ[(expr, known)] = []
        for index, point in enumerate(itertools.chain(sample_points.points(symbols, pools, 1729, REFUTE_POINTS, fixed_first=2), [corner],
                                                      sample_points.one_large(symbols, pools),
                                                      sample_points.one_large_over_small(symbols, pools))):
            if index == len(read):
                # the point is the same for every expression of these symbols: its values' memo is shared by them
                # (the regime table's differences pair the same few limits, each evaluated once per point)
                rationals = _AT_POINT.get((tuple(symbols), index))
                if rationals is None or len(rationals) > POINT_VALUES:  # a full one starts afresh: bounded memory
                    rationals = _AT_POINT[(tuple(symbols), index)] = rational_value.inputs(point)
                read.append(_sign_read(expr, known, point, exponents, rationals))
            found = read[index]
            if found is not None:
                seen.add(found)
                if enough(seen):
                    break
    return seen


#: per (expression, known positives): the sign :func:`_signs_seen` read at each of its points so far, in order
_READ: Memo[tuple[Any, tuple[sympy.Expr, ...]], list[int | None]] = Memo("proofs.exact_signs.signs_read", 20000)
#: the most values a point's memo of :data:`_AT_POINT` holds before it is started again (a long session's
#: subexpressions do not pile up)
POINT_VALUES = 4096
#: per (symbols, index of the point in :func:`_signs_seen`'s sequence for them): :mod:`.rational_value`'s memo of
#: that point (the sequence is a function of the symbols: seeded draws from their admissible pools, then fixed points)
_AT_POINT: Memo[tuple[tuple[sympy.Symbol, ...], int], rational_value.Memo] = Memo("proofs.exact_signs.values_at_points", 2000)


def _sign_read(expr: sympy.Basic, known: tuple[sympy.Expr, ...], point: dict[sympy.Symbol, sympy.Expr],
               exponents: tuple[sympy.Expr, ...], rationals: rational_value.Memo) -> int | None:
    """``expr``'s sign at ``point`` where every one of ``known`` is positive there; None where one is not, where the
    values are not read there, or where ``expr``'s has no sign."""
    try:
        signs = signs_at((*known, expr), point, exponents, rationals)
        if signs is None or any(s != 1 for s in signs[:-1]):
            return None
        return signs[-1]
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError, RecursionError):
        return None


#: the most points evaluated to show that an expression is not identically 0
NONZERO_POINTS = 3
#: the most points read in :mod:`.surds`' arithmetic alone (the same seeded sequence, continued: a value at a
#: quadratic's root is often undefined at the first points, where the pools' first values make a denominator 0, or
#: not real, where they make its discriminant negative; each point costs little in that arithmetic)
NONZERO_SURD_POINTS = 16


def surd_at(expr: sympy.Basic, point: Mapping[sympy.Symbol, sympy.Basic],
            memo: dict[sympy.Basic, surds.Number] | None = None) -> surds.Number:
    """``expr``'s exact value at ``point`` (rational values) in :mod:`.surds`' arithmetic: a rational number, or
    ``a + b*sqrt(r)`` where square roots come in (a case value at a quadratic's root), without building SymPy's
    numbers (which factor each radicand); powers up to :data:`MAX_POINT_EXPONENT`. ``memo``: the values of the nodes
    of the expressions evaluated at this same point (shared parts once).

    Raises:
        ZeroDivisionError, surds.NotReal: ``expr`` has no real value at ``point``.
        surds.Unsupported: a node not evaluated there (a function, a float, a symbolic exponent, a symbol with no
            rational value in ``point``): the caller substitutes with SymPy.
    """
    def at(symbol: sympy.Symbol) -> Fraction:
        found = point.get(symbol)
        if not isinstance(found, sympy.Rational):
            raise surds.Unsupported(symbol)
        return Fraction(int(found.p), int(found.q))
    return surds.value(expr, at, MAX_POINT_EXPONENT, {} if memo is None else memo)


def nonzero_somewhere(expr: sympy.Basic) -> bool:
    """True if ``expr`` takes a nonzero exact value at one of a few points allowed by its symbols' assumptions
    (the small pool's first values, then seeded draws): a proof that ``expr`` is not identically 0 where it is
    defined, so that no rewriting that keeps values (``sympy.cancel``) can make it 0. The value is :func:`surd_at`'s
    (rational, or ``a + b*sqrt(r)``, exact either way; up to :data:`NONZERO_SURD_POINTS` points), else SymPy's
    substitution's where it is rational (the first :data:`NONZERO_POINTS`). False means only "not shown" (0,
    undefined or neither at every point tried)."""
    symbols = sample_points.ordered(expr.free_symbols)
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    if not symbols or not all(pools) or expr.has(sympy.Derivative, sympy.Integral) or not modest_powers(expr):
        return False
    exponents = symbolic_exponents(expr)
    in_surds = True  # until a node outside that arithmetic is met (then at every point: the nodes are the same)
    for index, point in enumerate(sample_points.points(symbols, pools, 1729, max(NONZERO_POINTS, NONZERO_SURD_POINTS), fixed_first=2)):
        if in_surds:
            try:
                if surd_at(expr, point) != 0:
                    return True
                continue
            except (ZeroDivisionError, surds.NotReal):  # no real value here (SymPy's: zoo, nan or not real)
                continue
            except surds.Unsupported:
                in_surds = False
        if index >= NONZERO_POINTS:
            break
        values = values_at((expr,), point, exponents)
        if values is not None and values[0].is_Rational and values[0] != 0:
            return True
    return False
