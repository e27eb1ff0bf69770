"""The largest (``kind="max"``) or smallest (``"min"``) admissible value where an inequality holds.

An inequality inverted for the unknown (:mod:`symgpu.derive.inequality_solving`) holds on a half-line,
``var <= b`` or ``var >= b``; the unknown is admissible only inside its declared sign (``positive``,
``nonnegative``) and the quantity's ``valid_when`` domain (:mod:`symgpu.derive.solve_domain`), where
the model gives the quantity a value at all. Each of these that bounds the unknown is an *end*; the
largest admissible value is the smallest of the upper ends (the relation's own bound or the domain's
end, whichever is tighter), and it is one only where it lies above every lower end. That condition is
proved, refuted (no admissible value: an error that says so) or kept as the answer's ``valid_when``
and, at a point, decided by its numbers: a value outside the domain is never the answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import declared_range, inequalities, jobs, solve_domain, solve_ranges, target_value
from symgpu.evaluate import active, evaluator

_GE, _GT, _LE, _LT = sympy.GreaterThan, sympy.StrictGreaterThan, sympy.LessThan, sympy.StrictLessThan
_FLIP = {_GE: _LE, _GT: _LT, _LE: _GE, _LT: _GT}


@dataclass(frozen=True)
class End:
    """One bound on the unknown: ``var <= value`` (``upper``) or ``var >= value``, ``<``/``>`` where ``strict``.

    Attributes:
        value: the bound, free of the unknown.
        upper: whether it bounds the unknown from above.
        strict: whether the bound itself is excluded.
        origin: where it comes from (``the relation``, the declared sign, a ``valid_when`` condition).
    """

    value: sympy.Expr
    upper: bool
    strict: bool
    origin: str

    def relation(self, var: sympy.Basic) -> sympy.Basic:
        """``var <= value`` (or ``<``, ``>=``, ``>``) unevaluated."""
        op = (_LT if self.strict else _LE) if self.upper else (_GT if self.strict else _GE)
        return op(var, self.value, evaluate=False)


def _end(condition: sympy.Basic, var: sympy.Symbol, origin: str) -> End | None:
    """``condition`` as an end when it is ``var REL c`` (or ``c REL var``) with ``c`` free of ``var``."""
    op = type(condition)
    if op not in _FLIP:
        return None
    lhs, rhs = condition.lhs, condition.rhs
    if rhs == var and var not in lhs.free_symbols:
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    if lhs != var or var in rhs.free_symbols:
        return None
    return End(rhs, op in (_LE, _LT), op in (_LT, _GT), origin)


def _isolated(job: jobs._Job, condition: sympy.Basic, var: sympy.Symbol) -> sympy.Basic:
    """``condition`` as ``var REL c`` where the sign reasoner lets it be inverted (``c - theta > 0`` as
    ``theta < c``: an end, so a value approached at it is not put into it: an outside tester's finding,
    where ``--assume 'c - theta > 0'`` made the supremum ``theta = c`` "no admissible value"); else as it is."""
    assert job.ctx is not None
    if type(condition) not in _FLIP or var not in condition.free_symbols or _end(condition, var, "") is not None:
        return condition
    try:
        inverted, _ = inequalities.invert(condition, var, job.ctx.sign, job.ctx.nonnegative)
    except (errors.DerivationError, TypeError, ValueError):
        return condition
    return inverted if type(inverted) in _FLIP else condition


def _sign_end(job: jobs._Job, var: sympy.Symbol) -> End | None:
    word = declared_range.of(job.model, var).word
    return End(sympy.Integer(0), False, word == "positive", f"the declared sign ({word})") if word else None


def _tighter(job: jobs._Job, a: End, b: End) -> bool:
    """Does ``a`` make ``b`` (the same side) redundant, whatever the inputs?"""
    assert job.ctx is not None
    strict = b.strict and not a.strict
    op = (_LT if strict else _LE) if a.upper else (_GT if strict else _GE)
    return a.value == b.value and a.strict >= b.strict or _decide(job, op(a.value, b.value)) is True


def _decide(job: jobs._Job, condition: sympy.Basic) -> bool | None:
    """The assumptions' verdict on ``condition`` (None where SymPy cannot order its sides)."""
    assert job.ctx is not None
    if condition is sympy.true or condition is sympy.false:
        return bool(condition)
    try:
        return job.ctx.decide(condition)
    except (TypeError, ValueError):
        return None


