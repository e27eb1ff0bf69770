"""Model vs measurement: per-series errors and knees.

A *series* is the set of measured points that share the values of every input column other
than the swept variable (e.g. one curve per alpha). Repeated measurements at the same point
(``rep``) are averaged for the knee and kept for the errors. The *knee* of a curve is the
smallest swept value at which the curve, drawn as straight lines between its points, reaches
90 % of its plateau, the plateau being its own highest point over the measured range; it is
interpolated, so usually not a swept value. The measured knee uses the measured points, the
model's the model on ``CURVE_POINTS`` evenly spaced values over the same range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import evaluator
from symgpu.measure import data as measured
from symgpu.measure import inputs as measured_inputs
from symgpu.model import Model

#: Fraction of the plateau that defines the knee.
KNEE_FRACTION = 0.9
#: Points of the model curve drawn per series.
CURVE_POINTS = 200


@dataclass(frozen=True)
class Series:
    """One measured curve against the model.

    Attributes:
        fixed: (column, value) pairs shared by the series' points, in the columns' declared units.
        x: swept values of the measured points (declared unit).
        measured: measured values of the quantity.
        model: model values at the measured points.
        curve_x: a fine grid over the measured range.
        curve: the model on ``curve_x``.
        rms_relative: RMS relative error of the model at the measured points.
        max_relative: largest absolute relative error.
        knee_measured: the measured knee (``None`` when the curve never rises to 90 %).
        knee_model: the model's knee over the same range.
        units: the declared unit of each ``fixed`` column.
    """

    fixed: tuple[tuple[str, float], ...]
    x: tuple[float, ...]
    measured: tuple[float, ...]
    model: tuple[float, ...]
    curve_x: tuple[float, ...]
    curve: tuple[float, ...]
    rms_relative: float
    max_relative: float
    knee_measured: float | None
    knee_model: float | None
    units: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``ilp = 1 winst/warp, alpha = 0`` style label: each value in its declared unit, with the unit."""
        shown = self.units or ("1",) * len(self.fixed)
        return ", ".join(f"{k} = {v:g}{measured.unit_suffix(u)}" for (k, v), u in zip(self.fixed, shown)) or "all points"


@dataclass(frozen=True)
class Comparison:
    """A model against one measured-data file.

    Attributes:
        model_id: the model.
        quantity: the compared quantity.
        unit_text: its declared unit.
        variable: the swept symbol (x axis).
        variable_unit: its declared unit.
        preset: the preset used ("" for none).
        data_path: the measured-data file.
        series: one entry per measured curve.
        rms_relative: RMS relative error over every point.
        max_relative: largest absolute relative error over every point.
        defined: data columns naming a quantity the model defines, each with its equation's id (ignored; its equation is used).
        ignored: data columns naming no symbol of the model.
        converted: how each column given in a unit a rate relates to its symbol's was read (:attr:`ModelInputs.converted`).
    """

    model_id: str
    quantity: str
    unit_text: str
    variable: str
    variable_unit: str
    preset: str
    data_path: str
    series: tuple[Series, ...]
    rms_relative: float
    max_relative: float
    defined: tuple[tuple[str, str], ...] = ()
    ignored: tuple[str, ...] = ()
    converted: tuple[str, ...] = ()


