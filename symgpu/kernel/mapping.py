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

A ``[device.<alias>]`` table (``quantity = "max_warps_per_SM"``, with a note) names a value of the GPU the
metrics were measured on: the occupancy model's ``quantity`` at the ``--cc`` preset (a percentage of the device's
peak is converted with the device's own peak, never a constant written for one GPU); where the export's ``CC``
column names another compute capability, the mapping refuses. An input's ``at_most`` (an expression over the same
names) is its largest value on the device: a value above it by no more than a percentage's rounding (ncu prints
a full unit as up to :data:`symgpu.kernel.ncu.PERCENT_LIMIT` %) is taken as that largest value, a larger one refused.

Each ``[[compare]]`` table pairs a predicted value (an expression over the aliases, the constants
and the ``prediction`` quantity) with a measured one (over the aliases and constants), both
dimension-checked against ``unit`` when the file is loaded.

Expressions go through :func:`symgpu.model.expressions.parse_expression` (never eval); each
is dimension-checked against the target symbol's unit when the file is loaded, and every
target must be an input of the model. Each derived value keeps the metrics it came from.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pint
import sympy

from symgpu import errors, resources, textfiles, units
from symgpu.evaluate import scaling
from symgpu.kernel import ncu, occupancy
from symgpu.model import printing
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
class DeviceValue:
    """A value of the profiled GPU: the occupancy model's input ``quantity`` at the ``--cc`` preset, under ``alias``."""

    alias: str
    quantity: str
    note: str


@dataclass(frozen=True)
class Input:
    """One model input and the expression that derives it from metrics (``at_most``: its largest value on the device)."""

    symbol: str
    text: str
    expression: sympy.Expr
    note: str
    at_most_text: str = ""
    at_most: sympy.Expr | None = None


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
    device: tuple[DeviceValue, ...] = ()


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
    allowed = {"schema_version", "model", "description", "prediction", "metrics", "constants", "device", "inputs", "compare"}
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
    device = _device(file, data, symbols, dims)
    inputs = []
    for target, entry in _tables(file, data, "inputs"):
        where = f"inputs.{target}"
        if target not in model.symbols or target in model.defining:
            raise errors.ModelFileError(file, where, f"{target!r} is not an input symbol of {model.id}")
        text = entry.get("expression")
        if not isinstance(text, str):
            raise errors.ModelFileError(file, where, "needs expression = \"<expression over the metric aliases and constants>\"")
        expr = _input_expression(file, where, "expression", text, symbols, dims, model, target)
        bound = entry.get("at_most")
        if bound is not None and not isinstance(bound, str):
            raise errors.ModelFileError(file, f"{where}.at_most", "expected at_most = \"<expression over the aliases, constants and device values>\"")
        at_most = None if bound is None else _input_expression(file, where, "at_most", bound, symbols, dims, model, target)
        inputs.append(Input(target, str(text), expr, str(entry.get("note", "")), str(bound or ""), at_most))
    comparisons = _comparisons(file, data, model, prediction, symbols, dims)
    return MetricMapping(model.id, str(file), prediction, tuple(metrics), constants, tuple(inputs), comparisons, device)


def _input_expression(file: Path, entry: str, field: str, text: str, symbols: dict[str, sympy.Symbol], dims: dict[sympy.Symbol, Any],
                      model: Any, target: str) -> sympy.Expr:
    """``text`` (field ``field`` of ``entry``) parsed and checked to have the dimension of ``model``'s input ``target``."""
    expr = expressions.parse_expression(text, symbols, path=str(file), where=f"{entry}.{field}")
    where = entry if field == "expression" else f"{entry}.{field}"
    try:
        found = dimensions.settle(dimensions.dimension_of(expr, dims))
    except dimensions.Mismatch as exc:
        raise errors.UnitMismatchError(file, where, f"{exc.problem} in {text!r}") from None
    expected = model.units[target].dimensionality
    if found != expected:
        raise errors.UnitMismatchError(file, where, f"{text!r} has dimension {dimensions.show(found)}, "
                                       f"but {model.id}.{target} is in {model.unit_text(target)} ({dimensions.show(expected)})")
    return expr


