"""Least-squares fits of declared model parameters to measured data.

The residuals are relative, (model - measured)/measured, so that a throughput curve spanning
two decades weighs every point alike. Parameters are scaled by their starting values (from
the preset, or given), bounded by their declared assumptions (positive, nonnegative), and
fitted with :func:`scipy.optimize.least_squares`. Confidence intervals come from the Jacobian
at the solution: covariance s^2 (J^T J)^-1 with s^2 = SSR/(m - k) (the column-scaled
decomposition of :func:`symgpu.measure.fit_checks.covariance`), and Student's t with m - k
degrees of freedom.

Every fit is checked (:mod:`symgpu.measure.fit_checks`): converged, inside every declared
domain and on one side of every pole over the data, RMS within a bound, every parameter
determined. A start outside the valid region, or a fit that fails a check, makes the fit try a
small deterministic set of other starts and keep the best valid one. :func:`fit` raises
:class:`symgpu.errors.FitCheckError` when a fatal check still fails (``strict=False`` returns
the result with its checks instead).
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

from symgpu import errors, suggest
from symgpu.evaluate import evaluator, input_values
from symgpu.measure import data as measured
from symgpu.measure import fit_checks
from symgpu.measure import inputs as measured_inputs
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
class InputRange:
    """The values a fit saw for one input that it did not fit.

    Attributes:
        name: the symbol.
        unit_text: its declared unit.
        low: smallest value (declared unit).
        high: largest value (equal to ``low`` for an input held at one value).
        source: ``data`` (a column), ``preset <id>`` or ``constant``.
    """

    name: str
    unit_text: str
    low: float
    high: float
    source: str


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
        defined: columns that name a quantity the model defines, each with its equation's id (ignored; the equation is kept).
        converted: how each column given in a unit a rate relates to its symbol's was read (:attr:`ModelInputs.converted`).
        moved_starts: how each starting value given in a unit a rate relates to its parameter's was read
            (:func:`symgpu.measure.inputs.start_across`: ``a = 0.34 us = 673.2 cycle at clock 1.98 GHz (...)``).
        message: the optimiser's message.
        date: ISO date of the fit.
        residual_std: residual standard error sqrt(SSR/(m - k)) of the relative residuals: the
            scale of the model's error at the data.
        dof: degrees of freedom m - k.
        t_value: Student's t quantile of the intervals.
        covariance: the parameters' covariance in their declared units (NaN where undetermined).
        checks: the checks of the fit (:mod:`symgpu.measure.fit_checks`).
        starts: how many starts were tried and which was kept ("" when the given one sufficed).
        ranges: the inputs not fitted, with the range of values the fit saw.
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
    residual_std: float = float("nan")
    dof: int = 0
    t_value: float = float("nan")
    covariance: tuple[tuple[float, ...], ...] = ()
    checks: tuple[fit_checks.FitCheck, ...] = ()
    starts: str = ""
    ranges: tuple[InputRange, ...] = ()
    defined: tuple[tuple[str, str], ...] = ()
    converted: tuple[str, ...] = ()
    moved_starts: tuple[str, ...] = ()

    @property
    def failed(self) -> tuple[fit_checks.FitCheck, ...]:
        """The fatal checks that failed (empty for a usable fit)."""
        return tuple(c for c in self.checks if c.fatal and not c.passed)

    @property
    def warnings(self) -> tuple[fit_checks.FitCheck, ...]:
        """The non-fatal checks that failed."""
        return tuple(c for c in self.checks if not c.fatal and not c.passed)

    def value(self, name: str) -> float:
        """The fitted value of parameter ``name``."""
        return next(p.value for p in self.parameters if p.name == name)


def fit(model: Model, quantity: str, data: measured.MeasuredData, params: Sequence[str], *,
        preset: str | None = None, start: Mapping[str, Any] | None = None, column: str | None = None,
        max_rms: float = fit_checks.MAX_RMS, strict: bool = True, max_evaluations: int | None = None) -> FitResult:
    """Fit ``params`` of ``model`` so that ``quantity`` matches the measured column.

    Args:
        model: the model.
        quantity: a quantity defined by an equation and measured in a column of ``data``.
        data: the measured data.
        params: input symbols to fit (not columns of ``data``).
        preset: preset supplying the other inputs and the starting values.
        start: starting values (symbol -> number in the declared unit or quantity string; a quantity in a unit the
            model's clock, warp size or SM count relates to the declared one is moved across it at the preset),
            overriding the preset's.
        column: the measured column (default: ``quantity``).
        max_rms: largest acceptable RMS relative error.
        strict: raise when a fatal check fails (default); ``False`` returns the result with
            its failed checks (see :attr:`FitResult.failed`).
        max_evaluations: evaluations of the residuals after which each start's least squares
            stops (``max_nfev``; default: SciPy's); a run stopped there has not converged.

    Raises:
        errors.UsageError: bad parameter names, missing columns or starting values, too few
            points, or measured values that are not positive.
        errors.FitCheckError: (``strict``) the fit did not converge, lies outside the model's
            valid region, has an RMS error above ``max_rms`` or leaves a parameter undetermined.
    """
    params = tuple(dict.fromkeys(params))
    if not params:
        raise errors.UsageError("give the parameters to fit, e.g. --params a,b,c")
    needed = set(model.inputs(quantity))
    for name in params:
        if name not in model.symbols:
            raise errors.UsageError(f"{model.id}: unknown parameter '{name}' (declared: {suggest.alternatives(name, sorted(model.symbols))})")
        if name not in needed:
            raise errors.UsageError(f"{model.id}: {quantity} does not depend on '{name}' "
                                    f"(its inputs: {suggest.alternatives(name, sorted(needed), f'symgpu show {model.id} shows its equations')}); fit only inputs of {quantity}")
    found_inputs = measured_inputs.model_inputs(model, quantity, data, preset=preset, exclude=params, column=column)
    columns, y = dict(found_inputs.columns), found_inputs.measured
    clash = [name for name in params if name in columns]
    if clash:
        raise errors.UsageError(f"{', '.join(clash)} is measured in {data.path}; a measured column cannot be fitted")
    if len(y) <= len(params):
        raise errors.UsageError(f"{data.path}: {len(y)} points cannot determine {len(params)} parameters; "
                                f"measure more points than parameters")
    base = dict(model.preset(preset)) if preset else {}
    x0, moved = [], []
    for name in params:
        given = (start or {}).get(name, base.get(name))
        if given is None:
            raise errors.UsageError(f"no starting value for '{name}': choose a preset that has one or give --init {name}=VALUE")
        others = {k: v for k, v in (start or {}).items() if k != name}
        given, note = measured_inputs.start_across(model, name, given, preset=preset, values=others, columns=columns)
        moved += [note] if note else []
        value = input_values.to_magnitude(model, name, given)
        if value == 0:
            raise errors.UsageError(f"starting value of '{name}' is 0; give a nonzero --init {name}=VALUE")
        x0.append(float(value))
    first = np.asarray(x0)
    problem = _Problem(model, quantity, preset, columns, y, params, max_evaluations)

    # NOTE: a third-party import, needed only when a fit runs: SciPy takes ~0.45 s to import, paid
    # otherwise by every process that only reads measured data (report --all before it forks)
    from scipy import stats

    # NOTE: the given start first; the small deterministic set of other starts only when the
    # given start or its fit is outside the valid region, or the fit failed or is poor. The
    # best valid fit (smallest sum of squares) wins; with none valid, the best one is reported
    # with its failed check.
    attempts = [problem.attempt(first, "given start")]
    if not attempts[0].good(max_rms):
        attempts += [problem.attempt(point, note) for point, note in
                     fit_checks.starts(model, params, first, columns, (quantity, y))]
    valid = [a for a in attempts if a.invalid is None and a.success]
    best = min(valid or attempts, key=lambda a: a.cost)
    r = best.residuals
    dof = len(y) - len(params)
    s2 = float(r @ r) / dof
    t = float(stats.t.ppf(0.5 + CONFIDENCE / 2, dof))
    cov_x, determined = fit_checks.covariance(best.jac, s2)
    cov = cov_x * np.outer(best.scale, best.scale)
    stderr = np.where(determined, np.sqrt(np.clip(np.diag(cov), 0, None)), np.inf)
    fitted = tuple(
        FittedParameter(name, model.unit_text(name), float(v), float(s), float(e), float(v - t * e), float(v + t * e))
        for name, v, s, e in zip(params, best.values, first, stderr)
    )
    rms = float(np.sqrt(np.mean(r ** 2)))
    spans = [p.name for p in fitted if np.isfinite(p.stderr) and p.low <= 0 <= p.high]
    found = fit_checks.checks(success=best.success, message=best.message, invalid=best.invalid, rms=rms, max_rms=max_rms,
                              names=params, determined=determined.tolist(), spans_zero=spans)
    tried = "" if len(attempts) == 1 else f"{len(attempts)} starts tried ({sum(1 for a in valid)} valid); kept: {best.note}"
    result = FitResult(
        model_id=model.id, quantity=quantity, preset=preset or "", data_path=data.path, selection=data.selection, parameters=fitted,
        points=len(y), rms_relative=rms, max_relative=float(np.max(np.abs(r))),
        inputs=tuple(columns), ignored=found_inputs.ignored, defined=found_inputs.defined, converted=found_inputs.converted, message=best.message,
        date=datetime.date.today().isoformat(),
        residual_std=float(np.sqrt(s2)), dof=dof, t_value=t,
        covariance=tuple(tuple(float(v) for v in row) for row in cov), checks=found, starts=tried,
        ranges=_ranges(model, quantity, preset, columns, params), moved_starts=tuple(moved),
    )
    if strict and result.failed:
        raise errors.FitCheckError(failure_message(result), result)
    return result


def failure_message(result: FitResult) -> str:
    """One line naming the first failed fatal check of ``result`` (empty when none failed)."""
    if not result.failed:
        return ""
    check = result.failed[0]
    more = f" (also failed: {', '.join(c.name for c in result.failed[1:])})" if len(result.failed) > 1 else ""
    return f"{result.model_id}.{result.quantity}: fit of {', '.join(p.name for p in result.parameters)} failed the '{check.name}' check: {check.detail}{more}"


@dataclass(frozen=True)
class _Attempt:
    """One least-squares run from one start (parameter values in declared units)."""

    note: str
    values: np.ndarray
    scale: np.ndarray
    residuals: np.ndarray
    jac: np.ndarray
    cost: float
    success: bool
    message: str
    invalid: str | None
    start_invalid: str | None

    def good(self, max_rms: float) -> bool:
        """Valid, converged and within ``max_rms``, from a valid start: no other start is needed."""
        return (self.success and self.invalid is None and self.start_invalid is None
                and float(np.sqrt(np.mean(self.residuals ** 2))) <= max_rms)


class _Problem:
    """The residuals of one fit and its runs from different starts."""

    def __init__(self, model: Model, quantity: str, preset: str | None, columns: dict[str, np.ndarray], y: np.ndarray,
                 params: tuple[str, ...], max_evaluations: int | None = None) -> None:
        self.model, self.quantity, self.preset, self.columns, self.y, self.params = model, quantity, preset, columns, y, params
        self.max_evaluations = max_evaluations
        self.parts = fit_checks.singular_parts(model, quantity, params)
        positive = [bool({"positive", "nonnegative"} & set(model.symbol_definitions[n].assumptions)) for n in params]
        self.lower = np.asarray([1e-9 if p else -np.inf for p in positive])

    def residuals(self, values: np.ndarray) -> np.ndarray:
        """Relative residuals at parameter values in declared units (1e6 where not finite)."""
        given: dict[str, Any] = dict(self.columns)
        given.update({name: float(v) for name, v in zip(self.params, values)})
        model_y = evaluator.evaluate(self.model, self.quantity, preset=self.preset, values=given, checks=False).magnitude
        with np.errstate(all="ignore"):
            result = np.broadcast_to(np.asarray(model_y, dtype=float), self.y.shape) / self.y - 1.0
        return np.where(np.isfinite(result), result, 1e6)

    def invalid(self, values: np.ndarray) -> str | None:
        """Why ``values`` lie outside the valid region over the data (``None``: inside)."""
        return fit_checks.invalid_reason(self.model, self.quantity, self.preset, self.columns,
                                         {n: float(v) for n, v in zip(self.params, values)}, self.parts)

    def attempt(self, start: np.ndarray, note: str) -> _Attempt:
        """Least squares from ``start`` (declared units), variables scaled by the start."""
        from scipy import optimize

        scale = np.abs(start)
        try:
            solution = optimize.least_squares(lambda x: self.residuals(x * scale), np.ones(len(start)) * np.sign(start),
                                              bounds=(self.lower, np.inf), x_scale="jac", method="trf",
                                              max_nfev=self.max_evaluations)
        except errors.SymgpuError as exc:
            raise errors.UsageError(f"fit of {', '.join(self.params)} failed: {exc}") from None
        values = solution.x * scale
        success = solution.status > 0 and bool(np.all(np.isfinite(values)))
        return _Attempt(note, values, scale, solution.fun, solution.jac, float(solution.cost), success, str(solution.message),
                        self.invalid(values) if success else None, self.invalid(start))


def _ranges(model: Model, quantity: str, preset: str | None, columns: Mapping[str, np.ndarray],
            params: Sequence[str]) -> tuple[InputRange, ...]:
    """Each input of ``quantity`` that is not fitted: the range the fit saw (data) or its one value."""
    merged = input_values.merge_values(model, preset, None)
    out = []
    for name in model.inputs(quantity):
        if name in params:
            continue
        if name in columns:
            out.append(InputRange(name, model.unit_text(name), float(np.min(columns[name])), float(np.max(columns[name])), "data"))
        elif name in merged:
            value = float(input_values.to_magnitude(model, name, merged[name], check=False))
            out.append(InputRange(name, model.unit_text(name), value, value, f"preset {preset}" if preset else "constant"))
    return tuple(out)


def summary_lines(result: FitResult) -> list[str]:
    """Human-readable lines: each parameter with unit and confidence interval, then the fit quality."""
    level = f"{CONFIDENCE:.0%}"
    lines = [f"{result.model_id}.{result.quantity}: least-squares fit of {', '.join(p.name for p in result.parameters)} "
             f"to {result.points} points of {result.data_path}{_selection(result)}" + (f" (preset {result.preset})" if result.preset else "")]
    for p in result.parameters:
        interval = "not determined by the data" if not np.isfinite(p.stderr) else f"{level} CI [{p.low:.6g}, {p.high:.6g}]"
        lines.append(f"  {p.name} = {p.value:.6g} {p.unit_text}  ({interval}; start {p.start:.6g})")
    lines.append(f"  RMS relative error {result.rms_relative:.2%}, max relative error {result.max_relative:.2%}, "
                 f"residual standard error {result.residual_std:.2%} (relative, {result.dof} degrees of freedom)")
    if result.starts:
        lines.append(f"  {result.starts}")
    for check in result.checks:
        if not check.passed:
            lines.append(f"  {'FAILED' if check.fatal else 'WARNING'} ({check.name}): {check.detail}")
    if result.ignored:
        lines.append(f"  columns naming no symbol (ignored): {', '.join(result.ignored)}")
    if result.defined:
        lines.append(measured_inputs.defined_line(result.defined))
    lines.extend(f"  column {text}" for text in result.converted)
    lines.extend(f"  start {text}" for text in result.moved_starts)
    return lines


def as_dict(result: FitResult) -> dict[str, Any]:
    """The fit as JSON-ready data (non-finite numbers as ``None``)."""
    def num(v: float) -> float | None:
        return float(v) if np.isfinite(v) else None
    return {
        "model": result.model_id, "quantity": result.quantity, "preset": result.preset, "data": result.data_path,
        "selection": dict(result.selection), "points": result.points, "confidence": CONFIDENCE,
        "parameters": [{"name": p.name, "unit": p.unit_text, "value": p.value, "start": p.start, "stderr": num(p.stderr),
                        "interval": [num(p.low), num(p.high)] if np.isfinite(p.stderr) else None} for p in result.parameters],
        "rms_relative": result.rms_relative, "max_relative": result.max_relative,
        "residual_std_relative": num(result.residual_std), "dof": result.dof,
        "covariance": [[num(v) for v in row] for row in result.covariance],
        "ranges": [{"name": r.name, "unit": r.unit_text, "low": r.low, "high": r.high, "source": r.source} for r in result.ranges],
        "ignored_columns": measured_inputs.ignored_columns(result.ignored, result.defined),
        "starts": result.starts, "moved_starts": list(result.moved_starts), "message": result.message,
        "checks": [{"name": c.name, "passed": c.passed, "fatal": c.fatal, "detail": c.detail} for c in result.checks],
        "ok": not result.failed,
    }


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
    files = " --data ".join(result.data_path.split(measured.JOIN))
    command = (f"symgpu fit {result.model_id} {result.quantity} --data {files}{where}"
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
    # each value's shortest round-trip repr: the preset read back holds the very value fitted
    lines += [f"{p.name} = {_toml_string(f'{float(p.value)!r} {p.unit_text}')}" for p in result.parameters]
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
