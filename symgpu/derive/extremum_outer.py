"""An extremum's ``valid_when`` domain free of the variable, read as known (:func:`assume`), and the open ends whose limit is a
Piecewise over the inputs split by it (:func:`split_ends`, the branches it leaves: :func:`pieces`); where no branch of a
Piecewise answer holds, what the quantity approaches instead (:func:`say_elsewhere`). A limit reads its quantity's domain
the same way (:func:`assume`, and :func:`as_inequality` for its branches' conditions, through
:mod:`symgpu.derive.limit_domain`).

Where a ``valid_when`` condition free of the variable fails, the model gives the quantity no value at any value of it, so
an extremum's answer holds only where those conditions hold (:func:`symgpu.derive.extremum_domain.outer_domain`, said in
``extra.valid_when``). Signs are then decided under them: Volkov's two-term loaded latency over ``b`` has the slope
``theta/(c - theta)``, and its limit as ``b -> oo`` is SymPy's Piecewise over the sign of ``x/(SMs*bytes_per_inst*clock*x - c)``,
whose ``-oo`` branch lies wholly outside ``theta < c``. That branch is dropped, and each other becomes an open end approached
where its (first-match) condition holds: ``oo`` where ``x > 0``, so no maximum there, and the quantity's flat value at ``x = 0``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import sympy

from symgpu.derive import jobs
from symgpu.derive.extremum_domain import OpenEnd
from symgpu.derive.limit_forms import signed_infinity

_INEQUALITIES = (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


def assume(job: jobs._Job, outer: Sequence[sympy.Basic]) -> bool:
    """Put the inequalities among ``outer`` (the ``valid_when`` conditions free of the variable, tidied; the parts of an
    And) into the job's sign reasoner, each said among the answer's assumptions; whether any was put in."""
    assert job.ctx is not None
    added = False
    for condition in outer:
        for part in condition.args if isinstance(condition, sympy.And) else (condition,):
            if isinstance(part, _INEQUALITIES):
                job.ctx.add(part, f"{sympy.sstr(part)} (valid_when: the model gives {job.quantity} a value only there)")
                added = True
    return added


def split_ends(job: jobs._Job, ends: Sequence[OpenEnd], var: sympy.Symbol) -> list[OpenEnd]:
    """``ends`` with each end whose limit is a Piecewise over the inputs as an end per branch the assumptions (the domain among
    them) do not refute, approached where that branch (first match) holds; the others as they are."""
    out: list[OpenEnd] = []
    for end in ends:
        end = _signed(job, end, var)
        kept = None if end.cusp or not isinstance(end.value, sympy.Piecewise) else pieces(job, end.value, var)
        if kept is None:
            out.append(end)
            continue
        job.step("open end", sympy.Eq(sympy.Symbol(f"lim_{var}->{sympy.sstr(end.point)}"), sympy.Piecewise(
            *((v, sympy.And(*w)) for v, w in kept))), f"as {var} -> {sympy.sstr(end.point)} the quantity tends to this, "
                 "the branches the assumptions refute left out: each value is approached where its condition holds")
        out.extend(OpenEnd(end.point, value, tuple(dict.fromkeys((*end.when, *when))), side=end.side) for value, when in kept)
    return out


def _signed(job: jobs._Job, end: OpenEnd, var: sympy.Symbol) -> OpenEnd:
    """``end`` whose limit is an infinity times the sign of an expression the assumptions decide (the domain among them)
    with that infinity: N_pw's ``oo*sign(ind_mem_req/Threads_per_warp)`` as ``mem_req -> ind_mem_req+`` is ``oo`` where
    ``0 < ind_mem_req``; any other end as it is."""
    assert job.ctx is not None
    signed = None if end.cusp else signed_infinity(end.value, var)
    if signed is None or end.value in (sympy.oo, -sympy.oo):
        return end
    sign = job.ctx.sign(signed[0])
    return dataclasses.replace(end, value=sympy.oo if sign * signed[1] == 1 else -sympy.oo) if sign in (1, -1) else end


def pieces(job: jobs._Job, value: sympy.Piecewise, var: sympy.Symbol) -> list[tuple[sympy.Expr, tuple[sympy.Basic, ...]]] | None:
    """Each branch of ``value`` with the conditions under which it is the first that holds (tidied, the proved ones left out),
    the refuted branches left out; None where a condition reads ``var`` or none is left."""
    assert job.ctx is not None
    if any(var in c.free_symbols for _, c in value.args):
        return None
    kept: list[tuple[sympy.Expr, tuple[sympy.Basic, ...]]] = []
    earlier: list[sympy.Basic] = []
    for branch, condition in value.args:
        parts = [as_inequality(job, p) for p in (condition, *(_negated(e) for e in earlier))]
        earlier.append(condition)
        verdicts = [job.ctx.decide(p) for p in parts]
        if False in verdicts:
            continue
        when = [job.ctx.tidy(p) for p, v in zip(parts, verdicts) if v is not True]
        if sympy.false in when:
            continue
        kept.append((branch, tuple(dict.fromkeys(w for w in when if w is not sympy.true))))
    return kept or None


def as_inequality(job: jobs._Job, condition: sympy.Basic) -> sympy.Basic:
    """``Eq(g, 0)`` of a ``g`` the assumptions prove nonnegative as ``g <= 0`` (``Ne`` as ``g > 0``; of a nonpositive one
    ``g >= 0``, ``g < 0``), which the sign reasoner tidies (``theta/(c - theta) <= 0`` as ``theta <= 0`` where ``c > theta``);
    any other condition as it is."""
    assert job.ctx is not None
    if not isinstance(condition, (sympy.Eq, sympy.Ne)):
        return condition
    gap = condition.lhs - condition.rhs
    equal = isinstance(condition, sympy.Eq)
    if job.ctx.nonnegative(gap):
        return sympy.LessThan(gap, 0) if equal else sympy.StrictGreaterThan(gap, 0)
    if job.ctx.nonnegative(-gap):
        return sympy.GreaterThan(gap, 0) if equal else sympy.StrictLessThan(gap, 0)
    return condition


def _negated(condition: sympy.Basic) -> sympy.Basic:
    """``condition`` fails: a relation's negation as a relation (``x > 0`` as ``x <= 0``), else ``Not``."""
    return condition.negated if isinstance(condition, sympy.core.relational.Relational) else sympy.Not(condition)


