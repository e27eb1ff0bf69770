"""Per-preset report sections: the evaluation chain of each headline quantity with the active limiter or case and the distance to the next bound."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
import sympy
from symgpu import errors
if TYPE_CHECKING:
    from symgpu.model import Equation, Model
from symgpu.numbers import number_text, round_sig
from symgpu.report.latex import latex, quantity_latex
from symgpu.report.scenarios import Scenario, headline_quantities, magnitude, scenarios, scrub, supplied
from symgpu.evaluate import active, point, scaling


# ============================================================================ regimes
def regime(model: Model, equation: Equation, values: Mapping[sympy.Symbol, float]) -> dict[str, Any] | None:
    """Which argument of a top-level ``Min``/``Max`` (or which piecewise case) is active, by
    :mod:`symgpu.evaluate.active`'s rule and names applied to the chain's values.

    Returns:
        ``None`` if the right-hand side is neither; otherwise a dict with ``kind``, ``active``
        (regime name), ``next`` (the runner-up), ``ratio`` (how far the next bound is, as a
        ratio >= 1), ``arguments`` (name, value, latex of each argument or case) and ``text``.
    """
    rhs = equation.rhs
    unit = model.unit_text(equation.definition.defines)
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        is_min = isinstance(rhs, sympy.Min)
        labels = dict(zip(rhs.args, active.argument_labels(equation)))
        numbers: dict[sympy.Basic, float] = {}
        for term in rhs.args:
            try:
                numbers[term] = point.at_point(model, term, values) / scaling.symbol_scale(model, equation.definition.defines)
            except (TypeError, ValueError):
                numbers[term] = math.nan
        args = [{"name": labels[term], "value": round_sig(numbers[term]), "value_text": number_text(numbers[term]),
                 "latex": latex(model, term), "expression": sympy.sstr(term)} for term in _ordered_args(equation)]
        # evaluate's rule (symgpu.evaluate.active) on the numbers, ties settled in its argument order
        precedence = [rhs.args[i] for i in active.argument_order(equation)]
        order = active.binding_order([numbers[term] for term in precedence], "min" if is_min else "max")
        if not order:
            return None
        ranked = [precedence[i] for i in order]
        active_term, runner_term = ranked[0], (ranked[1] if len(ranked) > 1 else None)
        ratio = None
        if runner_term is not None:
            top, bottom = (numbers[runner_term], numbers[active_term]) if is_min else (numbers[active_term], numbers[runner_term])
            ratio = top / bottom if bottom and math.isfinite(top / bottom) else None
        kind = "min" if is_min else "max"
        text = f"{labels[active_term]} binds ({number_text(numbers[active_term])} {unit})"
        if runner_term is not None:
            text += (f"; next bound {labels[runner_term]} ({number_text(numbers[runner_term])} {unit}) is "
                     f"{number_text(ratio, 4) if ratio is not None else 'n/a'}x {'higher' if is_min else 'lower'}")
        return {"kind": kind, "active": labels[active_term], "next": labels[runner_term] if runner_term is not None else None,
                "ratio": round_sig(ratio, 4) if ratio is not None else None, "arguments": args, "text": text}
    if equation.cases:
        args = []
        active_index = None
        for index, case in enumerate(equation.cases):
            try:
                holds = active.condition_verdict(case.condition, lambda expr: point.at_point(model, expr, values), model.id)[0]
            except (TypeError, ValueError, errors.EvaluationError):
                holds = False
            if holds and active_index is None:
                active_index = index
            margin = _condition_ratio(model, case.condition, values)
            args.append({"name": case.id, "holds": holds, "condition_latex": latex(model, case.condition) if case.condition is not sympy.true else r"\text{otherwise}",
                         "condition": sympy.sstr(case.condition) if case.condition is not sympy.true else "otherwise",
                         "latex": latex(model, case.value), "expression": sympy.sstr(case.value), "margin": margin})
        if active_index is None:
            return {"kind": "piecewise", "active": None, "next": None, "ratio": None, "arguments": args, "text": "no case applies"}
        applying = args[active_index]
        # NOTE: the distance to the neighbouring case is the ratio of the two sides of the
        # deciding comparison: the active case's own, or for 'otherwise' the last one that failed.
        deciding = applying if applying["margin"] is not None else (args[active_index - 1] if active_index else None)
        ratio = deciding["margin"] if deciding else None
        if ratio is not None and ratio < 1:
            ratio = 1 / ratio
        neighbour = args[active_index + 1]["name"] if active_index + 1 < len(args) else (args[active_index - 1]["name"] if active_index else None)
        text = f"case {applying['name']} applies"
        if deciding is not None and ratio is not None:
            text += f" ({deciding['condition']}: the two sides differ by a factor {number_text(ratio, 4)}"
            text += f" from case {neighbour})" if neighbour else ")"
        return {"kind": "piecewise", "active": applying["name"], "next": neighbour, "ratio": round_sig(ratio, 4) if ratio is not None else None, "arguments": args, "text": text}
    return None


def _ordered_args(equation: Equation) -> list[sympy.Expr]:
    """Arguments of a Min/Max: named limiters first in file order, then the rest (sorted)."""
    named = [term for _, term in equation.limiters]
    rest = sorted((a for a in equation.rhs.args if a not in named), key=sympy.default_sort_key)
    return named + rest


def _condition_ratio(model: Model, condition: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> float | None:
    """lhs/rhs of a comparison in base units, rounded for the report (``None`` if undefined)."""
    ratio = point.condition_ratio(model, condition, values)
    return None if ratio is None else round_sig(ratio)


# ============================================================================ chains
def chain(model: Model, scenario: Scenario, quantities: Sequence[str]) -> list[dict[str, Any]]:
    """Each equation needed for ``quantities`` in dependency order (inputs first): the formula,
    the same formula with values and units substituted, the result, and the active regime.

    Raises:
        errors.EvaluationError: a value is missing or outside a domain.
    """
    order: list[Equation] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        equation = model.defining[name]
        for sym in sorted(equation.rhs.free_symbols, key=lambda s: s.name):
            if sym.name in model.defining:
                visit(sym.name)
        order.append(equation)

    for name in quantities:
        visit(name)
    values: dict[sympy.Symbol, float] = {}
    needed = {s for eq in order for s in eq.rhs.free_symbols}
    for sym in sorted(needed, key=lambda s: s.name):
        if sym.name not in model.defining:
            values[sym] = magnitude(model, sym.name, scenario)
    steps = []
    for equation in order:
        name = equation.definition.defines
        result = magnitude(model, name, scenario)
        values[equation.lhs] = result
        state = regime(model, equation, values)
        shown = equation.rhs
        if equation.cases and state and state["active"] is not None:
            shown = next(c.value for c in equation.cases if c.id == state["active"])
        substituted = {s: quantity_latex(values[s], model.unit_text(s.name), parens=True) for s in shown.free_symbols}
        steps.append({
            "equation": equation.id,
            "quantity": name,
            "headline": name in quantities,
            "formula_latex": f"{latex(model, equation.lhs)} = {latex(model, equation.rhs)}",
            "substituted_latex": latex(model, shown, symbol_names=substituted, mul_symbol="dot"),
            "result_latex": quantity_latex(result, model.unit_text(name)),
            "value": round_sig(result),
            "value_text": number_text(result),
            "unit": model.unit_text(name),
            "regime": state,
        })
    return steps


def preset_section(model: Model, preset_id: str) -> dict[str, Any]:
    """The per-preset part of the report: each scenario with its headline quantities and chain."""
    definition = next(p for p in model.definition.presets if p.id == preset_id)
    values = model.preset(preset_id)
    notes = dict(definition.notes)
    listed = [{"name": name, "latex": latex(model, model.symbols[name]), "value": round_sig(float(q.magnitude)),
               "value_text": number_text(float(q.magnitude)), "unit": model.unit_text(name),
               "value_latex": quantity_latex(float(q.magnitude), model.unit_text(name)), "note": notes.get(name, "")}
              for name, q in sorted(values.items())]
    groups: dict[int, list[str]] = {}
    unavailable = []
    options = scenarios(model, preset_id)
    for quantity in headline_quantities(model):
        needs = set(model.inputs(quantity))
        reason = ""
        for index, scenario in enumerate(options):
            missing = sorted(needs - supplied(model, scenario))
            if missing:
                reason = reason or f"needs {', '.join(missing)}"
                continue
            try:
                magnitude(model, quantity, scenario)
            except errors.EvaluationError as exc:
                reason = str(exc)
                continue
            groups.setdefault(index, []).append(quantity)
            break
        else:
            unavailable.append({"quantity": quantity, "reason": reason or "not evaluable"})
    sections = []
    for index in sorted(groups):
        scenario = options[index]
        try:
            steps = chain(model, scenario, groups[index])
        except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
            unavailable.extend({"quantity": q, "reason": scrub(f"{type(exc).__name__}: {exc}")} for q in groups[index])
            continue
        sections.append({
            "label": scenario.label,
            "case": scenario.case,
            "inputs": [{"name": k, "value": round_sig(float(v.magnitude)), "value_text": number_text(float(v.magnitude)), "unit": model.unit_text(k)} for k, v in scenario.inputs],
            "headline": [s for s in steps if s["headline"]],
            "steps": steps,
        })
    source = definition.source
    return {
        "id": preset_id,
        "description": definition.description,
        "source": {"ref": source.ref, "locator": source.locator},
        "based_on": definition.based_on,
        "values": listed,
        "scenarios": sections,
        "unavailable": unavailable,
    }
