"""An inequality's closed-form bound cut by the quantity's ``valid_when`` domain.

The inversion of ``quantity REL target`` (:mod:`symgpu.derive.inequality_solving`) may multiply through by a divisor whose
sign only the domain proves (Volkov's ``c - theta_loaded > 0`` where ``theta_loaded < c``), so its bound ``var REL b``
describes the relation inside the domain only: beyond it the model gives the quantity no value. A bound that lies beyond
the domain's end (``Latency_loaded >= 300`` at G80, ``alpha = 2``: ``x <= 0.0428`` where the model is defined for
``x < 0.0293`` only), or a domain end on the other side of the variable (``memory_latency >= 1000`` for ``c`` at
``theta = 30``: ``c <= 33.35``, and ``c > 30``), made the bound alone misleading: every ``x`` of the domain holds, and no
``c <= 30`` does.

* :func:`cut` (at a point): the bound's half-line intersected with the declared range and the domain there, in exact
  numbers: unchanged where the domain takes nothing from it; the set it leaves, stated with the domain, where it does;
  refused (no admissible value) where it leaves none.
* :func:`stated` (in symbols): the domain's conditions on the variable that the assumptions do not prove redundant beside
  the bound, said beside it (extra ``elsewhere``): the answer is the bound inside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, inequality_answers, jobs
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import scaling

_GE, _GT, _LE, _LT = sympy.GreaterThan, sympy.StrictGreaterThan, sympy.LessThan, sympy.StrictLessThan


def _numbers(job: jobs._Job, expr: sympy.Basic, var: sympy.Symbol, x: sympy.Symbol, scale: sympy.Expr, preset: str | None,
             values: Mapping[str, Any]) -> sympy.Basic | None:
    """``expr`` at the point, exact, with ``var`` read as ``x`` in its declared unit (None where an input has no value)."""
    made = at_point.pinned(job, expr, var, preset, at_point.with_target(job, values))
    if made is None:
        return None
    try:
        return made().xreplace({var: x * scale})
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None


def _as_set(condition: sympy.Basic, x: sympy.Symbol) -> sympy.Set | None:
    """The values of ``x`` where ``condition`` (numbers and ``x`` alone) holds, None where SymPy leaves it unsolved."""
    if condition is sympy.true:
        return sympy.S.Reals
    if condition is sympy.false:
        return sympy.S.EmptySet
    if not isinstance(condition, sympy.Basic) or condition.free_symbols - {x}:
        return None
    try:
        found = condition.as_set()
    except (NotImplementedError, TypeError, ValueError):
        return None
    return None if not isinstance(found, sympy.Set) or found.has(sympy.ConditionSet) else found


def _shown(values: sympy.Set, x: sympy.Symbol) -> str:
    """A set of ``x`` in words, its ends to ten digits (``0 <= x < 0.029296875``; pieces joined by ``or``)."""
    parts = list(values.args) if isinstance(values, sympy.Union) else [values]
    said = []
    for part in parts:
        if isinstance(part, sympy.Interval):
            low = "" if part.start == -sympy.oo else f"{float(part.start):.10g} {'<' if part.left_open else '<='} "
            high = "" if part.end == sympy.oo else f" {'<' if part.right_open else '<='} {float(part.end):.10g}"
            said.append(f"{low}{x}{high}" if low or high else f"every {x}")
        else:
            said.append(sympy.sstr(part.as_relational(x)))
    return " or ".join(said) or "nowhere"


def cut(job: jobs._Job, inverted: sympy.Basic, var: sympy.Symbol, domain: Sequence[sympy.Basic], preset: str | None,
        values: Mapping[str, Any], asked: str, used: Sequence[Any]) -> Derivation | None:
    """At a point, ``inverted`` (``var REL b``, the closed-form bound) inside ``var``'s declared range and the ``valid_when``
    conditions ``domain`` (the solve's, in ``var``): None where the domain takes nothing from the bound's half-line (the bound
    is the answer), else the set that is left, the answer (:func:`inequality_answers.stated_set`), its step saying why.

    Raises:
        errors.NoAnswerHere: the domain leaves no value of the half-line (exit 1)."""
    if not domain:
        return None
    model = job.model
    declared = declared_range.of(model, var)
    x = sympy.Symbol(var.name, real=True)
    scale = scaling.unit_scale(model.units[var.name]) if var.name in model.units else sympy.Integer(1)
    universe: sympy.Set = declared.as_set
    bound = _numbers(job, inverted.rhs, var, x, scale, preset, values)
    if bound is None or not bound.is_number or not bound.is_real:
        return None
    bound = bound / scale
    inside: sympy.Set = sympy.S.Reals
    for condition in domain:
        put = _numbers(job, condition, var, x, scale, preset, values)
        found = _as_set(put, x) if put is not None else None
        if found is None:  # a condition not solved at the point: the certificate's scan still checks the bound there
            return None
        inside = sympy.Intersection(inside, found)
    half = type(inverted)(x, bound).as_set()
    plain = sympy.Intersection(half, universe)
    left = sympy.Intersection(plain, inside)
    if sympy.Complement(plain, left) is sympy.S.EmptySet:
        return None
    where = at_point.where_text(preset, dict(values))
    domain_set = sympy.Intersection(universe, inside)
    said_bound = f"{var} {inverted.rel_op} {float(bound):.10g}"
    said_domain = _shown(domain_set, x)
    conditions = ", ".join(sympy.sstr(c) for c in domain)
    if left is sympy.S.EmptySet:
        raise errors.NoAnswerHere(
            f"{model.id}: no admissible {var} satisfies {asked} at {where}: solved in closed form, the relation holds only where "
            f"{said_bound} ({sympy.sstr(inverted)}), but the model gives {job.quantity} a value only where {said_domain} (its "
            f"declared range and the valid_when domain {conditions}), which leaves none")
    every = sympy.Complement(domain_set, left) is sympy.S.EmptySet
    why = (f"every admissible {var} ({said_domain}, where {job.quantity} has a value: valid_when {conditions}) satisfies it; the "
           f"bound {said_bound} excludes none" if every else
           f"the bound {said_bound} holds only inside the model's domain ({said_domain}: valid_when {conditions}"
           + (f", {var} {declared.word}" if declared.relations else "") + f"), where alone {job.quantity} has a value")
    job.step("inside the domain", left.as_relational(x), f"{asked} holds where {sympy.sstr(inverted)}; {why}")
    job.extra = job.extra.without("relation", "bound")
    job.extra = job.extra.with_(elsewhere=why)
    return inequality_answers.stated_set(job, left, var, model.unit_text(var.name), asked, used,
                                         method="closed form, inside the model's domain at the point")


def stated(job: jobs._Job, inverted: sympy.Basic, var: sympy.Symbol, domain: Sequence[sympy.Basic], asked: str) -> None:
    """In symbols, the ``valid_when`` conditions of ``domain`` that the assumptions do not prove redundant beside the bound
    ``inverted`` (``x < c/(SMs*bytes_per_inst*clock)`` beside ``x <= B``): the answer is the bound inside them, said in the
    answer (extra ``elsewhere``) and a step."""
    assert job.ctx is not None
    kept = []
    for condition in domain:
        try:
            redundant = _redundant(job, inverted, condition, var)
        except (TypeError, ValueError):  # SymPy cannot order the ends: the condition is said
            redundant = False
        if not redundant:
            kept.append(condition)
    if not kept:
        return
    said = " and ".join(sympy.sstr(c) for c in kept)
    job.step("inside the domain", sympy.Tuple(inverted, *kept),
             f"the model gives {job.quantity} a value only where {said} (valid_when): {asked} holds where {sympy.sstr(inverted)} "
             "there, and nowhere outside it (no value)")
    job.extra = job.extra.with_(elsewhere=f"inside the model's domain only: {said} (valid_when; {job.quantity} has no value outside it)")


def _redundant(job: jobs._Job, inverted: sympy.Basic, condition: sympy.Basic, var: sympy.Symbol) -> bool:
    """Does every ``var`` of the bound's half-line meet ``condition`` (an end on the same side, looser, proved)?"""
    assert job.ctx is not None
    if not isinstance(condition, sympy.core.relational.Relational):
        return False
    lhs, rhs, op = condition.lhs, condition.rhs, type(condition)
    flip = {_GE: _LE, _GT: _LT, _LE: _GE, _LT: _GT}
    if rhs == var and var not in lhs.free_symbols:
        lhs, rhs, op = rhs, lhs, flip.get(op, op)
    if lhs != var or var in rhs.free_symbols or op not in flip:
        return False
    upper = op in (_LE, _LT)
    if upper != (type(inverted) in (_LE, _LT)):
        return False
    strict = op in (_LT, _GT) and type(inverted) not in (_LT, _GT)
    looser = (_LT if strict else _LE) if upper else (_GT if strict else _GE)
    return job.ctx.decide(looser(inverted.rhs, rhs)) is True
