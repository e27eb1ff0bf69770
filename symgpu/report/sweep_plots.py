"""Plots of a written sweep (``symgpu plot``, ``symgpu sweep --plot``): a line over one varying
axis or a heat map over two, with the boundaries between active regimes drawn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.report import style
from symgpu.sweep.readers import SweepTable

#: the most points a plot draws
MAX_POINTS = 4_000_000


def axes_of(table: SweepTable) -> list[str]:
    """The swept columns: from the metadata's grid, else (CSV) the leading columns whose
    numbers of distinct values multiply to the number of rows."""
    grid = table.metadata.get("grid")
    if grid:
        return [text.partition("=")[0].strip() for text in grid]
    names = list(table.columns)
    rows = len(next(iter(table.columns.values()))) if names else 0
    product = 1
    for index, name in enumerate(names):
        product *= len(np.unique(table.columns[name]))
        if product == rows:
            return names[: index + 1]
        if product > rows:
            break
    return names[:1]


def _label(name: str, unit: str) -> str:
    return name if unit in ("", "1") else f"{name} [{unit}]"


def _log_spaced(values: np.ndarray) -> bool:
    if values.size < 3 or not np.all(values > 0):
        return False
    ratios = values[1:] / values[:-1]
    return bool(np.allclose(ratios, ratios[0], rtol=1e-9) and not np.isclose(ratios[0], 1.0) and
                not np.allclose(np.diff(values), values[1] - values[0], rtol=1e-9))


def plot_sweep(table: SweepTable, kind: str = "svg", quantity: str | None = None, axes: Sequence[str] | None = None) -> bytes:
    """Draw ``quantity`` of ``table`` over its one or two varying axes; return the file bytes.

    Raises:
        errors.UsageError: unknown quantity or axis, not one or two varying axes, too many points.
    """
    swept = list(axes) if axes else axes_of(table)
    for name in swept:
        if name not in table.columns:
            raise errors.UsageError(f"plot: no column '{name}' (columns: {', '.join(table.columns)})")
    varying = [n for n in swept if len(np.unique(table.columns[n])) > 1]
    quantities = [n for n in table.columns if n not in swept]
    if quantity is None:
        if not quantities:
            raise errors.UsageError("plot: the sweep has no quantity column")
        quantity = quantities[0]
    if quantity not in table.columns or quantity in swept:
        raise errors.UsageError(f"plot: no quantity '{quantity}' (quantities: {', '.join(quantities)})")
    if len(varying) not in (1, 2):
        raise errors.UsageError(f"plot: {len(varying)} varying axes ({', '.join(varying) or 'none'}); a plot needs one "
                                "(a line) or two (a heat map): fix the others with --set")
    values = table.columns[quantity]
    if values.size > MAX_POINTS:
        raise errors.UsageError(f"plot: {values.size} points is too many to draw (at most {MAX_POINTS})")
    regime = table.regime
    with style.figures():
        fig, ax = style.pyplot.subplots(figsize=(6.4, 4.2))
        try:
            if len(varying) == 1:
                _line(table, ax, varying[0], quantity, regime)
            else:
                _heat_map(table, fig, ax, varying[0], varying[1], quantity, regime)
            title = table.metadata.get("model", "")
            if table.metadata.get("preset"):
                title += f", preset {table.metadata['preset']}"
            ax.set_title(title, fontsize=9)
            style.plain_log_labels(fig)  # before the layout: the labels' sizes
            fig.tight_layout()
            return style.save(fig, kind)
        finally:
            style.pyplot.close(fig)


def _line(table: SweepTable, ax: Any, x_name: str, quantity: str, regime: np.ndarray | None) -> None:
    x = table.columns[x_name]
    order = np.argsort(x, kind="stable")
    x, y = x[order], table.columns[quantity][order]
    ax.plot(x, y, color="C0")
    if regime is not None:
        labels = regime[order]
        changes = np.nonzero(labels[1:] != labels[:-1])[0]
        starts = np.r_[0, changes + 1]
        for index in changes:
            ax.axvline(0.5 * (x[index] + x[index + 1]), color="0.3", linestyle="--", linewidth=0.8)
        for begin, end in zip(starts, np.r_[changes + 1, x.size]):
            if labels[begin]:
                ax.annotate(str(labels[begin]), (0.5 * (x[begin] + x[end - 1]), 0.02), xycoords=("data", "axes fraction"),
                            ha="center", fontsize=7, color="0.3")
    ax.set_xscale("log" if _log_spaced(np.unique(x)) else "linear")
    ax.set_xlabel(_label(x_name, table.units.get(x_name, "")))
    ax.set_ylabel(_label(quantity, table.units.get(quantity, "")))


def _heat_map(table: SweepTable, fig: Any, ax: Any, x_name: str, y_name: str, quantity: str,
              regime: np.ndarray | None) -> None:
    xs, xi = np.unique(table.columns[x_name], return_inverse=True)
    ys, yi = np.unique(table.columns[y_name], return_inverse=True)
    grid = np.full((ys.size, xs.size), np.nan)
    grid[yi, xi] = table.columns[quantity]
    mesh = ax.pcolormesh(xs, ys, grid, shading="nearest", cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=_label(quantity, table.units.get(quantity, "")))
    if regime is not None:
        names = sorted({str(r) for r in regime if r})
        codes = np.full((ys.size, xs.size), np.nan)
        codes[yi, xi] = [names.index(str(r)) if r else np.nan for r in regime]
        if len(names) > 1 and xs.size > 1 and ys.size > 1:
            ax.contour(xs, ys, codes, levels=np.arange(len(names) - 1) + 0.5, colors="white", linewidths=1.0)
        for index, name in enumerate(names):
            where = np.argwhere(codes == index)
            if where.size:
                row, col = where[len(where) // 2]
                ax.annotate(name, (xs[col], ys[row]), color="white", fontsize=7, ha="center")
    ax.set_xscale("log" if _log_spaced(xs) else "linear")
    ax.set_yscale("log" if _log_spaced(ys) else "linear")
    ax.set_xlabel(_label(x_name, table.units.get(x_name, "")))
    ax.set_ylabel(_label(y_name, table.units.get(y_name, "")))
