"""Measured columns as a model's inputs: which column feeds which symbol, in its declared unit,
checked row by row against the model's declarations.

Shared by ``symgpu measured`` and ``symgpu fit`` so that both refuse the same data alike. A
column named after a symbol the quantity can take as input is an input; the measured column is
the quantity; a column naming a quantity the model defines by an equation is ignored (the
equation is kept: a data file never replaces it), and so is a column naming no symbol. Every
refusal names the file and row (``zero.csv:11``): a measured value that is not positive (the
errors are relative), an input value that breaks its symbol's declared assumptions (positive,
nonnegative, integer), or a value that is not finite once converted to the model's units.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pint

from symgpu import errors, units
from symgpu.evaluate import clocks, input_values, scaling
from symgpu.measure import data as measured
from symgpu.model import Model

#: the declared assumptions a data value is checked against, with the test each value must pass
_ASSUMPTIONS = (("positive", lambda v: v > 0), ("nonnegative", lambda v: v >= 0),
                ("integer", lambda v: np.equal(np.mod(v, 1), 0)))


@dataclass(frozen=True)
class ModelInputs:
    """The measured data as the model sees it.

    Attributes:
        columns: symbol -> values in its declared unit (the inputs the data give).
        measured: the measured quantity in its declared unit.
        ignored: columns that name no symbol of the model (e.g. ``rep``), and the columns of labels (a sweep's ``regime``).
        defined: columns that name a quantity the model defines, each as (column, id of its equation):
            ignored, the equation is kept.
        converted: how each column given in a unit a rate relates to its symbol's was read (``n [thread/SM]`` in
            warp/SM at the model's warp size), as ``--set`` reads such a value.
    """

    columns: Mapping[str, np.ndarray]
    measured: np.ndarray
    ignored: tuple[str, ...]
    defined: tuple[tuple[str, str], ...]
    converted: tuple[str, ...] = ()


def model_inputs(model: Model, quantity: str, data: measured.MeasuredData, *, preset: str | None = None,
                 exclude: Sequence[str] = (), column: str | None = None) -> ModelInputs:
    """The measured columns as model inputs (in declared units) and the measured quantity.

    The measured quantity is the column named ``column`` (default: ``quantity``); it must have
    the quantity's dimension and is converted to its declared unit.

    Raises:
        errors.UsageError: ``quantity`` is not defined by the model or not a column, a column
            has the wrong dimension, a value breaks a check of the module docstring (naming
            file and row), or an input the quantity needs is in no column, preset or constant.
    """
    model.equation_for(quantity)
    target = column or quantity
    columns: dict[str, np.ndarray] = {}
    ignored, defined, converted = [], [], []
    for col in data.columns:
        symbol = quantity if col.name == target else col.name
        if symbol not in model.symbols or (col.name == quantity and target != quantity):
            ignored.append(col.name)
            continue
        if symbol != quantity and symbol in model.defining:
            defined.append((col.name, model.defining[symbol].id))
            continue
        declared = model.units[symbol]
        rates: tuple[clocks.RateUsed, ...] = ()
        if col.unit.dimensionality != declared.dimensionality:
            rates = _rates(model, symbol, data, col, preset)
            converted.append(f"{col.name} [{col.unit_text}] read in {model.unit_text(symbol)} at {' and '.join(r.said for r in rates)}")
        columns[symbol] = _converted(model, symbol, data, col, is_input=symbol != quantity, rates=rates)
    ignored.extend(data.label_names)  # a sweep's regime labels: never an input
    if quantity not in columns:
        raise errors.UsageError(f"{data.path}: no column '{target}' holds the measured quantity "
                                f"(columns: {', '.join(data.names)}); head it '{target} [{model.unit_text(quantity)}]'")
    measured_values = columns.pop(quantity)
    bad = np.nonzero(~(measured_values > 0))[0]
    if bad.size:
        raise errors.UsageError(f"{data.origin(int(bad[0]))}: {target} must be positive for relative errors; "
                                f"found {data.column(target).values[int(bad[0])]:g}")
    known = set(columns) | set(model.constants) | set(model.preset(preset) if preset else ()) | set(exclude)
    missing = [name for name in model.inputs(quantity) if name not in known]
    if missing:
        raise errors.UsageError(
            f"{model.id}.{quantity} needs {', '.join(missing)}, found in no column of {data.path}"
            + (f" and not in preset '{preset}'" if preset else " (no preset given)")
            + "; add the column(s), choose a preset or fit them with --params")
    return ModelInputs(columns, measured_values, tuple(ignored), tuple(defined), tuple(converted))


def _rates(model: Model, symbol: str, data: measured.MeasuredData, col: measured.Column, preset: str | None) -> tuple[clocks.RateUsed, ...]:
    """The rates (the model's warp size, SM count or clock at the preset) across which column ``col``, of another
    dimension than ``symbol``'s, is read in ``symbol``'s declared unit, as ``--set`` reads such a value
    (``n [thread/SM]`` for n in warp/SM).

    Raises:
        errors.UsageError: no rate relates the two dimensions, the model has no one input of a rate needed or no value
            of it at the preset, or that input is a column of the data (it varies from row to row).
    """
    declared = model.units[symbol]
    need = f"{data.path}: column '{col.name} [{col.unit_text}]': {model.id}.{symbol} is in {model.unit_text(symbol)}, so the column"
    one = units.registry().Quantity(1.0, col.unit)
    powers = clocks.exponents(one, declared, sm=False)  # the rates --set moves a value across (clocks.exponents)
    if powers is None:
        raise errors.UsageError(
            f"{data.path}: column '{col.name} [{col.unit_text}]' has dimension "
            f"{units.format_dimension(col.unit.dimensionality)}, but {model.id}.{symbol} is "
            f"{units.format_dimension(declared.dimensionality)} (declared unit {model.unit_text(symbol)}); "
            f"give the column in {model.unit_text(symbol)} or a compatible unit")
    for rate in powers:
        varying = [name for name in clocks.inputs_in(model, rate) if name in data.names]
        if varying:
            raise errors.UsageError(f"{need} needs the {clocks.rate_word(rate)}, and {model.id}'s {clocks.rate_word(rate)} "
                                    f"{varying[0]} is a column of the data: give '{col.name}' in {model.unit_text(symbol)}")
    found = clocks.moved_at_point(model, one, declared, preset=preset, values={}, need=need,
                                  give=lambda name, example: f"the column in {model.unit_text(symbol)}",
                                  instead=f"give the column in {model.unit_text(symbol)}")
    assert found is not None
    return found[1]


def defined_line(defined: Sequence[tuple[str, str]]) -> str:
    """The note an output prints on columns that name a quantity the model defines (:attr:`ModelInputs.defined`)."""
    return ("  columns naming a quantity the model defines (ignored; its equation is used): "
            + ", ".join(f"{column} (equation {equation})" for column, equation in defined))


def ignored_columns(ignored: Sequence[str], defined: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The data columns an output leaves out, as JSON (``ignored_columns`` of ``fit --json`` and ``measured --json``):
    ``no_symbol``, the columns that name no symbol of the model; ``defined_quantity``, those that name a quantity the
    model defines, each with the equation used in its place."""
    return {"no_symbol": list(ignored), "defined_quantity": [{"column": c, "equation": e} for c, e in defined]}


def _converted(model: Model, symbol: str, data: measured.MeasuredData, col: measured.Column, *, is_input: bool,
               rates: tuple[clocks.RateUsed, ...] = ()) -> np.ndarray:
    """Column ``col`` in ``symbol``'s declared unit (converted exactly: ``0.5 us`` is 500.0 ns, as in a
    preset; across ``rates``, :func:`_rates`, as ``--set`` moves a value: :func:`units.moved`), after the row checks.

    Raises:
        errors.UsageError: a value is not finite in the declared unit or in the base units the
            evaluation uses, or (an input) breaks a declared assumption; naming the first such row.
    """
    with np.errstate(all="ignore"):  # NOTE: an overflow is refused below, naming the row, not warned about
        read = (units.moved(col.quantity(), model.units[symbol], [(r.value, r.power) for r in rates]) if rates
                else units.exact_convert(col.quantity(), model.units[symbol]))
        values = np.asarray(read.magnitude, dtype=float)
        finite = np.isfinite(values) & np.isfinite(values * scaling.symbol_scale(model, symbol))
    if not finite.all():
        row = int(np.argmin(finite))
        raise errors.UsageError(
            f"{data.origin(row)}: column '{col.name}' holds {col.values[row]:g}{measured.unit_suffix(col.unit_text)}, "
            f"which is not a finite number once converted to {model.id}'s units ({model.unit_text(symbol)}, then base units); "
            f"write a value within a double's range in those units, or drop the row")
    declared = model.symbol_definitions[symbol].assumptions if is_input else ()
    for assumption, holds in _ASSUMPTIONS:
        if assumption in declared:
            broken = ~np.asarray(holds(values), dtype=bool)
            if broken.any():
                row = int(np.argmax(broken))
                raise errors.UsageError(f"{data.origin(row)}: column '{col.name}' holds {col.values[row]:g}, "
                                        f"but {symbol} is declared {assumption}; fix or drop the row")
    return values


def start_across(model: Model, name: str, given: Any, *, preset: str | None, values: Mapping[str, Any],
                 columns: Collection[str]) -> tuple[Any, str | None]:
    """A fit's starting value for ``name`` given in a unit that differs from the declared one by the model's clock,
    warp size or SM count (``--init a=0.34 us`` for ``a`` in cycles) moved across them at the preset and ``values``
    (the other starts), as ``--set`` and ``--predict`` move a value, with the line saying so; ``(given, None)`` for
    anything else (read as before). ``columns``: the data's inputs, each varying, so no rate to move a start across.

    Raises:
        errors.UsageError: the model has no one input of the rate, it has no value here, or it is a column of the data.
    """
    if not isinstance(given, (str, pint.Quantity)) or name not in model.units:
        return given, None
    declared = model.units[name]
    try:
        quantity = given if isinstance(given, pint.Quantity) else units.quantity(given, declared)
    except (ValueError, pint.errors.PintError):
        return given, None  # refused, or read, by input_values.to_magnitude as before
    if quantity.dimensionality == declared.dimensionality:
        return given, None
    unit = model.unit_text(name)
    need = f"--init {name}={given}: {name} is in {unit}, so the starting value"
    found = clocks.moved_at_point(model, quantity, declared, preset=preset, values=values, need=need,
                                  give=lambda rate, example: f"--init {name} in {unit}", instead=f"give --init {name} in {unit}")
    if found is None:
        return given, None
    for rate in found[1]:
        if rate.name is not None and rate.name in columns:
            raise errors.UsageError(f"{need} needs the {clocks.rate_word(rate.rate)} {rate.name}, a column of the data "
                                    f"(no one value): give --init {name} in {unit}")
    magnitude = float(input_values.to_magnitude(model, name, found[0]))
    return found[0], f"{name} = {given} = {magnitude:.10g} {unit} at {' and '.join(rate.said for rate in found[1])}"
