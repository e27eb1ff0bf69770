"""Which branch of a Piecewise result, or which regime, holds at a preset: decided numerically by
:mod:`symgpu.evaluate.active` and recorded as steps of the derivation in progress."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.derive.summary import AT_THE_POINT
from symgpu.derive.extra_records import ActiveBranch, ActiveRegime, ValueAt
from symgpu.evaluate import active, evaluator, input_values, one_sided, point, scaling
from symgpu.proofs import forms
from symgpu.evaluate.active import condition_holds, condition_verdict, sides_at


def where_text(preset: str | None, values: Mapping[str, Any]) -> str:
    """``preset P with a = 1, b = 2`` (or ``the given values ...``) for step justifications."""
    where = f"preset {preset}" if preset else "the given values"
    if values:
        where += (" with " if preset else " ") + ", ".join(f"{k} = {v}" for k, v in values.items())
    return where


def decided(relation: sympy.Basic, preset: str | None, values: Mapping[str, Any]) -> str:
    """How an assumption taken from the numbers at the point reads (:data:`summary.AT_THE_POINT`: the
    summary shows these, since the answer holds where they do)."""
    return f"{sympy.sstr(relation)} ({AT_THE_POINT}: {where_text(preset, values)})"


def select_branch(job: jobs._Job, piecewise: sympy.Piecewise, preset: str | None, values: Mapping[str, Any],
                  names: Sequence[str] | None = None) -> tuple[int, sympy.Expr]:
    """The branch of ``piecewise`` whose condition holds first at the inputs; recorded as a
    Step of ``job`` (a derivation in progress) and in its extra ``active_branch``."""
    model = job.model
    where = where_text(preset, values)
    for index, (expr, condition) in enumerate(piecewise.args):
        holds, shown = condition_holds(model, condition, preset, values)
        if holds:
            label = names[index] if names and index < len(names) else f"branch {index + 1}"
            job.step("select branch", expr, f"{label} applies at {where} because {shown}")
            job.extra = job.extra.with_(active_branch=ActiveBranch(index, label, expr, shown))
            return index, expr
    raise errors.DerivationError(f"{model.id}: no branch of {sympy.sstr(piecewise)} applies at {where}")


def refuse_outside_domain(job: jobs._Job, preset: str | None, values: Mapping[str, Any]) -> None:
    """Raise where the point is outside the quantity's ``valid_when`` domain (``symgpu eval`` says the model gives no
    value there): no regime is active there. A value the regimes' conditions do not need, or none there for another
    reason, is left to :func:`active_regimes`. Where no equation on the way to the quantity has a ``valid_when``
    condition (:func:`has_domain`), nothing is evaluated: ``evaluate`` raises ``DomainError`` only for such a condition."""
    try:
        if not has_domain(job.model, job.quantity, values):
            return
        evaluator.evaluate(job.model, job.quantity, preset=preset, values=values)
    except errors.DomainError as outside:
        raise errors.DerivationError(f"{job.model.id}: no regime of {job.quantity} applies at {where_text(preset, values)}: "
                                     f"{str(outside).removeprefix(job.model.id + ': ')}") from outside
    except (errors.SymgpuError, ValueError, ArithmeticError):
        pass


def has_domain(model: Any, quantity: str, values: Mapping[str, Any]) -> bool:
    """Has an equation that ``evaluator.evaluate(model, quantity, values=values)`` may read a ``valid_when`` condition?
    Read with the quantities ``values`` gives taken as given (as ``evaluate`` takes them: those it reads are among
    these, so False means it checks no condition and raises no ``DomainError``, which only a failed ``valid_when``
    condition raises)."""
    defines = model.equation_for(quantity).definition.defines
    given = frozenset(k for k in (values or {}) if k in model.defining and k != defines)
    return any(equation.valid_when for equation in model.dependencies(quantity, stop_at=given))


def active_regimes(job: jobs._Job, found: Sequence[Any], preset: str | None, values: Mapping[str, Any]) -> list[Any]:
    """The regimes (from :func:`symgpu.derive.regimes`) whose conditions all hold at the inputs; none outside the
    quantity's ``valid_when`` domain (:func:`refuse_outside_domain`; a quantity the question substituted into is not
    the model's, and is left to the conditions)."""
    model = job.model
    if job.quantity in model.defining and not job.substitution:
        refuse_outside_domain(job, preset, values)
    out = []
    side = sides_at(model, preset, values)  # the rows share most relations: each side evaluated once
    exact = active.exact_ties(model, [cond.relational for regime in found for cond in regime.raw], preset, values)
    for regime in found:
        # the numbers are shown for the regimes that apply only: decided first, then shown
        if all(condition_verdict(cond.relational, side, model.id, shown=False, exact=exact)[0] for cond in regime.raw):
            out.append((regime, [condition_verdict(cond.relational, side, model.id, exact=exact)[1] for cond in regime.raw]))
    where = where_text(preset, values)
    if not out:
        raise errors.DerivationError(f"{model.id}: no regime of {job.quantity} applies at {where}")
    for regime, reasons in out:
        job.step("active regime", regime.expression, f"{regime.name} applies at {where}: " + ("; ".join(reasons) or "no conditions"))
    if len(out) > 1:
        job.step("tie", sympy.Tuple(*[sympy.Symbol(r.name) for r, _ in out]), "several regimes apply: their values are equal at these inputs")
    job.extra = job.extra.with_(active_regimes=tuple(ActiveRegime(r.name, tuple(r.terms), r.expression) for r, _ in out))
    return [r for r, _ in out]


