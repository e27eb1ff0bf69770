"""Proof, without SymPy's search, that ``Min``/``Max`` keeps every one of its arguments (and, by the same argument,
that SymPy can decide neither way an inequality of two sides: :func:`inequality`).

``Min(*args)`` compares every pair of arguments under the symbols' assumptions
(``MinMaxBase._find_localzeros``: ``x >= y``, ``x <= y``, then the same for
``factor_terms(x - y)`` against 0) and drops an argument it proves dominated. SymPy's
assumptions are sound: when it proves ``x >= y``, that holds at every point whose symbol
values meet the symbols' declared assumptions. So two such points, one where ``x > y`` and
one where ``x < y``, computed exactly, show that SymPy can decide neither comparison.

:func:`keeps_every_argument` looks for those points (rational values from a fixed pool, each
checked against the symbol's assumptions by SymPy itself: :mod:`symgpu.proofs.sample_points`; exact :class:`~fractions.Fraction`
arithmetic, and :mod:`symgpu.proofs.surds`' ``a + b*sqrt(r)`` where square roots come in (a case value at a root of
a quadratic), so no rounding; a point where an argument divides by 0 or takes the root of a negative number is passed
over: it has no real value there). An argument that is a finite float (Hong & Kim's near-tie scale capped at the largest
double, ``Min(scale, 1.797...e308)``) counts as the exact binary number it stands for, and where such a bound is
left unordered by the pool's values, points far beyond it (each symbol at ``2**1100`` in magnitude, or mixed with the
pool's values) are tried too. When every pair of arguments is ordered both ways, and no
argument is itself a Min or Max (the only case in which SymPy also flattens or collapses
arguments) and none is infinite, ``func(*args)`` is exactly ``func(*args, evaluate=False)``:
the same argument set, ordered the same way. Anything else (an expression it cannot
evaluate exactly, a pair it never sees ordered both ways) answers False, and the caller asks
SymPy.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import sympy
from sympy.core.operations import ShortCircuit
from sympy.core.parameters import global_parameters

from symgpu.memo import Memo
from symgpu.proofs import sample_points, surds

#: sample points tried before giving up (each assigns every symbol one value from its pool)
POINTS = 32
#: largest integer exponent (numerator of a half-integer one) evaluated exactly
MAX_EXPONENT = 16
#: candidate symbol values: a wide spread of magnitudes, fractions, zero and negatives
POOL = sample_points.WIDE
#: values beyond every double (``2**1100``; its inverse and negatives), tried where a float argument stays unordered
HUGE: sample_points.Pool[Fraction] = sample_points.Pool((Fraction(2**1100), Fraction(-2**1100), Fraction(1, 2**1100), Fraction(-1, 2**1100)))
#: the pool's values and :data:`HUGE`'s, for the points that mix them
MIXED: sample_points.Pool[Fraction] = sample_points.Pool(HUGE.values + POOL.values)
#: points tried from :data:`MIXED` after the one of :data:`HUGE` values
MIXED_POINTS = 16


def value(expr: sympy.Basic, point: dict[sympy.Symbol, Fraction], draws: sample_points.Draws,
          pool: sample_points.Pool[Fraction] = POOL, memo: dict[sympy.Basic, surds.Number] | None = None) -> surds.Number:
    """``expr`` at ``point``, exactly (:func:`symgpu.proofs.surds.value`: a rational number, or ``a + b*sqrt(r)`` where
    square roots come in); a symbol not yet in ``point`` gets an admissible value of ``pool``. ``memo``: the values of
    the nodes evaluated at this same point (one per point: the arguments of a magnitude ``Max(x, -x)`` share all of
    ``x``), the same values as each evaluated alone (tests/test_unordered_point_memo_gives_each_arguments_own_value.py).

    Raises:
        ZeroDivisionError: ``expr`` divides by 0 at this point.
        surds.NotReal: a square root of a negative number at this point.
        surds.Unsupported: ``expr`` holds something not evaluated here (or a symbol with no admissible value).
    """
    def drawn(symbol: sympy.Symbol) -> Fraction:
        if symbol not in point:
            found = draws.admissible(symbol, pool)
            if found is None:
                raise surds.Unsupported(symbol)
            point[symbol] = found
        return point[symbol]
    return surds.value(expr, drawn, MAX_EXPONENT, memo)


def _float_value(arg: sympy.Basic) -> Fraction | None:
    """The exact binary value of ``arg`` where it is a finite float (``sympy.Rational`` of a Float is exact), else None."""
    if not isinstance(arg, sympy.Float) or not arg.is_finite:
        return None
    exact = sympy.Rational(arg)
    return Fraction(int(exact.p), int(exact.q))


def keeps_every_argument(args: Sequence[Any], *, collapsed: bool = False) -> bool:
    """True when ``Min(*args)`` and ``Max(*args)`` keep every argument as given (proved at
    sample points, see the module notes); False when that is not shown (SymPy decides).
    ``collapsed``: the arguments are those SymPy's filter and collapse left (:func:`built`), so a
    Min or Max among them is compared like any other argument."""
    if len(args) < 2 or len(set(args)) != len(args):
        return False
    if any(not isinstance(a, sympy.Expr) or (not collapsed and isinstance(a, (sympy.Min, sympy.Max))) for a in args):
        return False
    key = frozenset(args)
    found = _PROVED.get(key)
    if found is None:
        found = _PROVED[key] = _ordered_both_ways(tuple(args))
    return found


#: :func:`keeps_every_argument`'s verdicts by argument set. The points drawn follow the arguments' order, so another
#: order may prove what one did not; either verdict gives the node SymPy builds (a proof: SymPy keeps every argument,
#: and the unevaluated node is its node; none: SymPy builds it), so the verdict first found for a set serves every
#: order (a Min/Max built from a collapsed argument list meets the arguments of the node it came from, reordered)
_PROVED: Memo[frozenset[Any], bool] = Memo("proofs.unordered.keeps_every_argument", 4096)


def _ordered_both_ways(args: tuple[Any, ...]) -> bool:
    """Is every pair of ``args`` seen ordered both ways at admissible points (see the module notes)?"""
    floats = [_float_value(a) for a in args]
    open_pairs = {(i, j) for i in range(len(args)) for j in range(i + 1, len(args))}
    seen: set[tuple[int, int, bool]] = set()
    draws = sample_points.Draws(len(args))
    pools = [POOL] * POINTS
    if any(f is not None for f in floats):  # a float bound (the largest double) may need values beyond the pool's
        pools += [HUGE] + [MIXED] * MIXED_POINTS
    # seeded points, then (the pairs they left open) the one-large points
    for point, pool in itertools.chain((({}, pool) for pool in pools), _one_large_points(args)):
        memo: dict[sympy.Basic, surds.Number] = {}  # this point's value of each node: the arguments share most of theirs
        try:
            values = [f if f is not None else value(a, point, draws, pool, memo) for a, f in zip(args, floats)]
        except (ZeroDivisionError, surds.NotReal):  # no real value at this point: another point may have one
            continue
        except surds.Unsupported:
            return False
        for i, j in list(open_pairs):
            if values[i] != values[j]:
                seen.add((i, j, values[i] < values[j]))
                if (i, j, True) in seen and (i, j, False) in seen:
                    open_pairs.discard((i, j))
        if not open_pairs:
            return True
    return False


def _one_large_points(args: Sequence[Any]) -> Iterator[tuple[dict[sympy.Symbol, Fraction], sample_points.Pool[Fraction]]]:
    """The points tried after the seeded ones: :func:`~symgpu.proofs.sample_points.one_large_over_small`'s points of
    :data:`POOL` (each symbol in turn at its largest value, the others at their smallest nonzero ones), each with that
    pool. A bound that a quadratic's root stays below wherever the draws put the inputs near each other (Volkov's loaded
    fixed point ``2*c*n/(... + sqrt(...))`` against ``mem_thru``, kept by SymPy's search after 30-50 ms) is passed where
    one input is small. Admissible points like the others, so an ordering seen is as sound; made only when the seeded
    ones did not settle every pair (lazily)."""
    symbols = sample_points.ordered(set().union(*[a.free_symbols for a in args]))
    pools = [POOL.admissible(s) for s in symbols]
    if not symbols or not all(pools):
        return
    for extreme in sample_points.one_large_over_small(symbols, pools):
        yield dict(extreme), POOL


def built(func: Any, args: Sequence[Any]) -> sympy.Basic | None:
    """``func(*args)`` (``func`` Min or Max) exactly as SymPy builds it, without SymPy's search for
    dominated arguments; None where that is not shown (the caller asks SymPy).

    SymPy builds a Min/Max in three steps: its argument filter (a nested node of the same kind
    flattened, the identity dropped), its collapse (nested Min/Max tidied, numbers compared with
    numbers: no comparison under assumptions), then the pairwise search for dominated arguments.
    The first two are SymPy's own, run here as they are; the third is replaced by
    :func:`keeps_every_argument` on what they left, which proves that the search keeps every
    argument. The node is then ``func(*left, evaluate=False)``: the same argument set, ordered the
    same way. Where the collapse leaves one argument, or an argument is infinite or cannot be
    evaluated exactly, None."""
    try:
        kept = frozenset(func._new_args_filter(sympy.sympify(a) for a in args))
        left = func._collapse_arguments(kept)
    except (ShortCircuit, ValueError, TypeError):  # an argument that is the Min's/Max's zero, or not comparable: SymPy decides
        return None
    if not keeps_every_argument(tuple(left), collapsed=True):
        return None
    return func(*left, evaluate=False)  # type: ignore[no-any-return]


def proved_node(func: Any, args: Sequence[Any]) -> sympy.Basic | None:
    """``func(*args)`` (Min or Max) built without SymPy's search where every argument is proved kept
    (:func:`keeps_every_argument`, else :func:`built`); None where that is not shown."""
    if keeps_every_argument(args):
        return func(*args, evaluate=False)  # type: ignore[no-any-return]
    return built(func, args)


#: Min/Max nodes rebuilt by the proofs' substitutions (:func:`symgpu.proofs.forms.xreplaced`), by the set of arguments:
#: SymPy builds one node from them in any order, or repeated (its ``Min``/``Max`` start from their frozenset and order it)
_KEPT: Memo[tuple[Any, frozenset[Any]], sympy.Basic] = Memo("proofs.unordered.min_max", 4096)


def min_max(func: Any, args: tuple[Any, ...]) -> sympy.Basic:
    """``func(*args)`` for ``func`` Min or Max, exactly as SymPy builds it: built once per argument
    set (:data:`_KEPT`), without SymPy's search where :func:`proved_node` proves it keeps every argument (a
    substitution that rebuilds the same Min/Max again and again, as a sign reasoner's does, then
    pays for it once). Under ``sympy.evaluate(False)`` the node is built as it is, never kept."""
    if not global_parameters.evaluate:
        return func(*args)  # type: ignore[no-any-return]
    key = (func, frozenset(args))
    found = _KEPT.get(key)
    if found is None:
        node = proved_node(func, args)
        found = _KEPT[key] = node if node is not None else func(*args)
    return found


def kept(func: Any, args: tuple[Any, ...]) -> sympy.Basic | None:
    """The node :func:`min_max` keeps for ``func(*args)`` (SymPy's own, in any order of ``args``), or None where it has
    built none."""
    return _KEPT.get((func, frozenset(args)))


#: the inequalities :func:`inequality` builds
_INEQUALITIES = (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


def inequality(op: Any, lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Basic:
    """``op(lhs, rhs)`` (``>``, ``>=``, ``<``, ``<=``) exactly as SymPy builds it, without SymPy's attempt to decide it
    where sample points show it undecidable.

    SymPy's evaluated inequality asks whether ``lhs - rhs`` has a sign under the symbols' assumptions
    (``is_gt``/``is_ge``/...); where it finds none it builds ``op(lhs, rhs, evaluate=False)``. Its assumptions are sound:
    two admissible points, one where ``lhs > rhs`` and one where ``lhs < rhs`` (exact values, as
    :func:`keeps_every_argument` finds them for a two-argument Min), show that it can prove neither the relation nor its
    negation, and that both sides are real (so none is refused as non-real). The node is then the unevaluated one.
    Anything else (no such pair of points among those tried, an operator not an inequality) is left to SymPy."""
    if op in _INEQUALITIES and global_parameters.evaluate and keeps_every_argument((lhs, rhs), collapsed=True):
        return op(lhs, rhs, evaluate=False)  # type: ignore[no-any-return]
    return op(lhs, rhs)  # type: ignore[no-any-return]
