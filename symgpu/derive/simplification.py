"""The identity operations: a quantity or expression expanded through its equations, substituted and simplified."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.units import dimensions
from symgpu.derive.derivation import Derivation

if TYPE_CHECKING:
    from symgpu.model import Model


def simplify_expression(model: Model, expression: Any, *, substitute: Mapping[str, Any] | None = None,
                        assume: Iterable[Any] | None = None, stop_at: Iterable[str] = ()) -> Derivation:
    """Expand an expression's defined quantities through their equations and simplify it.

    ``expression`` is text (parsed by the model's safe parser) or a SymPy expression. The
    result carries no unit check of its own (the expression need not be a declared symbol);
    its dimension is recorded in ``extra.dimension``.
    """
    job, ctx = jobs.start(model, "simplify", expression, assume=assume)
    expr, _ = job.quantity_expression(expression, substitute, stop_at)
    result = ctx.nice(expr)
    if result != expr:
        job.step("simplify", result, "sympy.simplify (constants with positive values known positive)")
    try:
        job.extra = job.extra.with_(dimension=dimensions.show(dimensions.settle(dimensions.dimension_of(result, job.dims()))))
    except dimensions.Mismatch as exc:
        raise errors.DerivationError(f"{model.id}: '{sympy.sstr(expr)}' is dimensionally inconsistent: {exc.problem}") from None
    return job.finish(result, "", used=[expr])


def substitute(model: Model, quantity: Any, substitute: Mapping[str, Any] | None = None, *,
               assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), case: str | None = None) -> Derivation:
    """A quantity in terms of inputs (quantities in ``stop_at`` kept as symbols), with the
    substitutions ``substitute`` (name -> expression) applied, simplified; ``case`` picks one
    case of a quantity defined by cases."""
    job, ctx = jobs.start(model, "substitute", quantity, assume=assume)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at, case=case)
    result = ctx.nice(expr)
    if result != expr:
        job.step("simplify", sympy.Eq(lhs, result, evaluate=False) if lhs is not None else result,
                 "sympy.simplify (constants with positive values known positive)")
    unit = job.check_unit(result, job.quantity, "result") if job.quantity in model.symbols else ""
    return job.finish(result, unit, used=[expr])