def assumed_hold(job: jobs._Job, var: sympy.Symbol, found: Sequence[Any], preset: str | None, values: Mapping[str, Any]) -> list[Any]:
    """The roots (:class:`symgpu.derive.results.RootValue`) at which every ``assume`` relation on the variable
    (``alpha < 30``) holds; a step names each one dropped. A relation that cannot be read at the point keeps the root."""
    kept = []
    for item in found:
        failed = failed_assumptions(job.model, job.assumed, var.name, preset, values, float(item.value.magnitude))
        if failed:
            job.step("root dropped", sympy.Eq(var, item.root), f"{var} = {item.value.magnitude:.10g} does not meet the assumption "
                     + ", ".join(map(sympy.sstr, failed)))
        else:
            kept.append(item)
    return kept


def meets_assumed(model: Any, assume: Sequence[str], variable: str, preset: str | None, values: Mapping[str, Any], x: float) -> bool:
    """Whether every ``--assume`` relation (text) on ``variable`` holds with it at ``x`` (one that cannot be read there holds)."""
    return not failed_assumptions(model, [model.parse(str(t), "--assume", boolean=True) for t in assume], variable, preset, values, x)


def failed_assumptions(model: Any, conditions: Sequence[sympy.Basic], variable: str, preset: str | None, values: Mapping[str, Any],
                       x: float) -> list[sympy.Basic]:
    """The relations among ``conditions`` on ``variable`` that fail with it at ``x`` (one that cannot be read there holds)."""
    failed = []
    for condition in conditions:
        if variable not in {s.name for s in getattr(condition, "free_symbols", ())}:
            continue
        try:
            if not active.condition_true(model, condition, preset, {**values, variable: x}):
                failed.append(condition)
        except errors.SymgpuError:
            continue
    return failed


def record_roots(job: jobs._Job, found: Sequence[Any], preset: str | None, values: Mapping[str, Any], fractional: Sequence[Any] = ()) -> None:
    """Steps and the extra ``values_at`` (:class:`~symgpu.derive.extra_records.ValueAt` s, magnitudes in the variable's unit)
    for the roots (:class:`symgpu.derive.results.RootValue`) whose regime conditions hold at the inputs.
    ``fractional``: where none does, the roots whose conditions hold but that are no whole number of a variable
    declared integer (the refusal says so, not that the conditions fail).

    Raises:
        errors.NoAnswerHere: no root's conditions hold there.
    """
    where = where_text(preset, values)
    if not found and fractional:
        shown = ", ".join(f"{job.variable} = {float(r.value.magnitude):.10g} ({r.regime})" for r in fractional)
        raise errors.NoAnswerHere(f"{job.model.id}: {job.quantity}: no root for {job.variable} applies at {where}: {shown} "
                                  f"{'is' if len(fractional) == 1 else 'are'} no whole number and {job.variable} is declared integer; "
                                  "an inequality (--relation '<=' or '>=') with --kind max or min gives the nearest whole values")
    if not found:
        raise errors.NoAnswerHere(f"{job.model.id}: {job.quantity}: no root for {job.variable} applies at {where} "
                                     "(no regime with a root has its conditions met there); check the target against the quantity's range")
    for item in found:
        job.step("root applies", sympy.Eq(sympy.Symbol(job.variable), item.root),
                 f"{item.regime} applies at {where} because {item.because}")
    job.extra = job.extra.with_(values_at=tuple(ValueAt(item.regime, float(item.value.magnitude)) for item in found))


