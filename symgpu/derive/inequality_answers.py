"""The answer to ``quantity REL target`` at a point, read from the set of the variable's values where it holds there
(:func:`symgpu.derive.inequality_pieces.holding`): one bound ``var REL b``, the set itself where no single bound states
it, or with ``--kind`` its largest or smallest (integer) value."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, extra_records, jobs
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import FlatRange
from symgpu.derive.inequality_pieces import Holding, holding

_Rel = type[sympy.core.relational.Relational]


def largest(values: sympy.Set, kind: str, integer: bool) -> tuple[sympy.Expr, bool] | None:
    """The largest (``kind="max"``) or smallest value of ``values``, an integer one where ``integer``; with
    whether it is only approached (an open end of a real variable). None where there is none (no value, or
    they go on to infinity)."""
    parts = list(values.args) if isinstance(values, sympy.Union) else [values]
    # (start, end, left open, right open): a point of a FiniteSet is a closed piece of its own (Interval(p, p) is FiniteSet(p)
    # again: the Fermi 21-register count of {21} U [22, oo) was no piece, so the set had "no smallest integer value")
    pieces: list[tuple[sympy.Expr, sympy.Expr, bool, bool]] = []
    for part in parts:
        if isinstance(part, sympy.FiniteSet):
            pieces.extend((p, p, False, False) for p in part)
        elif isinstance(part, sympy.Interval):
            pieces.append((part.start, part.end, bool(part.left_open), bool(part.right_open)))
        else:
            return None
    upper = kind == "max"
    for start, stop, left_open, right_open in sorted(pieces, key=lambda i: i[1] if upper else -i[0], reverse=True):
        end, opened = (stop, right_open) if upper else (start, left_open)
        if end in (sympy.oo, -sympy.oo):
            return None
        if integer:
            whole = (sympy.ceiling(end) - 1 if opened else sympy.floor(end)) if upper else (sympy.floor(end) + 1 if opened else sympy.ceiling(end))
            if sympy.Interval(start, stop, left_open, right_open).contains(whole) is sympy.true:
                return whole, False
            continue
        return end, bool(opened)
    return None


def answer(job: jobs._Job, expr: sympy.Expr, target: sympy.Expr, var: sympy.Symbol, relation: _Rel, kind: str | None,
           given: at_point.Given, domain: Sequence[sympy.Basic], question: str) -> Derivation:
    """``question`` (``expr relation target``) answered at the point ``given`` from :func:`holding`: with ``kind``
    the largest or smallest admissible value (an integer where ``var`` is declared one), without it the bound
    ``var REL b`` where the relation holds on one side of ``b`` over the admissible values.

    Raises:
        errors.NoAnswerHere: no admissible value satisfies the relation there (exit 1), or none is the largest/smallest.
        errors.DerivationError: the relation cannot be split at the point."""
    where = at_point.where_text(given.preset, given.values)
    found = holding(job, expr, target, var, relation, given, domain, f"{job.model.id}: {question} at {where}")
    unit = job.model.unit_text(var.name)
    shown = sympy.sstr(found.values.as_relational(sympy.Symbol(var.name, real=True))) if found.values is not sympy.S.EmptySet else ""
    job.step("regimes at the point", sympy.Symbol(var.name, real=True) if not shown else found.values.as_relational(sympy.Symbol(var.name, real=True)),
             f"at {where} every Min/Max/Piecewise argument of the quantity is a function of {var} alone with exact numbers; "
             f"each argument's relation inverted (floor/ceiling layer by layer, a step edge where the staircase jumps over the "
             f"target), the Min/Max/Piecewise rules join them, and the declared range, domain and assumptions on {var} cut "
             f"them: {question} holds exactly where {shown or 'nowhere'} ({var} in {unit})")
    if found.values is sympy.S.EmptySet:
        raise errors.NoAnswerHere(f"{job.model.id}: no admissible {var} satisfies {question} at {where}: split at the point into its "
                                  f"regimes and steps, the relation holds at no {var} the model gives a value for (--full shows the steps)")
    if found.values.has(sympy.ConditionSet):  # a part SymPy left unsolved: no bound or end of it is known, whatever the set is
        raise errors.DerivationError(f"{job.model.id}: {question} at {where} holds where {shown} ({var} in {unit}), a set whose conditions "
                                     f"are not all solved for {var}; ask over a grid to read it numerically")
    declared = declared_range.of(job.model, var)
    if kind is None:
        universe = declared.as_set
        inverted = _one_bound(found, var, universe)
        if inverted is None:  # the set is the answer, as a solve that holds on whole ranges gives its ranges
            return _the_set(job, found, var, unit, question)
        bound = _plain(inverted.rhs)
        inverted = type(inverted)(var, bound, evaluate=False)
        job.extra = job.extra.with_(relation=inverted, bound=True, declared_numbers=True)
        return job.finish(bound, unit, method="closed form at the point, regime by regime")
    extreme = largest(found.values, kind, declared.integer)
    if extreme is None:
        raise errors.NoAnswerHere(f"{job.model.id}: {question} at {where} holds where {shown} ({var} in {unit}), which has no "
                                  f"{'largest' if kind == 'max' else 'smallest'} {'integer ' if declared.integer else ''}value")
    value, approached = extreme
    result = _plain(value)
    op = (sympy.StrictLessThan if approached else sympy.LessThan) if kind == "max" else (sympy.StrictGreaterThan if approached else sympy.GreaterThan)
    job.extra = job.extra.with_(relation=op(var, result, evaluate=False), declared_numbers=True)
    if approached:
        job.extra = job.extra.with_(supremum=True)
    job.step(("supremum" if kind == "max" else "infimum") if approached else f"{kind}imum", sympy.Eq(var, result, evaluate=False),
             f"the {'largest' if kind == 'max' else 'smallest'} {'integer ' if declared.integer else ''}{var} of that set"
             + (": its end is open, approached, not attained" if approached else ""))
    return job.finish(result, unit, method="closed form at the point, regime by regime")


def _the_set(job: jobs._Job, found: Holding, var: sympy.Symbol, unit: str, question: str) -> Derivation:
    """``found.values`` (no single bound states it) as the answer (:func:`stated_set`)."""
    return stated_set(job, found.values, var, unit, question)


def stated_set(job: jobs._Job, values: sympy.Set, var: sympy.Symbol, unit: str, question: str,
               used: Sequence[Any] = (), method: str = "closed form at the point, regime by regime") -> Derivation:
    """``values`` (no single bound states it) as the answer: where the relation holds, ends in the declared unit (extra
    ``holds_for``, a range :data:`extra_records.AT_THE_POINT`); ``used``: the expressions whose assumptions it states.
    Raises errors.DerivationError: no union of numeric intervals."""
    pieces: list[sympy.Set] = []
    for part in values.args if isinstance(values, sympy.Union) else [values]:
        if isinstance(part, sympy.FiniteSet) and all(p.is_number for p in part):
            pieces.extend(sympy.FiniteSet(_plain(p)) for p in part)
        elif isinstance(part, sympy.Interval) and part.start.is_number and part.end.is_number:
            pieces.append(sympy.Interval(*(e if e.is_infinite else _plain(e) for e in (part.start, part.end)), part.left_open, part.right_open))
        else:
            raise errors.DerivationError(f"{job.model.id}: {question} holds on {sympy.sstr(values)} ({var} in {unit}), a set "
                                         "that is no union of intervals with numeric ends; ask over a grid to read it numerically")
    where = sympy.Union(*pieces).as_relational(var)
    job.extra = job.extra.with_(holds_for=where, ranges=(FlatRange(extra_records.AT_THE_POINT, sympy.true, where),), declared_numbers=True)
    job.step("set", where, f"no single bound {var} REL b states that set: it is the answer ({var} in {unit}); at every other "
             f"admissible {var} the relation fails")
    return job.finish(where, unit, method=method, used=used)


def _one_bound(found: Holding, var: sympy.Symbol, declared: sympy.Set) -> sympy.Basic | None:
    """``var REL b`` (in the declared unit) stating ``found.values`` over the declared range ``declared``, or None where no one
    bound does: a set that ends where the ``valid_when`` domain cuts the admissible values (``SMs >= 197.4`` where the model
    gives no value past ``SMs < 264.6``: volkov_2016_h100's loaded latency) is stated whole, with both ends."""
    values, universe = found.values, found.universe
    if not isinstance(values, sympy.Interval) or not isinstance(universe, sympy.Interval) or not isinstance(declared, sympy.Interval):
        return None
    if values.start == declared.start and values.left_open == declared.left_open and values.end != sympy.oo:
        return (sympy.StrictLessThan if values.right_open else sympy.LessThan)(var, values.end, evaluate=False)
    if values.end == declared.end and values.right_open == declared.right_open and values.start != -sympy.oo:
        return (sympy.StrictGreaterThan if values.left_open else sympy.GreaterThan)(var, values.start, evaluate=False)
    return None


def _plain(number: sympy.Expr) -> sympy.Expr:
    """``number`` as the answer states it: exact where rational, else to 30 digits (an algebraic number such as
    ``3*sqrt(18186877063699139207510135590641)/12800000000000000`` has integers too large for NumPy to evaluate)."""
    return number if number.is_Rational else sympy.Float(sympy.N(number, 30), 30)
