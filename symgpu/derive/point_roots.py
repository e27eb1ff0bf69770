"""At a point, the roots of a regime whose equation has no usable closed form: every input but the
unknown put in as an exact number, the real roots of what is left found exactly, and each regime
condition decided at each; the roots that meet them all are the regime's roots there."""

from __future__ import annotations

from typing import Any

import sympy

from symgpu.derive import at_point, jobs
from symgpu.derive.roots import real_roots
from symgpu.evaluate import scaling

DIGITS = 30  # a root that is no rational number is given to this many digits (CRootOf and Cardano forms print badly)


def roots_here(job: jobs._Job, regime: Any, difference: sympy.Expr, var: sympy.Symbol, point: at_point.Given) -> list[sympy.Expr] | None:
    """The real roots of ``difference = 0`` (a regime's equation, ``var`` unknown) that meet the regime's
    conditions at ``point``, in ``var``'s declared unit (a rational one exact, another to :data:`DIGITS`
    digits), recorded as a step; None where an input has no value there, the roots have no closed form even
    with the numbers in (:func:`symgpu.derive.at_point.pinned`, base units throughout), or a condition is not
    decided at a root (the caller refuses as before). The answer's checks at the point then check each root
    and scan for any it lacks.

    NOTE: Volkov's issue-bound regime with ``Latency = alpha**(3/2)*alu_lat + mem_lat`` is a cubic
    in ``sqrt(alpha)`` whose symbolic roots are Cardano's formula (undecidable, and minutes in every
    step after); at ``maxwell`` with ``n_needed = 40`` its one real root is negative: no root there."""
    at = at_point.with_target(job, point.values)
    made = at_point.pinned(job, difference, var, point.preset, at)
    numbers = None if made is None else made()
    if numbers is None or numbers.free_symbols - {var} or sympy.cancel(numbers) == 0:
        return None  # no value there, or an identity there (every value a root: not a list of roots)
    found = real_roots(numbers, var)
    if found is None:
        return None
    conditions = []
    for cond in regime.raw:
        pinned = at_point.pinned(job, cond.relational, var, point.preset, at)
        relation = None if pinned is None else pinned()
        if relation is None or relation.free_symbols - {var}:
            return None
        conditions.append(relation)
    kept = []
    for root in found:
        if not isinstance(root, sympy.Basic) or root.has(sympy.I) or not root.is_number:
            return None
        verdicts = [c.xreplace({var: root}) for c in conditions]
        if any(v not in (sympy.true, sympy.false) for v in verdicts):
            return None
        if all(v is sympy.true for v in verdicts):
            declared = root / scaling.unit_scale(job.model.units[var.name])
            kept.append(declared if declared.is_Rational else sympy.Float(declared.evalf(DIGITS), DIGITS))
    where = at_point.where_text(point.preset, point.values)
    job.step(f"roots at the point in regime {regime.name}", sympy.Tuple(*kept),
             f"SymPy gives no usable closed form for the roots in regime {regime.name}; at {where} the real roots of the "
             "equation (exact, the numbers put in) " + ("are none" if not found else "that meet its conditions are these" if kept
                                                        else "meet none of its conditions: no root of this regime applies there"))
    return kept
