"""``f(var) REL target`` answered from the roots of ``f(var) = target`` where layer-by-layer inversion
(:mod:`symgpu.derive.inequalities`) cannot isolate ``var`` (Volkov's latency-bound root ``n/(ilp*n + sqrt(...) + ...)``).

At a point (a preset, values): ``f`` has no ``Min``/``Max``/``Piecewise``/staircase and a denominator of proved
sign, so it is continuous over ``var``'s admissible range and ``f - target`` keeps its sign between the crossings.
The equation's closed-form roots are put in at the point's exact numbers; a candidate that does not give the
target there (a root of a squared form: the target beyond ``f``'s asymptote) is none. With one crossing inside
the declared range, the sign of ``f - target`` read exactly at a value on each side of it says which side meets
the relation: the bound is the root. With none, the sign at one value says whether every admissible value meets
it or none. More than one crossing is :class:`SeveralCrossings`: the caller splits the relation at the point's
numbers instead (:mod:`symgpu.derive.inequality_pieces`), deciding each interval between them. Every
number read at the point is an assumption of the answer; the certificate (:mod:`symgpu.derive.certify_bound`)
checks the relation at a scan on both sides of the bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, jobs
from symgpu.proofs import forms

#: the relative residual ``|f(root) - target|`` (exact arithmetic, 30 digits) below which a candidate is a root
RESIDUAL = 1e-12
_DIGITS = 30


class SeveralCrossings(errors.DerivationError):
    """The relation crosses its target more than once inside the declared range at the point: the set where it
    holds (one interval or several, read between the crossings) is for the caller to assemble at the point."""


def by_roots(job: jobs._Job, relation: sympy.Basic, var: sympy.Symbol, preset: str | None,
             values: Mapping[str, Any], question: str = "") -> sympy.Basic:
    """``relation`` (``f REL target``) as ``var REL' root``, or ``sympy.true``/``sympy.false`` where no root lies in the
    admissible range and the relation holds at every admissible value or none. ``question``: the relation as asked, for messages.

    Raises:
        errors.DerivationError: no point is given, ``f`` may be discontinuous in ``var``, the roots are not found,
            or more than one crossing lies in the range (:class:`SeveralCrossings`)."""
    assert job.ctx is not None
    asked = sympy.sstr(relation)
    f, target = relation.lhs, relation.rhs
    if var in target.free_symbols:
        f, target = f - target, sympy.Integer(0)
    denominator = sympy.fraction(sympy.together(f))[1]
    if forms.has_pieces(f) or forms.has_staircase(f, var):
        point = "" if preset is not None or values else ("; ask at a point (--preset, --set), where it is inverted regime by regime "
                                                         "and step by step at the point's numbers")
        raise errors.DerivationError(f"nor is it read from the roots of its equation, since the quantity may jump in {var} (a "
                                     f"floor/ceiling staircase or pieces){point}")
    if job.ctx.sign(denominator) not in (1, -1):
        raise errors.DerivationError(f"nor is it read from the roots of its equation, since the quantity may jump in {var} "
                                     f"(a denominator {sympy.sstr(denominator)} of unproved sign)")
    if preset is None and not values:
        raise errors.DerivationError("at a point (--preset, --set) it is answered from the roots of the equation and the sign "
                                     "between them, read from the point's numbers")
    at = dict(values)
    if job.target_value is not None:
        at[job.target_value[0].name] = job.target_value[1]
    gap = f - target
    made = at_point.pinned(job, gap, var, preset, at)
    if made is None:
        raise errors.DerivationError(f"cannot isolate {var} in {asked}: the point does not give every input a value")
    pinned = made()
    level = at_point.pinned(job, target, var, preset, at)
    target_size = abs(_value(level()) or 0.0) if level is not None else 0.0  # the target's scale, for the residual
    # every candidate, a conditional one too: each is checked at the point's numbers (a missed crossing would be a wrong side)
    candidates = [root for root, _ in jobs._solve_cases(job, sympy.Eq(f, target), var, f"the crossings of {asked}")]
    declared = declared_range.of(job.model, var)
    crossings: list[tuple[sympy.Expr, sympy.Expr]] = []
    for root in candidates:
        place = at_point.pinned(job, root, var, preset, at)
        number = place() if place is not None else None
        if number is None or not number.is_real or not all(bool(r.xreplace({var: number})) for r in declared.relations):
            continue
        residual = _value(pinned.xreplace({var: number}))
        if residual is None or abs(residual) > RESIDUAL * _scale(pinned, var, number, target_size):
            job.step("not a crossing", sympy.Eq(var, root), f"at the point the quantity does not reach the target there "
                     f"({at_point.where_text(preset, values)}): a root of a squared form")
            continue
        crossings.append((root, number))
    if len(crossings) > 1:
        raise SeveralCrossings(f"{question or asked} crosses its target at {len(crossings)} values of {var} at the point "
                               f"({', '.join(f'{float(n):.10g}' for _, n in crossings)})")
    op = type(relation)
    if not crossings:
        sample = sympy.Integer(1) if not declared.relations or all(bool(r.xreplace({var: 1})) for r in declared.relations) else sympy.Integer(2)
        sign = _sign(pinned.xreplace({var: sample}))
        if sign is None:
            raise errors.DerivationError(f"cannot isolate {var} in {asked}: no crossing, and its sign at {var} = {sample} is not decided")
        where = at_point.where_text(preset, values)
        if not op(sign, 0):
            raise errors.NoAnswerHere(f"{job.model.id}: no admissible {var} satisfies {question or asked} at {where}: the quantity is continuous "
                                      f"in {var} and meets its target at no admissible {var} there (the equation's closed-form roots do "
                                      f"not give it), and the relation fails at {var} = {sample}, so it fails everywhere")
        if not declared.relations:
            raise errors.DerivationError(f"{question or asked} holds for every {var} at {where}: it bounds nothing")
        job.step("no crossing", declared.relations[0], f"the quantity is continuous in {var} and meets its target at no admissible "
                 f"{var} at the point ({where}); the relation holds at {var} = {sample}, so at every admissible {var}")
        return declared.relations[0]
    root, number = crossings[0]
    step = max(abs(number), sympy.Integer(1))
    below = number / 2 if number > 0 and declared.relations else number - step
    above = number * 2 if number > 0 else number + step
    signs = [_sign(pinned.xreplace({var: x})) for x in (below, above)]
    if None in signs or signs[0] == signs[1]:
        raise errors.DerivationError(f"cannot isolate {var} in {asked}: at the point the quantity touches its target at "
                                     f"{var} = {float(number):.10g} without crossing it (or the sign beside it is not decided)")
    holds_above = bool(op(signs[1], 0))
    strict = op in (sympy.StrictGreaterThan, sympy.StrictLessThan)
    bound = (sympy.StrictGreaterThan if strict else sympy.GreaterThan) if holds_above else (sympy.StrictLessThan if strict else sympy.LessThan)
    inverted = bound(var, root, evaluate=False)
    job.step("crossing", inverted, f"{asked} crosses its target once at an admissible {var} at the point, where the equation's root "
             f"is {float(number):.10g}; the quantity is continuous in {var} (no pieces, a denominator of proved sign), and the "
             f"relation holds {'above' if holds_above else 'below'} it (its sign read exactly at {var} = {float(below):.6g} and "
             f"{float(above):.6g}; {at_point.where_text(preset, values)})")
    return inverted


def _scale(gap: sympy.Expr, var: sympy.Symbol, number: sympy.Expr, target_size: float) -> float:
    """The size a residual of ``gap`` at ``var = number`` is measured against: the largest of the target's
    magnitude and those of ``gap``'s terms there (a target of 0 gives no scale of its own: the terms'
    cancellation is what leaves the residual)."""
    terms = [_value(t.xreplace({var: number})) for t in sympy.Add.make_args(gap)]
    return max([target_size, *[abs(t) for t in terms if t is not None]]) or 1e-300


def _value(number: sympy.Basic) -> float | None:
    """``number`` to :data:`_DIGITS` digits as a float (None where it is no real number)."""
    evaluated = sympy.N(number, _DIGITS)
    return float(evaluated) if evaluated.is_real else None


def _sign(number: sympy.Basic) -> int | None:
    value = _value(number)
    return None if value is None or value == 0 else (1 if value > 0 else -1)
