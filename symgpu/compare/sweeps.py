"""Numeric comparison of two models over a sweep: the ratio B/A of a shared quantity at every point."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
import numpy as np
import pint
from symgpu import errors, units
from symgpu.model import Model
from symgpu.numbers import json_number
from symgpu.compare.differences import _defines
from symgpu.evaluate import compiler, evaluator, input_values


# ============================================================================ numeric sweep
@dataclass
class Sweep:
    """Both models' predictions of a quantity over a grid and their ratio B/A."""

    model_a: str
    model_b: str
    quantity: str
    unit: str
    preset: str | None
    variables: tuple[str, ...]
    axes: tuple[np.ndarray, ...]
    a: np.ndarray
    b: np.ndarray
    ratio: np.ndarray
    invalid_a: int
    invalid_b: int

    def extreme(self, kind: str) -> tuple[float, dict[str, float]] | None:
        """(ratio, coordinates) of the smallest (``"min"``) or largest (``"max"``) finite ratio."""
        finite = np.isfinite(self.ratio)
        if not finite.any():
            return None
        masked = np.where(finite, self.ratio, np.inf if kind == "min" else -np.inf)
        index = np.unravel_index(int(np.argmin(masked) if kind == "min" else np.argmax(masked)), self.ratio.shape)
        grids = np.meshgrid(*self.axes, indexing="ij")
        return float(self.ratio[index]), {v: float(g[index]) for v, g in zip(self.variables, grids)}


def parse_range(text: str) -> tuple[str, np.ndarray]:
    """``"n=1:64"`` (step 1) or ``"alpha=0.5:8:0.5"`` -> (name, inclusive array).

    Raises:
        errors.UsageError: malformed text, non-positive step, or an empty range.
    """
    name, sep, spec = text.partition("=")
    parts = spec.split(":")
    if not sep or not name.strip() or len(parts) not in (2, 3):
        raise errors.UsageError(f"--over {text!r}: expected VAR=START:STOP[:STEP], e.g. --over n=1:64")
    try:
        start, stop = float(parts[0]), float(parts[1])
        step = float(parts[2]) if len(parts) == 3 else 1.0
    except ValueError:
        raise errors.UsageError(f"--over {text!r}: START, STOP and STEP must be numbers") from None
    if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(step)) or step <= 0:
        raise errors.UsageError(f"--over {text!r}: STEP must be a positive number")
    if stop < start:
        raise errors.UsageError(f"--over {text!r}: STOP is smaller than START")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > 100_000:
        raise errors.UsageError(f"--over {text!r}: {count} points is too many (at most 100000)")
    return name.strip(), start + step * np.arange(count)


def check_preset(models: Sequence[Model], preset: str | None) -> None:
    """Refuse a preset that some of the models do not have.

    Raises:
        errors.UsageError: naming the models lacking it and their presets.
    """
    if preset is None:
        return
    lacking = [m for m in models if preset not in m.presets]
    if lacking:
        having = [m.id for m in models if preset in m.presets]
        shown = "; ".join(f"{m.id} has {', '.join(m.presets) or 'no presets'}" for m in lacking)
        raise errors.UsageError(f"preset '{preset}' exists in {', '.join(having) or 'neither model'} but not in "
                                f"{', '.join(m.id for m in lacking)} ({shown}); choose a preset both models define")


def evaluate_masked(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any]) -> tuple[np.ndarray, int]:
    """Evaluate over arrays; points outside an equation's ``valid_when`` domain become NaN.

    The whole grid is evaluated at once. When some points fall outside a domain (a
    DomainError), the ``valid_when`` conditions are evaluated over the whole grid too, as one
    mask, and the quantity once more without the domain checks: the same values and the same
    count as evaluating every point on its own, in two array evaluations.

    Returns:
        (values in the quantity's declared unit, number of points outside the domain)
    """
    arrays = {k: v for k, v in values.items() if np.ndim(getattr(v, "magnitude", v))}
    shape = np.broadcast_shapes(*[np.shape(getattr(v, "magnitude", v)) for v in arrays.values()]) if arrays else ()
    flat = {k: np.broadcast_to(getattr(v, "magnitude", v), shape).ravel() for k, v in arrays.items()}
    given: dict[str, Any] = {k: v for k, v in values.items() if k not in arrays}
    for k, v in flat.items():
        given[k] = units.registry().Quantity(v, arrays[k].units) if isinstance(arrays[k], pint.Quantity) else v
    size = int(np.prod(shape)) if shape else 1
    try:
        result = evaluator.evaluate(model, quantity, preset=preset, values=given)
        out = np.array(np.broadcast_to(np.asarray(result.magnitude, dtype=float), (size,)))
        invalid = 0
    except errors.DomainError:
        inside = evaluator.inside_domain(model, quantity, preset, given, size)
        result = evaluator.evaluate(model, quantity, preset=preset, values=given, checks=False)
        out = np.where(inside, np.broadcast_to(np.asarray(result.magnitude, dtype=float), (size,)), np.nan)
        invalid = int(np.count_nonzero(~inside))
    return out.reshape(shape) if shape else out, invalid


