"""Why a solve asked at a point has no root there, where the model's ``valid_when`` domain is the reason.

Two refusals said "none of the root(s) lies in its regime ... the regime conditions, or those of the domain ... fail
there", hiding which condition excluded the root, or let a root through whose point has no value at all:

* :func:`refuse_outside`: a ``valid_when`` condition free of the unknown fails at the point, so the model gives the
  quantity no value there at any value of the unknown (Volkov's loaded latency solved for ``alpha`` at ``x = 0.1``,
  where ``theta_loaded = 276.48 GB/s`` is past ``c = 81 GB/s``): refused before any root is sought, as an extremum is
  (the closed-form root was shown and then failed its own check, "please report it"; an inequality's bound was shown).
* :func:`excluded`: each root's value at the point and the first condition it breaks there (the unknown's declared
  sign, its regime's conditions, a ``valid_when`` condition with the values it reads, quoted with digits enough to
  fail it: :mod:`symgpu.evaluate.refusal_digits`): Volkov's ``Latency_loaded = 400 cycle`` solved for ``c`` at G80 with
  ``x = 0.01`` has the root ``c = 9.51 GB/s``, below ``theta_loaded = 27.648 GB/s``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs
from symgpu.derive.extra_records import RootRecord
from symgpu.evaluate import active, evaluator, input_values, refusal_digits
from symgpu.model import literal_constants
from symgpu.units import registry

if TYPE_CHECKING:
    from symgpu.model import Model


def refuse_outside(job: jobs._Job, quantity: Any, var: sympy.Symbol, stop: frozenset[str], preset: str | None,
                   values: Mapping[str, Any]) -> None:
    """At a point, refuse a solve of a quantity the model gives no value there at any ``var``: a ``valid_when`` condition
    on the way to it that does not read ``var`` (its intermediate quantities expanded) fails at the point. Only for a
    quantity as modelled (no substitution, omitted limiter or kept quantity, which change what the conditions read).

    Raises:
        errors.NoAnswerHere: the condition that fails, with the values it reads there."""
    model = job.model
    name = str(quantity)
    if job.substitution or job.omit or stop - {var.name} or (name not in model.defining and name not in model.equations):
        return
    defines = model.equation_for(name).definition.defines
    for equation in model.dependencies(defines, stop_at=stop):
        for condition in equation.valid_when:
            expanded = condition.xreplace({s: model.expression(s.name, stop_at=stop) for s in condition.free_symbols
                                           if s.name in model.defining and s.name not in stop})
            if var.name in {s.name for s in expanded.free_symbols}:
                continue
            try:
                if active.condition_true(model, expanded, preset, values):
                    continue
            except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):  # not decided here: as evaluate, not checked
                continue
            raise errors.NoAnswerHere(
                f"{model.id}: the model gives {defines} no value at {at_point.where_text(preset, dict(values))}, at any {var}: "
                f"equation {equation.id} is valid only when {_written(model, condition)}, but {_quoted(model, condition, preset, values)}; "
                f"no {var} gives the target there (check the values against the domain: symgpu show {model.id})")


def excluded(model: Model, quantity: str, variable: str, records: Sequence[RootRecord], preset: str | None,
             values: Mapping[str, Any]) -> list[str]:
    """Per root (``records``, the target put in) that holds nowhere at the point, why: ``'the root c = 9.513290323 GB/s lies
    outside the domain where the model gives Latency_loaded a value: equation s6_5_latency is valid only when theta_loaded
    < c, but theta_loaded = 27.648 GB/s, c = 9.51329 GB/s'``; the declared
    sign of ``variable`` it breaks, or its regime's conditions. Empty where one root's reason is not found here (it has
    no finite value, or meets every condition read here: an ``--assume``, a whole-number rule): the caller's general
    refusal stands."""
    name = model.equation_for(quantity).definition.defines if quantity in model.defining or quantity in model.equations else None
    unit = model.unit_text(variable) if variable in model.symbols else ""
    suffix = input_values.unit_suffix(model, variable) if variable in model.symbols else ""
    out: list[str] = []
    for record in records:
        try:
            number = float(evaluator.evaluate_expression(model, record.root, unit or None, preset=preset,
                                                         values=evaluator.with_kept(model, record.root, preset, values)).magnitude)
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            return []
        if not math.isfinite(number):
            return []
        at = {**values, variable: number}
        why = _declared(model, variable, number) or _regime(model, record, preset, at) or \
            (_domain(model, name, variable, preset, at) if name is not None else None)
        if why is None:
            return []
        out.append(f"the root {variable} = {number:.10g}{suffix} {why}")
    return out


def _declared(model: Model, variable: str, number: float) -> str | None:
    assumptions = model.symbol_definitions[variable].assumptions if variable in model.symbol_definitions else ()
    for word, breaks in (("positive", number <= 0), ("nonnegative", number < 0)):
        if word in assumptions and breaks:
            return f"breaks its declared sign ({variable} is declared {word}: the model gives no value at another)"
    return None


def _regime(model: Model, record: RootRecord, preset: str | None, at: Mapping[str, Any]) -> str | None:
    if record.when is sympy.true or record.regime == "the equation":
        return None
    try:
        holds = active.condition_true(model, record.when, preset, at)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return None
    return None if holds else f"lies outside its regime {record.regime} (its conditions fail there)"


def _domain(model: Model, quantity: str, variable: str, preset: str | None, at: Mapping[str, Any]) -> str | None:
    """The first ``valid_when`` condition on the way to ``quantity`` that fails at ``at`` (the root put in), said with the
    values it reads."""
    for equation in model.dependencies(quantity):
        for condition in equation.valid_when:
            try:
                if active.condition_true(model, _inputs(model, condition), preset, at):
                    continue
            except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
                continue
            return (f"lies outside the domain where the model gives {quantity} a value: equation {equation.id} is valid only when "
                    f"{_written(model, condition)}, but {_quoted(model, condition, preset, at)}")
    return None


def _inputs(model: Model, condition: sympy.Basic) -> sympy.Basic:
    """``condition`` with its intermediate quantities replaced by their equations (in the inputs, as evaluate reads it)."""
    return condition.xreplace({s: model.expression(s.name) for s in condition.free_symbols if s.name in model.defining})


def _written(model: Model, condition: sympy.Basic) -> str:
    return str(literal_constants.as_written(condition, model.literal_constants))


def _quoted(model: Model, condition: sympy.Basic, preset: str | None, at: Mapping[str, Any]) -> str:
    """The values ``condition`` reads at the point, each in its declared unit, with digits enough that, put back, they fail
    it (:func:`symgpu.evaluate.refusal_digits.derived`)."""
    literals = {c.name for c in model.literal_constants}
    written = _written(model, condition)
    names = sorted((s.name for s in condition.free_symbols if s.name not in literals), key=written.find)

    def value(name: str) -> float:  # in its declared unit
        if name in model.defining:
            return float(evaluator.evaluate(model, name, preset=preset, values=dict(at), checks=False).magnitude)
        return float(evaluator.evaluate_expression(model, model.symbols[name], model.units[name], preset=preset, values=at).magnitude)

    def holds(quoted: Mapping[str, float]) -> bool:
        flag = sympy.Piecewise((1, condition), (0, True))
        return bool(evaluator.evaluate_expression(model, flag, None, preset=preset, values={**at, **{
            n: registry().Quantity(v, model.units[n]) for n, v in quoted.items()}}).magnitude)

    return ", ".join(refusal_digits.derived(model, names, value, holds)) or "it fails there"
