"""Where an extremum may lie, and which candidate is the global one.

A maximum of a continuous piecewise-smooth function over an interval is attained at an interior
critical point, at a cusp where regimes meet, or at an attained end of the interval. The interval
is the variable's declared range (``0`` is an attained end of a nonnegative variable) cut by every
``valid_when`` condition on the way to the quantity (``W <= W_max`` makes ``W_max`` an end). Each
candidate holds only where its location lies in that domain; the answer is the candidate whose
conditions hold and whose value beats every other candidate that holds: decided numerically at
given values, else a first-match Piecewise whose conditions say so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.evaluate import active, evaluator, one_sided


@dataclass(frozen=True)
class Candidate:
    """A point where the extremum may lie.

    Attributes:
        location: the variable's value there.
        value: the quantity's value there.
        origin: what makes it a candidate (``critical point of md``, ``end W_max``).
        conditions: where it is a candidate (regime, slope and domain conditions).
    """

    location: sympy.Expr
    value: sympy.Expr
    origin: str
    conditions: tuple[sympy.Basic, ...]


def domain_conditions(job: jobs._Job, var: sympy.Symbol, stop_at: Sequence[str]) -> tuple[sympy.Basic, ...]:
    """The variable's declared range and every ``valid_when`` condition (expanded to inputs) that
    depends on it, as relations in ``var``."""
    model = job.model
    out: list[sympy.Basic] = []
    definition = model.symbol_definitions.get(var.name)
    assumptions = set(definition.assumptions) if definition is not None else set()
    if "positive" in assumptions:
        out.append(sympy.StrictGreaterThan(var, 0, evaluate=False))
    elif "nonnegative" in assumptions:
        out.append(sympy.GreaterThan(var, 0, evaluate=False))
    keep = frozenset(stop_at)
    for equation in model.dependencies(job.quantity, stop_at=keep):
        for condition in equation.valid_when:
            expanded = condition.xreplace({s: model.expression(s.name, stop_at=keep) for s in condition.free_symbols
                                           if s.name in model.defining and s.name not in keep})
            if var in expanded.free_symbols and isinstance(expanded, sympy.core.relational.Relational):
                out.append(expanded)
    return tuple(dict.fromkeys(out))


def at_location(job: jobs._Job, domain: Sequence[sympy.Basic], var: sympy.Symbol, location: sympy.Expr,
                ctx: Any = None) -> list[sympy.Basic] | None:
    """The domain conditions at ``location`` that the assumptions do not prove (tidied); ``None``
    when one of them is refuted (the location is outside the domain)."""
    local = ctx if ctx is not None else job.ctx
    assert local is not None
    kept: list[sympy.Basic] = []
    for condition in domain:
        placed = condition.xreplace({var: location})
        verdict = local.decide(placed)
        if verdict is False:
            return None
        if verdict is None:
            tidy = local.tidy(placed)
            if tidy is sympy.false:
                return None
            if tidy is not sympy.true:
                kept.append(tidy)
    return kept


def end_candidates(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, domain: Sequence[sympy.Basic]) -> list[Candidate]:
    """The attained ends of the domain: ``0`` of a nonnegative variable, and the edge of each
    non-strict ``valid_when`` relation, each with the domain conditions that hold there."""
    ends: list[tuple[sympy.Expr, str]] = []
    for condition in domain:
        if not isinstance(condition, (sympy.GreaterThan, sympy.LessThan)):  # a strict end is not attained
            continue
        try:
            roots = jobs._solve_for(job, sympy.Eq(condition.lhs, condition.rhs), var, f"the end of {sympy.sstr(condition)}")
        except errors.DerivationError:
            continue
        ends.extend((r, f"end of the domain {sympy.sstr(condition)}") for r in roots)
    found: list[Candidate] = []
    for location, origin in ends:
        conditions = at_location(job, domain, var, location)
        if conditions is None:
            continue
        try:
            value = one_sided.substitute(expr, {var: location})
        except errors.EvaluationError:
            continue
        if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            continue
        job.step("end point", sympy.Eq(var, location), f"{origin}: the quantity there is a candidate")
        found.append(Candidate(location, value, origin, tuple(conditions)))
    return found


def best_at(job: jobs._Job, candidates: Sequence[Candidate], kind: str, preset: str | None,
            values: Mapping[str, Any], unit: str) -> Candidate:
    """The candidate whose conditions hold at the inputs and whose value is the extreme one there.

    Raises:
        errors.DerivationError: no candidate holds there.
    """
    model = job.model
    scored: list[tuple[float, int, Candidate]] = []
    for index, candidate in enumerate(candidates):
        if candidate.conditions and not active.condition_holds(model, sympy.And(*candidate.conditions), preset, values)[0]:
            continue
        try:
            number = float(evaluator.evaluate_expression(model, candidate.value, unit or None, preset=preset, values=values).magnitude)
        except errors.SymgpuError:
            continue
        if number == number:
            scored.append((number if kind == "min" else -number, index, candidate))
    if not scored:
        raise errors.DerivationError(f"{model.id}: no candidate for the {kind}imum of {job.quantity} over {job.variable} holds "
                                     "at the given values (no critical point, cusp or domain end applies there: the extremum may lie "
                                     "on a plateau or be approached at an open end); try limit, or extremum --grid")
    scored.sort(key=lambda t: (t[0], t[1]))
    return scored[0][2]


def global_choice(job: jobs._Job, candidates: Sequence[Candidate], kind: str) -> tuple[sympy.Expr, sympy.Expr]:
    """(location, value): a first-match Piecewise whose branch for each candidate holds where its
    conditions hold and its value is at least as extreme as every other candidate that holds there."""
    assert job.ctx is not None
    branches_at: list[tuple[sympy.Expr, sympy.Basic]] = []
    branches_value: list[tuple[sympy.Expr, sympy.Basic]] = []
    for i, mine in enumerate(candidates):
        parts: list[sympy.Basic] = list(mine.conditions)
        for j, other in enumerate(candidates):
            if i == j:
                continue
            better = sympy.GreaterThan(mine.value, other.value) if kind == "max" else sympy.LessThan(mine.value, other.value)
            verdict = job.ctx.decide(better)
            if verdict is True:
                continue
            relation = sympy.false if verdict is False else better
            parts.append(sympy.Or(sympy.Not(sympy.And(*other.conditions)), relation) if other.conditions else relation)
        condition = sympy.And(*parts)
        if condition is sympy.false:
            continue
        branches_at.append((mine.location, condition))
        branches_value.append((mine.value, condition))
    if not branches_at:
        raise errors.DerivationError(f"{job.model.id}: no candidate for the {kind}imum of {job.quantity} over {job.variable} "
                                     "can be the global one")
    if len(branches_at) == 1 and branches_at[0][1] is sympy.true:
        return branches_at[0][0], branches_value[0][0]
    return sympy.Piecewise(*branches_at), sympy.Piecewise(*branches_value)
