"""The active regime at every point of a chunk, decided on arrays from the compiled outputs:
:mod:`symgpu.evaluate.rule`'s rule (the number-only part of :mod:`symgpu.evaluate.active`) on
the rows a :class:`RegimeSpec` names. :mod:`symgpu.sweep.regimes` builds the spec from a model.

NOTE: imports neither SymPy nor pint (a stored sweep plan, :mod:`symgpu.sweep.replay`, decides
with it too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu.evaluate import rule as active
from symgpu.memo import Memo

#: a condition as a tree over output indices: ("const", bool) | ("rel", op, left, right, scale)
#: | ("and"|"or", children) | ("not", child)
Tree = tuple[Any, ...]


@dataclass(frozen=True)
class RegimeSpec:
    """How to decide the active regime of ``quantity`` from the compiled outputs."""

    quantity: str
    kind: str  # "min", "max" or "cases"
    labels: tuple[str, ...]
    trees: tuple[Tree, ...]  # cases: one condition tree per case; min/max: ("arg", index) per argument
    #: min/max: per argument, whether it is proved never NaN over the sweep (:mod:`symgpu.sweep.finite`)
    finite: tuple[bool, ...] = ()


def _holds(tree: Tree, out: Sequence[np.ndarray]) -> Any:
    """Whether the condition ``tree`` holds, at the broadcast shape of the outputs it reads (a
    condition over fewer axes is decided at their size; a constant one is a scalar).

    An And/Or decides its parts smallest first and stops where what it has decides it (an And
    that is false everywhere, an Or true everywhere); a part true everywhere (And) or false
    everywhere (Or) is left out: the same answer, and no grid-sized pass that does not change it."""
    kind = tree[0]
    if kind == "const":
        return np.bool_(tree[1])
    if kind in ("and", "or"):
        deciding = kind == "or"  # the value that settles the whole: True for an Or, False for an And
        combine = np.logical_or if deciding else np.logical_and
        parts = sorted(tree[1], key=lambda t: _points(t, out))
        total: Any = None
        for part in parts:
            holds = _holds(part, out)
            if np.ndim(holds) == 0:
                if bool(holds) == deciding:
                    return np.bool_(deciding)
                continue  # the identity of the And/Or
            total = holds if total is None else combine(total, holds)
            if total.size < _points(tree, out) and not (np.any(total) if not deciding else not np.all(total)):
                return np.bool_(deciding)  # settled everywhere at a smaller size
        return np.bool_(not deciding) if total is None else total
    if kind == "not":
        return np.logical_not(_holds(tree[1], out))
    _, op, li, ri, si = tree
    left = out[li]
    if ri is None:
        return active.relation_holds(op, left, 0.0, np.maximum(np.abs(left), np.abs(out[si])))
    return _relation(op, np.asarray(left, dtype=float), np.asarray(out[ri], dtype=float))


def _points(tree: Tree, out: Sequence[np.ndarray]) -> int:
    """How many points the condition ``tree`` is decided at: the broadcast size of the outputs it reads."""
    shapes: list[tuple[int, ...]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[0] in ("and", "or"):
            stack.extend(node[1])
        elif node[0] == "not":
            stack.append(node[1])
        elif node[0] == "rel":
            shapes += [np.shape(out[i]) for i in node[2:] if i is not None]
    return math.prod(np.broadcast_shapes(*shapes)) if shapes else 1


#: a relation with its sides swapped
_FLIPPED = {"==": "==", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
#: below this many points a relation is decided by the rule directly (the fast path's set-up costs more)
_SMALL = 4096


def _relation(op: str, left: np.ndarray, right: np.ndarray) -> Any:
    """:func:`~symgpu.evaluate.active.relation_holds` ``(op, left, right)`` at the broadcast shape.

    Where the smaller side's tie interval is found (:func:`_bounded`): one comparison at that size
    (two for ``==``/``!=``). Otherwise in two comparisons at that size: thresholds ``r -+ 4 TIE |r|`` are computed on the smaller
    side ``r``; a point of the other side ``l`` beyond them is more than ``TIE max(|l|, |r|)``
    from ``r`` (as ``|l| <= |r| + |l - r|``), so the sides are unequal there and ``l > r`` or
    ``l < r`` decides; of the points between them, those with equal sides are equal, and the
    rest (near ties, NaN, infinities) are decided by the rule itself. The answer is the rule's
    everywhere."""
    shape = np.broadcast_shapes(left.shape, right.shape)
    size = int(np.prod(shape))
    if size < _SMALL:
        return active.relation_holds(op, left, right)
    if left.size < right.size:
        left, right, op = right, left, _FLIPPED[op]
    bounds = _tie_interval(right)
    if bounds is not None:  # one comparison with the exact bound at full size (two for == and !=)
        if left.size < size:  # both sides over fewer axes: the answer may be the same everywhere
            same = _everywhere(op, left, *bounds)
            if same is not None:
                return np.bool_(same)
        return _bounded(op, left, *bounds)
    with np.errstate(invalid="ignore", over="ignore"):
        margin = 4 * active.TIE * np.abs(right)
        above, below = np.greater(left, right + margin), np.less(left, right - margin)
    holds: Any = above if op in (">", ">=") else below if op in ("<", "<=") else np.bool_(op == "!=")
    decided = np.count_nonzero(above) + np.count_nonzero(below)
    if decided < size:  # sides exactly equal are equal (a Min's argument and its value often are)
        equal = np.equal(left, right)
        holds = (holds | equal if op in (">=", "<=") else equal if op == "==" else ~equal if op == "!=" else holds)
        if decided + np.count_nonzero(equal) < size:
            rest = np.flatnonzero(~(above | below | equal))
            where = np.unravel_index(rest, shape)
            holds = np.array(np.broadcast_to(holds, shape))
            holds.reshape(-1)[rest] = active.relation_holds(op, np.broadcast_to(left, shape)[where], np.broadcast_to(right, shape)[where])
    return holds


def _everywhere(op: str, left: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool | None:
    """The answer of :func:`_bounded` where it is the same at every point, from the sides' extremes
    (no NaN among them: a NaN makes an extreme NaN, every comparison with it false, so None);
    None where it is not the same everywhere (or that is not shown)."""
    with np.errstate(invalid="ignore"):
        least, most = np.min(left), np.max(left)
        low_least, low_most, high_least, high_most = np.min(lo), np.max(lo), np.min(hi), np.max(hi)
    if op == ">=":
        return True if least >= low_most else False if most < low_least else None
    if op == ">":
        return True if least > high_most else False if most <= high_least else None
    if op == "<=":
        return True if most <= high_least else False if least > high_most else None
    if op == "<":
        return True if most < low_least else False if least >= low_most else None
    inside = True if least >= low_most and most <= high_least else False if most < low_least or least > high_most else None
    return inside if inside is None or op == "==" else not inside


def _bounded(op: str, left: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> Any:
    """``relation_holds(op, left, right)`` from the interval ``lo..hi`` of doubles tied to ``right``
    (:func:`~symgpu.evaluate.active.tie_interval`): ``>=`` is ``left >= lo``, ``>`` is ``left > hi``,
    and so on; NaN on either side compares false, as the rule says (``!=``: true). A bound of one
    value is compared as a scalar (NumPy's fast loop; a stride-0 array takes the slow one)."""
    if lo.size == 1:
        lo, hi = lo.reshape(()), hi.reshape(())
    with np.errstate(invalid="ignore"):
        if op == ">=":
            return _compare(np.greater_equal, left, lo)
        if op == ">":
            return _compare(np.greater, left, hi)
        if op == "<=":
            return _compare(np.less_equal, left, hi)
        if op == "<":
            return _compare(np.less, left, lo)
        inside = _compare(np.greater_equal, left, lo)
        np.logical_and(inside, _compare(np.less_equal, left, hi), out=inside)
    return inside if op == "==" else np.logical_not(inside, out=inside)


def _compare(function: np.ufunc, left: np.ndarray, bound: np.ndarray) -> Any:
    """``function(left, bound)``; where ``left`` has the broadcast shape and ``bound`` is over
    fewer points, ``bound`` repeated in blocks (:func:`_spread`), not broadcast."""
    if bound.ndim == 0 or bound.size >= left.size or np.broadcast_shapes(left.shape, bound.shape) != left.shape:
        return function(left, bound)
    out = np.empty(left.shape, dtype=bool)
    _blocks(function, left, _spread(bound, left.shape), out)
    return out


def decide(spec: RegimeSpec, out: Sequence[np.ndarray], shape: tuple[int, ...], into: np.ndarray | None = None,
           scratch: np.ndarray | None = None) -> np.ndarray:
    """The index into ``spec.labels`` of the active regime at each point (-1: none, or NaN), an
    int16 array of ``shape`` (written into ``into``, an int16 array of as many points, if given;
    ``scratch``: a bool array of at least twice as many points the decision may use, so that a
    sweep's chunks reuse its memory instead of fresh pages)."""
    if spec.kind == "cases":
        code = np.empty(shape, dtype=np.int16) if into is None else into.reshape(shape)
        return _first_case(spec.trees, out, code, scratch)
    return _binding(spec.kind, [np.asarray(out[t[1]], dtype=float) for t in spec.trees], shape, into, scratch,
                    bool(spec.finite) and spec.finite[0])


def _first_case(trees: tuple[Tree, ...], out: Sequence[np.ndarray], code: np.ndarray, scratch: np.ndarray | None) -> np.ndarray:
    """The index of the first case whose condition holds (-1: none) into ``code``, by counting:
    with ``P_j`` "one of the cases 0..j holds", the first case is the number of ``j`` where
    ``P_j`` is false, so the codes are ``k`` less each ``P_j`` (``k``: the first case that always
    holds, else the count of cases), one subtraction of booleans per case, no masked writes; a
    point where none holds is set to -1 after."""
    always = next((i for i, t in enumerate(trees) if t == ("const", True)), len(trees))
    code.fill(always)
    size = code.size
    buffer = scratch[:size].reshape(code.shape) if scratch is not None and scratch.size >= size else None
    prefix: Any = np.bool_(False)
    for tree in trees[:always]:
        holds = _holds(tree, out)
        if np.ndim(prefix) == 0:
            prefix = holds if not prefix else prefix
        elif np.broadcast_shapes(np.shape(prefix), np.shape(holds)) == code.shape and buffer is not None:
            prefix = np.logical_or(prefix, holds, out=buffer)
        else:
            prefix = np.logical_or(prefix, holds)
        if np.ndim(prefix) == 0:
            if prefix:
                np.subtract(code, np.int16(1), out=code)
        else:
            np.subtract(code, prefix, out=code)
    if always == len(trees) and not np.all(prefix):  # points where no case holds: -1
        np.copyto(code, np.int16(-1), where=np.broadcast_to(np.logical_not(prefix), code.shape))
    return code


def _binding(kind: str, rows: list[np.ndarray], shape: tuple[int, ...], into: np.ndarray | None = None,
             scratch: np.ndarray | None = None, first_finite: bool = False) -> np.ndarray:
    """:func:`~symgpu.evaluate.active.binding_index` of ``rows`` (arrays that broadcast to
    ``shape``), computed at the size of the axes each row uses, as int16 (into ``into`` if given).

    The rows over every axis of ``shape`` (group F) and the others (group L, over fewer axes)
    are each settled by the rule, F's at full size and L's at its own smaller size. Where F's
    extreme ``bF`` lies clearly beyond L's ``bL`` — more than ``4 TIE |bL|`` away, so no row of
    one group is within ``TIE`` of the other's — the group holding the overall extreme binds with
    its own answer; the remaining points (near ties, NaN, infinities) are decided by the rule on
    all rows, point by point. The answer is the rule's everywhere.

    At full size this costs two comparisons of ``bF`` with the thresholds, two counts and the
    codes written once (a group's own answer where it wins): the thresholds, L's answer and
    its extreme are computed at L's size only (and kept across chunks that share them). Where F
    is one row and first in the order ties are settled in, one comparison with the edge of
    ``bL``'s tie interval decides every point (:func:`_first_binds`; ``first_finite``: the
    first row is proved never NaN, so it is not scanned for NaN).
    """
    code = np.empty(shape, dtype=np.int16) if into is None else into.reshape(shape)
    full = [i for i, r in enumerate(rows) if r.ndim == len(shape) and r.shape == shape]
    low = [i for i in range(len(rows)) if i not in full]
    if not full or not low:
        np.copyto(code, np.broadcast_to(np.asarray(active.binding_index(rows, kind), dtype=np.int16), shape))
        return code
    reduce = np.minimum if kind == "min" else np.maximum
    side = _low_side(kind, [rows[i] for i in low], tuple(low))
    best_low, pick_low = side.best, side.pick
    if full == [0] and _first_binds(kind, rows[0], side, code, first_finite):
        return code
    with np.errstate(invalid="ignore", over="ignore"):
        margin = 4 * active.TIE * np.abs(best_low)
        below, above = best_low - margin, best_low + margin
    size = code.size
    if scratch is None or scratch.size < 2 * size:
        scratch = np.empty(2 * size, dtype=bool)
    full_wins, low_wins = scratch[:size].reshape(shape), scratch[size:2 * size].reshape(shape)
    if len(full) > 1:
        _binding(kind, [rows[i] for i in full], shape, code)  # F's own answer, then replaced where L wins
        np.copyto(code, np.asarray(full, dtype=np.int16)[code], where=code >= 0)
        best_full = reduce.reduce([rows[i] for i in full])
    else:
        best_full = rows[full[0]]
    with np.errstate(invalid="ignore"):
        # NaN compares false both ways: such points are neither F's nor L's, and go to the rule
        (np.less if kind == "min" else np.greater)(best_full, below if kind == "min" else above, out=full_wins)
        (np.greater if kind == "min" else np.less)(best_full, above if kind == "min" else below, out=low_wins)
    if len(full) > 1:
        np.copyto(code, np.broadcast_to(pick_low, shape), where=low_wins)
    else:  # F's one row where it wins: code = full + low_wins * (pick_low - full), two cheap passes
        np.multiply(low_wins, pick_low - np.int16(full[0]), out=code)
        if full[0]:
            np.add(code, np.int16(full[0]), out=code)
    if np.count_nonzero(full_wins) + np.count_nonzero(low_wins) < size:
        rest = np.flatnonzero(~(full_wins | low_wins))
        where = np.unravel_index(rest, shape)
        code.reshape(-1)[rest] = active.binding_index([np.broadcast_to(r, shape)[where] for r in rows], kind)
    return code


@dataclass(frozen=True)
class LowSide:
    """The rows over fewer axes of a Min/Max: their extreme, their own binding row (an index into
    all rows, -1 for none), the extreme's tie interval, and the key they are kept by (None: not kept)."""

    best: np.ndarray
    pick: np.ndarray
    bounds: tuple[np.ndarray, np.ndarray] | None
    key: tuple[Any, ...] | None
    complete: bool = False  # every point has a binding row (no NaN among them)


#: the smaller rows' answer by their values (a sweep's chunks often share them: the same rows of the trailing axes)
_LOW: Memo[tuple[Any, ...], LowSide] = Memo("sweep.regimes.low", 16)
#: above this many bytes the smaller rows are not kept
_LOW_BYTES = 1 << 18


def _low_side(kind: str, rows: list[np.ndarray], where: tuple[int, ...]) -> LowSide:
    """The :class:`LowSide` of the smaller ``rows`` (at the rows' indices ``where``), kept by their values."""
    key: tuple[Any, ...] | None = None
    if sum(r.nbytes for r in rows) <= _LOW_BYTES:
        key = (kind, where) + tuple((r.shape, r.tobytes()) for r in rows)
        known = _LOW.get(key)
        if known is not None:
            return known
    spread = np.broadcast_arrays(*rows)
    code_low = np.asarray(active.binding_index(spread, kind))
    best_low = (np.minimum if kind == "min" else np.maximum).reduce(spread) if len(rows) > 1 else rows[0]
    pick_low = np.where(code_low >= 0, np.asarray(where, dtype=np.int16)[code_low], np.int16(-1)).astype(np.int16)
    made = LowSide(best_low, pick_low, active.tie_interval(best_low), key, bool(np.all(pick_low >= 0)))
    if key is not None:
        _LOW[key] = made
    return made


#: a smaller row repeated into a block of a chunk's flat points, by (the row's id, shape), the row kept
#: with it (so a reused id is never mistaken for it): NumPy compares contiguous arrays in its fast
#: loop, stride-0 views in a slow one (0.19 vs 0.30 ns a point here), and a block a few times the
#: row's period stays in the first-level cache where a copy at the chunk's size would stream from
#: the last-level one
_SPREAD: Memo[tuple[int, tuple[int, ...]], tuple[np.ndarray, tuple[np.ndarray, int]]] = Memo("sweep.regimes.spread", 16)
#: points per block: a row's period repeated up to this many points (8 to 16 thousand: NumPy's
#: loop over a block is long, the block small)
_BLOCK = 8192


def _spread(values: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """``values`` broadcast to ``shape`` as ``(block, period)``: the chunk's flat points are
    ``values`` repeating every ``period`` points (the axes ``values`` varies along are trailing
    ones), and ``block`` holds whole periods of them, contiguous; ``(values as a scalar, 0)`` where
    it holds one value. Kept across chunks for the same ``values`` object (a kept side's rows)."""
    key = (id(values), shape)
    known = _SPREAD.get(key)
    if known is not None and known[0] is values:
        return known[1]
    own = values.reshape((1,) * (len(shape) - values.ndim) + values.shape)
    lead = next((k for k, n in enumerate(own.shape) if n != 1), len(shape))
    period = math.prod(shape[lead:])
    if period == 1:  # one value: compared as a scalar (NumPy's fast loop)
        made = (own.reshape(()), 0)
    else:
        repeat = max(1, _BLOCK // period) if period else 1
        row = np.broadcast_to(own, (1,) * lead + shape[lead:]).reshape(-1)
        made = (np.ascontiguousarray(np.tile(row, min(repeat, max(1, math.prod(shape[:lead]))))), period)
    _SPREAD[key] = (values, made)
    return made


def _blocks(function: np.ufunc, left: np.ndarray, spread: tuple[np.ndarray, int], code: np.ndarray) -> None:
    """``function(left, values, out=code)`` at ``code``'s shape, ``values`` given as :func:`_spread`
    made it: the flat points a block at a time in one call (all whole blocks, then the rest)."""
    block, period = spread
    if not period:
        function(left, block, out=code)
        return
    flat, out = left.reshape(-1), code.reshape(-1)
    width = block.size
    whole = flat.size // width * width
    if whole:
        function(flat[:whole].reshape(-1, width), block, out=out[:whole].reshape(-1, width))
    if whole < flat.size:
        function(flat[whole:], block[:flat.size - whole], out=out[whole:])


_TIES: Memo[tuple[Any, ...], tuple[np.ndarray, np.ndarray] | None] = Memo("sweep.regimes.ties", 16)


def _tie_interval(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`~symgpu.evaluate.active.tie_interval` of ``values``, kept by their values when small."""
    if values.nbytes > _LOW_BYTES:
        return active.tie_interval(values)
    key = (values.shape, values.tobytes())
    if key not in _TIES:
        _TIES[key] = active.tie_interval(values)
    return _TIES[key]


def _first_binds(kind: str, first: np.ndarray, side: LowSide, code: np.ndarray, finite: bool = False) -> bool:
    """The codes where the one grid-sized row is first in the order ties are settled in, in one
    comparison: it binds (code 0) where it is at or beyond the others' extreme ``best_low`` or tied
    to it, i.e. up to the edge of ``best_low``'s :func:`~symgpu.evaluate.active.tie_interval` (a
    Min: ``first <= hi``; a Max: ``first >= lo``); elsewhere the others' own answer ``pick_low``.
    False (nothing written) where that does not decide every point: a NaN on either side (the
    rule says -1 there), or an edge not found. ``finite``: ``first`` is proved never NaN (not scanned).

    The comparison's booleans are written straight into the int16 codes and multiplied there by
    ``pick_low`` (int16 by int16: no cast of a boolean operand)."""
    bounds, pick_low = side.bounds, side.pick
    if bounds is None or not side.complete:
        return False
    if not finite:
        with np.errstate(invalid="ignore"):
            if np.isnan(np.minimum.reduce(first, axis=None)):
                return False
    if kind == "min":
        _blocks(np.greater, first, _spread(bounds[1], code.shape), code)
    else:
        _blocks(np.less, first, _spread(bounds[0], code.shape), code)
    _blocks(np.multiply, code, _spread(pick_low, code.shape), code)
    return True
