"""Open ends at ``0`` of a positive variable where the quantity diverges (a divisor that vanishes there).

:func:`symgpu.derive.extremum_domain.open_ends` leaves out an end whose limit it cannot take (its point added
to ``dropped``): where the regimes' limits disagree and their conditions have no value at the end itself.
An infinite end is then compared by each regime's limit (:func:`.extremum_domain.ends_by_regime`); a finite one
was not compared at all, though the quantity may fall without bound there: Hong & Kim's ``Synch_cost`` over
``Active_SMs`` is ``Departure_delay*(NpWB - 1)*Synch_insts*Blocks/Active_SMs`` near ``Active_SMs = 0``, which
tends to ``-oo`` where ``NpWB < 1`` there, and a critical point's ``-1483.8`` was shown as its minimum.

Here each regime that holds just beside the end (its conditions' limits there decided, or kept as conditions
free of the variable) and whose value tends to an infinity there gives an :class:`OpenEnd` of that infinity,
approached where those conditions and the infinity's sign hold: a candidate is no extremum where one of the
extremum's direction is approached, and with no condition the question is refused
(:func:`.extremum_domain.unbounded`). A regime whose limit there is finite or not taken adds nothing (the
certificate's scan still covers it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import extremum_domain, jobs, summary
from symgpu.derive.extremum_domain import OpenEnd, _limit
from symgpu.derive.limit_forms import signed_infinity


def _near(job: jobs._Job, cond: Any, var: sympy.Symbol, point: sympy.Expr, direction: str) -> sympy.Basic | None:
    """Where a regime condition ``h >= 0`` (``h > 0``) holds just beside ``point``: a relation free of ``var``
    (``true``/``false`` where decided); None where its limit there is not known. A finite limit ``L`` holds beside
    the point where ``L > 0`` (at ``L = 0`` it is not known: no end is claimed there)."""
    assert job.ctx is not None
    if cond.h is None:
        return None
    if var not in cond.h.free_symbols:
        return job.ctx.tidy(cond.relational)
    far = _limit(cond.h, var, point, direction)
    signed = signed_infinity(far, var)
    if signed is not None:
        q, s = signed
        return job.ctx.tidy(sympy.StrictGreaterThan(q, 0) if s == 1 else sympy.StrictLessThan(q, 0))
    if far is None or far.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan, sympy.sign):
        return None
    return job.ctx.tidy(sympy.StrictGreaterThan(far, 0))


def _consistent(job: jobs._Job, conditions: Sequence[sympy.Basic]) -> tuple[sympy.Basic, ...] | None:
    """``conditions`` without those the ones before them imply; None where one is refuted under them
    (a regime that holds beside the end only where ``L < 0`` does not tend to ``+oo*sign(L)`` as ``+oo``)."""
    assert job.ctx is not None
    view, kept = job.ctx.copy(), []
    gaps: list[tuple[sympy.Expr, bool]] = []
    for condition in conditions:
        verdict = view.decide(condition)
        if verdict is False:
            return None
        gap = _gap(condition)
        if gap is not None and any(g + gap[0] == 0 and (strict or gap[1]) for g, strict in gaps):
            return None  # g > 0 beside -g >= 0
        if verdict is None and not (gap is not None and any(g == gap[0] and (strict or not gap[1]) for g, strict in gaps)):
            kept.append(condition)
            view.add(condition)
            gaps.extend([gap] if gap is not None else [])
    return tuple(kept)


def _gap(condition: sympy.Basic) -> tuple[sympy.Expr, bool] | None:
    """``(g, strict)`` of a condition ``g > 0`` (``g >= 0``), ``g`` expanded; None for another condition."""
    if isinstance(condition, (sympy.StrictGreaterThan, sympy.GreaterThan)):
        return sympy.expand(condition.lhs - condition.rhs), isinstance(condition, sympy.StrictGreaterThan)
    if isinstance(condition, (sympy.StrictLessThan, sympy.LessThan)):
        return sympy.expand(condition.rhs - condition.lhs), isinstance(condition, sympy.StrictLessThan)
    return None


def ends(job: jobs._Job, regimes: Sequence[Any], var: sympy.Symbol, dropped: Sequence[sympy.Expr], kind: str) -> list[OpenEnd]:
    """The infinities approached as ``var -> 0+`` by the regimes that hold just beside it, each where it is
    approached (the regime's conditions there and the sign of the infinity), when ``0`` is among the ends
    ``dropped`` (no limit taken there); else none.

    Raises:
        errors.DerivationError: one of the {kind}imum's direction is approached whatever the inputs (no {kind}imum).
    """
    assert job.ctx is not None
    if not any(p == 0 for p in dropped):
        return []
    point, direction = sympy.Integer(0), "+"
    found: list[OpenEnd] = []
    for regime in regimes:
        signed = signed_infinity(_limit(regime.expression, var, point, direction), var)
        if signed is None:
            continue
        where = [_near(job, cond, var, point, direction) for cond in regime.raw]
        if any(w is None or w is sympy.false for w in where):
            continue
        q, s = signed
        sign = job.ctx.sign(q)
        sides = [(s * sign, sympy.true)] if sign in (1, -1) else \
            [(s, job.ctx.tidy(sympy.StrictGreaterThan(q, 0))), (-s, job.ctx.tidy(sympy.StrictLessThan(q, 0)))]
        for towards, side in sides:
            when = _consistent(job, (*where, side))
            if when is None:
                continue
            end = OpenEnd(point, sympy.oo if towards == 1 else -sympy.oo, when)
            if end not in found:
                found.append(end)
                job.step("open end", sympy.Eq(sympy.Symbol(f"lim_{var}->0"), end.value),
                         f"as {var} -> 0 the quantity tends to {sympy.sstr(end.value)} in regime {regime.name} where "
                         f"{', '.join(map(sympy.sstr, when)) or 'always'}: there it has no {'max' if towards == 1 else 'min'}imum")
    extremum_domain.unbounded(job, [e for e in found if not e.when], kind)
    return found


def compared(ends: Sequence[OpenEnd], kind: str) -> list[OpenEnd]:
    """The open ends a closed form's critical points and cusps are compared with: the cusps not attained, and an
    infinity of the {kind}imum's direction approached where conditions hold (there no value is an extremum); the
    other open ends at a point by the numbers, and asked without one by :func:`symgpu.derive.extremum_choice.against_all`."""
    beyond = sympy.oo if kind == "max" else -sympy.oo
    return [e for e in ends if e.cusp or (e.when and e.value == beyond)]


def _unbounded_where(ends: Sequence[OpenEnd], kind: str) -> dict[sympy.Expr, list[str]]:
    """Per end (``0``; ``oo`` where an extremum's domain splits the limit there, :mod:`.extremum_outer`), the conditions (as
    text, each once) under which the {kind}imum's infinity is approached there."""
    beyond = sympy.oo if kind == "max" else -sympy.oo
    points: dict[sympy.Expr, list[str]] = {}
    for e in ends:
        if e.value == beyond and e.when and not e.cusp:
            where = points.setdefault(e.point, [])
            text = " and ".join(map(sympy.sstr, e.when))
            where.extend([text] if text not in where else [])
    return points


def no_candidate(job: jobs._Job, ends: Sequence[OpenEnd], kind: str, var: sympy.Symbol, expr: sympy.Expr | None = None,
                 one_form: bool = False, flat: Sequence[tuple[str, sympy.Basic]] = ()) -> errors.NoExtremumCandidate:
    """The refusal where no critical point, cusp, end or plateau edge qualifies, saying where the quantity grows (falls)
    without bound towards 0 (Hong & Kim's Synch_cost over Active_SMs: its one critical point is a minimum wherever the
    location is positive, and the maximum grows without bound as Active_SMs -> 0 where NpWB > 1). A quantity of one smooth
    form in ``var`` (``one_form``, :func:`_smooth`) has then no {kind}imum wherever it changes with ``var``: said so, with
    each open end's limit (:func:`_one_form`)."""
    if one_form and expr is not None and _smooth(expr, var) and ends:
        return _one_form(job, ends, kind, var, flat)
    where = " or ".join(f"as {var} -> {sympy.sstr(p)} where "
                        + summary.shorten(" or where ".join(w), hint="ask at a point (--preset, --set) for its own answer")
                        for p, w in _unbounded_where(ends, kind).items())
    said = f"; it {'grows' if kind == 'max' else 'falls'} without bound {where}, and elsewhere" if where else ";"
    return errors.NoExtremumCandidate(f"{job.model.id}: {job.quantity} has no {kind}imum over {var} in closed form (no critical point "
                                  f"or regime boundary qualifies{said} it may be monotone — try limit)")


def say_unbounded(job: jobs._Job, ends: Sequence[OpenEnd], kind: str, var: sympy.Symbol) -> None:
    """Say in ``extra.elsewhere`` (unless it says something already) where the quantity grows (falls) without
    bound towards an end, approached where conditions hold: there it has no {kind}imum, and the answer's
    conditions leave those places out."""
    where = _unbounded_where(ends, kind)
    if where and not job.extra.elsewhere:
        # the verdict first: a summary folds a long line, and these conditions run to kilobytes (Hong & Kim's Synch_cost)
        job.extra = job.extra.with_(elsewhere=" and ".join(
            f"there is no {kind}imum (the quantity {'grows' if kind == 'max' else 'falls'} without bound as {var} -> {sympy.sstr(p)}) "
            f"where {' or where '.join(w)}" for p, w in where.items()))


def _smooth(expr: sympy.Expr, var: sympy.Symbol) -> bool:
    """Is ``expr`` one form in ``var`` whose extrema inside the domain are critical points: no Min, Max, Piecewise,
    ``Abs``, ``floor``/``ceiling``, and ``var`` under no root or other non-integer power (``x**(2/3)`` has a minimum where its
    slope is infinite)?"""
    if expr.has(sympy.Min, sympy.Max, sympy.Piecewise, sympy.Abs, sympy.floor, sympy.ceiling, sympy.sign):
        return False
    return not any(var in p.base.free_symbols and not p.exp.is_integer for p in expr.atoms(sympy.Pow))


def _one_form(job: jobs._Job, ends: Sequence[OpenEnd], kind: str, var: sympy.Symbol,
              flat: Sequence[tuple[str, sympy.Basic]]) -> errors.NoExtremumCandidate:
    """The refusal of an extremum of one smooth form with no candidate: its slope is nowhere 0 with the {kind}imum's sign
    change inside the domain and no end of the domain it reaches qualifies, so wherever it changes with ``var`` no value
    of ``var`` attains a {kind}imum; what it does towards each open end (an infinity, or the value it approaches, where
    the conditions a limit's branch needs hold), and where its slope vanishes for every ``var`` (``flat``: every value is
    a {kind}imum there). Volkov's loaded latency ``a + b*theta/(c - theta) + alpha*alu_lat`` over ``c`` (valid when
    ``theta < c``) grows without bound as ``c -> theta+`` where ``b*x > 0``; it was refused as "may be monotone"."""
    beyond = sympy.oo if kind == "max" else -sympy.oo
    by_point: dict[sympy.Expr, list[str]] = {}
    for end in sorted(ends, key=lambda e: e.value != beyond):  # the {kind}imum's infinity first: why there is none
        if end.cusp:
            continue
        side = " from above" if end.side == "+" and end.point != 0 else " from below" if end.side == "-" else ""
        where = f" where {' and '.join(map(sympy.sstr, end.when))}" if end.when else ""
        said = ("grows without bound" if end.value == sympy.oo else "falls without bound" if end.value == -sympy.oo
                else f"tends to {summary.shorten(sympy.sstr(end.value), hint='ask limit for the whole value')}")
        parts = by_point.setdefault(end.point, [f"as {var} -> {sympy.sstr(end.point)}{side}"])
        parts.extend([said + where] if said + where not in parts else [])
    towards = "; ".join(f"{parts[0]} it {' and '.join(parts[1:])}" for parts in by_point.values())
    flats = [f"{sympy.sstr(w.lhs)} = {sympy.sstr(w.rhs)}" if isinstance(w, sympy.Eq) else sympy.sstr(w) for _, w in flat]
    level = f"; where {' or '.join(flats)} it does not change with {var} (every {var} of the domain is a {kind}imum there)" if flats else ""
    return errors.NoExtremumCandidate(
        f"{job.model.id}: {job.quantity} has no {kind}imum over {var} wherever it changes with {var}: {towards}{level} (one "
        f"smooth form in {var}: no critical point of a {kind}imum inside the domain and no end of it that is reached "
        f"qualifies, so no {var} attains one)")