def pinned(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, preset: str | None,
           values: Mapping[str, Any]) -> Callable[[], sympy.Expr] | None:
    """``expr`` read in coherent base units with every input but ``var`` put in as an exact number
    from the preset and values (what a limit at that point needs when the symbols alone do not say
    which Min argument wins far out), as a function that makes it when called; None where an input
    has no value there. Its value is in base units: :func:`symgpu.evaluate.evaluator.evaluate_expression`
    reads a bare number so. The numbers are read now (a preset or value that is wrong fails here);
    putting them in, which compares the arguments of every ``Min``/``Max`` again (50 ms for Volkov's
    ``n_needed``), waits for the first caller that needs the expression."""
    based = scaling.base_expression(job.model, expr)
    numbers = point.exact_base_values(job.model, based.free_symbols - {var}, preset, values)
    return None if numbers is None else functools.cache(lambda: _put_in(based, numbers))


def _put_in(based: sympy.Expr, numbers: Mapping[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    """``based`` with ``numbers`` put in; where that is undefined (``zoo`` inside a Min: ``alu_thru/alpha`` at alpha = 0) and a
    nonnegative input is 0, its value as the evaluator reads it there (:func:`one_sided.substitute`: the limit from above, an
    argument +oo inside a Min dropping out)."""
    undecided: ValueError | None = None
    made: sympy.Basic | None = None
    try:
        made = based.xreplace(numbers)
        if not made.has(sympy.zoo, sympy.nan):
            return cast(sympy.Expr, made)
    except ValueError as error:  # a Min/Max of zoo
        undecided = error
    try:
        return cast(sympy.Expr, one_sided.substitute(based, numbers))
    except errors.SymgpuError:
        if undecided is not None:
            raise undecided from None
        return cast(sympy.Expr, made)


def unvalued(job: jobs._Job, expr: sympy.Basic, preset: str | None, values: Mapping[str, Any]) -> list[str]:
    """The symbols of ``expr`` that have no value at the point (a quantity kept as a symbol: ``--keep``), by name."""
    merged = input_values.merge_values(job.model, preset, values)
    return sorted(s.name for s in expr.free_symbols if s.name not in merged)


def with_target(job: jobs._Job, values: Mapping[str, Any]) -> Mapping[str, Any]:
    """``values`` with the question's numeric target, if any, as its quantity's value (in its declared
    unit): read by :func:`pinned` in base units. NOTE: never put the target into an expression as a bare
    number: a bare number takes its siblings' unit there (1.98 us beside ``L_M*waves`` in ns is 1.98 ns)."""
    if job.target_value is None:
        return values
    return {**values, job.target_value[0].name: job.target_value[1]}


@dataclass(frozen=True)
class Given:
    """The preset and values a question is asked at."""

    preset: str | None
    values: Mapping[str, Any]


def far_sign(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, given: Given, side: str = "+") -> int | None:
    """The sign ``expr`` takes eventually as ``var`` -> ``to`` (``oo`` or ``-oo``) with every other input put
    in as an exact number from the preset and values (:func:`pinned`): 1 or -1 from the limit of the
    numbers-in expression, or, where that limit is 0, from the limit of its sign (its leading term's);
    0 where it is 0 there whatever ``var`` (two Min/Max arguments equal at that point); None where an
    input has no value there or SymPy does not decide it. A Min/Max of ``var`` in it is first replaced by
    the argument that wins eventually there (:func:`_far_form`). Exact: no number is rounded. At a finite ``to``,
    the sign just above it (``side`` ``+``) or just below (``-``)."""
    at = _pinned_far(job, expr, var, given)
    there = _pinned_point(job, to, var, given)
    return None if at is None or there is None else _eventual_sign(at, var, there, side)


def far_truth(job: jobs._Job, condition: sympy.Basic, var: sympy.Symbol, to: sympy.Expr, given: Given, side: str = "+") -> bool | None:
    """Whether ``condition`` (a boolean of relations, Min/Max in them: Hong & Kim's ``Eq(MWP, N)``) holds
    for every large enough ``var`` (``to``: ``oo`` or ``-oo``) with every other input an exact number from the
    preset and values: each relation by the sign its two sides' difference takes eventually there
    (:func:`far_sign`); None where an input has no value there or a relation is not decided. At a finite ``to``,
    whether it holds everywhere just above it (``side`` ``+``) or just below (``-``)."""
    at = _pinned_far(job, condition, var, given)
    there = _pinned_point(job, to, var, given)
    return None if at is None or there is None else _truth(at, var, there, side)


def _pinned_point(job: jobs._Job, to: sympy.Expr, var: sympy.Symbol, given: Given) -> sympy.Expr | None:
    """The limit point ``to`` as the exact number it is at the given values (a finite point in symbols, such as
    Hong & Kim's ``MWP_peak_BW*Threads_per_warp/Threads_per_block``, read in base units as the pinned
    expression reads ``var``); ``to`` itself where it is a number or an infinity; None where an input has no value
    there or the point depends on ``var``."""
    if not to.free_symbols:
        return to
    if var in to.free_symbols:
        return None
    at = _pinned_far(job, to, var, given)
    return at if at is not None and at.is_number and at.is_finite else None


def _pinned_far(job: jobs._Job, expr: sympy.Basic, var: sympy.Symbol, given: Given) -> sympy.Basic | None:
    """``expr`` with every input but ``var`` an exact number there (:func:`pinned`); None where one has none."""
    if any(s.name not in job.model.symbols for s in expr.free_symbols):
        return None
    made = pinned(job, expr, var, given.preset, given.values)
    at = None if made is None else made()
    return None if at is None or at.free_symbols - {var} else at


def _truth(node: sympy.Basic, var: sympy.Symbol, to: sympy.Expr, side: str) -> bool | None:
    """Eventual truth of a boolean in ``var`` alone (three-valued: None undecided)."""
    if node in (sympy.true, sympy.false):
        return bool(node)
    if isinstance(node, sympy.Not):
        inner = _truth(node.args[0], var, to, side)
        return None if inner is None else not inner
    if isinstance(node, (sympy.And, sympy.Or)):
        found = [_truth(a, var, to, side) for a in node.args]
        deciding = isinstance(node, sympy.Or)  # True decides an Or, False an And
        if deciding in found:
            return deciding
        return None if None in found else not deciding
    if not isinstance(node, sympy.core.relational.Relational):
        return None
    sign = _eventual_sign(node.lhs - node.rhs, var, to, side)
    if sign is None:
        return None
    return {sympy.Eq: sign == 0, sympy.Ne: sign != 0, sympy.StrictGreaterThan: sign == 1, sympy.GreaterThan: sign >= 0,
            sympy.StrictLessThan: sign == -1, sympy.LessThan: sign <= 0}.get(type(node))


def _far_form(expr: sympy.Basic, var: sympy.Symbol, to: sympy.Expr, side: str) -> sympy.Basic | None:
    """``expr`` (in ``var`` alone) with each Min/Max of ``var`` replaced, innermost first, by the argument that
    is eventually the smallest (largest): its gap to every other one eventually positive or 0 throughout;
    None where no argument is proved to win, or a Piecewise depends on ``var``."""
    if var not in expr.free_symbols or not forms.has_pieces(expr):
        return expr
    if isinstance(expr, sympy.Piecewise):
        return None
    args = [_far_form(a, var, to, side) for a in expr.args]
    if any(a is None for a in args):
        return None
    if isinstance(expr, (sympy.Min, sympy.Max)):
        smaller = isinstance(expr, sympy.Min)
        for candidate in args:
            assert candidate is not None
            if all(_eventual_sign(other - candidate if smaller else candidate - other, var, to, side) in (0, 1)
                   for other in args if other is not candidate):
                return candidate
        return None
    return expr.func(*args)


def _eventual_sign(expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, side: str) -> int | None:
    """The sign of ``expr`` (in ``var`` alone, exact numbers) for every large enough ``var`` (at a finite ``to``, every
    ``var`` close enough to it on ``side``): from its limit, or where that is 0 from the limit of its sign; 0 where it is
    0 throughout; None where SymPy does not decide it."""
    at = _far_form(expr, var, to, side)
    if at is None:
        return None
    try:
        far = sympy.limit(at, var, to, side)
        if far == 0:
            far = sympy.limit(sympy.sign(at), var, to, side)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if far in (sympy.oo, -sympy.oo):
        return 1 if far == sympy.oo else -1
    if not (far.is_number and far.is_finite):
        return None
    if far.is_positive or far.is_negative:
        return 1 if far.is_positive else -1
    return 0 if far.is_zero and (at == 0 or sympy.simplify(at) == 0) else None


def signs_decided(job: jobs._Job, value: sympy.Expr, var: sympy.Symbol, given: Given) -> sympy.Expr:
    """``value`` (a limit) with each ``sign(g)`` of a ``g`` free of ``var`` that the symbols leave open
    replaced by the sign ``g`` has at the given point, exactly (:func:`pinned`), and recorded as an
    assumption of the answer; a ``g`` that is 0 there, or lacks a value, is left for the cases
    (MDM's ``S_Total_MDM`` as ``M_Read -> oo`` is ``oo*sign(LLCMissRate*L_MinDRAM + ...)``, 7398 > 0 at
    ``table1`` with the values given: oo)."""
    assert job.ctx is not None
    chosen: dict[sympy.Basic, sympy.Integer] = {}
    for node in value.atoms(sympy.sign):
        g = node.args[0]
        if var in g.free_symbols or job.ctx.sign(g) in (1, -1):
            continue
        found = sign_at(job, g, var, given.preset, given.values)
        if found is not None:
            chosen[node] = sympy.Integer(found)
    if not chosen:
        return value
    result = value.xreplace(chosen)
    job.step("sign at the point", result, "the signs the symbols leave open, decided at the given values: "
             + ", ".join(f"{sympy.sstr(k.args[0])} {'> 0' if v == 1 else '< 0'}" for k, v in chosen.items()))
    return result


def sign_at(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, preset: str | None, values: Mapping[str, Any],
            zero: bool = False) -> int | None:
    """The sign (1 or -1) ``expr``, free of ``var``, has at the point, exactly (:func:`pinned`), recorded as an
    assumption of the answer (:func:`decided`); None where it is 0 there (with ``zero``: 0, recorded too) or an
    input has no value."""
    assert job.ctx is not None
    made = pinned(job, expr, var, preset, values)
    number = None if made is None else made()
    if zero and number is not None and number.is_zero:
        job.ctx.add(sympy.Eq(expr, 0, evaluate=False), decided(sympy.Eq(expr, 0, evaluate=False), preset, values))
        return 0
    if number is None or not number.is_number or not (number.is_positive or number.is_negative):
        return None
    relation = sympy.StrictGreaterThan(expr, 0) if number.is_positive else sympy.StrictLessThan(expr, 0)
    job.ctx.add(relation, decided(relation, preset, values))
    return 1 if number.is_positive else -1


def valued(model: Any, name: str, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Does the point (``preset`` and ``values``) give ``name`` a value?"""
    if name in values:
        return True
    try:
        return preset is not None and name in model.preset(preset)
    except errors.SymgpuError:
        return False


def numbers_alone(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Without a preset or values, does ``expr`` read no input but ``var`` (constants aside)? Its candidates are then
    compared by their numbers as at a point: an open end's limit beats them or not (round 14b F12)."""
    return preset is None and not values and pinned(job, expr, var, None, {}) is not None
