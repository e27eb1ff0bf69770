"""The certificate of a limit: evaluation along an approach to the limit point tends to the answer (an infinite one
grows without bound, followed deeper by :mod:`symgpu.derive.limit_depth`; a finite one the approach leaves level at
its last step followed on while it stays there: :func:`_further`)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import limit_depth
from symgpu.derive.certify_path import Asked, _admissible, _exact_at, _fail, _Point, _quantity, _result_at, _to_number
from symgpu.derive.derivation import Derivation

if TYPE_CHECKING:
    from symgpu.model import Model


def limit(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """Check a limit at ``point``: the quantity along the approach tends to the answer (module doc); None where the model
    has no value along it."""
    unit = model.units[asked.quantity]
    result = derivation.result
    if not isinstance(result, sympy.Basic):
        raise _fail(model, asked, point, f"the limit is {result!r}, not a value")
    expected = _result_at(model, derivation, result, unit, point, {})
    if np.isnan(expected):
        raise _fail(model, asked, point, "the limit evaluates to nan there (undetermined)")
    to = _to_number(model, asked, point)
    if np.isinf(to):
        approach = np.sign(to) * np.geomspace(1e4, 1e13, 10)
    else:
        side = -1.0 if asked.direction == "-" else 1.0
        approach = to + side * np.geomspace(1e-2, 1e-11, 10) * max(abs(to), 1.0)
    if not all(_admissible(model, asked, point, float(x)) for x in approach[-4:]):
        if asked.direction is not None or np.isinf(to):
            return None  # the model has no value there (its declared range or a valid_when domain): nothing to check it by
        approach = 2 * to - approach  # no side asked: the limit was taken from the side the model has values on
        if not all(_admissible(model, asked, point, float(x)) for x in approach[-4:]):
            return None
        asked = dataclasses.replace(asked, direction="-" if approach[-1] < to else "+")
    with np.errstate(all="ignore"):
        seen = _quantity(model, asked, point, approach)
    tail = seen[-4:]
    if np.isinf(expected):
        grows = _grows(tail, expected)
        beyond = None if grows else limit_depth.grows_beyond(  # a constant left behind only past the approach's last step
            expected, to, -1.0 if asked.direction == "-" else 1.0, tail, lambda xs: _quantity(model, asked, point, xs),
            lambda x: _admissible(model, asked, point, x), lambda xs: _exact_tail(model, asked, point, xs))
        if not grows and beyond is None:
            raise _fail(model, asked, point, f"the answer is {expected} but the quantity approaches {tail[-1]:.10g}")
        return f"the quantity grows without bound as {asked.variable} -> {asked.to}{_side_said(asked, to)}" + \
            (f" (followed on to {asked.variable} = {beyond:.3g}: up to {approach[-1]:.3g} it had not yet grown)" if beyond is not None else "")
    errors_seen = np.abs(tail - expected)
    scale = max(abs(expected), 1e-300)
    if not _tends(tail, expected):  # within 1e-4, or closing tenfold in three decades (0 by c*x)
        if _further(model, asked, point, to, float(approach[-1]), seen[-4:], expected):
            return (f"the quantity at {asked.variable} -> {asked.to}{_side_said(asked, to)} tends to the limit beyond "
                    f"{asked.variable} = {approach[-1]:.4g}, where it is still level")
        exact = _exact_tail(model, asked, point, approach[-4:])
        if exact is None or not np.all(np.abs(exact - expected) <= 1e-4 * scale + 1e-12):
            raise _fail(model, asked, point, f"the answer is {expected:.10g} but the quantity approaches {tail[-1]:.10g} "
                        f"at {asked.variable} = {approach[-1]:.4g}")
        return (f"the quantity at {asked.variable} -> {asked.to} tends to the limit in exact arithmetic (IEEE values lose "
                "their digits to cancellation there)")
    gap = f"within {errors_seen[-1] / scale:.1e}" if expected != 0 else f"within {errors_seen[-1]:.1e} of 0"
    return (f"the quantity at {asked.variable} -> {asked.to}{_side_said(asked, to)} tends to the limit ({gap})"
            if errors_seen[-1] <= 1e-4 * scale + 1e-12 else f"the quantity's gap to the limit at {asked.variable} -> {asked.to} "
            f"shrinks to {errors_seen[-1] / errors_seen[0]:.1e} of itself over the last three decades")


def _grows(tail: np.ndarray, expected: float) -> bool:
    """Do the last values of an approach grow strictly toward the infinite ``expected`` (or are they all infinite)?"""
    return bool(np.all(np.sign(tail) == np.sign(expected)) and (np.all(np.isinf(tail)) or np.all(np.diff(np.abs(tail)) > 0)))


def _tends(tail: np.ndarray, expected: float) -> bool:
    """Do the last values of an approach reach the finite ``expected`` (within 1e-4, relative) or close on it tenfold over
    their three decades, strictly?"""
    gaps = np.abs(tail - expected)
    return bool(np.all(np.isfinite(tail)) and (gaps[-1] <= 1e-4 * max(abs(expected), 1e-300) + 1e-12
                                              or np.all(np.diff(gaps) < 0) and gaps[-1] <= 0.1 * gaps[0]))


def _further(model: Model, asked: Asked, point: _Point, to: float, last: float, tail: np.ndarray, expected: float) -> bool:
    """A finite limit whose approach ends on one value (a constant Min argument still binding at 1e13: gen_13_68's 0): the
    approach goes on a decade at a time (to 1e300, or down to 1e-300 beside 0) while the quantity stays there or moves
    toward ``expected``; the answer holds where four decades in a row then reach it (:func:`_tends`). A step away from
    it, a value that is no number or a point without a value refuse it, as the first decades would. (An infinite limit
    is followed deeper by :mod:`symgpu.derive.limit_depth`.)"""
    if not np.all(tail == tail[0]):
        return False
    decades = np.arange(1, 300)
    if np.isinf(to):
        xs = last * 10.0 ** decades[: 300 - 13]
    else:
        offsets = abs(last - to) * 10.0 ** -decades
        xs = to + np.sign(last - to) * offsets[offsets > abs(to) * 1e-15]
    try:
        with np.errstate(all="ignore"):
            values = _quantity(model, asked, point, xs) if len(xs) else ()
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):  # no number further on: not shown to get there
        return False
    for x, value in zip(xs, values):
        if not _admissible(model, asked, point, float(x)) or np.isnan(value) or abs(value - expected) > abs(tail[-1] - expected):
            return False
        tail = np.append(tail[1:], value)
        if _tends(tail, expected):
            return True
    return False


def _side_said(asked: Asked, to: float) -> str:
    """" from below" / " from above" for a one-sided limit at a finite point, else ""."""
    return "" if np.isinf(to) else {"-": " from below", "+": " from above"}.get(str(asked.direction), "")


def _exact_tail(model: Model, asked: Asked, point: _Point, xs: np.ndarray) -> np.ndarray | None:
    """The quantity at ``xs`` in exact arithmetic (:func:`_exact_at`), where IEEE values drift from a
    limit because cancellation ate their digits; None where one of them is no real number."""
    found = [_exact_at(model, asked, point, float(x)) for x in xs]
    return None if any(v is None or v.imag != 0 for v in found) else np.asarray([v.real for v in found if v is not None])
