"""Conditions on a case table, as plain And/Or of relations.

A case condition that compares a quantity which is itself a case table (``q0 >= 1.8``, ``q0`` of two cases)
becomes SymPy's ``ITE(c, a, b)`` once ``q0`` is put in (``Piecewise`` builds it from a relation with a
``Piecewise`` side). :func:`plain` reads every such ``ITE`` of an expanded quantity as ``(c & a) | (~c & b)``,
with each ``Not`` pushed into its relations (:func:`as_cases`), so every reader of conditions (regimes, limits,
boundaries, extrema, the evaluator, sweeps) meets And/Or of relations alone. Exact: the same truth value at
every point (``tests/test_an_ite_condition_expands_to_its_cases_exactly.py`` checks it as propositional logic and on a
grid)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from symgpu.model import substitution
from symgpu.proofs import forms


def as_cases(condition: Any, negate: bool = False, each: Callable[[Any], Any] | None = None) -> Any:
    """``condition`` (``not condition`` where ``negate``) with every ``ITE(c, a, b)`` in it read as ``(c & a) | (~c & b)``
    and every ``Not`` pushed into its relations (``~(x <= y)`` is ``x > y``), ``each`` applied to every relation (a
    plateau's edge closes them); ``condition`` as it is where it holds no ``ITE`` and neither is asked. Exact (``each``
    aside): the same truth value at every point."""
    if not negate and each is None and not (isinstance(condition, sympy.Basic) and condition.has(sympy.ITE)):
        return condition
    if isinstance(condition, sympy.ITE):
        test, then, otherwise = condition.args
        return sympy.Or(sympy.And(as_cases(test, False, each), as_cases(then, negate, each)),
                        sympy.And(as_cases(test, True, each), as_cases(otherwise, negate, each)))
    if isinstance(condition, sympy.Not):
        return as_cases(condition.args[0], not negate, each)
    if isinstance(condition, (sympy.And, sympy.Or)):
        joined = condition.func if not negate else (sympy.Or if isinstance(condition, sympy.And) else sympy.And)
        return joined(*[as_cases(part, negate, each) for part in condition.args])
    out = sympy.Not(condition) if negate else condition
    return each(out) if each is not None and isinstance(out, sympy.core.relational.Relational) else out


def plain(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with every ``ITE`` in it read by :func:`as_cases` (each node above it rebuilt as
    :func:`substitution.xreplace` rebuilds it); ``expr`` itself where it holds none."""
    found = forms.atoms(expr, sympy.ITE)
    if not found:
        return expr
    return substitution.xreplace(expr, {ite: as_cases(ite) for ite in found})
