"""The poles at the ends of a domain bounded by a ``Min`` (``Max``): ``x < Min(a, b, c)``.

volkov_2016_h100's ``Latency_h100 = latency_unloaded_h100 + b*x/(capacity_h100 - x)``, valid when ``x < capacity_h100``,
the capacity a ``Min`` of three bounds: :func:`symgpu.derive.extremum_domain.open_ends` found no edge of the condition as
written (``x = Min(...)`` is no root SymPy reads), so the latency's growth without bound towards its pole went unseen and
``x = 0`` was said to be its maximum (a check failure, after minutes of regime pairs that never switch along ``x``).

Here the condition is read as ``x < a`` and ``x < b`` and ``x < c`` (the same condition), each an edge of the domain where its
argument binds (:func:`symgpu.derive.extremum_domain.strict_edges`: ``a <= b``, ``a <= c`` at the edge ``x = a``). At each
edge the regimes those conditions do not refute (the regimes of that bound) are read: where each tends to an infinity
``s*oo*sign(q)`` there, an :class:`~symgpu.derive.extremum_domain.OpenEnd` of that infinity is approached where the edge's
conditions and the sign of ``q`` hold (no maximum there for ``+oo``); an edge where one of them tends to a finite value or
its limit is not taken adds nothing (the certificate's scan still covers it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from symgpu.derive import extremum_domain, jobs
from symgpu.derive.extremum_domain import OpenEnd, _limit
from symgpu.derive.limit_forms import signed_infinity


def split(relation: sympy.Basic) -> list[sympy.Basic]:
    """``x < Min(a, b)`` as ``x < a`` and ``x < b`` (``Max(a, b) < x`` alike, ``<=`` too; ``>`` with ``Max`` on the right
    or ``Min`` on the left): the same condition; any other relation as it is."""
    if not isinstance(relation, sympy.core.relational.Relational):
        return [relation]
    lhs, rhs = relation.lhs, relation.rhs
    below = isinstance(relation, (sympy.LessThan, sympy.StrictLessThan))
    above = isinstance(relation, (sympy.GreaterThan, sympy.StrictGreaterThan))
    if below and isinstance(rhs, sympy.Min) or above and isinstance(rhs, sympy.Max):
        return [relation.func(lhs, a, evaluate=False) for a in rhs.args]
    if below and isinstance(lhs, sympy.Max) or above and isinstance(lhs, sympy.Min):
        return [relation.func(a, rhs, evaluate=False) for a in lhs.args]
    return [relation]


_CLOSED = {sympy.StrictLessThan: sympy.LessThan, sympy.StrictGreaterThan: sympy.GreaterThan}


def _closed(relation: sympy.Basic) -> sympy.Basic:
    """``a < b`` as ``a <= b`` (``>`` alike): a condition that does not end the domain at its edge."""
    made = _CLOSED.get(type(relation))
    return made(relation.lhs, relation.rhs, evaluate=False) if made is not None else relation


def ends(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, domain: Sequence[sympy.Basic]) -> list[OpenEnd]:
    """The infinities approached at the edges of the domain's ``Min``/``Max`` conditions (see the module notes), each
    recorded as a step; none where the domain has no such condition."""
    assert job.ctx is not None
    found: list[OpenEnd] = []
    for condition in domain:
        parts = split(condition)
        bound = condition.rhs if condition.lhs == var else condition.lhs
        if len(parts) == 1 or not isinstance(bound, (sympy.Min, sympy.Max)) or bound not in expr.atoms(sympy.Min, sympy.Max):
            continue
        others = [_closed(c) for c in domain if c is not condition]
        for index, (part, argument) in enumerate(zip(parts, bound.args)):
            # the edge of x < a_i where a_i is the least: the other arguments and conditions closed (not ends here)
            alone = [*others, *(_closed(p) for k, p in enumerate(parts) if k != index), part]
            there = expr.xreplace({bound: argument})  # the quantity where a_i binds
            for point, direction, when in extremum_domain.strict_edges(job, alone, var):
                for value, side in _signed(job, there, var, point, direction):
                    end = OpenEnd(point, value, (*when, *side), side=direction)
                    if end in found:
                        continue
                    found.append(end)
                    job.step("open end", sympy.Eq(sympy.Symbol(f"lim_{var}->{sympy.sstr(point)}"), value),
                             f"as {var} -> {sympy.sstr(point)} (the edge of the domain where {sympy.sstr(argument)} is the least of "
                             f"{sympy.sstr(bound)}) the quantity tends to {sympy.sstr(value)} where {', '.join(map(sympy.sstr, end.when))}")
    return found


def _signed(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str
            ) -> list[tuple[sympy.Expr, tuple[sympy.Basic, ...]]]:
    """The infinity ``expr`` tends to at the edge, with where (the sign of its factor, where not proved); none where it
    tends to no infinity of the form ``s*oo*sign(q)`` (a finite end adds nothing: the certificate's scan covers it)."""
    assert job.ctx is not None
    signed = signed_infinity(_limit(expr, var, point, direction), var)
    if signed is None:
        return []
    q, s = signed
    sign = job.ctx.sign(q)
    if sign in (1, -1):
        return [(sympy.oo if s * sign == 1 else -sympy.oo, ())]
    sides = [(sympy.oo if s == 1 else -sympy.oo, sympy.StrictGreaterThan(q, 0)), (-sympy.oo if s == 1 else sympy.oo, sympy.StrictLessThan(q, 0))]
    return [(value, (job.ctx.tidy(side),)) for value, side in sides if job.ctx.decide(side) is not False]  # b < 0 of b >= 0: none

