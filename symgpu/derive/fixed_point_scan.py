"""Every root of ``x = g(x)`` at a point, where no single bracket of the domain holds exactly one: the bracket
(the domain, narrowed by ``--assume`` bounds on x), a log-spaced scan of it for changes of sign of ``x - g(x)``,
each refined by ``mpmath.findroot``, and each root's stability (``|g'(x)| < 1``: the iteration x <- g(x) settles
there). Numbers are in the registry's base units; messages give them in x's declared unit."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy

from symgpu import errors
from symgpu.derive import jobs, results

#: points per decade of the scan (a root pair closer than a factor 10**(1/POINTS_PER_DECADE) may be missed: a tangent
#: root, where x - g(x) touches 0 without a change of sign, always is)
POINTS_PER_DECADE = 40
#: decades scanned where the bracket has an open end: from 1e-30 base units (an open end at 0) and to 1e30 base units
#: (or 1e30 times a finite low end above 1); an open end at 0 below a finite high end: 2*DECADES decades below it
DECADES = 30


@dataclass(frozen=True)
class Bracket:
    """Where the roots are sought, in base units: ``low`` < x < ``high`` (``-inf``/``inf`` for an open end),
    and what set each end (``the declared sign``, ``the pole of g``, ``--assume theta >= 50``)."""

    low: Any
    high: Any
    low_from: str
    high_from: str


@dataclass(frozen=True)
class FixedPoint:
    """One root of ``x = g(x)``: its value in base units and the slope ``g'(x)`` there."""

    value: Any
    slope: Any

    @property
    def stable(self) -> bool:
        """Does the iteration x <- g(x) settle here (``|g'(x)| < 1``)?"""
        return bool(abs(self.slope) < 1)


def bracket(job: jobs._Job, x: sympy.Symbol, low: Any, high: Any, high_from: str, preset: str | None,
            values: Mapping[str, Any], x_scale: sympy.Rational) -> Bracket:
    """The domain ``(low, high)`` (base units) narrowed by every ``--assume`` relation ``x >= c``, ``x <= c`` (either
    way round) whose ``c`` has a value at the point (read in x's declared unit, as the relation reads it)."""
    out = Bracket(low, high, "the declared sign" if low == 0 else "no declared sign", high_from)
    for relation in job.assumed:
        if not isinstance(relation, sympy.core.relational.Relational) or x not in relation.free_symbols:
            continue
        if relation.lhs == x and x not in relation.rhs.free_symbols:
            side, other, below = relation.rhs, relation.lhs, isinstance(relation, (sympy.LessThan, sympy.StrictLessThan))
        elif relation.rhs == x and x not in relation.lhs.free_symbols:
            side, other, below = relation.lhs, relation.rhs, isinstance(relation, (sympy.GreaterThan, sympy.StrictGreaterThan))
        else:
            continue
        if not isinstance(relation, (sympy.LessThan, sympy.StrictLessThan, sympy.GreaterThan, sympy.StrictGreaterThan)) or other != x:
            continue
        try:
            bound = mpmath.mpf(float(side)) if side.is_number else mpmath.mpf(results._evaluate(job.model, side, preset, values, job.model.unit_text(x.name)))
        except (errors.SymgpuError, TypeError, ValueError):
            continue
        bound *= mpmath.mpf(sympy.N(x_scale, 40))
        said = f"--assume {x} {'<=' if below else '>='} {shown(bound, x_scale, job.model.unit_text(x.name))}"
        if below and bound < out.high:
            out = Bracket(out.low, bound, out.low_from, said)
        elif not below and bound > out.low:
            out = Bracket(bound, out.high, said, out.high_from)
    return out


