"""Numeric comparison of two models over a sweep: the ratio B/A of a shared quantity at every point."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
import numpy as np
from symgpu import errors, units
from symgpu.model import Model
from symgpu.numbers import json_number
from symgpu.compare.differences import _defines
from symgpu.sweep.grid import Axis, Grid, parse_axis
from symgpu.sweep.run import sweep as run_sweep


# ============================================================================ numeric sweep
#: ratios this close (relative) are one extreme reached at several points: doubles of equal exact ratios
TIE = 1e-12


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

    @property
    def unbounded(self) -> np.ndarray:
        """Mask of the points where A is 0 and B a nonzero number: B/A has no value there and is unbounded
        near them, so the finite min and max say nothing about them."""
        return (self.a == 0) & np.isfinite(self.b) & (self.b != 0)

    @property
    def both_zero(self) -> np.ndarray:
        """Mask of the points where both predictions are 0 (B/A is 0/0)."""
        return (self.a == 0) & (self.b == 0)

    def extreme(self, kind: str) -> tuple[float, dict[str, float]] | None:
        """(ratio, coordinates) of the smallest (``"min"``) or largest (``"max"``) finite ratio; where
        several points tie (within :data:`TIE`, relative: the same ratio up to rounding), the first
        in grid order."""
        tied = self.tied(kind)
        if tied is None:
            return None
        index = np.unravel_index(int(np.flatnonzero(tied)[0]), self.ratio.shape)
        grids = np.meshgrid(*self.axes, indexing="ij")
        return float(self.ratio[index]), {v: float(g[index]) for v, g in zip(self.variables, grids)}

    def tied(self, kind: str) -> np.ndarray | None:
        """Mask of the points whose ratio is the smallest (``"min"``) or largest (``"max"``) finite one,
        within :data:`TIE` (relative); None where no ratio is finite."""
        finite = np.isfinite(self.ratio)
        if not finite.any():
            return None
        best = float(np.min(self.ratio[finite]) if kind == "min" else np.max(self.ratio[finite]))
        return finite & (np.abs(self.ratio - best) <= TIE * abs(best))


def parse_range(text: str) -> tuple[str, np.ndarray]:
    """An ``--over`` axis in :mod:`symgpu.sweep`'s grid syntax (:func:`symgpu.sweep.grid.parse_axis`):
    ``"n=1:64"`` (step 1), ``"alpha=0.5:8:0.5"``, ``"a=1,2,4"`` or ``"x=1e3:1e6:log20"`` -> (name, values).

    Raises:
        errors.UsageError: malformed text, a non-positive step, an empty or oversized range.
    """
    axis = parse_axis(text, "--over")
    return axis.name, axis.values


def check_preset(models: Sequence[Model], preset: str | None) -> None:
    """Refuse a preset that some of the models do not have (a combined one, ``gpu+workload``, part by part).

    Raises:
        errors.UsageError: naming the models lacking it and their presets.
    """
    if preset is None:
        return
    parts = [part.strip() for part in preset.split("+")]
    lacking = [m for m in models if any(part not in m.presets for part in parts)]
    if lacking:
        having = [m.id for m in models if m not in lacking]
        missing = "; ".join(f"{m.id} lacks {', '.join(repr(p) for p in parts if p not in m.presets)} "
                            f"(it has {', '.join(m.presets) or 'no presets'})" for m in lacking)
        where = f"exists in {', '.join(having)} but not in {', '.join(m.id for m in lacking)}" if having else "exists in neither model"
        raise errors.UsageError(f"preset '{preset}' {where}: {missing}; choose a preset both models define"
                                + (" (combine presets with '+', each part defined in both)" if len(parts) > 1 else ""))


def model_sweep(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any],
                over: Sequence[tuple[str, np.ndarray, Model]]) -> tuple[np.ndarray, int]:
    """``quantity`` of ``model`` over the grid of ``over`` (name, values in the declared unit of the
    owning model, owner), by :func:`symgpu.sweep.run.sweep` over the axes ``model`` declares; constant
    along the others. Points outside a ``valid_when`` domain are NaN and counted over the whole grid.

    Returns:
        (values in the quantity's declared unit, shaped as the grid; points outside the domain)
    """
    own = [(name, grid, owner) for name, grid, owner in over if name in model.symbols]
    axes = []
    for name, grid, owner in own:
        if owner is not model:  # values in the owner's declared unit, in this model's
            grid = np.asarray(units.magnitude_in(units.registry().Quantity(grid, owner.units[name]), model.units[name]), dtype=float)
        axes.append(Axis(name, np.asarray(grid, dtype=float), f"{name}=..."))
    result = run_sweep(model, quantity, grid=Grid(tuple(axes), option="--over"), preset=preset, values=values, regime_of="")
    shape = tuple(len(grid) for _, grid, _ in over)
    column = np.asarray(result.columns[model.equation_for(quantity).definition.defines], dtype=float)
    column = column.reshape(tuple(len(grid) for _, grid, _ in own))
    spread = tuple(i for i, (name, _, _) in enumerate(over) if name not in model.symbols)
    out = np.broadcast_to(np.expand_dims(column, spread) if spread else column, shape)
    return np.array(out), result.outside * math.prod(shape[i] for i in spread)


def sweep(a: Model, b: Model, quantity: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None,
          over: Sequence[tuple[str, np.ndarray]] = ()) -> Sweep:
    """Evaluate ``quantity`` of both models over the grid spanned by ``over`` and form B/A, each by
    :func:`symgpu.sweep.run.sweep` (one compiled pass over the axes the model declares).

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
    axes = [(name, np.asarray(grid, dtype=float), a if name in a.symbols else b) for name, grid in over]
    results = [model_sweep(model, quantity, preset, {k: v for k, v in values.items() if k in model.symbols}, axes) for model in (a, b)]
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
        "no_ratio": {"a_zero_b_nonzero": int(result.unbounded.sum()), "both_zero": int(result.both_zero.sum())},
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
            tied = result.tied(kind)
            count = 0 if tied is None else int(tied.sum())
            also = f" (the first of {count} points with this ratio)" if count > 1 else ""
            lines.append(f"  {kind} ratio {found[0] + 0.0:.6g}" + (f" at {at}{also}" if at else ""))  # + 0.0: no '-0'
    for mask, what in ((result.unbounded, f"{result.model_a} is 0 and {result.model_b} is not: B/A is unbounded there"),
                       (result.both_zero, "both models are 0: B/A is 0/0")):
        if mask.any():
            first = np.unravel_index(int(np.flatnonzero(mask)[0]), mask.shape)
            grids = np.meshgrid(*result.axes, indexing="ij")
            at = ", ".join(f"{v} = {float(g[first]):g}" for v, g in zip(result.variables, grids))
            count = int(mask.sum())
            lines.append(f"  {count} point{'s' if count > 1 else ''} where {what}" + (f" (the first at {at})" if at else "")
                         + ", left out of the min and max")
    for model_id, count in ((result.model_a, result.invalid_a), (result.model_b, result.invalid_b)):
        if count:
            lines.append(f"  {model_id}: {count} points outside the model's domain (valid_when), left out")
    return "\n".join(lines)
