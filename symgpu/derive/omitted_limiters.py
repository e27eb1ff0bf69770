"""A request's omitted limiters (``omit``: ``["issue_bound"]``, ``["s4_1_model.issue_bound"]``, read as (equation id or "",
limiter name) pairs): the Min/Max arguments they name left out of an expression, a variant of the model
(:meth:`symgpu.derive.jobs._Job.without_omitted`; the quantity's own expression with a step)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import sympy

from symgpu import errors
from symgpu.derive import regime_conditions
from symgpu.model import substitution
from symgpu.proofs import forms

if TYPE_CHECKING:
    from symgpu.model import Model


def without(model: Model, omit: tuple[tuple[str, str], ...], expand: Callable[[sympy.Basic], sympy.Basic],
            expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with the Min/Max arguments named by ``omit`` dropped (``expr`` itself where none occurs), each limiter's term
    read through ``expand`` (the job's, substituting the defined quantities as ``expr`` has them).

    Raises:
        errors.UsageError: a limiter the model does not have, or one whose omission empties a Min/Max.
    """
    terms: list[sympy.Basic] = []
    for equation_id, name in omit:
        equations = [model.equation_for(equation_id)] if equation_id else list(model.equations.values())
        found = [t for e in equations for n, t in e.limiters if n == name]
        if not found:
            raise errors.UsageError(f"{model.id}: no limiter '{name}'" + (f" in equation {equation_id}" if equation_id else ""))
        terms.extend(expand(t) for t in found)

    def prune(node: sympy.Basic) -> sympy.Basic:
        if isinstance(node, (sympy.Min, sympy.Max)):
            kept = [a for a in node.args if not any(a == t or regime_conditions.cancel_to_zero(a, -t) for t in terms)]
            if not kept:
                raise errors.UsageError(f"{model.id}: omitting {', '.join(n for _, n in omit)} leaves an empty {type(node).__name__}")
            return substitution.min_max(node.func, tuple(prune(a) for a in kept))
        if node.args and forms.has_pieces(node):
            return node.func(*[prune(a) for a in node.args])
        return node

    return prune(expr) if terms else expr
