"""Drawing report plots (curves with bounds and marks, regime maps) into SVG/PDF bytes."""

from __future__ import annotations

import math
from dataclasses import replace
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
import numpy as np
import sympy
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch
from symgpu.evaluate import active as active_regimes
from symgpu.numbers import number_text, round_sig
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.report import figure_digests, figure_sketch, style
from symgpu.report.plot_specs import GRID, POINTS, DrawnMark, DrawnPoint, PlotSpec
from symgpu.report.plot_values import PlotValues, axis_range, regime_branches, _label, _resolve_marks


# ============================================================================ drawing
#: Colours and markers of regimes on curves (distinct from the series colours C0, C1, ...).
REGIME_COLORS = ("#d62728", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f")


REGIME_MARKERS = ("o", "s", "^", "D", "v", "P")


def active_branch(model: Model, quantity: str, values: PlotValues, branches: list[tuple[str, sympy.Basic, sympy.Basic]], arrays: Sequence[Any]) -> Any:
    """Index into ``branches`` of the active case / limiter of ``quantity`` at each point (-1: no
    case applies, or an argument of the Min/Max is NaN).

    NOTE: the rule is :mod:`symgpu.evaluate.active`'s, on arrays: a point on a regime boundary
    (two bounds equal, or the two sides of a case's condition) is decided as if exactly equal
    when they agree to a relative :data:`symgpu.evaluate.active.TIE`: bounds that tie go to the
    first in :func:`symgpu.evaluate.active.argument_order` (named limiters in file order), a strict comparison that ties is false. Without
    it, which side such a point falls on depends on the last bit of floating-point results,
    which differs between NumPy/SymPy versions (a regime map's share moved from 0.499 to 0.4991)."""
    equation = model.defining[quantity]
    shape = np.broadcast(*arrays).shape
    if equation.cases:
        found = np.full(shape, -1)
        for index, (_, _, condition) in enumerate(branches):
            holds = _holds(values, condition, arrays, shape)
            found = np.where((found < 0) & holds, index, found)
        return found
    # the rule ranks in evaluate.active.argument_order; the codes index the branches
    position = {term: index for index, (_, term, _) in enumerate(branches)}
    terms = [equation.rhs.args[i] for i in active_regimes.argument_order(equation)]
    chosen = active_regimes.binding_index([np.broadcast_to(values.function(t, quantity)(*arrays), shape) for t in terms],
                                          "min" if isinstance(equation.rhs, sympy.Min) else "max")
    lookup = np.array([position[t] for t in terms] + [-1])
    return lookup[np.asarray(chosen)]


def _holds(values: PlotValues, condition: Any, arrays: Sequence[Any], shape: tuple[int, ...]) -> Any:
    """Where ``condition`` (relations, And/Or/Not) holds, the sides of each relation compared in
    base units by :func:`symgpu.evaluate.active.relation_holds` (ties within a relative
    :data:`symgpu.evaluate.active.TIE` counted as equal)."""
    if condition in (True, sympy.true):
        return np.ones(shape, dtype=bool)
    if condition in (False, sympy.false):
        return np.zeros(shape, dtype=bool)
    if isinstance(condition, (sympy.And, sympy.Or)):
        parts = [_holds(values, c, arrays, shape) for c in condition.args]
        return np.logical_and.reduce(parts) if isinstance(condition, sympy.And) else np.logical_or.reduce(parts)
    if isinstance(condition, sympy.Not):
        return ~_holds(values, condition.args[0], arrays, shape)
    if not isinstance(condition, sympy.core.relational.Relational):
        return np.broadcast_to(values.function(condition)(*arrays), shape).astype(bool)

    def side(expr: sympy.Basic) -> Any:
        return np.broadcast_to(np.asarray(values.function(expr)(*arrays), dtype=float), shape)

    if condition.lhs.is_number or condition.rhs.is_number:
        # a bare literal is in the declared unit of the other side: the difference scales it
        left = side(condition.lhs - condition.rhs)
        scale = np.maximum(np.abs(left), np.abs(side(condition.rhs if condition.lhs.is_number else condition.lhs)))
        return np.broadcast_to(active_regimes.relation_holds(condition.rel_op, left, 0.0, scale), shape)
    return np.broadcast_to(active_regimes.relation_holds(condition.rel_op, side(condition.lhs), side(condition.rhs)), shape)


def curve(model: Model, spec: PlotSpec, ax: Any, values: PlotValues, *, bounds: bool) -> list[DrawnMark]:
    """Draw ``spec.quantity`` over ``spec.variables[0]`` (one curve per series value); with
    ``bounds``, each limiter dashed; with ``spec.regime_of``, points coloured by regime.

    Returns:
        The resolved marks (each series value's marks labelled with it).
    """
    from matplotlib.lines import Line2D

    variable = spec.variables[0]
    ranged = dict(spec.ranges).get(variable)
    step = ranged[2] if ranged else None
    center = None
    if ranged:
        start, stop, _ = ranged
        v = np.arange(start, stop + step / 2, step) if step else np.linspace(start, stop, POINTS)
    else:
        center = values.centers()[variable]
        # NOTE: bounds plots are linear (throughput vs occupancy reads as a straight latency
        # bound meeting a flat throughput bound); the y range is set by the knee's value.
        v = np.linspace(center / 50, 3 * center, POINTS) if bounds else axis_range(center)
    runs = [(None, values)] if not spec.series else [(text, PlotValues(model, spec, text, kept=values.kept)) for text in spec.series[1]]
    branches = regime_branches(model, spec.regime_of) if spec.regime_of else []
    marks: list[DrawnMark] = []
    seen: dict[int, str] = {}
    finite_parts = []
    points: list[DrawnPoint] = []
    x = v
    for index, (series_value, vals) in enumerate(runs):
        x = vals.function(model.symbols[spec.x], spec.x)(v) if spec.x else v
        y = vals.function(model.symbols[spec.quantity], spec.quantity)(v)
        color = "black" if series_value is None else f"C{index}"
        label = spec.quantity if series_value is None else f"{spec.series[0]} = {series_value}"  # type: ignore[index]
        style = {"marker": "o", "markersize": 3} if step and not branches else {}
        ax.plot(x, y, color=color, linewidth=1.2 if branches else 1.8, label=label, zorder=3, **style)
        finite_parts.append(y[np.isfinite(y)])
        active = active_branch(model, spec.regime_of, vals, branches, (v,)) if branches else np.full(v.shape, -1)
        # every point of a stepped range; about 60 of a continuous one (hollow, so the series colour shows)
        thin = np.zeros(v.shape, dtype=bool)
        thin[:: 1 if step else max(1, len(v) // 60)] = True
        for r in sorted(set(int(a) for a in np.unique(active) if a >= 0)):
            chosen = (active == r) & thin
            ax.scatter(x[chosen], y[chosen], s=30 if step else 14, facecolors="none", edgecolors=REGIME_COLORS[r % len(REGIME_COLORS)],
                       marker=REGIME_MARKERS[r % len(REGIME_MARKERS)], zorder=4, linewidths=1.0)
            seen[r] = branches[r][0]
        if step:
            points.extend(DrawnPoint(series_value or "", round_sig(float(vi)), number_text(float(vi)), round_sig(float(xi)), number_text(float(xi)),
                                     round_sig(float(yi)), number_text(float(yi)), branches[int(ri)][0] if ri >= 0 else "")
                          for vi, xi, yi, ri in zip(v, x, y, active))
        run_marks = _resolve_marks(vals, spec)
        if series_value is not None:
            run_marks = [replace(mark, label=f"{mark.label} ({spec.series[0]} = {series_value})", series=series_value)  # type: ignore[index]
                         for mark in run_marks]
        marks.extend(run_marks)
    spec.points = tuple(points)
    finite = np.concatenate(finite_parts) if finite_parts else np.asarray([])
    if bounds and not spec.series:
        for index, (name, term, _) in enumerate(regime_branches(model, spec.quantity)):
            yb = values.function(term, spec.quantity)(v)
            ax.plot(x, yb, linestyle="--", linewidth=1.0, color=f"C{index}", label=f"{name}: {sympy.sstr(term)}")
    for index, mark in enumerate(marks):
        if mark.value is None:
            continue
        style = {"color": f"C{(index + 3) % 10}", "linestyle": ":", "linewidth": 1.2}
        text = f"{mark.label} ({number_text(mark.value, 4)})"
        if mark.axis == "x":
            ax.axvline(mark.value, label=text, **style)
        else:
            ax.axhline(mark.value, label=text, **style)
    if bounds and center is not None:
        at_knee = float(values.function(model.symbols[spec.quantity], spec.quantity)(np.asarray([center]))[0])
        top = 2.5 * at_knee if math.isfinite(at_knee) and at_knee > 0 else (finite.max() if finite.size else 1.0)
        ax.set_xlim(0, x[-1])
        ax.set_ylim(0, top)
    else:
        ax.set_xscale(spec.xscale or ("linear" if ranged or bounds else "log"))
        wide = finite.size and finite.min() > 0 and finite.max() / finite.min() > 50
        ax.set_yscale(spec.yscale or ("log" if wide and not bounds else "linear"))
        if finite.size:
            low, high = finite.min(), finite.max()
            if ax.get_yscale() == "log":
                ax.set_ylim(low / 2, high * 2)
            else:
                pad = 0.08 * (high - low or abs(high) or 1)
                ax.set_ylim(low - pad, high + pad)
    ax.set_xlabel(_label(model, spec.x or variable))
    ax.set_ylabel(_label(model, spec.quantity))
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], linestyle="", marker=REGIME_MARKERS[r % len(REGIME_MARKERS)], markerfacecolor="none",
                       markeredgecolor=REGIME_COLORS[r % len(REGIME_COLORS)], label=f"{spec.regime_of}: {name}") for r, name in sorted(seen.items())]
    ax.legend(handles=handles, loc="best", fontsize=7, framealpha=0.85)
    return marks


