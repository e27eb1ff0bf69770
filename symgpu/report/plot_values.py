"""Values behind a plot: the scenario's fixed values, the swept variables as arrays, compiled functions of them, marks and range centres."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
import numpy as np
import sympy
from symgpu import errors
from symgpu.memo import MemoFamily
from symgpu.evaluate import active, input_values, point, scaling
from symgpu.numbers import number_text, round_sig
from symgpu.report.scenarios import magnitude, scrub
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.report.plot_specs import POINTS, SPAN, DrawnMark, PlotSpec
from symgpu.evaluate import compiler


# ============================================================================ evaluation
#: per model: (expression, variables, fixed values, unit) -> compiled function, see :meth:`PlotValues.function`
#: (one model's report compiles ~100)
_FUNCTIONS: MemoFamily[tuple[Any, ...], Any] = MemoFamily("report.plot_values.functions", 2048)


def _compiled(model: Model, expr: sympy.Basic, variables: tuple[str, ...], fixed: dict[sympy.Symbol, sympy.Float],
              unit_of: str | None) -> Any:
    """:func:`compiler.declared_unit_function`, once per model and arguments."""
    kept = _FUNCTIONS.of(model)
    key = (expr, variables, tuple(sorted((s.name, v) for s, v in fixed.items())), unit_of)
    found = kept.get(key)
    if found is None:
        found = kept[key] = compiler.declared_unit_function(model, expr, variables, fixed, unit_of)
    return found


class PlotValues:
    """Magnitudes (declared units) of a spec's fixed symbols, the varied ones as arrays; ``kept``
    False compiles each function afresh instead of once per model (benchmarks compare the two)."""

    def __init__(self, model: Model, spec: PlotSpec, series_value: str | None = None, *, kept: bool = True) -> None:
        if spec.scenario is None:
            raise errors.EvaluationError(f"{model.id}: plot {spec.id}: {spec.problem}")
        self.model, self.spec, self.kept = model, spec, kept
        self.bound: dict[str, float] = {}
        # explicit values (plot inputs, the series value) join the scenario, so quantities
        # bound to inputs and every fixed value see them
        given = [(name, text) for name, text in spec.bind if text not in model.defining]
        if spec.series and series_value is not None:
            given.append((spec.series[0], series_value))
        extra = tuple((name, input_values.declared_quantity(model, name, text)) for name, text in given)
        self.scenario = dataclasses.replace(spec.scenario, inputs=spec.scenario.inputs + extra) if extra else spec.scenario
        for name, quantity in extra:
            self.bound[name] = float(quantity.magnitude)
        for name, text in spec.bind:
            if text in model.defining:
                self.bound[name] = magnitude(model, text, self.scenario)
        self.substitute = {model.symbols[k]: model.parse(v, f"plot {spec.id}") for k, v in spec.substitute}
        self._expressions: dict[str, sympy.Expr] = {}

    def expand(self, expr: sympy.Basic) -> sympy.Basic:
        """Replace defined quantities by their expressions (stopping at bound and varied names)."""
        stop = frozenset(self.bound) | frozenset(self.spec.variables)
        for _ in range(64):
            mapping = {s: self._expression(s.name, stop) for s in expr.free_symbols
                       if s.name in self.model.defining and s.name not in stop}
            mapping.update({s: v for s, v in self.substitute.items() if s in expr.free_symbols})
            if not mapping:
                return expr
            expr = expr.xreplace(mapping)
        raise errors.EvaluationError(f"{self.model.id}: plot {self.spec.id}: substitution does not terminate")

    def _expression(self, name: str, stop: frozenset[str]) -> sympy.Expr:
        if name not in self._expressions:
            self._expressions[name] = self.model.expression(name, stop_at=stop)
        return self._expressions[name]

    def _fixed(self, expr: sympy.Basic) -> dict[sympy.Symbol, sympy.Float]:
        """Base-unit values of every symbol of ``expr`` that is not varied."""
        return point.base_values(self.model, {sym: self._declared(sym.name) for sym in expr.free_symbols if sym.name not in self.spec.variables})

    def function(self, expr: sympy.Basic, unit_of: str | None = None) -> Any:
        """A NumPy function of the varied variables (declared units, ``spec.variables`` order)
        returning values in the declared unit of ``unit_of`` (base units if ``None``; conditions
        return booleans).

        NOTE: compiled once per model for the process and reused by every plot, series value and
        scenario that asks for the same expression with the same fixed values (substituting the
        values rebuilds every Min/Max, which compares its arguments symbolically: most of a plot's
        values). The values stay substituted, not arguments: SymPy folds the constants, and the
        numbers must be those it gives."""
        expanded = self.expand(expr)
        fixed = self._fixed(expanded)
        if not self.kept:
            return compiler.declared_unit_function(self.model, expanded, tuple(self.spec.variables), fixed, unit_of)
        return _compiled(self.model, expanded, tuple(self.spec.variables), fixed, unit_of)

    def _declared(self, name: str) -> float:
        """The value of a fixed (not varied) symbol in its declared unit."""
        return self.bound[name] if name in self.bound else magnitude(self.model, name, self.scenario)

    def scalar(self, expr: sympy.Basic, text: str, unit_of: str | None = None, varied: Mapping[str, float] | None = None) -> float:
        """Value of a model expression at the scenario, in the declared unit of ``unit_of``.

        Args:
            expr: the expression, parsed by the model.
            text: its text, for messages.
            unit_of: symbol whose declared unit the result is given in (base units if ``None``).
            varied: values (declared units) for plotted variables the expression uses.

        Raises:
            errors.EvaluationError: the expression needs a plotted variable not in ``varied``,
                or is not a finite real number here.
        """
        varied = dict(varied or {})
        based = scaling.base_expression(self.model, self.expand(expr))
        at: dict[sympy.Symbol, float] = {}
        for sym in based.free_symbols:
            if sym.name in self.spec.variables:
                if sym.name not in varied:
                    raise errors.EvaluationError(f"{text} depends on the plotted variable {sym.name}")
                at[sym] = varied[sym.name]
        value = based.xreplace(self._fixed(based) | point.base_values(self.model, at))
        if not (value.is_real and value.is_finite):
            raise errors.EvaluationError(f"{text} is not a finite real number with these values ({value})")
        return float(value) / (scaling.symbol_scale(self.model, unit_of) if unit_of else 1.0)

    def centers(self) -> dict[str, float]:
        """Middle of each plotted variable's range: an explicit centre, an x-mark for the
        variable (evaluated at the other variables' centres), a bound value, or the scenario's."""
        explicit = {c.variable: c for c in self.spec.centers}
        known: dict[str, float] = {}
        for _ in range(len(self.spec.variables)):
            for variable in self.spec.variables:
                if variable in known:
                    continue
                # (text, parsed expression): the explicit centre, then the x-marks that parse
                candidates = [(explicit[variable].expression, explicit[variable].parsed)] if variable in explicit else []
                candidates += [(m.expression, m.parsed) for m in self.spec.marks
                               if m.axis == "x" and (m.variable or self.spec.variables[0]) == variable and m.parsed is not None]
                for text, expr in candidates:
                    try:
                        value = self.scalar(expr, text, variable, known)
                    except (errors.SymgpuError, TypeError, ValueError):
                        continue
                    if value > 0:
                        known[variable] = value
                        break
                else:
                    if variable in self.bound:
                        known[variable] = self.bound[variable]
                    else:
                        try:
                            known[variable] = magnitude(self.model, variable, self.scenario)
                        except errors.SymgpuError:
                            pass
        missing = [v for v in self.spec.variables if v not in known]
        if missing:
            raise errors.EvaluationError(
                f"{self.model.id}: plot {self.spec.id}: no value of {missing[0]} to centre its range on "
                f"({self.scenario.label} gives none, and no derivation of the file places it)")
        return known


def regime_branches(model: Model, quantity: str) -> list[tuple[str, sympy.Basic, sympy.Basic]]:
    """(name, value expression, condition) of each bound or case of a bounded quantity."""
    equation = model.defining[quantity]
    if equation.cases:
        return [(c.id, c.value, c.condition) for c in equation.cases]
    labels = dict(zip(equation.rhs.args, active.argument_labels(equation)))
    named = [t for _, t in equation.limiters]
    rest = sorted((a for a in equation.rhs.args if a not in named), key=sympy.default_sort_key)
    return [(labels[t], t, sympy.true) for t in named + rest]


def _label(model: Model, name: str) -> str:
    unit = model.unit_text(name)
    return f"{name} [{unit}]" if unit not in ("1", "") else name


def axis_range(center: float) -> np.ndarray:
    """A plot axis: :data:`POINTS` values spaced evenly on a log scale, ``SPAN`` times below and above ``center``."""
    if not center > 0 or not math.isfinite(center):
        raise errors.EvaluationError(f"cannot centre a log range on {center!r}")
    return np.logspace(math.log10(center / SPAN), math.log10(center * SPAN), POINTS)


def _resolve_marks(values: PlotValues, spec: PlotSpec) -> list[DrawnMark]:
    """Each of ``spec``'s marks with its value in ``values``' scenario, or the reason it has none."""
    out = []
    for mark in spec.marks:
        if mark.parsed is None:
            out.append(DrawnMark(mark.axis, mark.label, mark.expression, reason=scrub(mark.problem)))
            continue
        try:
            unit_of = (spec.x or spec.variables[0]) if mark.axis == "x" else spec.quantity
            value = round_sig(values.scalar(mark.parsed, mark.expression, unit_of))
            drawn = DrawnMark(mark.axis, mark.label, mark.expression, value, "n/a" if value is None else number_text(value))
        except (errors.SymgpuError, TypeError, ValueError, KeyError) as exc:
            drawn = DrawnMark(mark.axis, mark.label, mark.expression, reason=scrub(str(exc)))
        out.append(drawn)
    return out