def sweep(a: Model, b: Model, quantity: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None,
          over: Sequence[tuple[str, np.ndarray]] = ()) -> Sweep:
    """Evaluate ``quantity`` of both models over the grid spanned by ``over`` and form B/A.

    ``values`` are fixed inputs (numbers in the declared unit, quantities or quantity strings);
    each is passed to the models that declare it. Sweep values are numbers in the declared unit
    of the first model declaring the variable.

    Raises:
        errors.UsageError: unknown quantity, preset missing in one model, sweep or value names
            declared by neither model, different dimensions.
    """
    _defines(a, quantity)
    _defines(b, quantity)
    if a.dimension(quantity) != b.dimension(quantity):
        raise errors.UsageError(f"'{quantity}' has different dimensions in {a.id} and {b.id}")
    check_preset((a, b), preset)
    values = dict(values or {})
    names = [v for v, _ in over]
    if len(set(names)) != len(names):
        raise errors.UsageError("each --over variable may be given once")
    for name in list(values) + names:
        if name not in a.symbols and name not in b.symbols:
            raise errors.UsageError(f"neither {a.id} nor {b.id} declares '{name}'")
    grids = np.meshgrid(*[g for _, g in over], indexing="ij") if over else []
    results = []
    for model in (a, b):
        given: dict[str, Any] = {k: v for k, v in values.items() if k in model.symbols}
        for (name, _), grid in zip(over, grids):
            if name in model.symbols:
                owner = a if name in a.symbols else b
                given[name] = units.registry().Quantity(grid, owner.units[name])
        out, invalid = evaluate_masked(model, quantity, preset, given)
        if np.ndim(out) == 0 and grids:
            out = np.full(grids[0].shape, float(out))
        results.append((out, invalid))
    (va, ia), (vb, ib) = results
    scale = units.factor(b.units[quantity], a.units[quantity])
    vb = vb * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(va != 0, vb / va, np.nan)
    return Sweep(a.id, b.id, quantity, a.unit_text(quantity), preset, tuple(names), tuple(g for _, g in over),
                 np.asarray(va, dtype=float), np.asarray(vb, dtype=float), np.asarray(ratio, dtype=float), ia, ib)


def sweep_json(result: Sweep) -> dict[str, Any]:
    """JSON-ready form of a :class:`Sweep` (NaN -> null)."""
    def extreme(kind: str) -> Any:
        found = result.extreme(kind)
        return None if found is None else {"ratio": found[0], "at": found[1]}

    return {
        "model_a": result.model_a, "model_b": result.model_b, "quantity": result.quantity, "unit": result.unit,
        "preset": result.preset, "ratio_is": "B/A",
        "over": {v: json_number(g) for v, g in zip(result.variables, result.axes)},
        "a": json_number(result.a), "b": json_number(result.b), "ratio": json_number(result.ratio),
        "min": extreme("min"), "max": extreme("max"),
        "outside_domain": {result.model_a: result.invalid_a, result.model_b: result.invalid_b},
    }


def format_sweep(result: Sweep) -> str:
    """Plain-text summary of a sweep."""
    lines = [f"{result.quantity} [{result.unit}]: ratio {result.model_b}/{result.model_a}"
             + (f", preset {result.preset}" if result.preset else "")
             + "".join(f", {v} = {g[0]:g}..{g[-1]:g} ({g.size} points)" for v, g in zip(result.variables, result.axes))]
    for kind in ("min", "max"):
        found = result.extreme(kind)
        if found is None:
            lines.append(f"  {kind}: no finite ratio")
        else:
            at = ", ".join(f"{k} = {v:g}" for k, v in found[1].items())
            lines.append(f"  {kind} ratio {found[0]:.6g}" + (f" at {at}" if at else ""))
    for model_id, count in ((result.model_a, result.invalid_a), (result.model_b, result.invalid_b)):
        if count:
            lines.append(f"  {model_id}: {count} points outside the model's domain (valid_when), left out")
    return "\n".join(lines)