def _pruned(job: jobs._Job, ends: Sequence[End]) -> list[End]:
    """``ends`` (one side) without those another one makes redundant."""
    kept: list[End] = []
    for end in ends:
        if any(_tighter(job, k, end) for k in kept):
            continue
        kept = [k for k in kept if not _tighter(job, end, k)] + [end]
    return kept


def _tidy(job: jobs._Job, condition: sympy.Basic) -> sympy.Basic:
    assert job.ctx is not None
    try:
        return job.ctx.tidy(condition)
    except (TypeError, ValueError):
        return condition


def extreme(job: jobs._Job, inverted: sympy.Basic, var: sympy.Symbol, kind: str, domain: Sequence[sympy.Basic],
            at: Mapping[str, Any] | None, preset: str | None, expr: sympy.Expr, asked: str) -> sympy.Expr:
    """The largest (``kind="max"``) or smallest admissible ``var`` where ``inverted`` (``var REL b``) holds.

    Steps are recorded in ``job``; extra ``supremum`` says whether the value is only approached, extra
    ``valid_when`` where it is admissible (conditions the assumptions leave open). ``at``/``preset``: the
    point asked at (None: none), where those conditions are decided by their numbers. ``expr``: the
    quantity's expression, evaluated at a domain end to say why no value is admissible; ``asked``: the
    relation asked, as the error says it.

    Raises:
        errors.DerivationError: no end bounds ``var`` on the asked side, or no admissible value satisfies
            the relation whatever the inputs (:class:`errors.NoAnswerHere` where none does at the point).
    """
    assert job.ctx is not None
    model = job.model
    want_upper = kind == "max"
    relation_end = _end(inverted, var, "the relation")
    assert relation_end is not None
    ends = [relation_end] + [e for e in (_sign_end(job, var),) if e is not None]
    others: list[sympy.Basic] = []
    for condition in domain:
        end = _end(_isolated(job, condition, var), var, f"the valid_when condition {sympy.sstr(condition)}")
        if end is None:
            others.append(condition)
        else:
            ends.append(end)
    wanted = _pruned(job, [e for e in ends if e.upper == want_upper])
    opposite = _pruned(job, [e for e in ends if e.upper != want_upper])
    if not wanted:
        raise errors.DerivationError(f"{model.id}: {sympy.sstr(inverted)} bounds {var} from {'below' if want_upper else 'above'} and "
                                     f"neither its declared range nor the valid_when domain bounds it from {'above' if want_upper else 'below'}: "
                                     f"it has no {kind}imum")
    integer = bool(var.is_integer)
    values = []
    for end in wanted:
        if integer:
            value, why = inequalities.integer_extreme(end.relation(var), kind)
            job.step(kind + "imum", sympy.Eq(var, value), f"{var} is declared integer and {sympy.sstr(end.relation(var))} ({end.origin}): {why}")
            values.append(value)
        else:
            values.append(end.value)
    pick = sympy.Min if want_upper else sympy.Max
    side = "largest" if want_upper else "smallest"
    strict = _binding_strict(job, wanted, values, at, preset)
    binding: list[Need] = []
    if strict is None and not integer:  # strict and non-strict ends, and no numbers say which binds
        wanted, values, binding, strict = _where_attained(job, var, wanted, values, want_upper)
    result = pick(*values) if len(values) > 1 else values[0]
    job.step(kind + "imum", sympy.Eq(var, result),
             f"the {side} {var} that meets " + ", ".join(f"{sympy.sstr(e.relation(var))} ({e.origin})" for e in wanted)
             + ("" if len(wanted) == 1 else f": the {'smallest' if want_upper else 'largest'} of these ends"))
    if not integer and strict:
        job.extra = job.extra.with_(supremum=True)
        job.step("supremum" if want_upper else "infimum", sympy.Eq(var, result), "the end is strict: approached, not attained")
    needed = _feasibility(job, var, wanted, values, opposite, others, result, integer, bool(strict), want_upper)
    check_at_point(job, var, needed, at, preset, expr, asked)
    needed += binding
    if needed:
        job.extra = job.extra.with_(valid_when=tuple(n.condition for n in needed))
        job.step("admissible when", sympy.Tuple(*[n.condition for n in needed]),
                 f"the {side} {var} where the relation holds is admissible (inside its declared range and the valid_when domain) "
                 "only where these hold; elsewhere no admissible value satisfies the relation")
    return result


