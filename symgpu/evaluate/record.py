"""Evaluate once per scenario: a frozen record of a scenario's values and regimes.

A scenario is a model, a preset and given values. :func:`evaluation_record` evaluates the asked
symbols there once (inputs read, quantities evaluated, every value in its declared unit) and, for
each asked quantity whose equation is a top-level ``Min``/``Max`` or a case table, decides the
active regime by :mod:`symgpu.evaluate.active`'s rule and names it. Reports (chains, scenarios,
tables, plots) and ``compare`` format this record instead of evaluating and deciding on their own.

A regime is decided from the values of the equation's own right-hand side at the point
(:func:`symgpu.evaluate.point.at_point`: the symbols' values substituted into the base-unit form),
so the argument values shown beside it are the ones the rule compared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.evaluate import active, evaluator, input_values, point, scaling
from symgpu.memo import memoised

if TYPE_CHECKING:
    from symgpu.model import Equation, Model

__all__ = ["Bound", "EvaluationRecord", "Failure", "Regime", "evaluation_record", "regime_of"]


@dataclass(frozen=True)
class Bound:
    """One argument of a top-level ``Min``/``Max``, or one case of a case table.

    Attributes:
        name: the regime name (:func:`symgpu.evaluate.active.argument_labels`, or the case id).
        expression: the argument, or the case's value expression.
        value: a ``Min``/``Max`` argument's value in the quantity's declared unit (NaN when not a
            number there); NaN for a case.
        condition: a case's condition (``sympy.true`` for a ``Min``/``Max`` argument).
        holds: whether a case's condition holds (``False`` for an argument).
        margin: a case condition's ``lhs/rhs`` in base units (``None`` if not a comparison or undefined).
    """

    name: str
    expression: sympy.Basic
    value: float = math.nan
    condition: Any = sympy.true
    holds: bool = False
    margin: float | None = None


@dataclass(frozen=True)
class Regime:
    """The regime of one quantity at the scenario.

    Attributes:
        quantity: the quantity.
        kind: ``"min"``, ``"max"`` or ``"piecewise"``.
        bounds: the equation's arguments (``rhs.args`` order) or cases (file order).
        order: for a ``Min``/``Max``, indices into ``bounds``, the binding one first
            (:func:`symgpu.evaluate.active.binding_order` in the equation's argument order; empty
            where an argument is NaN); for a case table, the applying case's index alone (empty
            when none applies).
    """

    quantity: str
    kind: str
    bounds: tuple[Bound, ...]
    order: tuple[int, ...]

    @property
    def active(self) -> Bound | None:
        """The binding argument or applying case (``None`` when there is none)."""
        return self.bounds[self.order[0]] if self.order else None

    @property
    def runner_up(self) -> Bound | None:
        """A ``Min``/``Max``'s argument that binds among the rest (``None`` for a case table)."""
        return self.bounds[self.order[1]] if len(self.order) > 1 else None

    @property
    def ratio(self) -> float | None:
        """How far the runner-up of a ``Min``/``Max`` is: ``next/active`` for a Min, ``active/next``
        for a Max (>= 1); ``None`` without a runner-up, at a zero, where it is not finite, or where it is below 1 (a
        bound of 0 or bounds of opposite signs: ``max_arg1`` binding at 0 over -285 cycle, -1.7 over 363.7 cycle, where
        only their difference says how far the next one is)."""
        first, second = self.active, self.runner_up
        if first is None or second is None:
            return None
        top, bottom = (second.value, first.value) if self.kind == "min" else (first.value, second.value)
        if not bottom:
            return None
        with_ratio = top / bottom
        return with_ratio if math.isfinite(with_ratio) and with_ratio >= 1 else None


@dataclass(frozen=True)
class Failure:
    """Why a symbol has no value at the scenario: the error's class and message, raised again on use."""

    error: type[errors.SymgpuError]
    message: str


@dataclass(frozen=True)
class EvaluationRecord:
    """A scenario evaluated once.

    Attributes:
        model: the model's id.
        preset: the preset id (``None`` for none).
        given: the given values, as passed (symbol -> number, quantity or quantity text).
        values: symbol -> value in its declared unit, for every asked symbol that has one and every
            symbol a regime was decided from.
        failures: symbol -> why it has no value.
        regimes: quantity -> its regime, for every asked ``Min``/``Max``/case-table quantity whose
            right-hand side has values.
    """

    model: str
    preset: str | None
    given: tuple[tuple[str, Any], ...]
    values: tuple[tuple[str, float], ...]
    failures: tuple[tuple[str, Failure], ...] = ()
    regimes: tuple[tuple[str, Regime], ...] = ()

    def value(self, name: str) -> float:
        """The value of ``name`` in its declared unit.

        Raises:
            errors.SymgpuError: the error evaluating it gave (an ``EvaluationError`` when it was not asked).
        """
        for key, number in self.values:
            if key == name:
                return number
        for key, failure in self.failures:
            if key == name:
                raise failure.error(failure.message)
        raise errors.EvaluationError(f"{self.model}: {name} was not evaluated in this record")

    def regime(self, name: str) -> Regime | None:
        """The regime of quantity ``name`` (``None`` when its equation has none or it was not asked)."""
        return next((r for key, r in self.regimes if key == name), None)


