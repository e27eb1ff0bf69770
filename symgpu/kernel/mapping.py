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

Expressions go through :func:`symgpu.model.expressions.parse_expression` (never eval); each
is dimension-checked against the target symbol's unit when the file is loaded, and every
target must be an input of the model. Each derived value keeps the metrics it came from.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pint
import sympy

from symgpu import errors, units
from symgpu.kernel import ncu
from symgpu.model import expressions
from symgpu.units import dimensions

#: Folder of the bundled mapping files.
FOLDER = Path(__file__).resolve().parent.parent.parent / "equations" / "metrics"
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
class MetricMapping:
    """A parsed, checked mapping file."""

    model_id: str
    path: str
    prediction: str
    metrics: tuple[Metric, ...]
    constants: Mapping[str, pint.Quantity]
    inputs: tuple[Input, ...]


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
    if file.stat().st_size > MAX_BYTES:
        raise errors.ModelFileError(file, "", f"file larger than {MAX_BYTES} bytes")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise errors.ModelFileError(file, "", f"not valid TOML: {exc}") from None
    allowed = {"schema_version", "model", "description", "prediction", "metrics", "constants", "inputs"}
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
    return MetricMapping(model.id, str(file), prediction, tuple(metrics), constants, tuple(inputs))


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


def derive(mapping: MetricMapping, model: Any, launch: ncu.Launch) -> tuple[Derived, ...]:
    """The model inputs of ``mapping`` computed from one launch's metrics.

    Raises:
        errors.UsageError: a metric the mapping needs is absent from the export, or has the wrong unit.
    """
    reg = units.registry()
    given: dict[sympy.Symbol, float] = {}
    shown: dict[str, pint.Quantity] = {}
    for metric in mapping.metrics:
        if metric.name not in launch.metrics:
            continue
        quantity = launch.metrics[metric.name]
        try:
            given[sympy.Symbol(metric.alias)] = float(quantity.to(metric.unit).to_base_units().magnitude)
        except pint.DimensionalityError:
            raise errors.UsageError(f"{launch.origin}: metric {metric.name!r} is in {quantity.units:~}, "
                                    f"but {mapping.path} reads it as {metric.unit}") from None
        shown[metric.alias] = quantity
    for alias, quantity in mapping.constants.items():
        given[sympy.Symbol(alias)] = float(quantity.to_base_units().magnitude)
    by_alias = {m.alias: m for m in mapping.metrics}
    derived = []
    for item in mapping.inputs:
        needed = sorted(s.name for s in item.expression.free_symbols if s.name in by_alias)
        missing = [by_alias[a].name for a in needed if a not in shown]
        if missing:
            raise errors.UsageError(f"{launch.origin}: {model.id}.{item.symbol} = {item.text} needs metric(s) {', '.join(missing)}, "
                                    f"absent from the export; profile with --metrics {','.join(missing)}")
        value = item.expression.xreplace(given)
        value = value.doit() if hasattr(value, "doit") else value
        base_unit = reg.Quantity(1, model.units[item.symbol]).to_base_units().units
        quantity = reg.Quantity(float(value), base_unit).to(model.units[item.symbol])
        derived.append(Derived(item.symbol, quantity, item.text, tuple((by_alias[a].name, shown[a]) for a in needed)))
    return tuple(derived)
