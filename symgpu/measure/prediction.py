"""Predictions from a fit, with the band of the parameters' uncertainty, the model-error scale,
and extrapolation flagged.

The band at a point is the delta method: the gradient of the quantity in the fitted parameters
(central differences) against their covariance, times Student's t. It covers the parameters'
uncertainty only: it says nothing about how wrong the model itself is. Two things are added
so that it is not read as more: the residual standard error of the fit (relative, the scale of
the model's error where there are data), widening the band into a prediction interval; and an
*extrapolated* flag for a point whose inputs leave the values the fit used (any input: a data
column's range, or an input the fit held at one preset value). There the model's error is
unknown and neither interval bounds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pint

from symgpu import errors, units
from symgpu.evaluate import clocks, evaluator, input_values
from symgpu.measure import fit as fitting
from symgpu.model import Model

#: Relative step of the central differences.
STEP = 1e-6


@dataclass(frozen=True)
class Prediction:
    """The fitted model at one point.

    Attributes:
        quantity: the fitted quantity.
        unit_text: its declared unit.
        point: every input that is not fitted (declared units), in the fit's input order.
        value: the model at the fitted parameters.
        low: lower end of the band from parameter uncertainty only.
        high: upper end of that band (``inf``/``-inf`` when an undetermined parameter matters).
        predicted_low: lower end of the band widened by the residual standard error.
        predicted_high: upper end of it.
        extrapolated: one note per input outside the values the fit used (empty: inside).
        converted: one note per input given in a unit its declared one differs from by the model's clock, warp size
            or SM count, saying the rates it was moved across (:func:`symgpu.evaluate.clocks.moved_across`).
    """

    quantity: str
    unit_text: str
    point: tuple[tuple[str, float], ...]
    value: float
    low: float
    high: float
    predicted_low: float
    predicted_high: float
    extrapolated: tuple[str, ...]
    converted: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (infinities as ``None``)."""
        def num(v: float) -> float | None:
            return float(v) if np.isfinite(v) else None
        return {"point": dict(self.point), "quantity": self.quantity, "unit": self.unit_text, "value": num(self.value),
                "band_parameters_only": [num(self.low), num(self.high)],
                "band_with_residual_scale": [num(self.predicted_low), num(self.predicted_high)],
                "extrapolated": bool(self.extrapolated), "extrapolated_inputs": list(self.extrapolated)}


