"""Which regime applies at given inputs: numeric checks of regime and branch conditions.

The derivation engine (:mod:`symgpu.derive`) finds regimes symbolically; this module
answers the numeric question a report asks — at this preset, which limiter binds, which
case of a piecewise equation applies, which branch of a Piecewise result is the one to use —
always evaluating through :func:`symgpu.evaluate.evaluator.evaluate_expression` (prefix-safe).
Recording the answer as derivation steps is :mod:`symgpu.derive.at_point`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.evaluate import evaluator

if TYPE_CHECKING:
    from symgpu.model import Model

__all__ = ["active_regime", "binding", "condition_holds"]

#: relative tolerance under which two sides of a condition count as equal (ties)
TIE = 1e-12


def _side(model: Model, expr: sympy.Expr, preset: str | None, values: Mapping[str, Any]) -> float:
    """Magnitude of ``expr`` in coherent base units (the sign and order are what matter)."""
    if expr.is_number:
        return float(expr)
    return float(evaluator.evaluate_expression(model, expr, None, preset=preset, values=values).magnitude)


def condition_holds(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> tuple[bool, str]:
    """Evaluate a condition (relations, And/Or/Not) numerically; return (verdict, shown numbers).

    Both sides of a relation are evaluated in base units; sides within a relative
    :data:`TIE` of each other are equal (so ties are not decided by rounding).
    """
    if condition in (True, sympy.true):
        return True, "True"
    if condition in (False, sympy.false):
        return False, "False"
    if isinstance(condition, (sympy.And, sympy.Or)):
        parts = [condition_holds(model, c, preset, values) for c in condition.args]
        verdict = all(p for p, _ in parts) if isinstance(condition, sympy.And) else any(p for p, _ in parts)
        return verdict, (" and " if isinstance(condition, sympy.And) else " or ").join(t for _, t in parts)
    if isinstance(condition, sympy.Not):
        verdict, text = condition_holds(model, condition.args[0], preset, values)
        return not verdict, f"not ({text})"
    if not isinstance(condition, sympy.core.relational.Relational):
        raise errors.EvaluationError(f"{model.id}: cannot evaluate the condition {sympy.sstr(condition)}")
    if condition.lhs.is_number or condition.rhs.is_number:
        # a bare literal is in the declared unit of the other side: evaluate the difference,
        # whose sum scales the literal (scaling.base_expression)
        left, right = _side(model, condition.lhs - condition.rhs, preset, values), 0.0
        scale = max(abs(left), abs(_side(model, condition.lhs if not condition.lhs.is_number else condition.rhs, preset, values)))
    else:
        left = _side(model, condition.lhs, preset, values)
        right = _side(model, condition.rhs, preset, values)
        scale = max(abs(left), abs(right))
    equal = abs(left - right) <= TIE * scale or left == right
    op = type(condition)
    verdict = {
        sympy.Eq: equal, sympy.Ne: not equal,
        sympy.GreaterThan: equal or left > right, sympy.StrictGreaterThan: (not equal) and left > right,
        sympy.LessThan: equal or left < right, sympy.StrictLessThan: (not equal) and left < right,
    }[op]
    return verdict, f"{sympy.sstr(condition)}: {left:.6g} {condition.rel_op} {right:.6g} (base units)"


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
    """
    equation = model.equation_for(quantity)
    name = equation.definition.defines
    unit = model.units[name]
    given = frozenset(k for k in values if k in model.defining and k != name)

    def expand(expr: sympy.Basic) -> sympy.Basic:
        mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols if s.name in model.defining and s.name not in given}
        return expr.xreplace(mapping) if mapping else expr

    rhs = equation.rhs
    value = float(evaluator.evaluate(model, name, preset=preset, values=values).magnitude)
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        names = dict((sympy.srepr(t), n) for n, t in equation.limiters)
        prefix = "min" if isinstance(rhs, sympy.Min) else "max"
        numbers = []
        for index, arg in enumerate(rhs.args):
            label = names.get(sympy.srepr(arg), f"{prefix}_arg{index + 1}")
            number = float(evaluator.evaluate_expression(model, expand(arg), unit, preset=preset, values=values).magnitude)
            numbers.append((number, label))
        numbers.sort(key=lambda p: p[0], reverse=isinstance(rhs, sympy.Max))
        (active_value, active_name), rest = numbers[0], numbers[1:]
        if not rest:
            return active_name, value, None, None
        next_value, next_name = rest[0]
        ratio: float | None
        if active_value == 0:
            ratio = float("inf") if next_value != 0 else 1.0
        else:
            ratio = next_value / active_value if isinstance(rhs, sympy.Min) else active_value / next_value
        return active_name, value, next_name, ratio
    if equation.cases:
        for index, case in enumerate(equation.cases):
            condition = expand(case.condition)
            holds, _ = condition_holds(model, condition, preset, values)
            if not holds:
                continue
            deciding = condition if condition is not sympy.true else (expand(equation.cases[index - 1].condition) if index else None)
            other = equation.cases[index + 1].id if index + 1 < len(equation.cases) else (equation.cases[index - 1].id if index else None)
            ratio = None
            if isinstance(deciding, sympy.core.relational.Relational) and not isinstance(deciding, (sympy.Eq, sympy.Ne)):
                left = _side(model, deciding.lhs, preset, values) if not deciding.lhs.is_number else None
                right = _side(model, deciding.rhs, preset, values) if not deciding.rhs.is_number else None
                if left is not None and right is not None and left > 0 and right > 0:
                    ratio = max(left, right) / min(left, right)
            return case.id, value, other, ratio
        raise errors.DerivationError(f"{model.id}: no case of {name} applies")
    raise errors.UsageError(f"{model.id}: {name} is neither a Min/Max nor defined by cases; no regime to report")


def binding(model: Model, expr: sympy.Basic, preset: str | None, values: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    """The regime of ``expr`` at a point, as numbers: for every ``Min``/``Max`` of ``expr`` (in
    pre-order) the order of its arguments, the binding one first, and for every ``Piecewise``
    which of its conditions hold.

    The one numeric rule for "which regime holds" that :func:`active_regime` applies to a
    quantity's own equation, applied to every node: a ``Min``'s binding argument is the
    smallest (the first of equal ones), a ``Max``'s the largest, a
    ``Piecewise``'s branch the first whose condition holds. Two regimes meet where the order
    of two arguments (or a condition) switches, even where a third argument binds; the
    derivation certificates check a boundary from both sides with it.
    """
    found: list[tuple[int, ...]] = []

    def visit(node: sympy.Basic) -> None:
        if isinstance(node, (sympy.Min, sympy.Max)):
            reference = next((a for a in node.args if not a.is_number), node.args[0])
            # differences to one argument: a bare literal takes its siblings' unit (scaling.base_expression)
            offsets = [0.0 if a == reference else _side(model, a - reference, preset, values) for a in node.args]
            sign = 1.0 if isinstance(node, sympy.Min) else -1.0
            found.append(tuple(sorted(range(len(offsets)), key=lambda i: (sign * offsets[i], i))))
        elif isinstance(node, sympy.Piecewise):
            found.append(tuple(int(condition_holds(model, cond, preset, values)[0]) for _, cond in node.args))
        for arg in node.args:
            if isinstance(arg, sympy.Basic) and arg.has(sympy.Min, sympy.Max, sympy.Piecewise):
                visit(arg)

    visit(expr)
    return tuple(found)
