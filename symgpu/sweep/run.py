"""Chunked evaluation of a :class:`~symgpu.sweep.plan.SweepPlan`: memory bounded by the chunk
size, never by the grid; the same chunks for every backend and engine."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import compiler
from symgpu.model import Model
from symgpu.sweep import backends, fused
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.plan import SweepPlan, build_plan
from symgpu.sweep.regimes import decide

#: points per chunk by default: a few MiB per array, well inside the CPU caches' reach
DEFAULT_CHUNK = 1 << 18
#: the most points :func:`sweep` keeps in memory (write larger sweeps to a file)
MAX_IN_MEMORY = 50_000_000


@dataclass(frozen=True)
class Chunk:
    """The points ``start..stop-1`` of the flattened grid: column arrays (declared units),
    regime codes (indices into the plan's regime labels, -1 for none) and how many points
    lie outside the model's domain (their quantities are NaN)."""

    start: int
    stop: int
    columns: Mapping[str, np.ndarray]
    regime: np.ndarray | None
    outside: int


@dataclass(frozen=True)
class SweepResult:
    """A whole sweep in memory (see :func:`sweep`)."""

    plan: SweepPlan
    columns: Mapping[str, np.ndarray]
    regime: np.ndarray | None
    outside: int

    def regime_names(self) -> np.ndarray:
        """The regime column as labels (``""`` where none applies)."""
        if self.regime is None or self.plan.regime is None:
            raise errors.UsageError("this sweep has no regime column")
        labels = np.array(list(self.plan.regime.labels) + [""], dtype=object)
        return labels[self.regime]  # type: ignore[no-any-return]


def compile_plan(plan: SweepPlan, backend: backends.Backend) -> Any:
    """The plan's fused function for ``backend``."""
    return compiler.fused_function(plan.model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units,
                                   backend=backend.name)


def evaluate_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int) -> Chunk:
    """Evaluate the points ``start..stop-1`` of the plan's grid."""
    if backend.name == "numba":
        return _fused_chunk(plan, backend, function, start, stop)
    size = stop - start
    coords = plan.grid.chunk(start, stop)
    based = [c * s if s != 1.0 else c for c, s in zip(coords, plan.scales)]
    out = backend.run(function, based, [v for _, v in plan.fixed], len(plan.exprs), size)
    columns: dict[str, np.ndarray] = {a.name: c for a, c in zip(plan.grid.axes, coords)}
    outside = 0
    inside = np.ones(size, dtype=bool)
    if plan.domain is not None:
        inside = out[plan.domain] > 0.5
        outside = int(size - np.count_nonzero(inside))
    for index, name in enumerate(plan.quantities):
        values = np.array(out[index], dtype=float)
        if outside:
            values[~inside] = np.nan
        columns[name] = values
    regime = None
    if plan.regime is not None:
        regime = decide(plan.regime, out, (size,))
        if outside:
            regime[~inside] = -1
    return Chunk(start, stop, columns, regime, outside)


def _fused_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int) -> Chunk:
    """:func:`evaluate_chunk` in one numba loop (coordinates, quantities, domain mask per point);
    the regime is then decided on the loop's outputs, as the NumPy backend decides it."""
    spec = plan.regime
    layout = fused.layout(plan, [a.values for a in plan.grid.axes], plan.scales, len(plan.quantities), plan.domain)
    done = fused.run(backend.module, function, layout, tuple(v for _, v in plan.fixed), len(plan.exprs), start, stop)
    columns: dict[str, np.ndarray] = {a.name: done.axes[k] for k, a in enumerate(plan.grid.axes)}
    columns.update({name: done.out[index] for index, name in enumerate(plan.quantities)})
    regime = None
    if spec is not None:
        regime = decide(spec, list(done.out), (stop - start,))
        if done.outside and plan.domain is not None:
            regime[~(done.out[plan.domain] > 0.5)] = -1
    return Chunk(start, stop, columns, regime, done.outside)


def progress_bar(total: int, enabled: bool | None) -> Any:
    """A tqdm bar on stderr that appears after one second (None: only on a terminal), or None."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None
    try:
        import tqdm  # noqa: PLC0415 - optional dependency, not a symgpu import
    except ImportError:
        return None
    return tqdm.tqdm(total=total, delay=1.0, unit="pt", unit_scale=True, file=sys.stderr, leave=False)


def iter_chunks(plan: SweepPlan, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK,
                progress: bool | None = False) -> Iterator[Chunk]:
    """Evaluate the plan chunk by chunk (each chunk's arrays are new; nothing is kept)."""
    runner = backends.load(backend)
    function = compile_plan(plan, runner)
    bar = progress_bar(plan.grid.size, progress)
    try:
        for start, stop in plan.grid.chunks(chunk_size):
            chunk = evaluate_chunk(plan, runner, function, start, stop)
            if bar is not None:
                bar.update(stop - start)
            yield chunk
    finally:
        if bar is not None:
            bar.close()


def sweep(model: Model, quantities: str | Sequence[str], *, grid: Grid | Sequence[str | Axis] = (),
          preset: str | None = None, values: Mapping[str, Any] | None = None, checks: bool = True,
          regime_of: str | None = None, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK) -> SweepResult:
    """Evaluate ``quantities`` over the grid and keep the result in memory.

    Example: ``symgpu.sweep.sweep(model, "Exec_cycles_app", preset="8800gtx+table2",
    grid=["Active_warps_per_SM=1:32"])``. Arguments as in :func:`symgpu.sweep.plan.build_plan`.

    Raises:
        errors.UsageError: the grid has more than :data:`MAX_IN_MEMORY` points (write it to a
            file with :func:`symgpu.sweep.writers.write` instead), or a bad argument.
    """
    plan = build_plan(model, [quantities] if isinstance(quantities, str) else list(quantities), preset=preset,
                      grid=grid, values=values, checks=checks, regime_of=regime_of)
    if plan.grid.size > MAX_IN_MEMORY:
        raise errors.UsageError(f"{plan.grid.size} points is too many to keep in memory (at most {MAX_IN_MEMORY}); "
                                "write the sweep to a file (symgpu sweep ... -o FILE)")
    parts = list(iter_chunks(plan, backend, chunk_size))
    names = [c.name for c in plan.columns() if c.kind != "regime"]
    columns = {n: np.concatenate([p.columns[n] for p in parts]) if parts else np.zeros(0) for n in names}
    regime = np.concatenate([p.regime for p in parts if p.regime is not None]) if plan.regime is not None and parts else None
    return SweepResult(plan, columns, regime, sum(p.outside for p in parts))


def timed(plan: SweepPlan, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK) -> tuple[int, float]:
    """Evaluate the whole plan, discarding the chunks: (points outside the domain, seconds)."""
    begin = time.perf_counter()
    outside = sum(c.outside for c in iter_chunks(plan, backend, chunk_size))
    return outside, time.perf_counter() - begin