def _points(low: Any, high: Any) -> list[Any]:
    """Log-spaced points strictly inside ``(low, high)`` (base units), ``POINTS_PER_DECADE`` a decade; a side
    below 0 mirrored, 0 itself where it is inside."""
    def spaced(a: Any, b: Any) -> list[Any]:  # 0 <= a < b, either end possibly open (0 or inf)
        start = a if a > 0 else (b * mpmath.mpf(10) ** -(2 * DECADES) if b < mpmath.inf else mpmath.mpf(10) ** -DECADES)
        stop = b if b < mpmath.inf else max(start, mpmath.mpf(1)) * mpmath.mpf(10) ** DECADES
        count = max(2, int(mpmath.ceil(mpmath.log10(stop / start) * POINTS_PER_DECADE)) + 1)
        ratio = (stop / start) ** (mpmath.mpf(1) / (count - 1))
        inner = [start * ratio ** k for k in range(count)]
        tiny = mpmath.mpf(10) ** -30
        inner[0] = start * (1 + tiny) if a > 0 else inner[0]
        inner[-1] = stop * (1 - tiny) if b < mpmath.inf else inner[-1]
        return inner
    if low >= 0:
        return spaced(low, high)
    if high <= 0:
        return [-p for p in reversed(spaced(-high, -low))]
    return [-p for p in reversed(spaced(mpmath.mpf(0), -low))] + [mpmath.mpf(0)] + spaced(mpmath.mpf(0), high)


def fixed_points(f: Callable[[Any], Any], slope: Callable[[Any], Any], where: Bracket,
                 attained: Callable[[Any, Any], bool] | None = None) -> tuple[list[FixedPoint], list[Any], list[Any]]:
    """Every root of ``f = x - g(x)`` the scan of ``where`` brackets (changes of sign between neighbouring points
    where f has a real value, refined by ``findroot``; a change of sign across a pole or a jump, where f does not
    vanish, is no root: :func:`crossing`, unless ``attained(low, high)`` says the jump's edge between the bisected ends
    belongs to the side where ``f`` vanishes), each with ``g'`` there (``slope``), the points scanned, and the scan points
    after which ``f`` changes sign without vanishing (a jump or a pole: no root)."""
    points = _points(where.low, where.high)
    found: list[Any] = []
    jumps: list[Any] = []
    with mpmath.workdps(40):
        last: tuple[Any, Any] | None = None
        for p in points:
            try:
                value = f(p)
                if not mpmath.isfinite(value) or mpmath.im(value) != 0:
                    raise ValueError
                value = mpmath.re(value)
            except (ValueError, ZeroDivisionError, TypeError):
                last = None
                continue
            if value == 0:
                found.append(p)
            elif last is not None and last[1] != 0 and (last[1] < 0) != (value < 0):
                try:
                    root = mpmath.findroot(f, (last[0], p), solver="anderson", tol=mpmath.mpf(10) ** -35)
                except (ValueError, ZeroDivisionError):
                    root = None
                if root is not None and mpmath.im(root) == 0 and last[0] <= mpmath.re(root) <= p \
                        and abs(f(mpmath.re(root))) <= mpmath.mpf(10) ** -20 * max(abs(mpmath.re(root)), mpmath.mpf(10) ** -30):
                    ends = bisected(f, last[0], last[1], p, value)
                    if ends is not None and (vanishes(ends) or (attained is not None and attained(ends[0], ends[2]))):
                        found.append(mpmath.re(root))
                    else:
                        jumps.append(last[0])
            last = (p, value)
        roots = [FixedPoint(r, mpmath.re(slope(r))) for r in found]
    return roots, points, jumps


#: halvings :func:`crossing` makes at most (a bracket of neighbouring scan points, a factor 10**(1/40) apart, reaches
#: its relative width of 1e-30 in about 95; an end at 0 never does)
BISECTIONS = 200


