"""Why a kernel takes the time it does, and what would change it: one row (or a kernel
description) explained.

* the binding limiter of every ``Min``/``Max`` on the path to ``t_kernel``, by
  :func:`symgpu.evaluate.active.active_regime` (the one rule);
* the sensitivity to each input, d log t / d log x, from the symbolic derivative of ``t_kernel``
  (each ``Min``/``Max`` replaced by its binding argument at the point, by
  :func:`symgpu.evaluate.active.binding`), checked against a central finite difference, by
  :mod:`symgpu.predict.sensitivity` (a ``floor``/``ceiling`` the input reads un-quantized, the grid
  moved with the sizes that launch it);
* the closed-form inverse questions of :data:`QUESTIONS`, asked through the public API
  (``symgpu.load(...).solve``/``boundary``) at the row's point, so each answer carries its
  numeric certificate.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sympy

from symgpu import api, errors, units
from symgpu.evaluate import active, evaluator
from symgpu.model import printing
from symgpu.predict.engine import EFFICIENCY
from symgpu.predict import sensitivity
from symgpu.predict.mapping import Assignment
from symgpu.predict.sensitivity import Sensitivity

@dataclass(frozen=True)
class Question:
    """A closed-form inverse question of a kernel model.

    Attributes:
        text: the question as a reader asks it.
        op: ``solve`` or ``boundary``.
        quantity: the quantity asked about.
        variable: the unknown.
        options: keyword arguments of the API call (``between``, ``target``, ``relation``...);
            a ``target`` of ``"current waves"`` is the row's own wave count.
    """

    text: str
    op: str
    quantity: str
    variable: str
    options: tuple[tuple[str, Any], ...] = ()


_FILL_TEXT = "grid that fills the last wave (largest grid with as many waves as this one)"
_FILL = (("target", "current waves"), ("relation", "<="), ("kind", "max"))
#: per model, the inverse questions (the model files' [[derivations]] ask the same in general form)
QUESTIONS: dict[str, tuple[Question, ...]] = {
    "kernel_streaming": (
        Question("grid below which the kernel is latency-bound (Little's law: bytes in flight = bandwidth x latency)",
                 "solve", "BW_latency", "blocks", (("target", "eta_M*Theta_M"),)),
        Question(_FILL_TEXT, "solve", "waves", "blocks", _FILL + (("stop_at", ("resident_blocks",)),))),
    "kernel_row_reduction": (
        Question("rows (at this grid) below which the kernel is latency-bound", "boundary", "t_body", "rows",
                 (("between", ("memory_bound", "latency_bound")), ("stop_at", ("waves", "miss_fraction")))),
        Question(_FILL_TEXT, "solve", "waves", "blocks", _FILL + (("stop_at", ("resident_blocks",)),))),
    "kernel_gemm": (
        Question("M above which the GEMM is compute-bound (un-quantized bound, matmul guide §2)", "boundary", "t_roofline", "M",
                 (("between", ("compute_bound", "memory_bound")), ("stop_at", ("P_sustained",)))),
        Question(_FILL_TEXT, "solve", "waves", "blocks", _FILL)),
}


@dataclass(frozen=True)
class Binding:
    """The binding limiter of one ``Min``/``Max`` quantity at the point (``next`` and ``ratio`` as
    :func:`symgpu.evaluate.active.active_regime` gives them; ``ratio`` NaN when only one argument)."""

    quantity: str
    limiter: str
    next: str
    ratio: float


@dataclass(frozen=True)
class Answer:
    """One inverse question answered through the public API.

    Attributes:
        question: :attr:`Question.text`.
        variable: the unknown and ``unit`` its unit.
        formula: the closed form (text), "" when none.
        value: its value at the point (NaN when none or not a number).
        unit: the variable's unit.
        current: the variable's value at the point.
        certificate: the answer's certificate line, or why there is no answer.
    """

    question: str
    variable: str
    formula: str
    value: float
    unit: str
    current: float
    certificate: str


@dataclass(frozen=True)
class Explanation:
    """A kernel at one point: its time, regimes, sensitivities and inverse answers."""

    model: str
    preset: str
    inputs: tuple[tuple[str, float, str], ...]
    latency_us: float
    bindings: tuple[Binding, ...]
    sensitivities: tuple[Sensitivity, ...]
    answers: tuple[Answer, ...]


def explain(assignment: Assignment) -> Explanation:
    """Explain the prediction of ``assignment`` (a row's model, GPU and inputs).

    Raises:
        errors.UsageError: the assignment has no model (its ``reason`` says why).
    """
    if assignment.reason:
        raise errors.UsageError(f"row {assignment.row}: not predicted: {assignment.reason}")
    model = api.load(assignment.model)
    preset = f"{assignment.gpu}+{EFFICIENCY}"
    values = dict(assignment.inputs)
    latency = float(units.magnitude_in(evaluator.evaluate(model, "t_kernel", preset=preset, values=values, checks=False), "us"))
    return Explanation(
        assignment.model, preset, tuple((n, v, model.unit_text(n)) for n, v in assignment.inputs), latency,
        bindings(model, preset, values), sensitivity.sensitivities(model, preset, values, local_expression(model, preset, values)),
        tuple(answer(model, q, preset, values) for q in QUESTIONS.get(model.id, ())))


def bindings(model: api.Model, preset: str, values: Mapping[str, float]) -> tuple[Binding, ...]:
    """The binding limiter of every ``Min``/``Max`` equation ``t_kernel`` depends on, in file order."""
    reachable = _reachable(model, "t_kernel")
    out = []
    for equation in model.equations.values():
        name = equation.definition.defines
        if name in reachable and isinstance(equation.rhs, (sympy.Min, sympy.Max)):
            limiter, _, following, ratio = active.active_regime(model, name, preset, **values)
            out.append(Binding(name, limiter, following or "", math.nan if ratio is None else float(ratio)))
    return tuple(out)


def _reachable(model: api.Model, name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen or current not in model.defining:
            continue
        seen.add(current)
        todo.extend(s.name for s in model.equation_for(current).rhs.free_symbols)
    return seen


def local_expression(model: api.Model, preset: str, values: Mapping[str, float]) -> sympy.Expr:
    """``t_kernel`` in its inputs with every ``Min``/``Max`` replaced by its binding argument at the point."""
    expr = model.expression("t_kernel")
    orders: Iterator[tuple[int, ...]] = iter(active.binding(model, expr, preset, values))

    def rebuild(node: sympy.Basic) -> sympy.Basic:
        # NOTE: the same pre-order walk as active.binding, so each Min/Max meets its own order
        own = next(orders) if isinstance(node, (sympy.Min, sympy.Max, sympy.Piecewise)) else None
        args = [rebuild(a) if isinstance(a, sympy.Basic) and a.has(sympy.Min, sympy.Max, sympy.Piecewise) else a for a in node.args]
        if isinstance(node, (sympy.Min, sympy.Max)):
            if not own:
                raise errors.EvaluationError(f"{model.id}: an argument of {printing.sstr(node)} is not a number at the point")
            return args[own[0]]
        if isinstance(node, sympy.Piecewise):
            return next(a.args[0] for a, holds in zip(args, own or ()) if holds)
        return node.func(*args) if args != list(node.args) else node

    return rebuild(expr)


def answer(model: api.Model, question: Question, preset: str, values: Mapping[str, float]) -> Answer:
    """Ask ``question`` through the public API at the point; a refused question becomes an answer without a value."""
    unit = model.unit_text(question.variable)
    current = float(evaluator.evaluate_expression(model, model.symbols[question.variable], unit, preset=preset, values=values).magnitude)
    options = dict(question.options)
    if options.get("target") == "current waves":
        options["target"] = int(round(float(evaluator.evaluate(model, "waves", preset=preset, values=values, checks=False).magnitude)))
    given = {k: v for k, v in values.items() if k != question.variable}
    try:
        if question.op == "boundary":
            d = model.boundary(question.quantity, options.pop("between"), for_=question.variable, preset=preset, values=given, **options)
        else:
            d = model.solve(question.quantity, question.variable, preset=preset, values=given, **options)
    except errors.SymgpuError as exc:
        return Answer(question.text, question.variable, "", math.nan, unit, current, f"no closed form: {exc}")
    result = d.result
    if isinstance(result, dict):
        result = next(iter(result.values())) if len(result) == 1 else result
    formula = printing.sstr(result) if isinstance(result, sympy.Basic) else str(result)
    try:
        # the quantities kept as symbols (stop_at) replaced by their equations for the number
        kept = {s: model.expression(s.name) for s in result.free_symbols if s.name in model.defining}
        value = float(evaluator.evaluate_expression(model, result.xreplace(kept), unit, preset=preset, values=given).magnitude)
    except (errors.SymgpuError, AttributeError, TypeError, ValueError):
        value = math.nan
    certificate = d.certificate.text() if d.certificate is not None else "not checked numerically"
    return Answer(question.text, question.variable, formula, value, unit, current, certificate)


def lines(explanation: Explanation) -> list[str]:
    """The explanation as printed lines."""
    e = explanation
    out = [f"  model {e.model} at preset {e.preset}: t_kernel = {e.latency_us:.6g} us",
           "  inputs: " + ", ".join(f"{n} = {v:.6g} {u}" for n, v, u in e.inputs)]
    out.append("  binding limiters (evaluate.active's rule):")
    for b in e.bindings:
        away = f", x{b.ratio:.3g} away" if math.isfinite(b.ratio) and b.ratio > 0 else ""
        nxt = f" (next {b.next}{away})" if b.next else ""
        out.append(f"    {b.quantity}: {b.limiter}{nxt}")
    out.extend(sensitivity.lines(e.sensitivities))
    out.append("  inverse questions (closed form, public API):")
    for a in e.answers:
        out.append(f"    {a.question}:")
        if a.formula:
            number = f"{a.value:.6g} {a.unit}" if a.value > 0 else f"{a.value:.6g} (no positive {a.variable}: the bound never switches here)"
            out.append(f"      {a.variable} = {a.formula} = {number} (now {a.current:.6g})")
        out.append(f"      {a.certificate}")
    return out


def as_dict(explanation: Explanation) -> dict[str, Any]:
    """JSON-ready form."""
    e = explanation
    return {"model": e.model, "preset": e.preset, "latency_us": e.latency_us,
            "inputs": [{"name": n, "value": v, "unit": u} for n, v, u in e.inputs],
            "bindings": [dataclasses.asdict(b) for b in e.bindings],
            "sensitivities": [dataclasses.asdict(s) for s in e.sensitivities],
            "answers": [dataclasses.asdict(a) for a in e.answers]}
