"""Which regime of a piecewise quantity applies near a limit point: far out (``var -> oo``) or just above/below a
finite point, from the limits of its conditions, and where the question is asked at given values, by the point's own
numbers (:mod:`.at_point`); and the sign of a condition's limit (:func:`far_sign`). Used by :mod:`.limits`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs, regime_split, result_form


def first_regime(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol,
                 holds: Callable[[Any], tuple[bool, str | None]], where: str, failure: Callable[[str], str]) -> regime_split.Regime:
    """The first regime of ``expr`` whose every condition ``holds`` (recorded as a step saying
    it applies ``where``); ``failure(regime names)`` is the error message when none does."""
    found = regime_split._regimes(job, expr, var, record=False)
    reasons: list[str] = []
    for regime in found:
        why: list[str] = []
        ok = True
        for cond in regime.raw:
            ok, text = holds(cond)
            if text is not None:
                why.append(text)
            if not ok:
                break
        if ok:
            job.step("select regime", regime.expression, f"{regime.name} applies {where}: " + "; ".join(why))
            return regime
        reasons.append(regime.name)
    raise errors.DerivationError(failure(", ".join(reasons)))


def far_regime(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr,
               given: at_point.Given | None = None) -> regime_split.Regime:
    """The regime of ``expr`` that applies as ``var`` goes to ``point`` (``oo`` or ``-oo``):
    each condition ``h >= 0`` holds eventually when ``h`` tends to a positive value or to ``oo``; where
    the symbols leave that open and the limit is asked at ``given`` values, by ``h`` there
    (:func:`at_point.far_sign`)."""
    assert job.ctx is not None
    ctx = job.ctx

    def holds(cond: Any) -> tuple[bool, str | None]:
        if cond.h is None:
            if cond.boolean is not None and ctx.decide(cond.boolean) is True:
                return True, None
            truth = None if given is None or cond.boolean is None else at_point.far_truth(job, cond.boolean, var, point, given)
            if truth is None:
                return False, None
            return truth, f"{_short(cond.boolean)} {'holds' if truth else 'fails'} for every large enough {var} at " \
                f"{at_point.where_text(given.preset, given.values)}" if given is not None else None
        try:
            far = sympy.limit(cond.h, var, point)
        except (NotImplementedError, ValueError):
            far = sympy.nan
        sign = far_sign(job, far, var, point)
        ok = sign == 1 or (sign == 0 and not cond.strict and var not in cond.h.free_symbols)
        there = at_point.far_sign(job, cond.h, var, point, given) if not ok and sign != -1 and given is not None else None
        if given is not None and (there == 1 or (there == 0 and not cond.strict)):
            return True, f"{sympy.sstr(cond.relational)} ({sympy.sstr(cond.h)} -> {sympy.sstr(far)}; " \
                f"{'positive' if there == 1 else '0'} at {at_point.where_text(given.preset, given.values)})"
        return ok, f"{sympy.sstr(cond.relational)} ({sympy.sstr(cond.h)} -> {sympy.sstr(far)})"

    return first_regime(job, expr, var, holds, f"as {var} -> {sympy.sstr(point)}",
                         lambda names: f"{job.model.id}: no regime of {job.quantity} is proved to apply as {var} -> "
                                       f"{sympy.sstr(point)} (regimes: {names}); add an assumption (--assume) that decides them")


def _short(condition: sympy.Basic) -> str:
    """A condition as a step quotes it: at most 120 characters."""
    text = sympy.sstr(condition)
    return text if len(text) <= 120 else text[:119] + "…"


def far_sign(job: jobs._Job, far: sympy.Expr, var: sympy.Symbol, point: sympy.Expr) -> int | None:
    """Sign of a condition's limit; ``oo*sign(x)`` with ``x`` declared nonnegative is decided
    by assuming ``x > 0`` (at ``x = 0`` the condition does not depend on the variable), recorded."""
    assert job.ctx is not None
    if far == sympy.oo:
        return 1
    if far == -sympy.oo:
        return -1
    if far.is_finite:
        # a limit of no sign has none in its simplified form either: simplify (0.1 s with the
        # units SymPy's first simplify imports) only for a limit whose sign is not refuted
        return None if job.ctx.sign_refuted(far) else job.ctx.sign(job.ctx.nice(far))
    coefficient, infinite = far.as_independent(sympy.oo, -sympy.oo, as_Add=False)
    if infinite not in (sympy.oo, -sympy.oo):
        return None
    direction = 1 if infinite == sympy.oo else -1
    sign = job.ctx.sign(coefficient)
    if sign is None:
        inside = [a.args[0] for a in coefficient.atoms(sympy.sign)]
        if not inside or coefficient.free_symbols - set().union(*[a.free_symbols for a in inside]):
            return None
        for arg in inside:
            arg_sign = job.ctx.sign(arg)
            if arg_sign is None or arg_sign >= 0:
                job.ctx.add(sympy.StrictGreaterThan(arg, 0), f"{sympy.sstr(arg)} > 0 (at 0 the regimes do not depend on {var}: "
                                               "the limit there is a case of its own where it differs)")
        sign = job.ctx.sign(coefficient)
    return None if sign is None else sign * direction


def side_regime(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str,
                given: at_point.Given | None = None) -> regime_split.Regime:
    """The regime of ``expr`` that applies just above (``+``) or below (``-``) ``point``; asked at ``given``
    values, a condition the symbols leave open (or that has no value at the point: an argument of a Min that
    grows without bound there) is decided by its sides' numbers near the point (:func:`at_point.far_truth`)."""
    assert job.ctx is not None
    ctx = job.ctx
    side = 1 if direction == "+" else -1
    where = f"just {'above' if side == 1 else 'below'} {var} = {sympy.sstr(point)}"

    def symbolic(cond: Any) -> tuple[bool, str | None]:
        if cond.h is None:
            assert cond.boolean is not None
            return ctx.decide(cond.boolean.xreplace({var: point})) is True, sympy.sstr(cond.boolean)
        at = cond.h.xreplace({var: point})
        s0 = None if ctx.sign_refuted(at) else ctx.sign(ctx.nice(at))  # refuted: no sign in any form (no simplify)
        if s0 == 1:
            return True, f"{sympy.sstr(cond.relational)} holds at the point"
        if s0 == 0:
            slope = ctx.sign(sympy.diff(cond.h, var).xreplace({var: point}))
            if slope is not None and slope * side > 0:
                return True, f"{sympy.sstr(cond.relational)}: 0 at the point and increasing towards the {direction} side"
        return False, None

    def holds(cond: Any) -> tuple[bool, str | None]:
        try:
            found = symbolic(cond)
        except (ValueError, TypeError):  # a Min of an argument with no value at the point (zoo is not comparable)
            found = (False, None)
        # a condition in the variable and the model's constants alone (a case edge written in a scaled unit,
        # ``L < lit_500_ns``, at a point such as 1000 ns/3) is decided by the constants' exact values
        probe = given if given is not None else (at_point.Given(None, {}) if result_form.of_constants(
            job.model, (s.name for s in cond.relational.free_symbols - {var})) else None)
        if found[0] or probe is None:
            return found
        truth = at_point.far_truth(job, cond.relational, var, point, probe, direction)
        if truth is None:
            return found
        at = at_point.where_text(probe.preset, probe.values) if given is not None else "the constants' values"
        return truth, f"{_short(cond.relational)} {'holds' if truth else 'fails'} {where} at {at}"

    return first_regime(job, expr, var, holds, where,
                         lambda names: f"{job.model.id}: no regime of {job.quantity} is proved to apply on the "
                                       f"{direction} side of {var} = {sympy.sstr(point)} (regimes: {names})")
