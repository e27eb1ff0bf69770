"""Least-squares fits of declared model parameters to measured data.

The residuals are relative, (model - measured)/measured, so that a throughput curve spanning
two decades weighs every point alike. Parameters are scaled by their starting values (from
the preset, or given), bounded by their declared assumptions (positive, nonnegative), and
fitted with :func:`scipy.optimize.least_squares`. Confidence intervals come from the Jacobian
at the solution: covariance s^2 (J^T J)^-1 with s^2 = SSR/(m - k), and Student's t with
m - k degrees of freedom.
"""

from __future__ import annotations

import datetime
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors, units
from symgpu.evaluate import evaluator, input_values
from symgpu.measure import data as measured
from symgpu.model import Model

#: Confidence level of the reported intervals.
CONFIDENCE = 0.95
#: a preset id the printed block may use (a TOML bare key)
PRESET_ID = re.compile(r"[A-Za-z0-9_]{1,100}")


@dataclass(frozen=True)
class FittedParameter:
    """One fitted parameter.

    Attributes:
        name: the symbol.
        unit_text: its declared unit.
        value: the fitted value in that unit.
        start: the starting value.
        stderr: standard error (``inf`` when the data do not determine it).
        low: lower end of the confidence interval.
        high: upper end of the confidence interval.
    """

    name: str
    unit_text: str
    value: float
    start: float
    stderr: float
    low: float
    high: float


@dataclass(frozen=True)
class FitResult:
    """The outcome of :func:`fit`.

    Attributes:
        model_id: the model.
        quantity: the fitted quantity (a measured column).
        preset: the preset that supplied the other values ("" for none).
        data_path: the measured-data file.
        selection: the row filters applied to it.
        parameters: the fitted parameters.
        points: number of measured points used.
        rms_relative: root-mean-square relative error at the fit.
        max_relative: largest absolute relative error at the fit.
        inputs: the columns used as model inputs.
        ignored: columns that name no symbol of the model.
        message: the optimiser's message.
        date: ISO date of the fit.
    """

    model_id: str
    quantity: str
    preset: str
    data_path: str
    selection: tuple[tuple[str, float], ...]
    parameters: tuple[FittedParameter, ...]
    points: int
    rms_relative: float
    max_relative: float
    inputs: tuple[str, ...]
    ignored: tuple[str, ...]
    message: str
    date: str

    def value(self, name: str) -> float:
        """The fitted value of parameter ``name``."""
        return next(p.value for p in self.parameters if p.name == name)


def model_inputs(model: Model, quantity: str, data: measured.MeasuredData, *, preset: str | None = None,
                 exclude: Sequence[str] = (), column: str | None = None) -> tuple[dict[str, np.ndarray], np.ndarray, tuple[str, ...]]:
    """The measured columns as model inputs (in declared units) and the measured quantity.

    The measured quantity is the column named ``column`` (default: ``quantity``); it must have
    the quantity's dimension and is converted to its declared unit.

    Returns:
        (symbol -> values in the declared unit, measured values of ``quantity`` in its declared
        unit, names of columns that name no symbol of the model)

    Raises:
        errors.UsageError: ``quantity`` is not defined by the model or not a column, a column
            has the wrong dimension, or an input the quantity needs is in no column, preset or
            constant.
    """
    model.equation_for(quantity)
    target = column or quantity
    columns: dict[str, np.ndarray] = {}
    ignored = []
    for col in data.columns:
        symbol = quantity if col.name == target else col.name
        if symbol not in model.symbols or (col.name == quantity and target != quantity):
            ignored.append(col.name)
            continue
        declared = model.units[symbol]
        if col.unit.dimensionality != declared.dimensionality:
            raise errors.UsageError(
                f"{data.path}: column '{col.name} [{col.unit_text}]' has dimension "
                f"{units.format_dimension(col.unit.dimensionality)}, but {model.id}.{symbol} is "
                f"{units.format_dimension(declared.dimensionality)} (declared unit {model.unit_text(symbol)}); "
                f"give the column in {model.unit_text(symbol)} or a compatible unit")
        columns[symbol] = np.asarray(col.quantity().to(declared).magnitude, dtype=float)
    if quantity not in columns:
        raise errors.UsageError(f"{data.path}: no column '{target}' holds the measured quantity "
                                f"(columns: {', '.join(data.names)}); head it '{target} [{model.unit_text(quantity)}]'")
    measured_values = columns.pop(quantity)
    known = set(columns) | set(model.constants) | set(model.preset(preset) if preset else ()) | set(exclude)
    missing = [name for name in model.inputs(quantity) if name not in known]
    if missing:
        raise errors.UsageError(
            f"{model.id}.{quantity} needs {', '.join(missing)}, found in no column of {data.path}"
            + (f" and not in preset '{preset}'" if preset else " (no preset given)")
            + "; add the column(s), choose a preset or fit them with --params")
    return columns, measured_values, tuple(ignored)