def _binding_strict(job: jobs._Job, wanted: Sequence[End], values: Sequence[sympy.Expr], at: Mapping[str, Any] | None,
                    preset: str | None) -> bool | None:
    """Is the end that binds strict? Decided by the numbers at a point where several could bind; None
    where ends of both kinds could bind and no numbers decide which does."""
    if len(wanted) == 1 or all(e.strict for e in wanted) or not any(e.strict for e in wanted):
        return wanted[0].strict
    if at is not None:
        numbers = [number_at(job, v, job.model.unit_text(job.variable), at, preset) for v in values]
        if all(n is not None for n in numbers):
            best = min(numbers) if wanted[0].upper else max(numbers)  # type: ignore[type-var]
            return any(e.strict for e, n in zip(wanted, numbers) if n == best)
    return None


def _where_attained(job: jobs._Job, var: sympy.Symbol, wanted: Sequence[End], values: Sequence[sympy.Expr],
                    want_upper: bool) -> tuple[list[End], list[sympy.Expr], list[Need], bool]:
    """The non-strict ends, their values, the conditions under which they bind (each beats every strict
    end strictly: the answer is claimed only there) and False; or, where a strict end is proved to bind
    always, the strict ends, their values, no condition and True (approached). Where a strict end binds instead (``mem_lat > 0`` for
    ``mem_lat >= T - alpha*alu_lat`` where ``alpha*alu_lat >= T``), the value is approached, not attained:
    no largest or smallest value (``extra.elsewhere`` says so)."""
    loose = [(e, v) for e, v in zip(wanted, values) if not e.strict]
    tight = [(e, v) for e, v in zip(wanted, values) if e.strict]
    pick = sympy.Min if want_upper else sympy.Max
    attained = pick(*[v for _, v in loose]) if len(loose) > 1 else loose[0][1]
    beats = sympy.StrictLessThan if want_upper else sympy.StrictGreaterThan
    verdicts = [_decide(job, beats(attained, v)) for _, v in tight]
    if False in verdicts:  # a strict end always binds (beyond every non-strict one): the value is approached
        return [e for e, _ in tight], [v for _, v in tight], [], True
    binding = [Need(_tidy(job, beats(attained, v)), f"{sympy.sstr(e.relation(var))} ({e.origin}) does not bind")
               for (e, v), verdict in zip(tight, verdicts) if verdict is not True]
    if binding:
        words = ", ".join(f"{sympy.sstr(e.relation(var))} ({e.origin})" for e, _ in tight)
        job.extra = job.extra.with_(elsewhere=f"elsewhere the strict end {words} binds: its value is approached, not attained, so "
                                              f"there is no {'largest' if want_upper else 'smallest'} {var}")
        job.step("where attained", sympy.Tuple(*[b.condition for b in binding]),
                 f"the non-strict end binds only where it beats the strict one{'s' if len(tight) > 1 else ''} ({words})")
    return [e for e, _ in loose], [v for _, v in loose], binding, False


@dataclass(frozen=True)
class Need:
    """A condition under which the answer is admissible: ``end`` (a wanted end) meets ``low`` (an opposite
    one), or (both None) a ``valid_when`` condition at the answer."""

    condition: sympy.Basic
    why: str
    end: End | None = None
    low: End | None = None


def _feasibility(job: jobs._Job, var: sympy.Symbol, wanted: Sequence[End], values: Sequence[sympy.Expr], opposite: Sequence[End],
                 others: Sequence[sympy.Basic], result: sympy.Expr, integer: bool, strict: bool, want_upper: bool) -> list[Need]:
    """The conditions under which ``result`` is admissible: each wanted end's value beyond each opposite
    end, and the domain's other conditions at ``result``; those proved are left out.

    Raises:
        errors.DerivationError: one is refuted whatever the inputs.
    """
    assert job.ctx is not None
    pairs: list[Need] = []
    for end, value in zip(wanted, values):
        for low in opposite:
            sharp = low.strict or (not integer and (strict or end.strict))
            op = (_GT if sharp else _GE) if want_upper else (_LT if sharp else _LE)
            pairs.append(Need(op(value, low.value), f"{sympy.sstr(end.relation(var))} ({end.origin}) and "
                              f"{sympy.sstr(low.relation(var))} ({low.origin})", end, low))
    pairs += [Need(c, f"valid_when at {var} = {sympy.sstr(result)}") for c in solve_domain.at(others, var, result)]
    needed: list[Need] = []
    for need in pairs:
        condition = need.condition
        verdict = _decide(job, condition)
        if verdict is True:
            continue
        if verdict is False:
            raise errors.DerivationError(f"{job.model.id}: no admissible {var} satisfies the relation whatever the inputs: "
                                         f"{need.why} leave no value ({sympy.sstr(condition)} is refuted by the declared assumptions)")
        tidied = _tidy(job, condition)
        if tidied is sympy.true:  # proved once tidied (the signs decided at the point among the assumptions)
            continue
        needed.append(Need(tidied, need.why, need.end, need.low))
    return needed