def say_elsewhere(job: jobs._Job, location: sympy.Expr, kind: str, var: sympy.Symbol, ends: Any) -> None:
    """Where no branch of a Piecewise answer holds there is no {kind}imum: every candidate that holds there is beaten by a value
    approached at an open end, or none holds. Said in ``extra.elsewhere`` (printed), each value approached with where it is
    where that is not everywhere (an end approached only where a branch of the answer holds left out): a NaN there is a stated
    answer."""
    if not isinstance(location, sympy.Piecewise) or any(c is sympy.true for _, c in location.args):
        return
    held = {c for _, c in location.args}
    shown = [e for e in ends if not (e.when and sympy.And(*e.when) in held)]
    beyond = sympy.oo if kind == "max" else -sympy.oo

    def where(end: OpenEnd) -> str:
        return f" where {' and '.join(map(sympy.sstr, end.when))}" if end.when else ""

    if shown and all(e.value == beyond and e.when for e in shown):  # the wording of an unbounded extremum (extremum_diverging)
        towards = " and ".join(f"as {var} -> {sympy.sstr(e.point)}{where(e)}" for e in shown)
        job.extra = job.extra.with_(elsewhere=f"where no condition above holds there is no {kind}imum: the quantity "
                                    f"{'grows' if kind == 'max' else 'falls'} without bound {towards}")
        return
    approached = ", ".join(f"{sympy.sstr(e.value)} as {var} -> {sympy.sstr(e.point)}{where(e)}" for e in shown)
    job.extra = job.extra.with_(elsewhere=f"where no condition above holds there is no {kind}imum: the quantity approaches "
                                + (approached if approached else "its extreme at an open end of the domain") + " without reaching it")
