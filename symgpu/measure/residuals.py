"""Per-point residuals of a model-vs-measurement comparison, and where the model extrapolates.

A point is *extrapolated* when the preset's parameters were fitted to data that did not cover
it: an input column outside the range the fit saw, or a curve (the inputs other than the swept
one) the fit never saw. The fitted data are those of the preset's provenance when it is a fit
symgpu wrote (``source = { kind = "measured", note = "symgpu fit ... --data F ... --where K=V" }``:
the files and filters are read back), or the files given with ``symgpu measured --fitted-on``.
A preset with neither is "not a fit": nothing is marked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors, resources
from symgpu.measure import compare as comparing
from symgpu.measure import data as measured
from symgpu.measure import inputs as measured_inputs
from symgpu.model import Model


@dataclass(frozen=True)
class FittedData:
    """What a fit saw: per input column its range, and the curves (inputs other than the swept one).

    Attributes:
        label: the files and filters, as shown.
        ranges: (column, low, high) in the model's declared units.
        curves: the combinations of the non-swept inputs the fit saw (in ``comparison`` order).
    """

    label: str
    ranges: tuple[tuple[str, float, float], ...]
    curves: tuple[tuple[tuple[str, float], ...], ...]


@dataclass(frozen=True)
class PointResidual:
    """One measured point against the model.

    Attributes:
        inputs: (column, value) of the point, the swept variable last.
        measured: the measured value.
        model: the model's value.
        relative: model/measured - 1.
        extrapolated: why the point lies outside the fitted data (empty: inside, or unknown).
    """

    inputs: tuple[tuple[str, float], ...]
    measured: float
    model: float
    relative: float
    extrapolated: tuple[str, ...]


def fitted_data(model: Model, comparison: comparing.Comparison, files: Sequence[str] = (),
                read: Callable[[str], measured.MeasuredData] = measured.read_csv) -> FittedData | None:
    """The data the comparison's preset was fitted to (``files`` given: those), or ``None``; each file read by ``read``
    (the command line's reads a sweep's Parquet too)."""
    wheres: list[tuple[str, float]] = []
    column = None
    if not files:
        files, wheres, column = _from_provenance(model, comparison.preset)
        if not files:
            return None
        paths = [f if Path(f).exists() else str(resources.measured_file(f)) for f in files]
    else:
        paths = list(files)
    data = measured.concat([read(p) for p in paths])
    for name, value in wheres:
        data = data.where(name, value)
    columns = measured_inputs.model_inputs(model, comparison.quantity, data, preset=comparison.preset or None,
                                           exclude=tuple(model.symbols), column=column).columns
    ranges = tuple((name, float(np.min(v)), float(np.max(v))) for name, v in columns.items())
    others = [name for name, _ in comparison.series[0].fixed] if comparison.series else []
    curves = tuple(sorted({tuple((c, float(columns[c][i])) for c in others if c in columns)
                           for i in range(len(next(iter(columns.values()))))})) if columns else ()
    return FittedData(data.label, ranges, curves)


def point_residuals(comparison: comparing.Comparison, fitted: FittedData | None) -> tuple[PointResidual, ...]:
    """Every measured point of ``comparison`` with its residual and extrapolation notes."""
    ranges = {name: (low, high) for name, low, high in (fitted.ranges if fitted else ())}
    out = []
    for series in comparison.series:
        curve_note: tuple[str, ...] = ()
        if fitted is not None and fitted.curves and series.fixed not in fitted.curves:
            curve_note = (f"no fitted curve at {series.label}",)
        for x, y, m in zip(series.x, series.measured, series.model):
            inputs = series.fixed + ((comparison.variable, x),)
            notes = [f"{name} = {v:g} outside the fitted {ranges[name][0]:g} to {ranges[name][1]:g}"
                     for name, v in inputs if name in ranges and not _inside(v, *ranges[name])]
            out.append(PointResidual(inputs, y, m, m / y - 1.0, tuple(notes) + (curve_note if not notes else ())))
    return tuple(out)


def lines(points: Sequence[PointResidual], fitted: FittedData | None, unit_text: str) -> list[str]:
    """A plain-text table: one row per point, EXTRAPOLATED where the fit did not reach."""
    basis = (f"fitted data: {fitted.label}" if fitted else
             "the preset is not a symgpu fit and no --fitted-on was given: extrapolation not marked")
    head = "  ".join(f"{name:>10}" for name, _ in points[0].inputs) if points else ""
    out = [f"per-point residuals ({basis})", f"  {head}  {'measured':>10}  {'model':>10}  {'rel':>7}  [{unit_text}]"]
    for p in points:
        cells = "  ".join(f"{v:>10.6g}" for _, v in p.inputs)
        flag = f"  EXTRAPOLATED: {'; '.join(p.extrapolated)}" if p.extrapolated else ""
        out.append(f"  {cells}  {p.measured:>10.6g}  {p.model:>10.6g}  {p.relative:>+7.2%}{flag}")
    return out


def as_dict(comparison: comparing.Comparison, points: Sequence[PointResidual], fitted: FittedData | None) -> dict[str, Any]:
    """The comparison as JSON-ready data: per-series errors and knees, and every point."""
    return {
        "model": comparison.model_id, "quantity": comparison.quantity, "unit": comparison.unit_text,
        "variable": comparison.variable, "variable_unit": comparison.variable_unit, "preset": comparison.preset,
        "data": comparison.data_path, "rms_relative": comparison.rms_relative, "max_relative": comparison.max_relative,
        "knee_fraction": comparing.KNEE_FRACTION,
        "ignored_columns": measured_inputs.ignored_columns(comparison.ignored, comparison.defined),
        "fitted_data": None if fitted is None else {"label": fitted.label, "ranges": [
            {"name": n, "low": lo, "high": hi} for n, lo, hi in fitted.ranges]},
        "series": [{"fixed": dict(s.fixed), "points": len(s.x), "rms_relative": s.rms_relative, "max_relative": s.max_relative,
                    "knee_measured": s.knee_measured, "knee_model": s.knee_model} for s in comparison.series],
        "points": [{"inputs": dict(p.inputs), "measured": p.measured, "model": p.model, "relative": p.relative,
                    "extrapolated": bool(p.extrapolated), "extrapolated_inputs": list(p.extrapolated)} for p in points],
    }


def _from_provenance(model: Model, preset: str) -> tuple[list[str], list[tuple[str, float]], str | None]:
    """(--data files, --where filters, --column) of the ``symgpu fit`` command recorded in a preset's source."""
    column = None
    files: list[str] = []
    wheres: list[tuple[str, float]] = []
    presets = {p.id: p for p in model.definition.presets}
    for part in (preset or "").split("+"):
        definition = presets.get(part)
        if definition is None or definition.source.ref != "measured" or not definition.source.locator.startswith("symgpu fit "):
            continue
        try:
            words = shlex.split(definition.source.locator)
        except ValueError:
            continue
        for option, value in zip(words, words[1:]):
            if option == "--data":
                files.append(value)
            elif option == "--column":
                column = value
            elif option == "--where":
                name, _, number = value.partition("=")
                try:
                    wheres.append((name, float(number)))
                except ValueError:
                    raise errors.UsageError(f"preset {part}: its fit command has --where {value!r}, not NAME=NUMBER; "
                                            "give the fitted data with --fitted-on") from None
    return files, wheres, column


def _inside(value: float, low: float, high: float) -> bool:
    return low - 1e-12 * abs(low) <= value <= high + 1e-12 * abs(high)
