"""Where an extremum at a point holds over a whole stretch of the variable, not at one point: the stretch, for the
short answer to say (``extremum hong_kim_2009 CWP --over N --max --preset gtx280+tiled_matmul`` named N = 77.8 as "the"
maximiser, while CWP = Min(CWP_full, N) is 77.8 for every N >= 77.8: its computation_bound regime does not depend on N).

The stretch is read from the answer's plateau candidates (a regime whose value does not depend on the variable, a
candidate at each edge of its conditions, :func:`symgpu.derive.extremum_domain.plateau_candidates`): the plateau whose
value at the point is the extremum and one of whose edges is the answer's location. On each side of the location, up
to the plateau's next edge (or the end of the variable's declared range), the model's own evaluation at points inside
decides whether the quantity keeps the extremum's value there (between two edges of a regime its conditions do not
change, so the plateau holds on all of it or on none); a side that any point leaves, or where the model gives no value,
is not claimed. Nothing is claimed where the question rewrote the quantity (``--substitute``, ``--omit``, ``--assume``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import declared_range
from symgpu.derive.extremum_domain import PLATEAU
from symgpu.evaluate import evaluator

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.model import Model

#: relative difference under which two values at the point are the same value (the plateau's, the extremum's)
SAME = 1e-12
#: where inside a side (as fractions of the way from the location to the side's end) the quantity is evaluated
INSIDE = (0.25, 0.5, 0.75)
#: how far (in multiples of max(|location|, 1)) beyond the location the quantity is evaluated on an unbounded side
BEYOND = (0.5, 10.0, 1000.0)


@dataclass(frozen=True)
class FlatStretch:
    """The stretch of the variable over which the extremum's value holds at the point.

    Attributes:
        low: its lower end, in the variable's declared unit (``-inf`` where unbounded).
        high: its upper end (``inf`` where unbounded).
        low_open: whether ``low`` itself is left out (an infinite end, or 0 of a variable declared positive).
        regime: the regime whose value does not depend on the variable there.
    """

    low: float
    high: float
    low_open: bool
    regime: str

    def text(self, variable: str, unit: str, kind: str, location: float) -> str:
        """``flat: the maximum holds for every N >= 77.82 warp/SM (...)``: the line the short answer prints."""
        shown = "" if unit in ("", "1") else f" {unit}"
        if math.isinf(self.high) and not math.isinf(self.low) and not self.low_open:
            where = f"every {variable} >= {self.low:.10g}{shown}"
        elif math.isinf(self.high) and not math.isinf(self.low):
            where = f"every {variable} > {self.low:.10g}{shown}"
        else:
            left = "(" if self.low_open else "["
            high = "oo" if math.isinf(self.high) else f"{self.high:.10g}"
            low = "-oo" if math.isinf(self.low) else f"{self.low:.10g}"
            where = f"every {variable} in {left}{low}, {high}{')' if math.isinf(self.high) else ']'}{shown}"
        return (f"flat: the {kind}imum holds for {where}, not only at {variable} = {location:.10g}: there {self.regime} "
                f"binds and does not depend on {variable}, so each of them is a {kind}imiser")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the ends (``null`` where unbounded), whether the lower one is left out, the regime."""
        return {"low": None if math.isinf(self.low) else self.low, "high": None if math.isinf(self.high) else self.high,
                "low_open": self.low_open, "regime": self.regime}


def of(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> FlatStretch | None:
    """The stretch over which an extremum at a point holds (:class:`FlatStretch`), or None: not an extremum at a point
    with a location and value there, no plateau of that value has the location as an edge, or neither side of it keeps
    the value. The caller leaves out a question that rewrote the quantity."""
    extra = derivation.extra
    location, value = extra.location_at, extra.value_at
    if derivation.operation != "extremum" or not extra.candidates or derivation.quantity not in model.defining \
            or not isinstance(location, (int, float)) or not isinstance(value, (int, float)) \
            or not math.isfinite(location) or not math.isfinite(value):
        return None
    variable = derivation.variable
    edges: dict[str, list[float]] = {}
    for candidate in extra.candidates:
        if not candidate.origin.startswith(f"{PLATEAU} "):
            continue
        at = _at(model, candidate.value, preset, values, model.unit_text(derivation.quantity))
        edge = _at(model, candidate.location, preset, values, model.unit_text(variable))
        if at is not None and edge is not None and _same(at, float(value)):
            edges.setdefault(candidate.origin[len(PLATEAU) + 1:], []).append(edge)
    declared = declared_range.of(model, variable)
    floor = 0.0 if declared.word else -math.inf
    for regime, found in edges.items():
        if not any(_same(e, float(location)) for e in found):
            continue
        x = float(location)
        below = max((e for e in found if e < x and not _same(e, x)), default=floor)
        above = min((e for e in found if e > x and not _same(e, x)), default=math.inf)
        keep = (model, derivation.quantity, variable, preset, values, float(value), declared.integer)
        low = below if below < x and _keeps(*keep, x, below, end_counts=below != floor or declared.word == "nonnegative") else x
        high = above if _keeps(*keep, x, above, end_counts=True) else x
        if low < x or high > x:
            return FlatStretch(low, high, low == floor and (math.isinf(floor) or declared.word == "positive"), regime)
    return None


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SAME)  # a == b, or |a - b| <= SAME * max(|a|, |b|)


def _at(model: Model, expr: Any, preset: str | None, values: Mapping[str, Any], unit: str) -> float | None:
    """``expr`` at the point, in ``unit``; None where it has no finite value there."""
    if not isinstance(expr, sympy.Basic):
        return None
    try:
        number = float(evaluator.evaluate_expression(model, expr, unit or None, preset=preset, values=values).magnitude)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _keeps(model: Model, quantity: str, variable: str, preset: str | None, values: Mapping[str, Any], value: float,
           integer: bool, x: float, end: float, *, end_counts: bool) -> bool:
    """Whether the quantity keeps ``value`` at the points inside ``x`` .. ``end`` (and at a finite ``end`` that counts),
    by the model's own evaluation; False where it has no value at one of them or the side is empty."""
    if end == x:
        return False
    if math.isinf(end):
        points = [x + math.copysign(max(abs(x), 1.0) * f, end) for f in BEYOND]
    else:
        points = [x + (end - x) * f for f in INSIDE] + ([end] if end_counts else [])
    if integer:
        points = sorted({float(round(p)) for p in points} - {x})
    if not points:
        return False
    for t in points:
        try:
            got = float(evaluator.evaluate(model, quantity, preset=preset, values={**values, variable: t}).magnitude)
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            return False
        if not _same(got, value):
            return False
    return True
