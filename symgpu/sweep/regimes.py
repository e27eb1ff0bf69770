"""The active regime of a quantity at every point of a chunk, decided on arrays.

The rule is :mod:`symgpu.evaluate.active`'s (which :func:`~symgpu.evaluate.active.active_regime`
applies at one point), called on arrays: for a top-level ``Min``/``Max`` the binding argument
(:func:`~symgpu.evaluate.active.binding_index`: the first within a relative
:data:`~symgpu.evaluate.active.TIE` of the extreme one) named by
:func:`~symgpu.evaluate.active.argument_labels`; for an equation with cases the first case whose
condition holds, relations compared in base units by
:func:`~symgpu.evaluate.active.relation_holds`. Only the walk over a condition's And/Or/Not (and ``ITE``)
tree is here, so each side is compiled once with the plan's other outputs; the decision on
arrays is :mod:`symgpu.sweep.decide` (re-exported here), which imports no SymPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.evaluate import active
from symgpu.evaluate.active import has_regimes
from symgpu.sweep.decide import RegimeSpec, Tree, decide

if TYPE_CHECKING:
    from symgpu.model import Model

__all__ = ["RegimeSpec", "Tree", "decide", "has_regimes", "regime_outputs", "regime_target"]


def regime_target(model: Model, quantity: str, given: frozenset[str]) -> str:
    """The quantity whose regime ``--regime-of quantity`` reports: ``quantity``, or where it has no regime of its own
    the one quantity nearest in its equations that has (Hong & Kim's ``arithmetic_throughput``: ``Time``, whose cases
    its regimes table names); refused where none is, or several are."""
    if has_regimes(model, quantity):
        return quantity
    sources = active.regime_sources(model, quantity, given)
    if len(sources) != 1:
        raise errors.UsageError(active.no_regime(model, quantity, given) + (" with " + " or ".join(f"--regime-of {s}" for s in sources) if sources else "")
                                + " (or leave --regime-of out)")
    return sources[0]


def regime_outputs(model: Model, quantity: str, expand: Callable[[sympy.Basic], sympy.Basic],
                   add: Callable[[sympy.Basic, Any], int]) -> RegimeSpec:
    """Register the expressions deciding ``quantity``'s regime with ``add(expr, unit) -> index``.

    Raises:
        errors.UsageError: the quantity has neither a Min/Max nor cases.
    """
    equation = model.equation_for(quantity)
    name = equation.definition.defines
    rhs = equation.rhs
    if equation.cases:
        trees = tuple(_tree(expand(case.condition), add) for case in equation.cases)
        return RegimeSpec(name, "cases", tuple(c.id for c in equation.cases), trees)
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        prefix = "min" if isinstance(rhs, sympy.Min) else "max"
        # in the order ties are settled in: the codes index these labels
        precedence = active.argument_order(equation)
        named = active.argument_labels(equation)  # once: each label is an srepr of a limiter
        labels = tuple(named[i] for i in precedence)
        trees = tuple(("arg", add(expand(rhs.args[i]), model.units[name])) for i in precedence)
        return RegimeSpec(name, prefix, labels, trees)
    raise errors.UsageError(active.no_regime(model, name) + " (choose another quantity with --regime-of, or leave it out)")


def _tree(condition: Any, add: Callable[[sympy.Basic, Any], int]) -> Tree:
    if condition in (True, sympy.true):
        return ("const", True)
    if condition in (False, sympy.false):
        return ("const", False)
    if isinstance(condition, (sympy.And, sympy.Or)):
        return ("and" if isinstance(condition, sympy.And) else "or", tuple(_tree(c, add) for c in condition.args))
    if isinstance(condition, sympy.Not):
        return ("not", _tree(condition.args[0], add))
    if isinstance(condition, sympy.ITE):  # a condition on a case table: (test & then) | (~test & otherwise), exactly
        test, then, otherwise = (_tree(c, add) for c in condition.args)
        return ("or", (("and", (test, then)), ("and", (("not", test), otherwise))))
    if not isinstance(condition, sympy.core.relational.Relational) or condition.rel_op not in active.RELATIONS:
        raise errors.EvaluationError(f"cannot evaluate the condition {sympy.sstr(condition)} on a grid")
    op = condition.rel_op
    if condition.lhs.is_number or condition.rhs.is_number:
        # a bare literal is in the declared unit of the other side: the difference scales it
        other = condition.rhs if condition.lhs.is_number else condition.lhs
        left = add(condition.lhs - condition.rhs, None)
        return ("rel", op, left, None, add(other, None))
    return ("rel", op, add(condition.lhs, None), add(condition.rhs, None), None)