def _device(file: Path, data: Mapping[str, Any], symbols: dict[str, sympy.Symbol], dims: dict[sympy.Symbol, Any]) -> tuple[DeviceValue, ...]:
    """The ``[device.<alias>]`` tables: each an input of the occupancy model, given per compute capability by its presets."""
    occ = occupancy.occupancy_model()
    out = []
    for alias, entry in _tables(file, data, "device"):
        quantity, note = entry.get("quantity"), entry.get("note")
        hardware = sorted(n for n in occ.symbols if n not in occ.defining)
        if not isinstance(quantity, str) or quantity not in hardware or not note or alias in symbols:
            raise errors.ModelFileError(file, f"device.{alias}", f"needs quantity = one of the occupancy model's inputs "
                                        f"({', '.join(hardware[:8])}, ...), a note, and an alias no metric or constant has")
        out.append(DeviceValue(alias, quantity, str(note)))
        symbols[alias] = sympy.Symbol(alias)
        dims[symbols[alias]] = occ.units[quantity].dimensionality
    return tuple(out)


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


def _given(mapping: MetricMapping, launch: ncu.Launch, cc: str | None) -> tuple[dict[sympy.Symbol, float], dict[str, pint.Quantity]]:
    """Base-unit magnitudes of the launch's metrics, of the constants and of the device values (``cc``'s), and the
    metrics and device values as read (keyed by alias)."""
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
    for alias, quantity in _device_values(mapping, launch, cc).items():
        given[sympy.Symbol(alias)] = float(units.in_base_units(quantity).magnitude)
        shown[alias] = quantity
    return given, shown


def _device_values(mapping: MetricMapping, launch: ncu.Launch, cc: str | None) -> dict[str, pint.Quantity]:
    """The mapping's device values at compute capability ``cc`` (the occupancy model's preset).

    Raises:
        errors.UsageError: no ``cc`` given, one the export's ``CC`` column contradicts, or one without the value.
    """
    if not mapping.device:
        return {}
    first = mapping.device[0]
    if cc is None:
        raise errors.UsageError(f"{mapping.path}: {first.alias} is the profiled GPU's {first.quantity}; give its compute capability with --cc")
    profiled = re.fullmatch(r"(\d+)\.(\d)", launch.cc)
    if profiled is not None and f"cc_{profiled[1]}_{profiled[2]}" != cc:
        raise errors.UsageError(f"{launch.origin}: the export's CC column says {textfiles.printable(launch.cc, 20)} (the GPU profiled), but --cc is "
                                f"{cc}; {mapping.path} reads {first.quantity} of the GPU the metrics were measured on: "
                                f"give --cc cc_{profiled[1]}_{profiled[2]}")
    hardware = occupancy.occupancy_model().preset(cc)  # UsageError for an unknown preset
    out = {}
    for value in mapping.device:
        if value.quantity not in hardware:
            raise errors.UsageError(f"{mapping.path}: device.{value.alias}: the occupancy model's preset {cc} gives no {value.quantity}")
        out[value.alias] = hardware[value.quantity]
    return out


def _labels(mapping: MetricMapping, cc: str | None) -> dict[str, str]:
    """Alias -> what a derived value says it used: the metric's name, or the preset's device value."""
    return {m.alias: m.name for m in mapping.metrics} | {d.alias: f"{cc} {d.quantity}" for d in mapping.device}


