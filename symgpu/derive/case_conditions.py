"""Conditions on a case table: a case condition that compares a quantity which is itself a case table
(``q0 >= 1.8``, ``q0`` of two cases) becomes SymPy's ``ITE(c, a, b)`` once ``q0`` is put in. Read here
exactly as ``(c & a) | (~c & b)`` (:func:`as_cases`), with the ``Not`` pushed into the relations, so a
reader of relations (the closure of a plateau's condition, its edges) sees And/Or of relations alone;
and the edges in a variable of such a condition (:func:`edges`), the roots of its relations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import jobs
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


def edges(job: jobs._Job, condition: sympy.Basic, var: sympy.Symbol) -> list[Any] | None:
    """The edges in ``var`` of a condition on a case table (``ITE(t0 <= 420, 1.8 <= k*t0, 1.8 <= t0)``): where it changes,
    one of its relations does, so the roots of each relation's two sides' difference; None where it holds no ``ITE``,
    one of its relations is no ``<``/``<=``/``>``/``>=``, or one has no root in closed form (the caller refuses it then)."""
    if not condition.has(sympy.ITE):
        return None
    relations = [node for node in sympy.preorder_traversal(condition) if isinstance(node, sympy.core.relational.Relational)]
    if any(isinstance(r, (sympy.Eq, sympy.Ne)) for r in relations):
        return None
    found: list[Any] = []
    for relation in dict.fromkeys(r for r in relations if var in r.free_symbols):
        sides = forms.min_max_branches(relation.lhs - relation.rhs)
        if sides is None:
            return None
        for side in sides:
            try:
                found.extend(jobs._solve_for(job, sympy.Eq(side, 0), var, f"an edge of {sympy.sstr(condition)}"))
            except (errors.DerivationError, ValueError):
                return None
    return list(dict.fromkeys(found))
