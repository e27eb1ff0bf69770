"""An extremum over a variable declared integer, at a point: the whole values beside every real candidate.

The real candidates (critical points, cusps, case edges, plateau edges, the domain's ends) bound the
stretches where the quantity is monotone; over the integers its extremum on such a stretch lies at a
whole value next to one of its ends. So the candidates over the integers are the floor and ceiling of
each real candidate's location that lies inside the domain, the smallest whole value of the declared
range, and the whole values next to each finite open end, each valued exactly (an outside tester's
finding, round 14b F1: ``Min(3n, 41 - 2n)`` answered 123/5 at n = 41/5; right 24 at n = 8).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs
from symgpu.derive.extremum_domain import Candidate, OpenEnd
from symgpu.evaluate import active, evaluator, scaling

#: origin of a whole-valued candidate (``extra.candidates`` and the step name it)
WHOLE = "whole value beside"


def declared_integer(job: jobs._Job, var: sympy.Symbol) -> bool:
    """Is ``var`` declared integer in the model (``assumptions = ["integer"]``)?"""
    definition = job.model.symbol_definitions.get(var.name)
    return definition is not None and "integer" in definition.assumptions


def whole_candidates(job: jobs._Job, candidates: Sequence[Candidate], ends: Sequence[OpenEnd], domain: Sequence[sympy.Basic],
                     var: sympy.Symbol, at_values: Callable[[], sympy.Expr], preset: str | None,
                     values: Mapping[str, Any]) -> list[Candidate]:
    """The candidates over the whole values of ``var`` at the point: the floor and ceiling of each real candidate
    that holds there, of each finite open end, and the smallest whole value the declared sign admits; each one
    inside the domain (declared range, ``valid_when``, ``--assume``) with the quantity's exact value there
    (``at_values``: the quantity in base units with the point's numbers in). Locations and values in base units."""
    model = job.model
    unit = model.unit_text(var.name) or None

    def number(expr: sympy.Expr) -> float:
        try:
            return float(evaluator.evaluate_expression(model, expr, unit, preset=preset, values=values).magnitude)
        except errors.SymgpuError:
            return float("nan")

    def holds(conditions: Sequence[sympy.Basic]) -> bool:
        try:
            return not conditions or active.condition_true(model, sympy.And(*conditions), preset, values)
        except errors.SymgpuError:
            return False

    reals: list[tuple[float, str]] = []
    for cand in candidates:
        if holds(cand.conditions):
            reals.append((number(cand.location), cand.origin))
    for end in ends:
        if not end.cusp and end.point.is_finite and holds(end.when):
            reals.append((number(end.point), "an open end"))
    assumptions = set(model.symbol_definitions[var.name].assumptions)
    if assumptions & {"positive", "nonnegative"}:
        reals.append((1.0 if "positive" in assumptions else 0.0, "the declared range's first whole value"))
    scale = sympy.nsimplify(scaling.symbol_scale(model, var.name))
    quantity = at_values()
    found: dict[int, Candidate] = {}
    for x, origin in reals:
        if not math.isfinite(x):
            continue
        for k in {math.floor(x), math.ceil(x)}:
            if k in found or not _inside(model, domain, var, k, preset, values):
                continue
            base = sympy.Integer(k) * scale
            try:
                value = quantity.xreplace({var: base})
            except (TypeError, ValueError):
                continue
            if value.is_real is not True or value.free_symbols:
                continue
            found[k] = Candidate(base, value, f"{WHOLE} {origin}" if origin.startswith("an ") or origin.startswith("the ")
                                 else f"{WHOLE} the {origin}", ())
    return [found[k] for k in sorted(found)]


def _inside(model: Any, domain: Sequence[sympy.Basic], var: sympy.Symbol, k: int, preset: str | None,
            values: Mapping[str, Any]) -> bool:
    """Whether the whole value ``k`` (in the declared unit) meets every domain condition at the point."""
    for condition in domain:
        placed = condition.xreplace({var: sympy.Integer(k)})
        if placed is sympy.true:
            continue
        if placed is sympy.false:
            return False
        try:
            if not active.condition_true(model, placed, preset, values):
                return False
        except errors.SymgpuError:
            return False
    return True


def at_whole_values(job: jobs._Job, candidates: Sequence[Candidate], ends: Sequence[OpenEnd], domain: Sequence[sympy.Basic],
                    var: sympy.Symbol, expr: sympy.Expr, preset: str | None, values: Mapping[str, Any]
                    ) -> tuple[list[Candidate], list[OpenEnd]] | None:
    """For a variable declared integer where every other input has a number (a preset, values, or none needed): the
    whole-valued candidates and the open ends that still count (the infinite ones: a finite open end is passed by
    whole values, whose values are candidates); None for any other variable or where an input has no number.

    Raises:
        errors.DerivationError: no whole value lies inside the domain at the point."""
    if not declared_integer(job, var):
        return None
    at_values = at_point.pinned(job, expr, var, preset, values)
    if at_values is None:
        return None
    whole = whole_candidates(job, candidates, ends, domain, var, at_values, preset, values)
    if not whole:
        raise errors.DerivationError(
            f"{job.model.id}: {var} is declared integer and no whole value of {var} beside a candidate for the extremum of "
            f"{job.quantity} lies inside its domain at {at_point.where_text(preset, values)}; ask over a grid (--grid START:STOP)")
    job.step("whole values", sympy.Tuple(*(sympy.Eq(var, c.location) for c in whole)),
             f"{var} is declared integer: the floor and ceiling of each real candidate inside the domain, valued exactly")
    return whole, [e for e in ends if not e.cusp and not e.point.is_finite]


def refuse_real_location(job: jobs._Job, var: sympy.Symbol, location: sympy.Expr, kind: str) -> None:
    """Refuse a closed form in symbols over a variable declared integer whose location is not a whole number for every
    input: over the integers the extremum lies at a whole value beside it, which one depending on the inputs.

    Raises:
        errors.DerivationError: so."""
    if declared_integer(job, var) and location.is_integer is not True:
        raise errors.DerivationError(
            f"{job.model.id}: {var} is declared integer, and the {kind}imum of {job.quantity} over real {var} lies at "
            f"{var} = {sympy.sstr(location)}, not a whole number for every input: over the integers it lies at a whole value "
            f"beside a candidate, which one depends on the inputs; ask at a point (--preset, --set) or over a grid (--grid START:STOP)")
