"""Profiler metrics -> model inputs, declared as data in ``equations/metrics/<model>.toml``.

A mapping file names the model, declares each Nsight Compute metric it reads under an alias
with the unit the metric must have, declares named constants (with a note saying why they
are needed), and gives each model input as an expression over aliases and constants::

    schema_version = 1
    model = "hong_kim_2009"
    prediction = "Exec_cycles_app"
    [metrics.inst]
    name = "smsp__inst_executed.sum"
    unit = "winst"
    [constants.per_warp_program]
    value = "1 warp"
    note = "..."
    [inputs.Comp_insts]
    expression = "(inst - ld - st)/warps*per_warp_program"
    [[compare]]
    predicted = "Exec_cycles_app"
    measured = "cycles"
    unit = "cycle"

Each ``[[compare]]`` table pairs a predicted value (an expression over the aliases, the constants
and the ``prediction`` quantity) with a measured one (over the aliases and constants), both
dimension-checked against ``unit`` when the file is loaded.

Expressions go through :func:`symgpu.model.expressions.parse_expression` (never eval); each
is dimension-checked against the target symbol's unit when the file is loaded, and every
target must be an input of the model. Each derived value keeps the metrics it came from.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pint
import sympy

from symgpu import errors, resources, textfiles, units
from symgpu.evaluate import scaling
from symgpu.kernel import ncu
from symgpu.model import expressions
from symgpu.units import dimensions

#: Folder of the bundled mapping files (the checkout's equations/metrics, or the wheel's copy).
FOLDER = resources.bundled("equations") / "metrics"
MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class Metric:
    """A metric the mapping reads: alias, Nsight Compute name, required unit."""

    alias: str
    name: str
    unit: str


@dataclass(frozen=True)
class Input:
    """One model input and the expression that derives it from metrics."""

    symbol: str
    text: str
    expression: sympy.Expr
    note: str


@dataclass(frozen=True)
class Comparison:
    """A predicted value (through the model's prediction) and the measured value it is compared with."""

    predicted_text: str
    predicted: sympy.Expr
    measured_text: str
    measured: sympy.Expr
    unit: str
    note: str


@dataclass(frozen=True)
class MetricMapping:
    """A parsed, checked mapping file."""

    model_id: str
    path: str
    prediction: str
    metrics: tuple[Metric, ...]
    constants: Mapping[str, pint.Quantity]
    inputs: tuple[Input, ...]
    comparisons: tuple[Comparison, ...] = ()


@dataclass(frozen=True)
class Compared:
    """One comparison evaluated for a launch: both values in the comparison's unit.

    Attributes:
        comparison: the mapping's declaration.
        predicted: the predicted value.
        measured: the measured value.
        metrics: the Nsight Compute metrics the two used, with their values.
    """

    comparison: Comparison
    predicted: pint.Quantity
    measured: pint.Quantity
    metrics: tuple[tuple[str, pint.Quantity], ...]

    @property
    def ratio(self) -> float:
        """Predicted over measured (a plain number: both are in the same unit)."""
        return float(self.predicted.magnitude) / float(self.measured.magnitude)


@dataclass(frozen=True)
class Derived:
    """A model input computed from one launch's metrics.

    Attributes:
        symbol: the model's input symbol.
        value: the value in the symbol's declared unit.
        expression: the mapping's expression text.
        metrics: the Nsight Compute metric names it used, with their values.
    """

    symbol: str
    value: pint.Quantity
    expression: str
    metrics: tuple[tuple[str, pint.Quantity], ...]


def path_for(model_id: str) -> Path:
    """The bundled mapping file of ``model_id``."""
    return FOLDER / f"{model_id}.toml"


def load(model: Any, path: str | Path | None = None) -> MetricMapping:
    """Read and check the mapping for ``model`` (the bundled one unless ``path`` is given).

    Raises:
        errors.UsageError: no mapping for the model.
        errors.ModelFileError: malformed file, unknown target symbol, expression or unit mismatch.
    """
    file = Path(path) if path is not None else path_for(model.id)
    if not file.is_file():
        known = sorted(p.stem for p in FOLDER.glob("*.toml"))
        raise errors.UsageError(f"no metric mapping for model '{model.id}' ({file}); models with one: {', '.join(known)}")
    raw = textfiles.read_bounded(file, limit=MAX_BYTES, what="metric mapping", hint="a mapping file is a few kilobytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise errors.ModelFileError(file, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})", "save the mapping as UTF-8 TOML") from None
    except tomllib.TOMLDecodeError as exc:
        raise errors.ModelFileError(file, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise errors.ModelFileError(file, "", "arrays or tables nested too deeply to read", "a mapping nests tables two levels deep") from None
    allowed = {"schema_version", "model", "description", "prediction", "metrics", "constants", "inputs", "compare"}
    extra = sorted(set(data) - allowed)
    if extra or data.get("schema_version") != 1:
        raise errors.ModelFileError(file, "", f"expected schema_version = 1 and keys {', '.join(sorted(allowed))}; found {', '.join(extra) or 'schema_version ' + repr(data.get('schema_version'))}")
    if data.get("model") != model.id:
        raise errors.ModelFileError(file, "model", f"names {data.get('model')!r}, not {model.id!r}")
    prediction = str(data.get("prediction", ""))
    if prediction and prediction not in model.defining:
        raise errors.ModelFileError(file, "prediction", f"{prediction!r} is not a quantity of {model.id}")
    symbols: dict[str, sympy.Symbol] = {}
    dims: dict[sympy.Symbol, Any] = {}
    metrics = []
    for alias, entry in _tables(file, data, "metrics"):
        name, unit_text = entry.get("name"), entry.get("unit")
        if not isinstance(name, str) or not isinstance(unit_text, str):
            raise errors.ModelFileError(file, f"metrics.{alias}", "needs name = \"<ncu metric>\" and unit = \"<symgpu unit>\"")
        metrics.append(Metric(alias, name, unit_text))
        symbols[alias] = sympy.Symbol(alias)
        dims[symbols[alias]] = _dimension(file, f"metrics.{alias}.unit", unit_text)
    constants = {}
    for alias, entry in _tables(file, data, "constants"):
        if not entry.get("note"):
            raise errors.ModelFileError(file, f"constants.{alias}", "a constant needs a note saying why it is needed")
        try:
            constants[alias] = units.quantity(str(entry.get("value", "")))
        except ValueError as exc:
            raise errors.ModelFileError(file, f"constants.{alias}.value", str(exc)) from None
        symbols[alias] = sympy.Symbol(alias)
        dims[symbols[alias]] = constants[alias].dimensionality
    inputs = []
    for target, entry in _tables(file, data, "inputs"):
        where = f"inputs.{target}"
        if target not in model.symbols or target in model.defining:
            raise errors.ModelFileError(file, where, f"{target!r} is not an input symbol of {model.id}")
        text = entry.get("expression")
        if not isinstance(text, str):
            raise errors.ModelFileError(file, where, "needs expression = \"<expression over the metric aliases and constants>\"")
        expr = expressions.parse_expression(text, symbols, path=str(file), where=f"{where}.expression")
        try:
            found = dimensions.settle(dimensions.dimension_of(expr, dims))
        except dimensions.Mismatch as exc:
            raise errors.UnitMismatchError(file, where, f"{exc.problem} in {text!r}") from None
        expected = model.units[target].dimensionality
        if found != expected:
            raise errors.UnitMismatchError(file, where, f"{text!r} has dimension {dimensions.show(found)}, "
                                           f"but {model.id}.{target} is in {model.unit_text(target)} ({dimensions.show(expected)})")
        inputs.append(Input(target, str(text), expr, str(entry.get("note", ""))))
    comparisons = _comparisons(file, data, model, prediction, symbols, dims)
    return MetricMapping(model.id, str(file), prediction, tuple(metrics), constants, tuple(inputs), comparisons)


def _comparisons(file: Path, data: Mapping[str, Any], model: Any, prediction: str,
                 symbols: dict[str, sympy.Symbol], dims: dict[sympy.Symbol, Any]) -> tuple[Comparison, ...]:
    """The ``[[compare]]`` tables, each side parsed and dimension-checked against the table's unit."""
    section = data.get("compare", [])
    if not isinstance(section, list) or not all(isinstance(v, dict) for v in section):
        raise errors.ModelFileError(file, "compare", "expected [[compare]] tables")
    if section and not prediction:
        raise errors.ModelFileError(file, "compare", "[[compare]] needs prediction = \"<quantity of the model>\"")
    with_prediction = dict(symbols)
    predicted_dims = dict(dims)
    if prediction:
        with_prediction[prediction] = sympy.Symbol(prediction)
        predicted_dims[with_prediction[prediction]] = model.units[prediction].dimensionality
    out = []
    for index, entry in enumerate(section):
        where = f"compare[{index}]"
        unknown = sorted(set(entry) - {"predicted", "measured", "unit", "note"})
        texts = [entry.get("predicted"), entry.get("measured"), entry.get("unit")]
        if unknown or not all(isinstance(t, str) for t in texts):
            raise errors.ModelFileError(file, where, "needs predicted = \"<expression>\", measured = \"<expression>\", unit = \"<unit>\" (and note)")
        predicted_text, measured_text, unit_text = (str(t) for t in texts)
        expected = _dimension(file, f"{where}.unit", unit_text)
        sides = []
        for side, text, names, side_dims in (("predicted", predicted_text, with_prediction, predicted_dims),
                                             ("measured", measured_text, symbols, dims)):
            expr = expressions.parse_expression(text, names, path=str(file), where=f"{where}.{side}")
            try:
                found = dimensions.settle(dimensions.dimension_of(expr, side_dims))
            except dimensions.Mismatch as exc:
                raise errors.UnitMismatchError(file, f"{where}.{side}", f"{exc.problem} in {text!r}") from None
            if found != expected:
                raise errors.UnitMismatchError(file, f"{where}.{side}", f"{text!r} has dimension {dimensions.show(found)}, "
                                               f"but the comparison is in {unit_text} ({dimensions.show(expected)})")
            sides.append(expr)
        if sympy.Symbol(prediction) not in sides[0].free_symbols:
            raise errors.ModelFileError(file, f"{where}.predicted", f"{predicted_text!r} does not use the prediction {prediction!r}")
        out.append(Comparison(predicted_text, sides[0], measured_text, sides[1], unit_text, str(entry.get("note", ""))))
    return tuple(out)


def _tables(file: Path, data: Mapping[str, Any], key: str) -> list[tuple[str, Mapping[str, Any]]]:
    section = data.get(key, {})
    if not isinstance(section, dict) or not all(isinstance(v, dict) for v in section.values()):
        raise errors.ModelFileError(file, key, f"expected [{key}.<name>] tables")
    return list(section.items())


def _dimension(file: Path, where: str, unit_text: str) -> Any:
    try:
        return units.unit(unit_text).dimensionality
    except ValueError as exc:
        raise errors.ModelFileError(file, where, str(exc)) from None


def _given(mapping: MetricMapping, launch: ncu.Launch) -> tuple[dict[sympy.Symbol, float], dict[str, pint.Quantity]]:
    """Base-unit magnitudes of the launch's metrics and of the constants, and the metrics as read."""
    given: dict[sympy.Symbol, float] = {}
    shown: dict[str, pint.Quantity] = {}
    for metric in mapping.metrics:
        if metric.name not in launch.metrics:
            continue
        quantity = launch.metrics[metric.name]
        try:
            given[sympy.Symbol(metric.alias)] = float(units.in_base_units(units.convert(quantity, metric.unit)).magnitude)
        except pint.DimensionalityError:
            raise errors.UsageError(f"{launch.origin}: metric {metric.name!r} is in {quantity.units:~}, "
                                    f"but {mapping.path} reads it as {metric.unit}") from None
        shown[metric.alias] = quantity
    for alias, quantity in mapping.constants.items():
        given[sympy.Symbol(alias)] = float(units.in_base_units(quantity).magnitude)
    return given, shown


def _value(mapping: MetricMapping, launch: ncu.Launch, what: str, expr: sympy.Expr, text: str, unit: Any,
           given: Mapping[sympy.Symbol, float], shown: Mapping[str, pint.Quantity]) -> tuple[pint.Quantity, tuple[tuple[str, pint.Quantity], ...]]:
    """``expr`` at the launch, in ``unit``, with the metrics it used.

    Raises:
        errors.UsageError: a metric it needs is absent from the export.
    """
    by_alias = {m.alias: m for m in mapping.metrics}
    needed = sorted(s.name for s in expr.free_symbols if s.name in by_alias)
    missing = [by_alias[a].name for a in needed if a not in shown]
    if missing:
        raise errors.UsageError(f"{launch.origin}: {what} = {text} needs metric(s) {', '.join(missing)}, "
                                f"absent from the export; profile with --metrics {','.join(missing)}")
    value = expr.xreplace(dict(given))
    value = value.doit() if hasattr(value, "doit") else value
    try:
        number = float(value)
    except TypeError:  # zoo, nan or a leftover symbol
        number = math.nan
    if not math.isfinite(number):
        raise errors.UsageError(f"{launch.origin}: {what} = {text} is {sympy.sstr(value)[:60]} for this launch "
                                f"(a metric is 0 or missing where it divides); check the export's values")
    in_unit = number / float(scaling.unit_scale(unit))  # base-unit magnitude -> the declared unit (evaluate.scaling)
    return units.registry().Quantity(in_unit, unit), tuple((by_alias[a].name, shown[a]) for a in needed)


def derive(mapping: MetricMapping, model: Any, launch: ncu.Launch) -> tuple[Derived, ...]:
    """The model inputs of ``mapping`` computed from one launch's metrics.

    Raises:
        errors.UsageError: a metric the mapping needs is absent from the export, or has the wrong unit.
    """
    given, shown = _given(mapping, launch)
    derived = []
    for item in mapping.inputs:
        quantity, used = _value(mapping, launch, f"{model.id}.{item.symbol}", item.expression, item.text,
                                model.units[item.symbol], given, shown)
        derived.append(Derived(item.symbol, quantity, item.text, used))
    return tuple(derived)


def compare(mapping: MetricMapping, launch: ncu.Launch, prediction: pint.Quantity) -> tuple[Compared, ...]:
    """Each ``[[compare]]`` of ``mapping``: the predicted value (through ``prediction``, the model's value
    of ``mapping.prediction`` at the launch) next to the measured one.

    Raises:
        errors.UsageError: a metric a comparison needs is absent from the export, or has the wrong unit.
    """
    given, shown = _given(mapping, launch)
    if mapping.prediction:
        given[sympy.Symbol(mapping.prediction)] = float(units.in_base_units(prediction).magnitude)
    out = []
    for c in mapping.comparisons:
        unit = units.unit(c.unit)
        predicted, used_p = _value(mapping, launch, f"predicted {c.predicted_text}", c.predicted, c.predicted_text, unit, given, shown)
        measured, used_m = _value(mapping, launch, f"measured {c.measured_text}", c.measured, c.measured_text, unit, given, shown)
        if float(measured.magnitude) == 0:
            raise errors.UsageError(f"{launch.origin}: measured {c.measured_text} is 0 for this launch; no ratio to compare")
        out.append(Compared(c, predicted, measured, tuple(dict(used_p + used_m).items())))
    return tuple(out)
