"""The quantity of a ``boundary`` asked with rewrites (``--substitute``, ``--omit``), by which
:func:`symgpu.derive.results.applying_boundaries` decides where it really switches at a point.

The model's own evaluation answers the model as written: with ``eta_M`` substituted by 1 (the preset
gives 0.902) or ``power_bound`` omitted, the rewritten quantity switches at another value of the variable
than the model does. Here the quantity is rewritten as the derivation rewrote it
(:meth:`jobs._Job.quantity_expression`); its regime, :func:`symgpu.evaluate.active.binding`, is read on the
two sides of each value the answer gives (:func:`symgpu.evaluate.active.boundary_sides`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.derive import declared_range, jobs
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class Rewritten:
    """A quantity as ``--substitute``/``--omit`` rewrote it.

    Attributes:
        expression: the quantity in the model's inputs, rewritten.
        domain: the ``valid_when`` conditions on the way to it, in the model's inputs with the same substitutions put in
            (``I*B <= 2*e*P_peak`` with ``e = 1``: the model as written reads the preset's ``e`` there).
    """

    expression: sympy.Basic
    domain: tuple[sympy.Basic, ...]

    def has_value(self, model: Model, variable: str, at: float, preset: str | None, values: Mapping[str, Any]) -> bool:
        """Does the rewritten quantity have a value with ``variable`` at ``at``: ``at`` has the variable's declared sign
        and every condition of :attr:`domain` that can be read there holds (one lacking a value there counts as holding,
        as :func:`symgpu.derive.results.inside_domain` reads a root's)."""
        if declared_range.of(model, variable).failing(np.asarray([at])):
            return False
        return active.conditions_hold(model, self.domain, preset, {**values, variable: at})


def expression(model: Model, quantity: str, variable: str, substitute: Mapping[str, Any] | None,
               omit: Iterable[Any]) -> Rewritten:
    """``quantity`` in the model's inputs with the substitutions put in and the limiters to omit dropped,
    as the derivation rewrote it (every intermediate quantity expanded: at a point each has a value), with its domain
    rewritten alike (the conditions of the equations it still reads: a substituted intermediate's own are gone)."""
    job, _ = jobs.start(model, "boundary", quantity, variable, omit=tuple(omit))
    stop = job.keep((), variable)
    expr, _ = job.quantity_expression(quantity, substitute, stop)
    kept = frozenset(stop) | {name for name in (substitute or {}) if name in model.defining and name != quantity}
    domain = tuple(job.expand(condition, kept, record=False).xreplace(job.substitution)
                   for equation in model.dependencies(quantity, stop_at=kept) for condition in equation.valid_when)
    return Rewritten(expr, domain)
