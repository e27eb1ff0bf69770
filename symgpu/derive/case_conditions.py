"""Conditions on a case table: a case condition that compares a quantity which is itself a case table
(``q0 >= 1.8``, ``q0`` of two cases) becomes SymPy's ``ITE(c, a, b)`` once ``q0`` is put in, which the model
reads as ``(c & a) | (~c & b)`` when it expands the quantity (:mod:`symgpu.model.case_logic`): a condition
made of And/Or/Not of relations. Its edges in a variable (:func:`edges`) are the roots of its relations; the closure of
where such conditions hold together (:func:`closure`) drops the conjunctions of a relation and its negation; a plateau
at an edge where a case table jumps is located beside it (:func:`beside`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs
from symgpu.model import case_logic
from symgpu.proofs import exact_signs, forms


def edges(job: jobs._Job, condition: sympy.Basic, var: sympy.Symbol) -> list[Any] | None:
    """The edges in ``var`` of a condition on a case table (``(t0 <= 420) & (1.8 <= k*t0) | (t0 > 420) & (1.8 <= t0)``): where
    it changes, one of its relations does, so the roots of each relation's two sides' difference; None where it is no
    And/Or/Not, one of its relations is no ``<``/``<=``/``>``/``>=``, or one has no root in closed form (the caller refuses
    it then)."""
    if not isinstance(condition, (sympy.And, sympy.Or, sympy.Not)):
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


#: the most relations whose conditions :func:`closure` writes in disjunctive normal form (exponential in them)
MOST_RELATIONS = 12


def closed(relation: sympy.Basic) -> sympy.Basic:
    """``a > b`` as ``a >= b`` (``<`` as ``<=``), each relation of an And/Or/Not too (a condition on a case table), its
    ``Not`` pushed into the relations first."""
    if isinstance(relation, (sympy.And, sympy.Or, sympy.Not)):
        return case_logic.as_cases(relation, each=closed)
    closing = {sympy.StrictGreaterThan: sympy.GreaterThan, sympy.StrictLessThan: sympy.LessThan}.get(type(relation))
    return closing(relation.lhs, relation.rhs) if closing is not None else relation


def closure(conditions: Sequence[Any]) -> Any | None:
    """Where ``conditions`` hold together, closed (a superset of the closure of that set: a plateau's edge is approached from
    inside it): their And in disjunctive normal form, a conjunction holding a relation and its negation dropped (it holds
    nowhere, while the two closed relations both hold at their edge: ``~(c & a) & ~(~c & b)`` of a condition on a case
    table, closed relation by relation, held at the edge of ``c`` though neither case reaches it), each relation then
    :func:`closed`. None where none of them is an And/Or/Not, or they hold more than :data:`MOST_RELATIONS` relations
    (the caller closes each alone)."""
    if not any(isinstance(c, (sympy.And, sympy.Or, sympy.Not)) for c in conditions):
        return None
    joined = sympy.And(*conditions)
    relations = {node for node in sympy.preorder_traversal(joined) if isinstance(node, sympy.core.relational.Relational)}
    if len(relations) > MOST_RELATIONS:
        return None
    dnf = sympy.to_dnf(joined)
    terms = dnf.args if isinstance(dnf, sympy.Or) else (dnf,)
    return sympy.Or(*[case_logic.as_cases(t, each=closed) for t in terms if not _contradictory(t)])


def _contradictory(term: Any) -> bool:
    """Whether a conjunction holds a relation and its negation (either way round), so holds nowhere."""
    parts = set(term.args) if isinstance(term, sympy.And) else {term}
    return any(isinstance(p, sympy.core.relational.Relational) and (p.negated in parts or p.negated.reversed in parts) for p in parts)


def beside(job: jobs._Job, expr: sympy.Basic | None, var: sympy.Symbol, edge: Any, value: sympy.Expr, edges: Sequence[Any],
           point: at_point.Given | None) -> list[Any]:
    """Where a plateau of ``value`` whose edge is ``edge`` is located there: the edge itself, unless the quantity ``expr``
    jumps at it (put in symbolically, ``expr`` there gives another value: at the ``point``'s exact numbers, or without
    one, every case decided in symbols and the difference nonzero at an exact admissible point; a case that holds beside
    the edge only, ``t1 > 2.1`` at ``t1 = 2.1``, where the other case's value is taken), then points beside it, on the
    plateau where they are: half way to each other edge of the plateau (``edges``), and twice and half the edge. The
    caller keeps those where the plateau's conditions hold (between two edges they do not change), so a point moved
    to is always one where the plateau's value is taken; where no jump is shown, the edge."""
    if expr is None or edge == 0:
        return [edge]
    try:
        there = expr.xreplace({var: edge})
        if point is not None:
            pinned = [at_point.pinned(job, e, var, point.preset, point.values) for e in (there, value)]
            numbers = [None if p is None else p() for p in pinned]
            jumps = not any(n is None or not n.is_number or not n.is_finite for n in numbers) and sympy.Eq(*numbers) is sympy.false
        else:
            gap = there - value
            jumps = not there.has(sympy.Piecewise, sympy.nan, sympy.zoo) and (exact_signs.nonzero_somewhere(gap) if gap.free_symbols
                                                                              else gap.is_zero is False)
    except (TypeError, ValueError, NotImplementedError, errors.SymgpuError):
        return [edge]
    if not jumps:
        return [edge]
    # in symbols, twice and half the edge only: each point moved to is one more candidate every other is compared with in
    # the symbolic answer's Piecewise (half way to each other edge too made a valid_when spike's maximum 1.5 -> 15 s)
    halfway = [(edge + e) / 2 for e in edges if e != edge] if point is not None else []
    return list(dict.fromkeys([*halfway, 2 * edge, edge / 2]))
