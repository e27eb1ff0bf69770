"""Whether a limit's side lies outside the model's domain, in closed form: the variable's declared
sign and the ``valid_when`` conditions in it (:func:`symgpu.derive.solve_domain.conditions`) read
just beside a finite point (the variable at ``point ± eps`` for every small ``eps > 0``, decided by
the sign reasoner) or far out (the sign of a condition's limit). Volkov's ``memory_latency`` is
valid only when ``theta < c``: as ``theta -> c`` from above it has no value, and from below it
grows without bound. At a point (``--preset``/``--set``) :mod:`symgpu.derive.limit_sides` reads
the same on the evaluate path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import declared_range, extremum_domain, extremum_outer, jobs, solve_domain
from symgpu.proofs import forms
from symgpu.units import literal_units

if TYPE_CHECKING:
    from symgpu.model import Model

#: conditions larger than this (in operations) are not read far out (SymPy's limit of them)
FAR_OPS = 200


def refused(job: jobs._Job, quantity: Any, var: sympy.Symbol, point: sympy.Expr, side: str, stop: frozenset[str]) -> str:
    """The condition (as text) that fails on ``side`` ("+", "-"; either for an infinite point) of
    ``point`` for every small step, or "" where none is refuted there."""
    assert job.ctx is not None
    conditions = [*declared_range.of(job.model, var).relations, *solve_domain.conditions(job, quantity, var, stop)]
    infinite = point.has(sympy.oo, -sympy.oo)
    eps = sympy.Dummy("eps", positive=True)
    for condition in conditions:
        if not isinstance(condition, sympy.core.relational.Relational) or isinstance(condition, (sympy.Eq, sympy.Ne)):
            continue
        if var not in condition.free_symbols:
            continue
        if infinite:
            if _fails_far(job, condition, var, point):
                return sympy.sstr(condition)
        else:
            beside = condition.xreplace({var: point + (eps if side == "+" else -eps)})
            if beside is sympy.false or (isinstance(beside, sympy.Basic) and job.ctx.refuted(beside)):
                return sympy.sstr(condition)
    return ""


def assumed_refused(job: jobs._Job, var: sympy.Symbol, point: sympy.Expr, side: str) -> str:
    """The ``assume`` relation on ``var`` (``alpha >= 10``) that fails on ``side`` of ``point`` (or far out) for
    every small step, as text, or "": the question is asked where the assumptions hold, so a side they
    exclude has no limit. A point strictly outside the relation (``alpha -> 0``) is excluded from both sides."""
    assert job.ctx is not None
    eps = sympy.Dummy("eps", positive=True)
    for condition in job.assumed:
        if (not isinstance(condition, sympy.core.relational.Relational) or isinstance(condition, (sympy.Eq, sympy.Ne))
                or var not in condition.free_symbols):
            continue
        if point.has(sympy.oo, -sympy.oo):
            if _fails_far(job, condition, var, point):
                return sympy.sstr(condition)
            continue
        closed = (sympy.GreaterThan if isinstance(condition, (sympy.StrictGreaterThan, sympy.GreaterThan)) else sympy.LessThan)(
            condition.lhs, condition.rhs).xreplace({var: point})  # the relation with its edge, at the point itself
        beside = condition.xreplace({var: point + (eps if side == "+" else -eps)})
        if any(c is sympy.false or (isinstance(c, sympy.Basic) and c is not sympy.true and job.ctx.refuted(c)) for c in (closed, beside)):
            return sympy.sstr(condition)
    return ""


def _fails_far(job: jobs._Job, condition: sympy.Basic, var: sympy.Symbol, point: sympy.Expr) -> bool:
    """Whether ``condition`` fails for every large enough ``|var|`` towards ``point`` (its sides'
    difference tends to a limit of the wrong sign)."""
    assert job.ctx is not None
    gap = condition.lhs - condition.rhs
    if sympy.count_ops(gap) > FAR_OPS or gap.has(sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling):
        return False
    try:
        far = sympy.limit(gap, var, point)
    except (NotImplementedError, TypeError, ValueError, RecursionError):
        return False
    if far == sympy.oo:
        sign: int | None = 1
    elif far == -sympy.oo:
        sign = -1
    elif far.is_finite:
        sign = job.ctx.sign(far)
    else:
        coefficient, infinite = far.as_independent(sympy.oo, -sympy.oo, as_Add=False)
        base = job.ctx.sign(coefficient) if infinite in (sympy.oo, -sympy.oo) else None
        sign = None if base is None or base == 0 else base * (1 if infinite == sympy.oo else -1)
    if sign is None:
        return False
    wants_positive = isinstance(condition, (sympy.StrictGreaterThan, sympy.GreaterThan))
    return sign < 0 if wants_positive else sign > 0


def admitted_direction(job: jobs._Job, quantity: Any, symbol: sympy.Symbol, point: sympy.Expr, direction: str | None,
                       stop: frozenset[str]) -> str:
    """The side(s) to take the limit from: as asked, or by default (:func:`default_direction`) where the
    model has values there; not asked, the side it has values on. Where a ``valid_when`` condition
    fails on the side asked (or far out) the limit is the formula's, not a value the model gives: a
    step and ``extra.elsewhere`` say so (the interval notes' "for large N" asymptotes lie beyond
    their ``N <= 2*L_M/t_issue``); at a point :mod:`.limit_sides` refuses it before.

    Raises:
        errors.DerivationError: where the variable's declared range excludes the side asked.
    """
    asked = direction or default_direction(job.model, symbol.name)
    if asked not in ("+", "-", "+-"):
        raise errors.UsageError(f"{job.model.id}: the limit of {job.quantity} as {symbol} -> {sympy.sstr(point)}: direction must be "
                                f"one of '+', '-' or '+-', not {asked}")
    if point.has(sympy.oo, -sympy.oo):
        _excluded(job, symbol, point, "", assumed_refused(job, symbol, point, "+"))
        _outside(job, symbol, point, "", refused(job, quantity, symbol, point, "+", stop))
        return asked
    excluded = {side: assumed_refused(job, symbol, point, side) for side in ("+", "-")}
    failing = {side: excluded[side] or refused(job, quantity, symbol, point, side, stop) for side in ("+", "-")}
    sides = ("+", "-") if asked == "+-" else (asked,)
    if direction is None and any(failing[s] for s in sides):
        admitted = [s for s in ("+", "-") if not failing[s]]
        if admitted:
            chosen = admitted[0]
            other = "-" if chosen == "+" else "+"
            job.step("side", sympy.Eq(symbol, point), f"from {'above' if chosen == '+' else 'below'} only: on the other side "
                     + (f"the assumption {excluded[other]} fails (--assume)" if excluded[other] else
                        f"{failing[other]} fails, and the model gives {job.quantity} no value there"))
            return chosen
    for side in sides:
        _excluded(job, symbol, point, " from above" if side == "+" else " from below", excluded[side])
        _outside(job, symbol, point, " from above" if side == "+" else " from below", failing[side])
    return asked


def _excluded(job: jobs._Job, symbol: sympy.Symbol, point: sympy.Expr, side: str, why: str) -> None:
    """Refuse a side an ``assume`` relation on the variable excludes: the question asked under it has no such limit."""
    if why:
        raise errors.NoAnswerHere(f"{job.model.id}: the limit of {job.quantity} as {symbol} -> {sympy.sstr(point)}{side} lies outside "
                                  f"the assumption {why} (--assume): the question asked under it has no such limit; drop the "
                                  "assumption, or ask at a point it admits")


def _outside(job: jobs._Job, symbol: sympy.Symbol, point: sympy.Expr, side: str, why: str) -> None:
    """Refuse a side the declared range excludes; say so of one a ``valid_when`` condition excludes."""
    if not why:
        return
    if why in (f"{symbol} > 0", f"{symbol} >= 0"):
        raise errors.DerivationError(f"{job.model.id}: the model gives {job.quantity} no value as {symbol} -> {sympy.sstr(point)}{side}: "
                                     f"{symbol} is declared {'positive' if '>' in why and '=' not in why else 'nonnegative'}")
    said = (f"outside the model's domain: {why} fails as {symbol} -> {sympy.sstr(point)}{side}, so this is the formula's limit, "
            "not a value the model gives (eval refuses there)")
    job.step("outside the domain", sympy.Eq(symbol, point, evaluate=False), said)
    job.extra = job.extra.with_(elsewhere=said)


def default_direction(model: Model, var: str) -> str:
    """The side a finite point is approached from where none is asked: from above for a positive or
    nonnegative variable, from both sides otherwise."""
    definition = model.symbol_definitions.get(var)
    return "+" if definition and {"positive", "nonnegative"} & set(definition.assumptions) else "+-"


def parse_point(job: jobs._Job, to: Any) -> sympy.Expr:
    """A limit's point: oo, -oo, a number or an expression of the model's symbols (never eval'd text)."""
    if isinstance(to, sympy.Basic):
        return to
    text = str(to).strip().lower()
    if text in ("oo", "inf", "infinity", "+oo", "+inf"):
        return sympy.oo
    if text in ("-oo", "-inf", "-infinity"):
        return -sympy.oo
    if isinstance(to, (int, float)):
        return _in_declared_range(job, _with_a_unit(job, forms.exact_number(to), to), to)
    try:
        point = forms.exact_number(text)
    except (TypeError, ValueError):
        try:
            point = job.parse(str(to), "to")
        except errors.ExpressionError as exc:  # the point's text is the caller's, not the model file's
            raise errors.ArgumentError(job.model.id, f"limit point {str(to)!r}", exc.problem,
                                       f"give oo, -oo, 0 or an expression of the model's symbols in {job.variable}'s unit "
                                       f"({job.model.unit_text(job.variable)}), such as a regime boundary; a number with a unit is "
                                       "not taken (the limit is derived in symbols first): eval near it, or sweep around it") from None
    except ZeroDivisionError:
        point = sympy.zoo
    if point.has(sympy.zoo, sympy.nan):
        raise errors.UsageError(f"{job.model.id}: limit point {str(to)!r} is undefined; give oo, -oo, a number or an expression")
    return _in_declared_range(job, _with_a_unit(job, point, to), to)


def _in_declared_range(job: jobs._Job, point: sympy.Expr, to: Any) -> sympy.Expr:
    """``point``, refused where it is negative and the variable is declared positive or nonnegative: the model gives the
    quantity no value near it (``limit mdm_2019 M --var W --to=-3`` printed ``(3 warp / SM)*(-M_Read - M_Write)``, a
    negative count of requests, 'not checked numerically: the answer has no value at any point tried')."""
    word = declared_range.of(job.model, job.variable).word
    if word and point.is_negative:
        raise errors.UsageError(f"{job.model.id}: limit point {str(to)!r} is negative, but {job.variable} is declared {word}: the model "
                                f"gives {job.quantity} no value near it; give a point in {job.variable}'s range (0 is approached from above)")
    return point


def _with_a_unit(job: jobs._Job, point: sympy.Expr, to: Any) -> sympy.Expr:
    """``point``, refused where it is a nonzero number and the variable has a unit (the limit's unit check would blame the model)."""
    units = job.model.units.get(job.variable)
    job.model.as_target(point, job.variable, job.counts, "limit point", repr(str(to)))  # a point in another dimension is no point of the variable
    # NOTE: a number in a unit of scale 1 (block, cycle) reads alike in every reading: it stands for itself
    if point.is_number and point != 0 and units is not None and not units.dimensionless \
            and not literal_units.same_scale(literal_units.literal_scale(units), 1.0):
        raise errors.UsageError(f"{job.model.id}: limit point {str(to)!r} is a number without a unit, but {job.variable} is in "
                                f"{job.model.unit_text(job.variable)}: a finite point other than 0 must be an expression of the model's "
                                f"symbols in that unit (e.g. a regime boundary such as MSHRs/M_Read); for {job.variable} near "
                                f"{str(to)} at given values, eval there or sweep around it (symgpu sweep)")
    return point


def assume_outer(job: jobs._Job, var: sympy.Symbol, stop: Any) -> bool:
    """The ``valid_when`` conditions on the way to the quantity free of ``var`` (:func:`extremum_domain.outer_domain`) read
    as known, as an extremum reads them (:func:`extremum_outer.assume`: put into the sign reasoner, each said among the
    assumptions): where one fails the model gives the quantity no value at any ``var``, so the limit claims nothing there.
    Whether any was put in (none for an input, which no equation defines: `limit MODEL alu_lat --var alu_lat`)."""
    if job.quantity not in job.model.defining:
        return False
    return extremum_outer.assume(job, extremum_domain.outer_domain(job, var, stop))


def inside(job: jobs._Job, value: sympy.Expr, var: sympy.Symbol) -> sympy.Expr:
    """``value`` (a limit), where it is a Piecewise over the inputs with a branch the assumptions refute (the domain
    :func:`assume_outer` put in among them), without the refuted branches (nested ones too), each other under its own
    condition tidied under the assumptions (an ``Eq``/``Ne`` of a signed expression read as an inequality first:
    :func:`extremum_outer.as_inequality`), the first that holds still the value; recorded as a step: Volkov's
    ``Latency_loaded_2term`` as ``b -> oo`` is ``-oo`` where ``x/(theta - c) > 0``, which holds nowhere inside ``theta < c``.
    Where none is refuted, ``value`` as it is."""
    inner = _without_refuted(job, value, var)
    if inner is value:
        return value
    job.step("domain", inner, "the branches that hold nowhere inside the valid_when domain left out (the model gives "
             f"{job.quantity} no value there), each other's condition tidied under the assumptions")
    return inner


def _without_refuted(job: jobs._Job, value: sympy.Expr, var: sympy.Symbol) -> sympy.Expr:
    """:func:`inside`'s Piecewise rebuilt, or ``value`` itself (the same object) where no branch in it is refuted."""
    assert job.ctx is not None
    if not isinstance(value, sympy.Piecewise) or any(var in c.free_symbols for _, c in value.args):
        return value
    kept: list[tuple[sympy.Expr, sympy.Basic]] = []
    changed = False
    for index, (branch, condition) in enumerate(value.args):
        part = extremum_outer.as_inequality(job, condition)
        verdict = job.ctx.decide(part)
        tidy = sympy.false if verdict is False else sympy.true if verdict is True else job.ctx.tidy(part)
        if tidy is sympy.false:
            changed = True
            continue
        inner = _without_refuted(job, branch, var)
        changed = changed or inner is not branch
        kept.append((inner, tidy))
        if tidy is sympy.true:  # the branches after it are never reached
            changed = changed or index < len(value.args) - 1
            break
    if not changed or not kept:
        return value
    return sympy.Piecewise(*kept)


def signs_inside(job: jobs._Job, value: sympy.Expr) -> sympy.Expr:
    """``value`` with each ``sign(g)`` whose sign the assumptions (the domain :func:`assume_outer` put in among them) decide
    put in as that sign, recorded as a step (Hong & Kim's ``N_pw`` as ``Active_blocks_per_SM -> oo``, ``oo*sign(ind_mem_req/
    (mem_req - ind_mem_req))``, is ``oo`` inside ``0 < ind_mem_req < mem_req``); the answer is then tidied as it was without
    the domain, so its form is the same where the domain decides nothing."""
    assert job.ctx is not None
    decided = {a: sympy.Integer(s) for a in value.atoms(sympy.sign) if (s := job.ctx.sign(a.args[0])) in (1, -1)}
    if not decided:
        return value
    inner = value.xreplace(decided)
    job.step("signs inside the domain", inner, "; ".join(f"{sympy.sstr(a.args[0])} {'>' if v == 1 else '<'} 0" for a, v in decided.items())
             + f" inside the valid_when domain (the model gives {job.quantity} a value only there)")
    return inner
