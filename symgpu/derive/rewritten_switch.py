"""Where a ``boundary`` asked with rewrites (``--substitute``, ``--omit``) really switches at a point.

:func:`symgpu.derive.results.applying_boundaries` decides a switch from the model's own evaluation,
which answers the model as written: with ``eta_M`` substituted by 1 (the preset gives 0.902) or
``power_bound`` omitted, the rewritten quantity switches at another value of the variable than the
model does. Here the quantity is rewritten as the derivation rewrote it (:meth:`jobs._Job.quantity_expression`)
and its regime, :func:`symgpu.evaluate.active.binding`, is read on the two sides of each value the answer
gives (:func:`symgpu.evaluate.active.boundary_sides`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import declared_range, jobs, results
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.model import Model


def expression(model: Model, quantity: str, variable: str, substitute: Mapping[str, Any] | None,
               omit: Iterable[Any]) -> sympy.Basic:
    """``quantity`` in the model's inputs with the substitutions put in and the limiters to omit dropped,
    as the derivation rewrote it (every intermediate quantity expanded: at a point each has a value)."""
    job, _ = jobs.start(model, "boundary", quantity, variable, omit=tuple(omit))
    expr, _ = job.quantity_expression(quantity, substitute, job.keep((), variable))
    return expr


def applying_boundaries(model: Model, derivation: Derivation, expr: sympy.Basic, preset: str | None,
                        values: Mapping[str, Any]) -> tuple[results.RootValue, ...]:
    """The values of a ``boundary`` answer (:func:`results.boundary_candidates`: roots whose conditions hold
    at the point) where the regime of the rewritten quantity ``expr`` differs just below and just above (or at
    the value itself, for a regime that holds there only); a value where it cannot be read is kept."""
    variable = derivation.variable
    kept = []
    for candidate in results.boundary_candidates(model, derivation, preset, values):
        b = float(candidate.value.magnitude)
        around = active.boundary_sides(model, variable, b)
        if declared_range.of(model, variable).failing(np.asarray([b, *around])):
            continue  # beside it outside the variable's declared range: no switch there
        try:
            sides = [active.binding(model, expr, preset, {**values, variable: x}) for x in around]
            if sides[0] == sides[1] and around[0] != b:
                sides[1] = active.binding(model, expr, preset, {**values, variable: b})
        except errors.DomainError:  # outside a valid_when domain the model gives no value: no boundary there
            continue
        except errors.EvaluationError:  # the point lacks an input the regimes need: not decided here
            kept.append(candidate)
            continue
        if sides[0] != sides[1]:
            kept.append(candidate)
    return tuple(kept)