def regime_map(model: Model, spec: PlotSpec, ax: Any, values: PlotValues) -> dict[str, Any]:
    """Colour a log grid of ``spec.variables`` by the active limiter / case of ``spec.quantity``.

    Returns:
        Which regimes occur, with their share of the grid.
    """
    xname, yname = spec.variables
    ranges = dict(spec.ranges)
    centers = values.centers() if set(spec.variables) - set(ranges) else {}

    def axis(name: str) -> np.ndarray:
        if name in ranges:
            start, stop, step = ranges[name]
            return np.arange(start, stop + step / 2, step) if step else np.linspace(start, stop, GRID)
        return axis_range(centers[name])[:: max(1, POINTS // GRID)]

    x, y = axis(xname), axis(yname)
    X, Y = np.meshgrid(x, y)
    branches = regime_branches(model, spec.quantity)
    active = active_branch(model, spec.quantity, values, branches, (X, Y))
    colors = [f"C{i}" for i in range(len(branches))]
    # NOTE: filled contours of the regime index (a few polygons) rather than a quad mesh:
    # SVG stays small and fast to write, and boundaries are drawn as lines.
    levels = np.arange(len(branches) + 1) - 0.5
    ax.contourf(X, Y, np.ma.masked_less(active, 0), levels=levels, cmap=ListedColormap(colors))
    if len(set(np.unique(active)) - {-1}) > 1:
        ax.contour(X, Y, active, levels=levels[1:-1], colors="black", linewidths=0.8)
    ax.set_xscale(spec.xscale or ("linear" if xname in ranges else "log"))
    ax.set_yscale(spec.yscale or ("linear" if yname in ranges else "log"))
    ax.set_xlabel(_label(model, xname))
    ax.set_ylabel(_label(model, yname))
    present = sorted(set(int(v) for v in np.unique(active) if v >= 0))
    ax.legend(handles=[Patch(color=colors[i], label=f"{branches[i][0]}: {sympy.sstr(branches[i][1])}") for i in present], loc="upper right", fontsize=7, framealpha=0.85)
    # rounded as printed (``49.9 %``): the JSON holds what the report says
    return {branches[i][0]: round(float(np.mean(active == i)), 3) for i in present}


def draw(model: Model, spec: PlotSpec, kinds: Sequence[str], names: Mapping[str, str] | None = None,
         book: figure_digests.Book | None = None, *, look: style.Look = style.LOOK) -> dict[str, bytes]:
    """Draw one plot and return its files (``svg``/``pdf``/``png`` -> bytes), nothing written.

    With ``book`` (the report folder's figures) and ``names`` (kind -> file name), files drawn
    from the same inputs are kept as they are on disk (:mod:`symgpu.report.figure_digests`):
    the values are still computed (the marks and points are part of the report), nothing laid out.
    ``look``: how the figure is saved (:class:`style.Look`; symgpu's unless a benchmark asks otherwise).

    Raises:
        errors.EvaluationError: the scenario lacks a value or the range cannot be built.
    """
    values = PlotValues(model, spec)
    spec.resolved_marks = ()
    with figure_sketch.figures(look):
        sketch = figure_sketch.Sketch("subplots figsize=(6.4, 4.2)", lambda: style.pyplot.subplots(figsize=(6.4, 4.2)))
        ax = sketch.axes()
        if spec.kind == "regime_map":
            shares = regime_map(model, spec, ax, values)
            spec.resolved_marks = tuple(DrawnMark("map", name, "", share, f"{100 * share:.1f} %") for name, share in sorted(shares.items()))
        else:
            spec.resolved_marks = tuple(curve(model, spec, ax, values, bounds=spec.kind == "asymptotes"))
        ax.set_title(spec.title, fontsize=9)
        notes = [f"{k} = {v}" for k, v in spec.substitute] + [f"{k} := {v}" for k, v in spec.bind]
        if notes:
            sketch.figure().text(0.01, 0.01, "; ".join(notes), fontsize=6, color="0.35")
        return sketch.finish(kinds, names, book, layout=True, look=look)
