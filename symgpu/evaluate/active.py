"""Which regime applies at given inputs: the one rule for which limiter or case binds.

The derivation engine (:mod:`symgpu.derive`) finds regimes symbolically; this module
answers the numeric question a report asks — at this preset, which limiter binds, which
case of a piecewise equation applies, which branch of a Piecewise result is the one to use —
always evaluating through :func:`symgpu.evaluate.evaluator.evaluate_expression` (prefix-safe).
Recording the answer as derivation steps is :mod:`symgpu.derive.at_point`'s job.

The rule, written once here and used by every caller (reports, plots, ``kernel``, ``sweep``,
the certificates), on scalars or on arrays:

- two numbers are equal when identical or within a relative :data:`TIE` of the larger
  magnitude (:func:`tied`); a relation compares its sides that way (:func:`relation_holds`);
- a ``Min``'s binding argument is the first within :data:`TIE` of the smallest, a ``Max``'s of
  the largest; none where an argument is NaN (:func:`binding_index`); "first" in the
  equation's :func:`argument_order` (named limiters in file order, then the rest);
- a case table's (or ``Piecewise``'s) applying case is the first whose condition holds;
- an argument without a ``limiters`` name is ``min_arg<i>``/``max_arg<i>``, ``i`` its 1-based
  position in ``rhs.args`` (:func:`argument_labels`).

The number-only part (ties, relations, binding arguments, tie intervals) lives in
:mod:`symgpu.evaluate.rule`, which imports neither SymPy nor pint, and is re-exported here: one
rule, used as well by a stored sweep plan (:mod:`symgpu.sweep.replay`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.evaluate import evaluator, piece_select, ties
from symgpu.evaluate.rule import (
    RELATION_CODES,
    RELATIONS,
    TIE,
    binding_index,
    binding_order,
    larger_magnitude,
    relation_holds,
    relation_number,
    tie_interval,
    tied,
)

if TYPE_CHECKING:
    from symgpu.model import Equation, Model

__all__ = ["RELATIONS", "RELATION_CODES", "TIE", "active_regime", "argument_labels", "argument_order", "binding", "binding_index", "binding_names", "binding_order",
           "boundary_sides", "condition_holds", "condition_holds_here", "condition_true", "condition_verdict", "sides_at", "larger_magnitude", "relation_holds", "relation_number", "tie_interval",
           "tied"]

def argument_labels(equation: Equation) -> tuple[str, ...]:
    """The regime name of each argument of a top-level ``Min``/``Max`` (``rhs.args`` order): its
    ``limiters`` name, else ``min_arg<i>``/``max_arg<i>`` (``i`` 1-based).

    NOTE: matched by equality, not by ``srepr``: SymPy counts ``Symbol('n', positive=True)`` and
    ``Symbol('n', real=True, positive=True)`` equal, and its cache may hand back a subexpression
    built with either (a user's or a test's symbol of the same name), whose ``srepr`` differs."""
    names = {t: n for n, t in equation.limiters}
    prefix = "min" if isinstance(equation.rhs, sympy.Min) else "max"
    return tuple(names.get(arg, f"{prefix}_arg{i + 1}") for i, arg in enumerate(equation.rhs.args))


def argument_order(equation: Equation) -> tuple[int, ...]:
    """The order in which ties between a top-level ``Min``/``Max``'s arguments are settled, as
    indices into ``rhs.args``: the named ``limiters`` in file order, then the unnamed arguments
    in ``rhs.args`` order (so a model file decides which of two equal bounds is reported)."""
    args = list(equation.rhs.args)
    named = [args.index(term) for _, term in equation.limiters if term in args]
    return tuple(named + [i for i in range(len(args)) if i not in named])


def _side(model: Model, expr: sympy.Expr, preset: str | None, values: Mapping[str, Any]) -> float:
    """Magnitude of ``expr`` in coherent base units (the sign and order are what matter)."""
    if expr.is_number:
        return float(expr)
    return float(evaluator.evaluate_expression(model, expr, None, preset=preset, values=values).magnitude)


def condition_verdict(condition: Any, side: Callable[[sympy.Expr], float], owner: str = "", *,
                      shown: bool = True, exact: Mapping[sympy.Basic, bool] | None = None) -> tuple[bool, str]:
    """Evaluate a condition (relations, And/Or/Not, ``ITE``) from ``side`` (an expression's magnitude in
    coherent base units, bare literals taking their siblings' unit); return (verdict, shown numbers).
    ``shown`` False: the verdict alone, with ``""`` for the numbers (none printed: for a caller that
    shows only some of the conditions it decides).

    Relations follow :func:`relation_holds`. A side that is a bare literal is compared through
    the difference of the two sides, scaled by the larger of it and the other side. A relation in
    ``exact`` (:func:`exact_ties`: a tie up to rounding at the point) takes its exact verdict (the
    shown numbers say so where it differs from the rounded one).

    Raises:
        errors.EvaluationError: the condition is not made of relations (``owner`` names it).
    """
    if condition in (True, sympy.true):
        return True, "True" if shown else ""
    if condition in (False, sympy.false):
        return False, "False" if shown else ""
    if isinstance(condition, (sympy.And, sympy.Or)):
        parts = [condition_verdict(c, side, owner, shown=shown, exact=exact) for c in condition.args]
        verdict = all(p for p, _ in parts) if isinstance(condition, sympy.And) else any(p for p, _ in parts)
        return verdict, (" and " if isinstance(condition, sympy.And) else " or ").join(t for _, t in parts) if shown else ""
    if isinstance(condition, sympy.Not):
        verdict, text = condition_verdict(condition.args[0], side, owner, shown=shown, exact=exact)
        return not verdict, f"not ({text})" if shown else ""
    if isinstance(condition, sympy.ITE):  # (test & then) | (~test & otherwise): the branch the test picks decides
        test, text = condition_verdict(condition.args[0], side, owner, shown=shown, exact=exact)
        verdict, then = condition_verdict(condition.args[1 if test else 2], side, owner, shown=shown, exact=exact)
        return verdict, (f"({text}) and ({then})" if test else f"not ({text}) and ({then})") if shown else ""
    if not isinstance(condition, sympy.core.relational.Relational) or condition.rel_op not in RELATIONS:
        raise errors.EvaluationError(f"{owner + ': ' if owner else ''}cannot evaluate the condition {sympy.sstr(condition)}")

    left, right, scale = _sides(condition, lambda expr: float(expr) if expr.is_number else float(side(expr)))
    verdict = bool(relation_holds(condition.rel_op, left, right, scale))
    if exact and exact.get(condition, verdict) != verdict:  # rounding decided it: the exact verdict, said so
        return not verdict, f"{sympy.sstr(condition)}: {left:.6g} {condition.rel_op} {right:.6g} (base units; sides within rounding of a tie, " \
            f"{'true' if not verdict else 'false'} in exact arithmetic with the inputs as given)" if shown else ""
    return verdict, f"{sympy.sstr(condition)}: {left:.6g} {condition.rel_op} {right:.6g} (base units)" if shown else ""


def _sides(relation: sympy.core.relational.Relational, number: Callable[[sympy.Expr], Any]) -> tuple[Any, Any, Any]:
    """(left, right, scale) that :func:`relation_holds` compares for ``relation``, from ``number`` (an expression's
    base-unit magnitude: a float, or an array per point). A bare literal is in the declared unit of the other side:
    the difference is evaluated, whose sum scales the literal (:func:`scaling.base_expression`)."""
    if relation.lhs.is_number or relation.rhs.is_number:
        left = number(relation.lhs - relation.rhs)
        return left, 0.0, np.maximum(np.abs(left), np.abs(number(relation.lhs if not relation.lhs.is_number else relation.rhs)))
    left, right = number(relation.lhs), number(relation.rhs)
    return left, right, np.maximum(np.abs(left), np.abs(right))


def condition_mask(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> np.ndarray:
    """:func:`condition_true` at every point of array ``values`` at once (the same rule, elementwise: an assumption
    on a scanned variable, where a call per point cost a certificate 88 s of 92).

    Raises:
        errors.EvaluationError: the condition is not made of relations.
    """
    if condition in (True, sympy.true, False, sympy.false):
        return np.asarray(condition in (True, sympy.true))
    if isinstance(condition, (sympy.And, sympy.Or)):
        parts = np.broadcast_arrays(*[condition_mask(model, c, preset, values) for c in condition.args])  # a part free of the scan: one value
        return np.logical_and.reduce(parts) if isinstance(condition, sympy.And) else np.logical_or.reduce(parts)
    if isinstance(condition, sympy.Not):
        return np.logical_not(condition_mask(model, condition.args[0], preset, values))
    if isinstance(condition, sympy.ITE):  # (test & then) | (~test & otherwise), elementwise
        test, then, otherwise = np.broadcast_arrays(*[condition_mask(model, c, preset, values) for c in condition.args])
        return np.where(test, then, otherwise)
    if not isinstance(condition, sympy.core.relational.Relational) or condition.rel_op not in RELATIONS:
        raise errors.EvaluationError(f"{model.id}: cannot evaluate the condition {sympy.sstr(condition)}")

    def number(expr: sympy.Expr) -> Any:
        if expr.is_number:
            return float(expr)
        return np.asarray(evaluator.evaluate_expression(model, expr, None, preset=preset, values=values).magnitude, dtype=float)

    return np.asarray(relation_holds(condition.rel_op, *_sides(condition, number)))


def exact_ties(model: Model, conditions: Iterable[Any], preset: str | None, values: Mapping[str, Any]) -> dict[sympy.Basic, bool]:
    """The relations of ``conditions`` that are ties up to rounding at the point, each with its verdict in
    exact arithmetic (:func:`ties.near_relations`), for :func:`condition_verdict`'s ``exact``."""
    found: dict[sympy.Basic, None] = {}
    for condition in conditions:
        for part in _without_ite(condition):
            piece_select.collect_relations(part, found)
    return ties.near_relations(model, found, preset, values)


def _without_ite(condition: Any) -> Iterable[Any]:
    """``condition`` itself where it holds no ``ITE``, else the parts of it that hold none (an ``ITE``'s test, then
    and otherwise, an ``And``/``Or``/``Not``'s arguments, recursively): the relations of all of them are its relations,
    which :func:`piece_select.collect_relations` does not look for inside an ``ITE``."""
    if not isinstance(condition, sympy.Basic) or not condition.has(sympy.ITE):
        yield condition
        return
    for part in condition.args:
        yield from _without_ite(part)


def condition_holds(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> tuple[bool, str]:
    """Evaluate a condition (relations, And/Or/Not, ``ITE``) numerically at a point; return (verdict, shown numbers).

    Both sides of a relation are evaluated in base units; sides within a relative
    :data:`TIE` of each other are equal (so ties are not decided by rounding).
    """
    return condition_verdict(condition, lambda expr: _side(model, expr, preset, values), model.id,
                             exact=exact_ties(model, [condition], preset, values))


def condition_holds_here(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> bool:
    """The verdict of :func:`condition_holds` alone, ties up to rounding decided exactly as there, without its shown
    numbers (each relation's text: most of the time of a caller that reads the verdict alone, :func:`active_regime`)."""
    return condition_verdict(condition, lambda expr: _side(model, expr, preset, values), model.id, shown=False,
                             exact=exact_ties(model, [condition], preset, values))[0]


def condition_true(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> bool:
    """:func:`condition_holds`' verdict by the tie rule alone (its numbers not printed, and a tie up to rounding not
    decided exactly, unlike :func:`condition_holds` and :func:`condition_holds_here`: for a caller that shows none)."""
    return condition_verdict(condition, lambda expr: _side(model, expr, preset, values), model.id, shown=False)[0]


def conditions_hold(model: Model, conditions: Iterable[Any], preset: str | None, values: Mapping[str, Any]) -> bool:
    """Whether every one of ``conditions`` (``valid_when`` domains) holds at the preset / values, as
    :func:`symgpu.evaluate.evaluator.evaluate` checks them: one lacking a value there (``W <= W_max`` with no
    ``W_max``) is not checked."""
    for condition in conditions:
        try:
            if not condition_true(model, condition, preset, values):
                return False
        except errors.EvaluationError:
            continue
    return True


def sides_at(model: Model, preset: str | None, values: Mapping[str, Any]) -> Callable[[sympy.Expr], float]:
    """The side function :func:`condition_holds` uses at this point, each distinct expression
    evaluated once: for deciding many conditions that share their sides (a regime table's rows)."""
    found: dict[sympy.Expr, float] = {}

    def side(expr: sympy.Expr) -> float:
        value = found.get(expr)
        if value is None:
            value = found[expr] = _side(model, expr, preset, values)
        return value

    return side


def active_regime(model: Model, quantity: str, preset: str | None = None, **values: Any) -> tuple[str, float, str | None, float | None]:
    """Which limiter (top-level ``Min``/``Max``) or case (``Piecewise``) of ``quantity`` binds.

    Returns:
        ``(name, value, next_name, ratio)``: the binding limiter (the equation's
        ``limiters`` name, else ``min_arg<i>``/``max_arg<i>``) or applying case id; the
        quantity's value in its declared unit; the next bound (the runner-up limiter, or for
        a Piecewise the case that applies on the other side of the deciding condition); and
        how far away it is: ``next/active`` for Min (>= 1), ``active/next`` for Max (>= 1),
        and for a Piecewise the ratio of the deciding condition's sides (larger/smaller).

    Raises:
        errors.UsageError: the quantity's equation is neither a Min/Max nor a Piecewise.
        errors.EvaluationError: an argument of the Min/Max is not a number (NaN).
    """
    equation = model.equation_for(quantity)
    name = equation.definition.defines

    def expand(expr: sympy.Basic) -> sympy.Basic:
        return _expanded(model, name, expr, values)

    rhs = equation.rhs
    value = float(evaluator.evaluate(model, name, preset=preset, values=values).magnitude)
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        kind = "min" if isinstance(rhs, sympy.Min) else "max"
        labels, _, numbers = _arguments(model, equation, preset, values)
        order = binding_order(numbers, kind)
        if not order:
            raise errors.EvaluationError(f"{model.id}: an argument of {name}'s {kind.title()} is not a number; no limiter binds")
        active_value, active_name = numbers[order[0]], labels[order[0]]
        if len(order) < 2:
            return active_name, value, None, None
        next_value, next_name = numbers[order[1]], labels[order[1]]
        top, bottom = (next_value, active_value) if kind == "min" else (active_value, next_value)
        ratio = top / bottom if bottom != 0 else (float("inf") if top != 0 else 1.0)
        return active_name, value, next_name, ratio
    if equation.cases:
        for index, case in enumerate(equation.cases):
            condition = expand(case.condition)
            if not condition_holds_here(model, condition, preset, values):
                continue
            deciding = condition if condition is not sympy.true else (expand(equation.cases[index - 1].condition) if index else None)
            other = equation.cases[index + 1].id if index + 1 < len(equation.cases) else (equation.cases[index - 1].id if index else None)
            case_ratio: float | None = None
            if isinstance(deciding, sympy.core.relational.Relational) and not isinstance(deciding, (sympy.Eq, sympy.Ne)):
                left = _side(model, deciding.lhs, preset, values) if not deciding.lhs.is_number else None
                right = _side(model, deciding.rhs, preset, values) if not deciding.rhs.is_number else None
                if left is not None and right is not None and left > 0 and right > 0:
                    case_ratio = max(left, right) / min(left, right)
            return case.id, value, other, case_ratio
        raise errors.DerivationError(f"{model.id}: no case of {name} applies")
    raise errors.UsageError(no_regime(model, name, [k for k in values if k in model.defining]))


def has_regimes(model: Model, quantity: str) -> bool:
    """Whether ``quantity``'s equation is a top-level Min/Max or has cases (a regime of its own)."""
    equation = model.equation_for(quantity)
    return bool(equation.cases) or isinstance(equation.rhs, (sympy.Min, sympy.Max))


def regime_sources(model: Model, quantity: str, given: Iterable[str] = ()) -> tuple[str, ...]:
    """The nearest quantities ``quantity`` is computed from that have regimes of their own (Hong & Kim's
    ``arithmetic_throughput = simd_width*n*alpha/Time``: ``Time``, defined by cases), sorted; the quantities
    ``given`` (kept as values) are not looked into. Empty where none is."""
    kept = frozenset(given)
    seen = {quantity}
    level = [quantity]
    while level:
        reached = sorted({s.name for name in level for s in model.equation_for(name).rhs.free_symbols
                          if s.name in model.defining and s.name not in kept and s.name not in seen})
        found = tuple(name for name in reached if has_regimes(model, name))
        if found:
            return found
        seen.update(reached)
        level = reached
    return ()


def no_regime(model: Model, quantity: str, given: Iterable[str] = ()) -> str:
    """Why ``quantity`` has no regime to report, and whose to ask for instead."""
    sources = regime_sources(model, quantity, given)
    rhs = model.equation_for(quantity).rhs
    inside = not sources and bool(rhs.atoms(sympy.Min, sympy.Max, sympy.Piecewise))  # n_needed = Latency*Min(...)
    which = (f"; its value follows the regimes of {', '.join(sources)}: ask for {'its' if len(sources) == 1 else 'one of theirs'}"
             if sources else f"; its Min/Max is inside its formula, not at its top: `symgpu regimes {model.id} {quantity}` "
             "(with --preset/--set for the one at a point) names the regimes it gives" if inside else "")
    return f"{model.id}: {quantity} is neither a Min/Max nor defined by cases; no regime to report{which}"


def _expanded(model: Model, name: str, expr: sympy.Basic, values: Mapping[str, Any]) -> sympy.Basic:
    """``expr`` (a term of ``name``'s equation) in inputs, the intermediate quantities ``values`` gives kept."""
    given = frozenset(k for k in values if k in model.defining and k != name)
    mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols if s.name in model.defining and s.name not in given}
    return expr.xreplace(mapping) if mapping else expr


def _arguments(model: Model, equation: Equation, preset: str | None,
               values: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[sympy.Expr, ...], list[float]]:
    """A top-level ``Min``/``Max``'s arguments in :func:`argument_order`: their labels, their terms
    as written and their values (the quantity's declared unit)."""
    name = equation.definition.defines
    unit = model.units[name]
    precedence = argument_order(equation)
    labels, terms = argument_labels(equation), equation.rhs.args
    numbers = [float(evaluator.evaluate_expression(model, _expanded(model, name, terms[i], values), unit, preset=preset,
                                                   values=values).magnitude) for i in precedence]
    return tuple(labels[i] for i in precedence), tuple(terms[i] for i in precedence), numbers


def binding_names(model: Model, quantity: str, preset: str | None = None, **values: Any) -> frozenset[str]:
    """The limiters of ``quantity``'s own ``Min``/``Max`` that bind at a point, as the regime table
    (:mod:`symgpu.derive.regime_split`, which names the arguments of the expanded expression) names
    them: every argument within :data:`TIE` of the binding one (two equal bounds both bind), and an
    argument that is itself a quantity defined by a ``Min`` (in a ``Min``; ``Max`` in a ``Max``)
    also by the limiters binding inside it, which SymPy's flattening makes arguments of the
    quantity. A name that the inner equation gives to another argument, one that does not bind
    there, names that argument, not the outer one: Hong & Kim's ``departure_bound`` is Eq. (5)'s
    ``MWP_Without_BW`` and Eq. (17)'s ``MWP_Without_BW_full``; where Eq. (17)'s cap
    ``Active_warps_per_SM`` binds, ``warp_bound`` binds, not ``departure_bound``.

    Raises:
        errors.UsageError: the quantity's equation is no Min/Max.
        errors.EvaluationError: an argument is not a number (NaN).
    """
    equation = model.equation_for(quantity)
    rhs = equation.rhs
    if not isinstance(rhs, (sympy.Min, sympy.Max)):
        raise errors.UsageError(f"{model.id}: {equation.definition.defines} is no Min/Max; no limiter binds")
    labels, terms, numbers = _arguments(model, equation, preset, values)
    order = binding_order(numbers, "min" if isinstance(rhs, sympy.Min) else "max")
    if not order:
        raise errors.EvaluationError(f"{model.id}: an argument of {equation.definition.defines} is not a number; no limiter binds")
    found: set[str] = set()
    for i in order:
        if i != order[0] and not tied(numbers[i], numbers[order[0]]):
            break
        found |= {labels[i]}
        term = terms[i]
        if not (isinstance(term, sympy.Symbol) and term.name in model.defining and term.name not in values):
            continue
        inner = model.equation_for(term.name)
        if type(inner.rhs) is not type(rhs) or not inner.limiters:
            continue
        inside = binding_names(model, term.name, preset, **values)
        found |= inside
        if labels[i] in {n for n, _ in inner.limiters} and labels[i] not in inside:
            found -= {labels[i]}
    tied_terms = [terms[i] for i in order if i == order[0] or tied(numbers[i], numbers[order[0]])]
    for i in order:
        if labels[i] in found and _alias_here(model, terms[i], tied_terms, preset, values):
            found -= {labels[i]}
    return frozenset(found)


def composite_holds(model: Model, quantity: str, regime: str, preset: str | None = None, **values: Any) -> bool:
    """Does the regime named ``case+limiter...`` (a case of ``quantity``'s own case table whose value reads a
    quantity defined by a ``Min``/``Max``, as the regime table names it: Hong & Kim's ``memory_bound+peak_bandwidth``)
    hold at the point: that case applies, and each named limiter binds (:func:`binding_names`) in one of the
    ``Min``/``Max`` quantities the case's value reads, directly or through other quantities? A plain case id: the case
    applies."""
    case, *limiters = regime.split("#")[0].split("+")
    if active_regime(model, quantity, preset, **values)[0] != case:
        return False
    equation = model.equation_for(quantity)
    value = next(c.value for c in equation.cases if c.id == case)
    binding: set[str] = set()
    seen: set[str] = set()
    pending = [s.name for s in value.free_symbols]
    while pending and not set(limiters) <= binding:
        name = pending.pop()
        if name in seen or name not in model.defining or name in values:
            continue
        seen.add(name)
        inner = model.equation_for(name)
        if isinstance(inner.rhs, (sympy.Min, sympy.Max)):
            binding |= binding_names(model, name, preset, **values)
        pending.extend(s.name for s in inner.rhs.free_symbols)
    return set(limiters) <= binding


def _alias_here(model: Model, term: sympy.Basic, others: Sequence[sympy.Basic], preset: str | None, values: Mapping[str, Any]) -> bool:
    """Is ``term`` a quantity defined by cases whose applying case is, as written, another of the
    tied arguments ``others``? Then it binds there only as that argument: Volkov's ``alu_bound_ilp``
    is ``ipc_per_SM`` at ``alpha <= 0`` (its case ``memory_only``, "not binding at alpha = 0"), and
    the regime table names that regime ``memory_bound``, not ``alu_bound``."""
    if not (isinstance(term, sympy.Symbol) and term.name in model.defining and term.name not in values):
        return False
    inner = model.equation_for(term.name)
    if not inner.cases:
        return False
    try:
        case = active_regime(model, term.name, preset, **values)[0]
    except errors.SymgpuError:
        return False
    value = next((c.value for c in inner.cases if c.id == case), None)
    return value is not None and any(value == other for other in others if other is not term)


def binding(model: Model, expr: sympy.Basic, preset: str | None, values: Mapping[str, Any], *,
            binding_only: bool = False) -> tuple[tuple[int, ...], ...]:
    """The regime of ``expr`` at a point, as numbers: for every ``Min``/``Max`` of ``expr`` (in
    pre-order) the order of its arguments, the binding one first (``binding_only``: the binding
    one alone), and for every ``Piecewise`` which of its conditions hold.

    The one numeric rule for "which regime holds" that :func:`active_regime` applies to a
    quantity's own equation, applied to every node: a ``Min``'s binding argument is the
    smallest (the first of equal ones), a ``Max``'s the largest, a
    ``Piecewise``'s branch the first whose condition holds (ties within :data:`TIE`, as
    :func:`binding_order` and :func:`condition_holds` decide them). Two regimes meet where the order
    of two arguments (or a condition) switches, even where a third argument binds; the
    derivation certificates check a boundary from both sides with it.
    """
    found: list[tuple[int, ...]] = []

    def visit(node: sympy.Basic) -> None:
        if isinstance(node, (sympy.Min, sympy.Max)):
            reference = next((a for a in node.args if not a.is_number), node.args[0])
            # differences to one argument: a bare literal takes its siblings' unit (scaling.base_expression)
            base = _side(model, reference, preset, values)
            numbers = [base if a == reference else base + _side(model, a - reference, preset, values) for a in node.args]
            order = binding_order(numbers, "min" if isinstance(node, sympy.Min) else "max")
            found.append(order[:1] if binding_only else order)
        elif isinstance(node, sympy.Piecewise):
            found.append(tuple(int(condition_true(model, cond, preset, values)) for _, cond in node.args))
        for arg in node.args:
            if isinstance(arg, sympy.Basic) and arg.has(sympy.Min, sympy.Max, sympy.Piecewise):
                visit(arg)

    visit(expr)
    return tuple(found)


def boundary_sides(model: Model, name: str, b: float) -> tuple[float, float]:
    """Where a boundary at ``name = b`` is checked from: just below and just above it (``b`` times
    ``1 ± 1e-7``; ``1e-12`` away from 0), the neighbouring integers for an integer ``name`` (the
    model has no value between them); at the low end of ``name``'s declared range (nothing
    admissible lies below it) ``b`` itself is the low side."""
    definition = model.symbol_definitions.get(name)
    assumptions = set(definition.assumptions) if definition is not None else set()
    if "integer" in assumptions:
        below, above = (b - 1, b + 1) if b == round(b) else (float(np.floor(b)), float(np.ceil(b)))
    else:
        step = abs(b) * 1e-7 if b else 1e-12  # relative: a boundary at 6e-21 GiB/SM is not checked 1e-12 away (gen_11_73)
        below, above = b - step, b + step
    if below < 0 <= b and ("positive" in assumptions or "nonnegative" in assumptions) or below == 0 and "positive" in assumptions:
        return b, above
    return below, above
