"""At a point, a regime whose equation has no usable closed form is left out where the numbers show
that none of its roots meets its conditions there: every input but the unknown put in as an exact
number, the real roots of what is left found exactly, and each regime condition decided at each."""

from __future__ import annotations

from typing import Any

import sympy

from symgpu.derive import at_point, jobs
from symgpu.derive.roots import real_roots


def none_applies(job: jobs._Job, regime: Any, difference: sympy.Expr, var: sympy.Symbol, point: at_point.Given) -> bool:
    """Does no real root of ``difference = 0`` (a regime's equation, ``var`` unknown) meet the
    regime's conditions at ``point``? True only where every root is found exactly with the numbers
    in (:func:`symgpu.derive.at_point.pinned`, base units throughout) and each of them fails a
    condition, decided in exact arithmetic; then a step says so. False where an input has no value
    there, the roots have no closed form even with the numbers in, or a condition is not decided
    (the caller refuses as before).

    NOTE: Volkov's issue-bound regime with ``Latency = alpha**(3/2)*alu_lat + mem_lat`` is a cubic
    in ``sqrt(alpha)`` whose symbolic roots are Cardano's formula (undecidable, and minutes in every
    step after); at ``maxwell`` with ``n_needed = 40`` its one real root is negative: no root there."""
    rule = {job.target_value[0]: job.target_value[1]} if job.target_value is not None else {}
    made = at_point.pinned(job, difference.xreplace(rule), var, point.preset, point.values)
    numbers = None if made is None else made()
    if numbers is None or numbers.free_symbols - {var}:
        return False
    found = real_roots(numbers, var)
    if found is None:
        return False
    conditions = []
    for cond in regime.raw:
        pinned = at_point.pinned(job, cond.relational.xreplace(rule), var, point.preset, point.values)
        relation = None if pinned is None else pinned()
        if relation is None or relation.free_symbols - {var}:
            return False
        conditions.append(relation)
    for root in found:
        if not isinstance(root, sympy.Basic) or root.has(sympy.I):
            return False
        verdicts = [c.xreplace({var: root}) for c in conditions]
        if any(v not in (sympy.true, sympy.false) for v in verdicts):
            return False
        if all(v is sympy.true for v in verdicts):
            return False
    job.step(f"no root in regime {regime.name}", sympy.Tuple(*found),
             f"SymPy gives no usable closed form for the roots in regime {regime.name}; at {at_point.where_text(point.preset, point.values)} "
             "the real roots of the equation (exact, the numbers put in) " + ("meet none of its conditions" if found else "are none")
             + ": no root of this regime applies there")
    return True