def _value(mapping: MetricMapping, launch: ncu.Launch, what: str, expr: sympy.Expr, text: str, unit: Any,
           given: Mapping[sympy.Symbol, float], shown: Mapping[str, pint.Quantity],
           cc: str | None = None) -> tuple[pint.Quantity, tuple[tuple[str, pint.Quantity], ...]]:
    """``expr`` at the launch, in ``unit``, with the metrics it used.

    Raises:
        errors.UsageError: a metric it needs is absent from the export.
    """
    by_alias = _labels(mapping, cc)
    needed = sorted(s.name for s in expr.free_symbols if s.name in by_alias)
    missing = [by_alias[a] for a in needed if a not in shown]
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
        raise errors.UsageError(f"{launch.origin}: {what} = {text} is {printing.brief(value, 60)} for this launch "
                                f"(a metric is 0 or missing where it divides); check the export's values")
    in_unit = number / float(scaling.unit_scale(unit))  # base-unit magnitude -> the declared unit (evaluate.scaling)
    return units.registry().Quantity(in_unit, unit), tuple((by_alias[a], shown[a]) for a in needed)


def derive(mapping: MetricMapping, model: Any, launch: ncu.Launch, cc: str | None = None) -> tuple[Derived, ...]:
    """The model inputs of ``mapping`` computed from one launch's metrics (and the device values of compute capability
    ``cc``, which a mapping with a ``[device]`` table needs).

    Raises:
        errors.UsageError: a metric the mapping needs is absent from the export, or has the wrong unit; no ``cc``
            for a device value, or one the export's ``CC`` column contradicts; an input above its ``at_most``.
    """
    given, shown = _given(mapping, launch, cc)
    derived = []
    for item in mapping.inputs:
        unit = model.units[item.symbol]
        quantity, used = _value(mapping, launch, f"{model.id}.{item.symbol}", item.expression, item.text, unit, given, shown, cc)
        if item.at_most is not None:
            bound, more = _value(mapping, launch, f"{model.id}.{item.symbol} at most", item.at_most, item.at_most_text, unit, given, shown, cc)
            quantity = _within(model, launch, item, quantity, bound, cc)
            used = tuple(dict(used + more).items())
        derived.append(Derived(item.symbol, quantity, item.text, used))
    return tuple(derived)


def _within(model: Any, launch: ncu.Launch, item: Input, value: pint.Quantity, bound: pint.Quantity, cc: str | None) -> pint.Quantity:
    """``value`` where it is at most ``bound``; ``bound`` where it is above by no more than a percentage's rounding
    (ncu prints a full unit as up to ``PERCENT_LIMIT`` %).

    Raises:
        errors.UsageError: ``value`` is above ``bound`` by more.
    """
    found, most = float(value.magnitude), float(bound.magnitude)
    if found <= most:
        return value
    if found <= most * ncu.PERCENT_LIMIT / 100:
        return bound
    raise errors.UsageError(f"{launch.origin}: {model.id}.{item.symbol} = {found:.6g} {value.units:~} from {item.text} is above its most, "
                            f"{item.at_most_text} = {most:.6g} {bound.units:~}{f' on {cc}' if cc else ''}; check the export's metrics and --cc")


def compare(mapping: MetricMapping, launch: ncu.Launch, prediction: pint.Quantity, cc: str | None = None) -> tuple[Compared, ...]:
    """Each ``[[compare]]`` of ``mapping``: the predicted value (through ``prediction``, the model's value
    of ``mapping.prediction`` at the launch) next to the measured one (``cc``: as in :func:`derive`).

    Raises:
        errors.UsageError: a metric a comparison needs is absent from the export, or has the wrong unit.
    """
    given, shown = _given(mapping, launch, cc)
    if mapping.prediction:
        given[sympy.Symbol(mapping.prediction)] = float(units.in_base_units(prediction).magnitude)
    out = []
    for c in mapping.comparisons:
        unit = units.unit(c.unit)
        predicted, used_p = _value(mapping, launch, f"predicted {c.predicted_text}", c.predicted, c.predicted_text, unit, given, shown, cc)
        measured, used_m = _value(mapping, launch, f"measured {c.measured_text}", c.measured, c.measured_text, unit, given, shown, cc)
        if float(measured.magnitude) == 0:
            raise errors.UsageError(f"{launch.origin}: measured {c.measured_text} is 0 for this launch; no ratio to compare")
        out.append(Compared(c, predicted, measured, tuple(dict(used_p + used_m).items())))
    return tuple(out)