def knee(x: Any, y: Any, fraction: float = KNEE_FRACTION) -> float | None:
    """Smallest x at which y first reaches ``fraction`` of max(y), interpolated linearly.

    Points are sorted by x; repeated x values are averaged. Returns ``None`` for fewer than two
    distinct x values or a first point already above the threshold (the knee lies below the range).
    """
    xs, ys = _mean_by_x(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    if len(xs) < 2:
        return None
    target = fraction * float(ys.max())
    above = np.nonzero(ys >= target)[0]
    first = int(above[0])
    if first == 0:
        return None
    x0, x1, y0, y1 = xs[first - 1], xs[first], ys[first - 1], ys[first]
    return float(x0 + (target - y0) * (x1 - x0) / (y1 - y0))


def compare(model: Model, quantity: str, data: measured.MeasuredData, *, variable: str | None = None,
            preset: str | None = None, values: Mapping[str, Any] | None = None, column: str | None = None) -> Comparison:
    """Compare ``model.quantity`` with the measured column of the same name.

    Args:
        model: the model.
        quantity: a defined quantity measured in ``data``.
        data: the measured data.
        variable: the swept column (default ``n`` when present, else the input column with
            the most distinct values).
        preset: preset for the values no column gives.
        values: extra symbol values (override the preset).
        column: the measured column (default: ``quantity``; same dimension).

    Raises:
        errors.UsageError: see :func:`symgpu.measure.inputs.model_inputs`; unknown variable.
    """
    found = measured_inputs.model_inputs(model, quantity, data, preset=preset, exclude=tuple(values or ()), column=column)
    columns, y = dict(found.columns), found.measured
    if not columns:
        raise errors.UsageError(f"{data.path}: no column is an input of {model.id}.{quantity}")
    if variable is None:
        variable = "n" if "n" in columns else max(columns, key=lambda c: len(set(columns[c].tolist())))
    if variable not in columns:
        raise errors.UsageError(f"{data.path}: the swept variable '{variable}' is no input column (columns: {', '.join(columns)})")
    others = [c for c in columns if c != variable]
    keys = sorted({tuple(float(columns[c][i]) for c in others) for i in range(len(y))})
    extra = dict(values or {})
    everything = evaluator.evaluate(model, quantity, preset=preset, values={**extra, **columns}).magnitude
    everything = np.broadcast_to(np.asarray(everything, dtype=float), y.shape)
    series = []
    for key in keys:
        mask = np.ones(len(y), dtype=bool)
        for c, v in zip(others, key):
            mask &= columns[c] == v
        x = columns[variable][mask]
        order = np.argsort(x, kind="stable")
        x, ym, model_y = x[order], y[mask][order], everything[mask][order]
        grid = np.linspace(float(x.min()), float(x.max()), CURVE_POINTS)
        grid_values: dict[str, Any] = {**extra, **{c: np.full_like(grid, v) for c, v in zip(others, key)}, variable: grid}
        curve = np.broadcast_to(np.asarray(evaluator.evaluate(model, quantity, preset=preset, values=grid_values).magnitude, dtype=float), grid.shape)
        rel = model_y / ym - 1.0
        series.append(Series(
            fixed=tuple(zip(others, key)), x=tuple(x.tolist()), measured=tuple(ym.tolist()), model=tuple(model_y.tolist()),
            curve_x=tuple(grid.tolist()), curve=tuple(curve.tolist()),
            rms_relative=float(np.sqrt(np.mean(rel ** 2))), max_relative=float(np.abs(rel).max()),
            knee_measured=knee(x, ym), knee_model=knee(grid, curve), units=tuple(model.unit_text(c) for c in others),
        ))
    rel_all = everything / y - 1.0
    return Comparison(
        model_id=model.id, quantity=quantity, unit_text=model.unit_text(quantity), variable=variable,
        variable_unit=model.unit_text(variable), preset=preset or "", data_path=data.path, series=tuple(series),
        rms_relative=float(np.sqrt(np.mean(rel_all ** 2))), max_relative=float(np.abs(rel_all).max()), defined=found.defined, converted=found.converted,
        ignored=found.ignored,
    )


def table_lines(comparison: Comparison) -> list[str]:
    """A plain-text table: one row per series with errors and knees."""
    head = (f"{comparison.model_id}.{comparison.quantity} vs {comparison.data_path}"
            + (f" (preset {comparison.preset})" if comparison.preset else "")
            + f"; knee = {comparison.variable} [{comparison.variable_unit}] at {KNEE_FRACTION:.0%} of the plateau")
    width = max([28] + [len(s.label) for s in comparison.series])
    lines = [head, f"  {'series':<{width}} {'points':>6} {'RMS rel':>8} {'max rel':>8} {'knee meas':>10} {'knee model':>10}"]
    for s in comparison.series:
        lines.append(f"  {s.label:<{width}} {len(s.x):>6} {s.rms_relative:>8.1%} {s.max_relative:>8.1%} "
                     f"{_knee(s.knee_measured):>10} {_knee(s.knee_model):>10}")
    lines.append(f"  {'all':<{width}} {sum(len(s.x) for s in comparison.series):>6} {comparison.rms_relative:>8.1%} {comparison.max_relative:>8.1%}")
    if comparison.defined:
        lines.append(measured_inputs.defined_line(comparison.defined))
    lines.extend(f"  column {text}" for text in comparison.converted)
    return lines


def _knee(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _mean_by_x(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xs = np.unique(x)
    return xs, np.asarray([y[x == v].mean() for v in xs])
