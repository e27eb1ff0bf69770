"""The number-only part of the regime rule (:mod:`symgpu.evaluate.active` is the whole rule and
re-exports these names): ties within a relative :data:`TIE`, relations decided with them, a
Min's/Max's binding argument, and the doubles tied to a value, on floats or NumPy arrays.

NOTE: imports neither SymPy nor pint, so a stored sweep plan (:mod:`symgpu.sweep.replay`)
decides regimes by the same rule without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgpu import errors

__all__ = ["RELATIONS", "RELATION_CODES", "TIE", "binding_index", "binding_order", "larger_magnitude", "relation_holds",
           "relation_number", "tie_interval", "tied"]

#: relative tolerance under which two sides of a condition count as equal (ties)
TIE = 1e-12

#: the relations a condition may use, by SymPy's ``rel_op``
RELATIONS = ("==", "!=", ">=", ">", "<=", "<")


def tied(a: Any, b: Any) -> Any:
    """Whether ``a`` and ``b`` count as equal: identical, or apart by at most :data:`TIE` times
    the larger magnitude (floats or NumPy arrays, broadcast; NaN ties nothing)."""
    return relation_holds("==", a, b)


def relation_holds(op: str, left: Any, right: Any, scale: Any = None) -> Any:
    """``left op right`` with sides within :data:`TIE` ``* scale`` counted as equal (``scale``:
    the larger magnitude of the two sides unless given; an infinite side equals only itself).
    Floats or NumPy arrays, broadcast.

    Raises:
        errors.UsageError: ``op`` is not one of :data:`RELATIONS`.
    """
    if op not in RELATIONS:
        raise errors.UsageError(f"unknown relation {op!r} (expected one of {', '.join(RELATIONS)})")
    left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    if scale is None:
        scale = np.maximum(np.abs(left), np.abs(right))
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.abs(left - right)
        equal = np.logical_or(left == right, np.logical_and(np.isfinite(gap), gap <= TIE * np.asarray(scale, dtype=float)))
        if op == "==":
            return equal
        if op == "!=":
            return np.logical_not(equal)
        above = np.logical_and(np.logical_not(equal), left > right)
        below = np.logical_and(np.logical_not(equal), left < right)
    return {">=": np.logical_or(equal, above), ">": above, "<=": np.logical_or(equal, below), "<": below}[op]


def tie_interval(values: Any, steps: int = 8) -> tuple[np.ndarray, np.ndarray] | None:
    """The doubles :func:`tied` to each of ``values``: ``lo <= x <= hi`` exactly where
    ``tied(x, value)`` (an infinite value: itself; NaN: NaN, an interval nothing lies in), so that
    a relation with one side from ``values`` is one comparison with a bound (``x >= value`` is
    ``x >= lo``, ``x > value`` is ``x > hi``); None where an edge is not found in ``steps`` ulps.

    Within a factor of two of a nonzero value, its difference with a double is exact (Sterbenz),
    so the gap grows by whole ulps while ``TIE`` times the larger magnitude grows by ``TIE`` of
    them: the doubles tied to it are one interval, found from ``value -+ TIE |value|`` in a few ulp
    steps, each edge checked by the rule (tied, and the next double out not)."""
    value = np.asarray(values, dtype=float)
    finite = np.isfinite(value)
    with np.errstate(over="ignore", invalid="ignore"):
        lo, hi = value - TIE * np.abs(value), value + TIE * np.abs(value)
        lo, hi = np.where(finite, lo, value), np.where(finite, hi, value)
        for edge, outward in ((lo, -np.inf), (hi, np.inf)):
            for _ in range(steps):
                out, inner = np.nextafter(edge, outward), np.nextafter(edge, -outward)
                grow = finite & tied(out, value)
                shrink = finite & ~tied(edge, value)
                if not grow.any() and not shrink.any():
                    break
                np.copyto(edge, np.where(grow, out, inner), where=grow | shrink)
            else:
                return None
    return lo, hi


#: :data:`RELATIONS` as the codes :func:`relation_number` takes
RELATION_CODES = {op: code for code, op in enumerate(RELATIONS)}


def relation_number(code: int, left: float, right: float, scale: float) -> bool:
    """:func:`relation_holds` for one pair of floats, ``RELATION_CODES[op]`` for ``op`` and the
    ``scale`` given (NaN propagates into it as in :func:`relation_holds`): the same rule in plain
    arithmetic, so that a compiled loop (:mod:`symgpu.sweep.fused`, numba) decides points as the
    array form does."""
    gap = abs(left - right)
    equal = left == right or (gap - gap == 0.0 and gap <= TIE * scale)  # gap - gap == 0: finite
    if code == 0:
        return equal
    if code == 1:
        return not equal
    if code == 2:
        return equal or left > right
    if code == 3:
        return not equal and left > right
    if code == 4:
        return equal or left < right
    return not equal and left < right


def larger_magnitude(a: float, b: float) -> float:
    """``np.maximum(abs(a), abs(b))`` for two floats: NaN when either is NaN."""
    if a != a or b != b:
        return a + b
    return max(abs(a), abs(b))


def binding_index(numbers: Any, kind: str) -> Any:
    """Which argument of a ``Min`` (``kind`` "min") or ``Max`` ("max") binds.

    Args:
        numbers: one row per argument, in the order ties are settled in (a quantity's equation:
            :func:`argument_order`; any other ``Min``/``Max``: ``args``), all in one unit (a sequence of
            floats, or of arrays that broadcast together).

    Returns:
        The index of the first argument within :data:`TIE` of the smallest (``Min``) or
        largest (``Max``) one; -1 where an argument is NaN. An ``int`` for scalar rows, else an
        integer array.
    """
    stack = np.asarray(np.broadcast_arrays(*[np.asarray(n, dtype=float) for n in numbers]), dtype=float)
    with np.errstate(invalid="ignore"):
        best = stack.min(axis=0) if kind == "min" else stack.max(axis=0)  # NaN propagates
        first = np.argmax(tied(stack, best), axis=0)
    chosen = np.where(np.isnan(best), -1, first)
    return int(chosen) if chosen.ndim == 0 else chosen


def binding_order(numbers: Sequence[float], kind: str) -> tuple[int, ...]:
    """Every argument's index, the binding one first, then the one that binds among the rest,
    and so on (:func:`binding_index` applied again); ``()`` when an argument is NaN."""
    left = list(range(len(numbers)))
    order: list[int] = []
    while left:
        index = binding_index([numbers[i] for i in left], kind)
        if index < 0:
            return ()
        order.append(left.pop(index))
    return tuple(order)
