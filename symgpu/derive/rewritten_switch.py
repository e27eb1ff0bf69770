"""The quantity of a ``boundary`` asked with rewrites (``--substitute``, ``--omit``), by which
:func:`symgpu.derive.results.applying_boundaries` decides where it really switches at a point.

The model's own evaluation answers the model as written: with ``eta_M`` substituted by 1 (the preset
gives 0.902) or ``power_bound`` omitted, the rewritten quantity switches at another value of the variable
than the model does. Here the quantity is rewritten as the derivation rewrote it
(:meth:`jobs._Job.quantity_expression`); its regime, :func:`symgpu.evaluate.active.binding`, is read on the
two sides of each value the answer gives (:func:`symgpu.evaluate.active.boundary_sides`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.derive import jobs

if TYPE_CHECKING:
    from symgpu.model import Model


def expression(model: Model, quantity: str, variable: str, substitute: Mapping[str, Any] | None,
               omit: Iterable[Any]) -> sympy.Basic:
    """``quantity`` in the model's inputs with the substitutions put in and the limiters to omit dropped,
    as the derivation rewrote it (every intermediate quantity expanded: at a point each has a value)."""
    job, _ = jobs.start(model, "boundary", quantity, variable, omit=tuple(omit))
    expr, _ = job.quantity_expression(quantity, substitute, job.keep((), variable))
    return expr
