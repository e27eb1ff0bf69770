"""Which of a sweep's compiled outputs can never be NaN, proved once per sweep from the axes'
ranges and the fixed values (so the regime decision need not scan every chunk for NaN).

The proof is interval arithmetic over the base-unit expression that the grid function computes
(:func:`symgpu.evaluate.compiler.fused_function`: ``base_expression(expr) / unit_scale(unit)``),
kept sound for floating point: every subexpression's interval holds the double that any order of
evaluation of its operands gives, because

- every interval is finite and at most :data:`LIMIT` in magnitude, and no partial sum or product of
  a node's operands can exceed it (so no operation overflows: no infinity anywhere, hence no
  ``inf - inf``, ``0 * inf`` or ``inf / inf``);
- each result is widened by :data:`SLACK` times the magnitudes its operands can reach, plus
  :data:`TINY` (the rounding of a few hundred operations, underflow included);
- a divisor (a negative power) and the base of a fractional power must lie strictly on one side
  of zero (positive for a fractional power), so there is no ``0 / 0`` and no root of a negative.

A NaN is then impossible: no NaN goes in (the axes and fixed values are checked finite) and no
operation makes one. Anything the proof does not know (a Piecewise, a function other than
floor/ceiling/Abs/Min/Max, a symbolic exponent) gives "not proved" — the chunk is scanned as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.evaluate import scaling

if TYPE_CHECKING:
    from symgpu.model import Model

#: the largest magnitude an interval may reach (doubles overflow near 1.8e308)
LIMIT = 1e300
#: relative widening of each operation's result (rounding: 2**-53 per operation)
SLACK = 1e-12
#: absolute widening (underflow)
TINY = 1e-300


@dataclass(frozen=True)
class Span:
    """A closed interval of reals holding every double a subexpression can take."""

    lo: float
    hi: float

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    def excludes_zero(self) -> bool:
        return self.lo > 0.0 or self.hi < 0.0


def never_nan(expr: sympy.Basic, spans: Mapping[str, Span]) -> bool:
    """Whether ``expr``, evaluated in doubles with each symbol anywhere in its span, cannot be
    NaN (False: not proved)."""
    try:
        return _span(expr, spans) is not None
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return False


def output_never_nan(model: Model, expr: sympy.Basic, unit: Any, spans: Mapping[str, Span]) -> bool:
    """:func:`never_nan` of the output the grid function computes for ``expr`` in ``unit``
    (base units for None), as :func:`symgpu.evaluate.compiler.fused_function` prepares it."""
    based = scaling.base_expression(model, expr)
    if isinstance(based, sympy.logic.boolalg.Boolean) and not isinstance(based, sympy.Expr):
        return False
    return never_nan(based / scaling.unit_scale(unit) if unit is not None else based, spans)


def input_spans(names: Sequence[str], values: Sequence[np.ndarray], scales: Sequence[float],
                fixed: Sequence[tuple[str, float]]) -> dict[str, Span]:
    """The span of each swept symbol (its axis values times its scale to base units, as the sweep
    computes them) and each fixed base-unit value; a symbol with a non-finite value has none."""
    spans: dict[str, Span] = {}
    for name, axis, scale in zip(names, values, scales):
        if axis.size and bool(np.all(np.isfinite(axis))) and math.isfinite(scale):
            spans[name] = _widen(float(np.min(axis)) * scale, float(np.max(axis)) * scale, abs(scale) * float(np.max(np.abs(axis))))
    for name, value in fixed:
        if math.isfinite(value):
            spans[name] = Span(value, value)
    return {k: s for k, s in spans.items() if s.magnitude <= LIMIT}


def _widen(lo: float, hi: float, reach: float) -> Span:
    pad = SLACK * reach + TINY
    return Span(min(lo, hi) - pad, max(lo, hi) + pad)


def _span(expr: Any, spans: Mapping[str, Span]) -> Span | None:
    """The span of ``expr``, or None where a NaN is not ruled out (or a bound passes :data:`LIMIT`)."""
    found = _node(expr, spans)
    return found if found is not None and found.magnitude <= LIMIT else None


def _node(expr: Any, spans: Mapping[str, Span]) -> Span | None:
    if isinstance(expr, sympy.Symbol):
        return spans.get(expr.name)
    if isinstance(expr, (sympy.Number, sympy.NumberSymbol)) and expr.is_real:
        value = float(expr)
        return _widen(value, value, abs(value)) if math.isfinite(value) else None
    parts = [_span(a, spans) for a in expr.args] if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Min, sympy.Max)) else []
    if parts and any(p is None for p in parts):
        return None
    known = [p for p in parts if p is not None]
    if isinstance(expr, sympy.Add):
        reach = sum(p.magnitude for p in known)
        return _widen(sum(p.lo for p in known), sum(p.hi for p in known), reach) if reach <= LIMIT else None
    if isinstance(expr, sympy.Mul):
        return _product(known)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        pick = min if isinstance(expr, sympy.Min) else max
        return Span(pick(p.lo for p in known), pick(p.hi for p in known))
    if isinstance(expr, sympy.Pow):
        return _power(expr, spans)
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        inner = _span(expr.args[0], spans)
        return None if inner is None else Span(math.floor(inner.lo), math.ceil(inner.hi))
    if isinstance(expr, sympy.Abs):
        inner = _span(expr.args[0], spans)
        if inner is None:
            return None
        low = 0.0 if inner.lo <= 0.0 <= inner.hi else min(abs(inner.lo), abs(inner.hi))
        return Span(low, inner.magnitude)
    return None


def _product(factors: Sequence[Span]) -> Span | None:
    """The span of a product, where no partial product of the factors, in any order, leaves
    :data:`LIMIT` (a factor that can be zero makes no NaN: nothing here is infinite)."""
    if math.prod(max(1.0, f.magnitude) for f in factors) > LIMIT:
        return None
    lo = hi = 1.0
    for f in factors:
        corners = (lo * f.lo, lo * f.hi, hi * f.lo, hi * f.hi)
        lo, hi = min(corners), max(corners)
    return _widen(lo, hi, max(abs(lo), abs(hi)))


def _power(expr: sympy.Pow, spans: Mapping[str, Span]) -> Span | None:
    base, exponent = expr.args
    inner = _span(base, spans)
    if inner is None or not isinstance(exponent, sympy.Number) or not exponent.is_real:
        return None
    e = float(exponent)
    if exponent.is_integer:
        k = int(exponent)
        if k == 0:
            return Span(1.0, 1.0)
        if k < 0 and not inner.excludes_zero():
            return None
        raised = _product([inner] * abs(k))
        if raised is None:
            return None
        return raised if k > 0 else _reciprocal(raised)
    if not inner.lo > 0.0:
        return None
    ends = sorted((inner.lo ** e, inner.hi ** e))
    return _widen(ends[0], ends[1], ends[1]) if ends[1] <= LIMIT else None


def _reciprocal(span: Span) -> Span | None:
    if not span.excludes_zero() or min(abs(span.lo), abs(span.hi)) * LIMIT < 1.0:
        return None
    ends = sorted((1.0 / span.lo, 1.0 / span.hi))
    return _widen(ends[0], ends[1], max(abs(ends[0]), abs(ends[1])))