def _value(model: Model, name: str, preset: str | None, given: Mapping[str, Any], where: str) -> float:
    """:func:`symgpu.evaluate.evaluator.evaluate`'s value of ``name`` (or an input's) in its declared unit."""
    if name in given:
        return float(input_values.to_magnitude(model, name, given[name], check=False))
    if name in model.defining:
        return float(evaluator.evaluate(model, name, preset=preset, values=given).magnitude)
    merged = input_values.merge_values(model, preset, None)
    if name not in merged:
        raise errors.EvaluationError(f"{model.id}: no value for {name} in {where}")
    return float(input_values.to_magnitude(model, name, merged[name], check=False))


def regime_of(model: Model, equation: Equation, values: Mapping[sympy.Symbol, float]) -> Regime | None:
    """The regime of ``equation`` from the values (declared units) of its right-hand side's symbols,
    by :mod:`symgpu.evaluate.active`'s rule and names; ``None`` if it is neither a top-level
    ``Min``/``Max`` nor a case table."""
    rhs, name = equation.rhs, equation.definition.defines
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        kind = "min" if isinstance(rhs, sympy.Min) else "max"
        scale = scaling.symbol_scale(model, name)
        bounds = []
        for label, term in zip(active.argument_labels(equation), rhs.args):
            try:
                number = point.at_point(model, term, values) / scale
            except (TypeError, ValueError):
                number = math.nan
            bounds.append(Bound(label, term, number))
        precedence = active.argument_order(equation)
        ranked = active.binding_order([bounds[i].value for i in precedence], kind)
        return Regime(name, kind, tuple(bounds), tuple(precedence[i] for i in ranked))
    if equation.cases:
        cases = []
        for case in equation.cases:
            try:
                holds = bool(active.condition_verdict(case.condition, lambda expr: point.at_point(model, expr, values), model.id)[0])
            except (TypeError, ValueError, errors.EvaluationError):
                holds = False
            cases.append(Bound(case.id, case.value, condition=case.condition, holds=holds,
                               margin=point.condition_ratio(model, case.condition, values)))
        applying = next((i for i, c in enumerate(cases) if c.holds), None)
        return Regime(name, "piecewise", tuple(cases), () if applying is None else (applying,))
    return None


def evaluation_record(model: Model, preset: str | None, given: tuple[tuple[str, Any], ...], names: tuple[str, ...],
                      where: str = "") -> EvaluationRecord:
    """The record of ``names`` (symbols: inputs or quantities) at ``preset`` with ``given`` values.

    ``where`` names the scenario in the message of an input without a value (default: the preset).

    Each value is evaluated once, in its symbol's declared unit (inputs: the given value, else the
    preset's or constant's; quantities: :func:`symgpu.evaluate.evaluator.evaluate`). A symbol that
    cannot be evaluated is recorded as a failure, raised again by :meth:`EvaluationRecord.value`.
    Each asked ``Min``/``Max``/case-table quantity gets its regime (:func:`regime_of`) when every
    symbol of its right-hand side has a value.

    NOTE: memoised per (model, preset, given, names): models and given values are immutable, and a
    report asks for the same scenario from its chains, tables and plots. Given values that cannot
    be a key (arrays) are evaluated each time.
    """
    try:
        return _kept_record(model, preset, given, names, where)
    except TypeError:  # an unhashable given value
        return _record(model, preset, given, names, where)


@memoised("evaluate.record.records", 4096)
def _kept_record(model: Model, preset: str | None, given: tuple[tuple[str, Any], ...], names: tuple[str, ...], where: str) -> EvaluationRecord:
    return _record(model, preset, given, names, where)


def _record(model: Model, preset: str | None, given: tuple[tuple[str, Any], ...], names: tuple[str, ...], where: str) -> EvaluationRecord:
    values = dict(given)
    found: dict[str, float] = {}
    failed: dict[str, Failure] = {}

    def evaluate(name: str) -> None:
        if name in found or name in failed:
            return
        try:
            found[name] = _value(model, name, preset, values, where or (f"preset {preset}" if preset else "the model's constants"))
        except errors.SymgpuError as exc:
            failed[name] = Failure(type(exc), str(exc))

    for name in names:
        evaluate(name)
    regimes = []
    for name in names:
        if name not in model.defining:
            continue
        equation = model.defining[name]
        if not (isinstance(equation.rhs, (sympy.Min, sympy.Max)) or equation.cases):
            continue
        symbols = sorted(equation.rhs.free_symbols, key=lambda s: s.name)
        for sym in symbols:
            evaluate(sym.name)
        if any(sym.name not in found for sym in symbols):
            continue
        decided = regime_of(model, equation, {sym: found[sym.name] for sym in symbols})
        if decided is not None:
            regimes.append((name, decided))
    return EvaluationRecord(model.id, preset, given, tuple(found.items()), tuple(failed.items()), tuple(regimes))