def fit(model: Model, quantity: str, data: measured.MeasuredData, params: Sequence[str], *,
        preset: str | None = None, start: Mapping[str, Any] | None = None, column: str | None = None) -> FitResult:
    """Fit ``params`` of ``model`` so that ``quantity`` matches the measured column.

    Args:
        model: the model.
        quantity: a quantity defined by an equation and measured in a column of ``data``.
        data: the measured data.
        params: input symbols to fit (not columns of ``data``).
        preset: preset supplying the other inputs and the starting values.
        start: starting values (symbol -> number in the declared unit or quantity string),
            overriding the preset's.
        column: the measured column (default: ``quantity``).

    Raises:
        errors.UsageError: bad parameter names, missing columns or starting values, too few
            points, measured values that are not positive, or a fit that does not converge.
    """
    params = tuple(dict.fromkeys(params))
    if not params:
        raise errors.UsageError("give the parameters to fit, e.g. --params a,b,c")
    needed = set(model.inputs(quantity))
    for name in params:
        if name not in model.symbols:
            raise errors.UsageError(f"{model.id}: unknown parameter '{name}' (declared: {', '.join(sorted(model.symbols))})")
        if name not in needed:
            raise errors.UsageError(f"{model.id}: {quantity} does not depend on '{name}' "
                                    f"(its inputs: {', '.join(sorted(needed))}); fit only inputs of {quantity}")
    columns, y, ignored = model_inputs(model, quantity, data, preset=preset, exclude=params, column=column)
    clash = [name for name in params if name in columns]
    if clash:
        raise errors.UsageError(f"{', '.join(clash)} is measured in {data.path}; a measured column cannot be fitted")
    if not np.all(y > 0):
        raise errors.UsageError(f"{data.path}: {quantity} must be positive for relative errors; found {float(y.min()):g}")
    if len(y) <= len(params):
        raise errors.UsageError(f"{data.path}: {len(y)} points cannot determine {len(params)} parameters; "
                                f"measure more points than parameters")
    base = dict(model.preset(preset)) if preset else {}
    x0 = []
    for name in params:
        given = (start or {}).get(name, base.get(name))
        if given is None:
            raise errors.UsageError(f"no starting value for '{name}': choose a preset that has one or give --init {name}=VALUE")
        value = input_values.to_magnitude(model, name, given)
        if value == 0:
            raise errors.UsageError(f"starting value of '{name}' is 0; give a nonzero --init {name}=VALUE")
        x0.append(float(value))
    scale = np.asarray(x0)
    low = [0.0 if {"positive", "nonnegative"} & set(model.symbol_definitions[n].assumptions) else -np.inf for n in params]
    low = [bound / s if np.isfinite(bound) else -np.inf for bound, s in zip(low, scale)]

    def residuals(x: np.ndarray) -> np.ndarray:
        values: dict[str, Any] = dict(columns)
        values.update({name: float(v * s) for name, v, s in zip(params, x, scale)})
        model_y = evaluator.evaluate(model, quantity, preset=preset, values=values, checks=False).magnitude
        result = np.broadcast_to(np.asarray(model_y, dtype=float), y.shape) / y - 1.0
        return np.where(np.isfinite(result), result, 1e6)

    # NOTE: a third-party import, needed only when a fit runs: SciPy takes ~0.45 s to import, paid
    # otherwise by every process that only reads measured data (report --all before it forks)
    from scipy import optimize, stats

    lower = np.asarray([b + 1e-9 if b == 0 else b for b in low])
    x_start = np.maximum(np.ones(len(params)), lower)
    try:
        solution = optimize.least_squares(residuals, x_start, bounds=(lower, np.inf), x_scale="jac", method="trf")
    except errors.SymgpuError as exc:
        raise errors.UsageError(f"fit of {', '.join(params)} failed: {exc}") from None
    if solution.status <= 0 or not np.all(np.isfinite(solution.x)):
        raise errors.UsageError(f"fit of {', '.join(params)} did not converge ({solution.message}); "
                                f"give better starting values with --init or fit fewer parameters")
    r = solution.fun
    dof = len(y) - len(params)
    s2 = float(r @ r) / dof
    jac = solution.jac
    t = float(stats.t.ppf(0.5 + CONFIDENCE / 2, dof))
    try:
        cov = np.linalg.inv(jac.T @ jac) * s2
        stderr = np.sqrt(np.clip(np.diag(cov), 0, None)) * scale
        if not np.all(np.isfinite(stderr)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        stderr = np.full(len(params), np.inf)
    if np.linalg.matrix_rank(jac) < len(params):
        stderr = np.full(len(params), np.inf)
    fitted = tuple(
        FittedParameter(name, model.unit_text(name), float(v * s), float(s), float(e), float(v * s - t * e), float(v * s + t * e))
        for name, v, s, e in zip(params, solution.x, scale, stderr)
    )
    return FitResult(
        model_id=model.id, quantity=quantity, preset=preset or "", data_path=data.path, selection=data.selection, parameters=fitted,
        points=len(y), rms_relative=float(np.sqrt(np.mean(r ** 2))), max_relative=float(np.max(np.abs(r))),
        inputs=tuple(columns), ignored=ignored, message=str(solution.message),
        date=datetime.date.today().isoformat(),
    )


def summary_lines(result: FitResult) -> list[str]:
    """Human-readable lines: each parameter with unit and confidence interval, then the fit quality."""
    level = f"{CONFIDENCE:.0%}"
    lines = [f"{result.model_id}.{result.quantity}: least-squares fit of {', '.join(p.name for p in result.parameters)} "
             f"to {result.points} points of {result.data_path}{_selection(result)}" + (f" (preset {result.preset})" if result.preset else "")]
    for p in result.parameters:
        interval = "not determined by the data" if not np.isfinite(p.stderr) else f"{level} CI [{p.low:.6g}, {p.high:.6g}]"
        lines.append(f"  {p.name} = {p.value:.6g} {p.unit_text}  ({interval}; start {p.start:.6g})")
    lines.append(f"  RMS relative error {result.rms_relative:.2%}, max relative error {result.max_relative:.2%}")
    if result.ignored:
        lines.append(f"  columns naming no symbol (ignored): {', '.join(result.ignored)}")
    return lines


def preset_toml(result: FitResult, preset_id: str) -> str:
    """A ``[presets.<id>]`` block with the fitted values and their provenance, based on the fit's preset.

    Every string is written as a TOML basic string (quotes, backslashes and control characters
    in a data path escaped), and the block is read back with ``tomllib`` before it is returned.

    Raises:
        errors.UsageError: the preset id is not ASCII letters, digits and underscores, or a
            fitted value is not finite (no block is printed for it).
    """
    if not PRESET_ID.fullmatch(preset_id):
        raise errors.UsageError(f"--preset-id {preset_id!r}: use ASCII letters, digits and underscores (a TOML bare key)")
    bad = [p.name for p in result.parameters if not np.isfinite(p.value)]
    if bad:
        raise errors.UsageError(f"the fit gave no finite value for {', '.join(bad)}; no preset block is written "
                                "(give --init values closer to the data)")
    where = "".join(f" --where {k}={v:g}" for k, v in result.selection)
    quality = f"RMS relative error {result.rms_relative:.2%}, max {result.max_relative:.2%}, {result.points} points"
    command = (f"symgpu fit {result.model_id} {result.quantity} --data {result.data_path}{where}"
               f" --params {','.join(p.name for p in result.parameters)}"
               + (f" --preset {result.preset}" if result.preset else "") + f" on {result.date}")
    description = (f"Least-squares fit of {', '.join(p.name for p in result.parameters)} to {result.data_path}{_selection(result)} "
                   f"({result.quantity}; {quality})")
    lines = [
        f"[presets.{preset_id}]",
        f"description = {_toml_string(description)}",
        f'source = {{ kind = "measured", note = {_toml_string(command)} }}',
    ]
    if result.preset and "+" not in result.preset:
        lines.append(f"based_on = {_toml_string(result.preset)}")
    lines.append(f"[presets.{preset_id}.values]")
    lines += [f"{p.name} = {_toml_string(f'{p.value:.6g} {p.unit_text}')}" for p in result.parameters]
    lines.append(f"[presets.{preset_id}.notes]")
    for p in result.parameters:
        ci = "undetermined" if not np.isfinite(p.stderr) else f"{CONFIDENCE:.0%} CI [{p.low:.4g}, {p.high:.4g}] {p.unit_text}"
        lines.append(f"{p.name} = {_toml_string(f'fitted to {result.data_path} on {result.date}: {ci}; {quality}')}")
    block = "\n".join(lines) + "\n"
    tomllib.loads(block)  # NOTE: a block that does not read back is a bug here, never printed
    return block


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: JSON's escapes are TOML's, plus DEL escaped and lone
    surrogates (from undecodable file names) replaced."""
    clean = text.encode("utf-8", "replace").decode("utf-8")
    return json.dumps(clean, ensure_ascii=False).replace("\x7f", "\\u007f")


def _selection(result: FitResult) -> str:
    return f" ({', '.join(f'{k} = {v:g}' for k, v in result.selection)})" if result.selection else ""