def crossing(f: Callable[[Any], Any], low: Any, f_low: Any, high: Any, f_high: Any) -> Any | None:
    """Where ``f`` crosses 0 between ``low`` and ``high`` (``f_low``, ``f_high``: its values there, of opposite signs):
    the middle of :func:`bisected`'s last bracket; None where ``f`` does not vanish there, its magnitude at an end of
    that bracket above 1e-10 of the ends' (a jump of a case table or a staircase, ``x - ceiling(q/t)*t3`` changing sign
    from -810000 to +1e-17 us, or a pole), or where it has no real value at a midpoint. A continuous ``f`` is within its
    slope times the width of 0 at both ends."""
    ends = bisected(f, low, f_low, high, f_high)
    return None if ends is None or not vanishes(ends) else (ends[0] + ends[2]) / 2


def bisected(f: Callable[[Any], Any], low: Any, f_low: Any, high: Any, f_high: Any) -> tuple[Any, Any, Any, Any] | None:
    """The bracket ``(low, f_low, high, f_high)`` of a change of sign of ``f``, bisected at 40 digits, each half kept where
    the sign changes, down to a relative width of 1e-30 (or a midpoint where ``f`` is 0, both ends); None where ``f`` has
    no real value at a midpoint."""
    with mpmath.workdps(40):
        low, high, f_low, f_high = mpmath.mpf(low), mpmath.mpf(high), mpmath.re(f_low), mpmath.re(f_high)
        for _ in range(BISECTIONS):
            if high - low <= mpmath.mpf(10) ** -30 * max(abs(low), abs(high)):
                break
            middle = (low + high) / 2
            try:
                value = f(middle)
            except (ValueError, ZeroDivisionError, TypeError):
                return None
            if not mpmath.isfinite(value) or mpmath.im(value) != 0:
                return None
            value = mpmath.re(value)
            if value == 0:
                return middle, value, middle, value
            if (value < 0) == (f_low < 0):
                low, f_low = middle, value
            else:
                high, f_high = middle, value
        return low, f_low, high, f_high


def vanishes(ends: tuple[Any, Any, Any, Any]) -> bool:
    """Whether ``f`` is within 1e-10 of the ends' magnitude of 0 at both ends of a bisected bracket."""
    low, f_low, high, f_high = ends
    near = mpmath.mpf(10) ** -10 * max(abs(low), abs(high), mpmath.mpf(10) ** -30)
    return bool(abs(f_low) <= near and abs(f_high) <= near)


def with_bound(found: list[FixedPoint], f: Callable[[Any], Any], slope: Callable[[Any], Any], bound: Any, low: Any, high: Any) -> list[FixedPoint]:
    """The fixed points of ``x = Min(g(x), K)`` (``K = bound``; None: no bound, ``found`` as it is) in ``(low, high)``
    from ``found``, every root of ``x = g(x)`` there: ``x - Min(g(x), K) = Max(x - g(x), x - K)`` vanishes at a root
    ``r <= K`` of ``x - g(x)``, and at ``K`` itself where ``x - g(x) <= 0`` there; nowhere else. ``K`` where ``g(K) > K``
    has slope 0 (the Min is ``K`` around it: stable)."""
    if bound is None:
        return found
    near = mpmath.mpf(10) ** -12 * max(abs(bound), mpmath.mpf(10) ** -300)
    kept = [p for p in found if p.value <= bound + near]
    if low < bound < high and not any(abs(p.value - bound) <= near for p in kept):
        with mpmath.workdps(40):
            try:
                gap = mpmath.re(f(bound))
            except (ValueError, ZeroDivisionError, TypeError):
                gap = None
            if gap is not None and mpmath.isfinite(gap) and gap <= mpmath.mpf(10) ** -25 * abs(bound):
                kept.append(FixedPoint(bound, mpmath.mpf(0) if gap < 0 else mpmath.re(slope(bound))))
    return sorted(kept, key=lambda p: p.value)


def shown(value: Any, scale: sympy.Rational, unit: str) -> str:
    """A base-unit number in x's declared unit, for messages (``inf`` for an open end)."""
    if not mpmath.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return f"{float(value / mpmath.mpf(sympy.N(scale, 40))):.10g} {unit}"