def predict(model: Model, result: fitting.FitResult, point: Mapping[str, Any]) -> Prediction:
    """The fitted model at ``point`` with its bands and extrapolation notes.

    Args:
        model: the fitted model.
        result: the fit.
        point: input -> value (number in the declared unit or quantity string). An input the
            fit saw at one value may be left out (it keeps that value); the others are required.

    Raises:
        errors.UsageError: a name is not an input of the quantity, is a fitted parameter, or
            an input the data varied is missing.
        errors.EvaluationError: a value is invalid, or the point is outside the model's domain.
    """
    fitted = {p.name: p.value for p in result.parameters}
    ranges = {r.name: r for r in result.ranges}
    for name in point:
        if name in fitted:
            raise errors.UsageError(f"--predict {name}: {name} is fitted; give only inputs ({', '.join(ranges)})")
        if name not in ranges:
            raise errors.UsageError(f"--predict {name}: not an input of {result.model_id}.{result.quantity} "
                                    f"(inputs: {', '.join(ranges)})")
    values: dict[str, float] = {}
    moving = {name: given for name, given in ((n, _across(model, n, point[n])) for n in point) if given is not None}
    for name, r in ranges.items():
        if name in moving:
            continue
        if name in point:
            values[name] = float(input_values.to_magnitude(model, name, point[name]))
        elif r.low == r.high:
            values[name] = r.low
        else:
            raise errors.UsageError(f"--predict: give {name} (the data varied it from {r.low:g} to {r.high:g} {r.unit_text}), "
                                    f"e.g. --predict {name}={r.low:g}")
    preset = result.preset or None
    converted = []
    for name, given in moving.items():
        at = {**values, **fitted}
        need = f"--predict {name}={point[name]}: {name} is in {model.unit_text(name)}, so the value"
        instead = f"give it in {model.unit_text(name)}"

        def give(rate: str, example: str) -> str:
            return f"--predict '{rate}={example}'"
        found = clocks.moved_at_point(model, given, model.units[name], preset=preset, values=at, need=need, give=give,
                                      instead=instead)
        assert found is not None
        values[name] = float(input_values.to_magnitude(model, name, found[0]))
        converted.append(f"{name} = {point[name]} = {values[name]:.10g} {model.unit_text(name)} at "
                         f"{' and '.join(rate.said for rate in found[1])}")
    values = {name: values[name] for name in ranges}
    value = _value(model, result, preset, values, fitted, checks=True)
    names = list(fitted)
    gradient = np.zeros(len(names))
    for i, name in enumerate(names):
        step = STEP * max(abs(fitted[name]), 1e-300)
        up = _value(model, result, preset, values, {**fitted, name: fitted[name] + step}, checks=False)
        down = _value(model, result, preset, values, {**fitted, name: fitted[name] - step}, checks=False)
        gradient[i] = (up - down) / (2 * step)
    cov = np.asarray(result.covariance, dtype=float).reshape(len(names), len(names))
    determined = np.isfinite(np.diag(cov))
    if np.any((~determined) & (np.abs(gradient) > 0)):
        variance = np.inf
    else:
        g = gradient[determined]
        variance = float(g @ cov[np.ix_(determined, determined)] @ g) if g.size else 0.0
    half = result.t_value * np.sqrt(max(variance, 0.0))
    wide = result.t_value * np.sqrt(max(variance, 0.0) + (result.residual_std * value) ** 2)
    notes = []
    for name, r in ranges.items():
        v = values[name]
        if v < r.low - 1e-12 * abs(r.low) or v > r.high + 1e-12 * abs(r.high):
            seen = f"{r.low:g}" if r.low == r.high else f"{r.low:g} to {r.high:g}"
            notes.append(f"{name} = {v:g}{_unit(r.unit_text)} outside the fit's {seen}{_unit(r.unit_text)} ({r.source})")
    return Prediction(result.quantity, model.unit_text(result.quantity), tuple(values.items()), value,
                      value - half, value + half, value - wide, value + wide, tuple(notes), tuple(converted))


def _across(model: Model, name: str, given: Any) -> pint.Quantity | None:
    """``given`` for input ``name`` as a quantity where its unit differs from the declared one by the model's clock,
    warp size or SM count (:func:`symgpu.evaluate.clocks.exponents`); None for anything else (read as before)."""
    if not isinstance(given, (str, pint.Quantity)) or name not in model.units:
        return None
    try:
        quantity = given if isinstance(given, pint.Quantity) else units.quantity(given, model.units[name])
    except ValueError:
        return None
    declared = model.units[name]
    if quantity.dimensionality == declared.dimensionality or clocks.exponents(quantity, declared, sm=False) is None:
        return None
    return quantity


def _value(model: Model, result: fitting.FitResult, preset: str | None, values: Mapping[str, float],
           fitted: Mapping[str, float], *, checks: bool) -> float:
    got = evaluator.evaluate(model, result.quantity, preset=preset, values={**values, **fitted}, checks=checks).magnitude
    return float(np.asarray(got, dtype=float))


def lines(prediction: Prediction, result: fitting.FitResult) -> list[str]:
    """Readable lines: the value, both bands, and the extrapolation warning."""
    level = f"{fitting.CONFIDENCE:.0%}"
    unit = _unit(prediction.unit_text)
    ranges = {r.name: r for r in result.ranges}
    # NOTE: the data's inputs and any input moved off the value the fit held; not every preset value
    where = ", ".join(f"{k} = {v:g}{_unit(ranges[k].unit_text)}" for k, v in prediction.point
                      if ranges[k].source == "data" or not ranges[k].low <= v <= ranges[k].high)
    out = [f"  prediction at {where}: {prediction.quantity} = {prediction.value:.6g}{unit}",
           f"    {level} band from parameter uncertainty only [{prediction.low:.6g}, {prediction.high:.6g}]{unit}; "
           f"with the residual standard error {result.residual_std:.2%} [{prediction.predicted_low:.6g}, {prediction.predicted_high:.6g}]{unit}"]
    if prediction.extrapolated:
        out.append(f"    EXTRAPOLATED: {'; '.join(prediction.extrapolated)}: the model's error here is unknown; "
                   "neither band covers it")
    return out


def _unit(text: str) -> str:
    return "" if text in ("", "1") else f" {text}"
