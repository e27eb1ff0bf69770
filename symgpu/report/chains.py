"""Per-preset report sections: the evaluation chain of each headline quantity with the active limiter or case and the distance to the next bound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
import sympy
from symgpu import errors
if TYPE_CHECKING:
    from symgpu.model import Equation, Model
from symgpu.numbers import number_text, round_sig
from symgpu.report.latex import latex, quantity_latex
from symgpu.report.scenarios import Scenario, headline_quantities, record, scenarios, scrub, supplied
from symgpu.evaluate import assumed
from symgpu.evaluate.record import Regime


# ============================================================================ regimes
def regime(model: Model, equation: Equation, decided: Regime | None) -> dict[str, Any] | None:
    """A regime of the scenario's record (:mod:`symgpu.evaluate.record`: the active argument of a
    top-level ``Min``/``Max`` or the applying case, by :mod:`symgpu.evaluate.active`'s rule and
    names) laid out for the report.

    Returns:
        ``None`` if the right-hand side is neither; otherwise a dict with ``kind``, ``active``
        (regime name), ``next`` (the runner-up), ``ratio`` (how far the next bound is, as a
        ratio >= 1; ``None`` where a bound is 0 or they differ in sign: the text then gives their difference),
        ``arguments`` (name, value, latex of each argument or case) and ``text``.
    """
    if decided is None:
        return None
    unit = model.unit_text(equation.definition.defines)
    if decided.kind in ("min", "max"):
        is_min = decided.kind == "min"
        by_term = {b.expression: b for b in decided.bounds}
        args = [{"name": by_term[term].name, "value": round_sig(by_term[term].value), "value_text": number_text(by_term[term].value),
                 "latex": latex(model, term), "expression": sympy.sstr(term)} for term in _ordered_args(equation)]
        first, runner = decided.active, decided.runner_up
        if first is None:
            return None
        ratio = decided.ratio  # None where one bound is 0 or they differ in sign: the distance is then their difference
        text = f"{first.name} binds ({number_text(first.value)} {unit})"
        if runner is not None:
            distance = (f"{number_text(ratio, 4)}x" if ratio is not None
                        else f"{number_text(abs(runner.value - first.value))} {unit}")
            text += (f"; next bound {runner.name} ({number_text(runner.value)} {unit}) is "
                     f"{distance} {'higher' if is_min else 'lower'}")
        return {"kind": decided.kind, "active": first.name, "next": runner.name if runner is not None else None,
                "ratio": round_sig(ratio, 4) if ratio is not None else None, "arguments": args, "text": text}
    args = []
    for case in decided.bounds:
        margin = None if case.margin is None else round_sig(case.margin)
        args.append({"name": case.name, "holds": case.holds, "condition_latex": latex(model, case.condition) if case.condition is not sympy.true else r"\text{otherwise}",
                     "condition": sympy.sstr(case.condition) if case.condition is not sympy.true else "otherwise",
                     "latex": latex(model, case.expression), "expression": sympy.sstr(case.expression), "margin": margin})
    if not decided.order:
        return {"kind": "piecewise", "active": None, "next": None, "ratio": None, "arguments": args, "text": "no case applies"}
    active_index = decided.order[0]
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
        # the active case's own condition holds; an earlier case's, which decides an 'otherwise', fails
        said = deciding["condition"] if deciding is applying else f"{deciding['condition']} is false"
        text += f" ({said}: the two sides differ by a factor {number_text(ratio, 4)}"
        text += f" from case {neighbour})" if neighbour else ")"
    return {"kind": "piecewise", "active": applying["name"], "next": neighbour, "ratio": round_sig(ratio, 4) if ratio is not None else None, "arguments": args, "text": text}


def _ordered_args(equation: Equation) -> list[sympy.Expr]:
    """Arguments of a Min/Max: named limiters first in file order, then the rest (sorted)."""
    named = [term for _, term in equation.limiters]
    rest = sorted((a for a in equation.rhs.args if a not in named), key=sympy.default_sort_key)
    return named + rest


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
    needed = {s for eq in order for s in eq.rhs.free_symbols}
    inputs = [sym.name for sym in sorted(needed, key=lambda s: s.name) if sym.name not in model.defining]
    evaluated = record(model, scenario, inputs + [eq.definition.defines for eq in order])
    values: dict[sympy.Symbol, float] = {model.symbols[name]: evaluated.value(name) for name in inputs}
    steps = []
    assuming = any(equation.assumes for equation in order)
    for equation in order:
        name = equation.definition.defines
        result = evaluated.value(name)
        values[equation.lhs] = result
        state = regime(model, equation, evaluated.regime(name))
        shown = equation.rhs
        if equation.cases and state and state["active"] is not None:
            shown = next(c.value for c in equation.cases if c.id == state["active"])
        substituted = {s: quantity_latex(values[s], model.unit_text(s.name), parens=True) for s in shown.free_symbols}
        failing = _failing_assumptions(model, scenario, name) if assuming and name in quantities else []
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
            **({"assumptions": failing} if failing else {}),  # only where one fails: every other report stays as it was
        })
    return steps


def _failing_assumptions(model: Model, scenario: Scenario, name: str) -> list[str]:
    """Each ``assumes`` condition on the way to ``name`` that fails at the scenario, said as ``symgpu eval`` says it
    (:func:`assumed.failing`): the value is the formula's, not what ``name`` is described as."""
    return [assumed.failing(model, a, lambda n, q: f"{number_text(float(q.magnitude))} {model.unit_text(n)}".strip())
            for a in assumed.assumptions(model, name, scenario.preset, scenario.values()) if a.fails]


def preset_section(model: Model, preset_id: str) -> dict[str, Any]:
    """The per-preset part of the report: each scenario with its headline quantities and chain."""
    values = model.preset(preset_id)  # presets combined with '+' (a GPU's, then a workload's): later ones win
    parts = [next(d for d in model.definition.presets if d.id == part.strip()) for part in preset_id.split("+")]
    notes: dict[str, str] = {}
    for definition in parts:  # each value's note from the part that gave it
        own = dict(definition.notes)
        notes.update({name: own.get(name, "") for name in model.presets[definition.id]})
    listed = [{"name": name, "latex": latex(model, model.symbols[name]), "value": round_sig(float(q.magnitude)),
               "value_text": number_text(float(q.magnitude)), "unit": model.unit_text(name),
               "value_latex": quantity_latex(float(q.magnitude), model.unit_text(name)), "note": notes.get(name, "")}
              for name, q in sorted(values.items())]
    groups: dict[int, list[str]] = {}
    unavailable = []
    options = scenarios(model, preset_id)
    headline = headline_quantities(model)
    for quantity in headline:
        needs = set(model.inputs(quantity))
        reason = ""
        for index, scenario in enumerate(options):
            missing = sorted(needs - supplied(model, scenario))
            if missing:
                reason = reason or f"needs {', '.join(missing)}"
                continue
            try:
                record(model, scenario, headline).value(quantity)
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
    return {
        "id": preset_id,
        "description": "; then ".join(f"{d.id}: {d.description}" if len(parts) > 1 else d.description for d in parts),
        "source": {"ref": "; ".join(dict.fromkeys(d.source.ref for d in parts)),
                   "locator": "; ".join(dict.fromkeys(d.source.locator for d in parts if d.source.locator))},
        "based_on": ", ".join(d.based_on for d in parts if d.based_on),
        "values": listed,
        "scenarios": sections,
        "unavailable": unavailable,
    }