def number_at(job: jobs._Job, expr: sympy.Basic, unit: str | None, at: Mapping[str, Any], preset: str | None) -> float | None:
    """``expr`` at the point in ``unit`` (None where it has no finite value there)."""
    try:
        values = evaluator.with_kept(job.model, expr, preset, at, checks=False)
        number = float(evaluator.evaluate_expression(job.model, expr, unit or None, preset=preset, values=values).magnitude)
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _with_unit(number: float, unit: str) -> str:
    return f"{number:.10g}" + ("" if unit in ("", "1") else f" {unit}")


def check_at_point(job: jobs._Job, var: sympy.Symbol, needed: Sequence[Need], at: Mapping[str, Any] | None,
                   preset: str | None, expr: sympy.Expr, asked: str) -> None:
    """At a point, each condition of ``needed`` decided by its numbers: one that fails there leaves no
    admissible value, said with the quantity's value at the domain's end (``asked``: the relation asked).

    Raises:
        errors.NoAnswerHere: a condition fails at the point (the command line exits 1).
    """
    if at is None:
        return
    model = job.model
    unit = model.unit_text(var.name)
    q_unit = model.unit_text(job.quantity) if job.quantity in model.units else ""
    target = job.target_value[0].name if job.target_value is not None else None
    given = ", ".join(f"{k}={_shown(v)}" for k, v in at.items() if k != target)
    where = " with ".join(p for p in ((f"preset {preset}" if preset else ""), given) if p)
    for need in needed:
        try:
            holds = active.condition_true(model, need.condition, preset, dict(at))
        except errors.SymgpuError:
            continue  # the point lacks an input it needs: the answer states the condition
        if holds:
            continue
        head = f"{model.id}: no admissible {var} satisfies {asked} at {where or 'the point'}"
        if need.end is None or need.low is None:
            raise errors.NoAnswerHere(f"{head}: the value the ends give fails the valid_when condition {sympy.sstr(need.condition)} "
                                         "there, and a smaller one is not derived in closed form; ask extremum or eval over a grid")
        ours, theirs = (need.end, need.low) if need.end.origin == "the relation" else (need.low, need.end)
        numbers = {id(e): number_at(job, e.value, unit, at, preset) for e in (ours, theirs)}

        def said(e: End) -> str:
            number = numbers[id(e)]
            if number is None:
                return sympy.sstr(e.relation(var))
            return f"{var} {'<' if e.upper else '>'}{'' if e.strict else '='} {_with_unit(number, unit)}"

        if ours.origin != "the relation":  # two ends of the domain that leave nothing between them
            raise errors.NoAnswerHere(f"{head}: the domain is empty there: {said(ours)} ({ours.origin}) and {said(theirs)} ({theirs.origin})")
        here = ""
        end = numbers[id(theirs)]
        if end is not None:
            value = number_at(job, expr.xreplace({var: sympy.nsimplify(end)}), q_unit or None, at, preset)
            if value is not None:
                here = f"; at {var} = {_with_unit(end, unit)} (the domain's end) {job.quantity} is {_with_unit(value, q_unit)}"
        raise errors.NoAnswerHere(f"{head}: over admissible {var} the relation holds only where {said(ours)}, but {theirs.origin} needs {said(theirs)}{here}")


def _shown(value: Any) -> str:
    """A point's value in words (a number with ``:g``, a quantity with its unit)."""
    magnitude = getattr(value, "magnitude", value)
    try:
        text = f"{float(magnitude):g}"
    except (TypeError, ValueError):
        return str(value)
    unit = f"{value.units:~}" if hasattr(value, "units") and not value.dimensionless else ""
    return f"{text} {unit}".strip()


def target_into_conditions(job: jobs._Job, result: sympy.Expr) -> None:
    """A numeric target kept as its quantity's value (extra ``target_value``) where it cannot be put into
    the stated conditions as it is put into the result: the result and the conditions read alike."""
    if job.target_value is None or not job.extra.valid_when:
        return
    symbol, number = job.target_value
    sides = [c.lhs - c.rhs for c in job.extra.valid_when if isinstance(c, sympy.core.relational.Relational)]
    if all(target_value.same_in_base_units(job.model, s, symbol, number) for s in [result, *sides]):
        job.extra = job.extra.with_(valid_when=tuple(c.xreplace({symbol: number}) for c in job.extra.valid_when))
    else:
        solve_ranges.keep_target(job)
