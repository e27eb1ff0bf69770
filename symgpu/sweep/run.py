"""Chunked evaluation of a :class:`~symgpu.sweep.plan.SweepPlan`: memory bounded by the chunk
size, never by the grid; the same chunks for every backend and engine."""

from __future__ import annotations

import functools
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import compiler, gridcode
from symgpu.memo import Memo
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
    """The plan's fused function for ``backend`` (NumPy: a :class:`~symgpu.evaluate.gridcode.GridProgram`
    that writes into buffers, where the function can be rewritten)."""
    if backend.name == "numpy" and plan.grid.axes:
        # a Min/Max regime reads an argument that is also the value's last operand: that step is
        # left to the chunk (gridcode.finish, after the decision), so the argument is computed in the column
        defer = plan.regime is not None and plan.regime.kind in ("min", "max")
        program = compiler.grid_program(plan.model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units,
                                        len(plan.quantities), defer)
        if program is not None:
            return program
    return compiler.fused_function(plan.model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units,
                                   backend=backend.name)


def evaluate_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int,
                   scratch: np.ndarray | None = None) -> Chunk:
    """Evaluate the points ``start..stop-1`` of the plan's grid (``scratch``: a bool array of
    twice as many points that the NumPy backend's regime decision reuses, chunk after chunk)."""
    if backend.name == "numba":
        return _fused_chunk(plan, backend, function, start, stop)
    if backend.name == "numpy":
        return _grid_chunk(plan, function, start, stop, Targets({}, None, scratch))
    size = stop - start
    coords = plan.grid.chunk(start, stop)
    based = [c * s if s != 1.0 else c for c, s in zip(coords, plan.scales)]
    out = backend.run(function, based, [v for _, v in plan.fixed], len(plan.exprs), size)
    return _chunk(plan, start, stop, out, (size,))


def _chunk(plan: SweepPlan, start: int, stop: int, out: Sequence[Any], shape: tuple[int, ...],
           into: Targets | None = None, written: frozenset[int] = frozenset(), finish: Callable[[], None] | None = None) -> Chunk:
    """The chunk from the compiled outputs ``out`` (arrays that broadcast to ``shape``, a box of
    ``stop - start`` points): quantities as flat columns (NaN outside the domain), the regime;
    written into ``into`` (the result's slices for these points) where it has them, else new arrays
    (``written``: the outputs already computed in ``into``'s columns; ``finish``: completes them,
    called once the regime is decided: see :func:`symgpu.evaluate.gridcode.finish`)."""
    size = stop - start
    outside = 0
    inside: Any = True
    if plan.domain is not None:
        inside = np.asarray(out[plan.domain])
        inside = inside > 0.5 if inside.dtype != bool else inside
        outside = size - _count_spread(inside, shape) if inside.ndim else (0 if inside else size)
    mask = np.broadcast_to(~inside, shape).reshape(-1) if outside else None
    regime = None
    if plan.regime is not None:
        regime = decide(plan.regime, out, shape, None if into is None else into.regime,
                        None if into is None else into.scratch).reshape(-1)
        if mask is not None:
            regime = np.array(regime) if into is None or into.regime is None else regime
            regime[mask] = -1
    if finish is not None:
        finish()
    columns: dict[str, np.ndarray] = {}
    taken: set[int] = set()
    for index, name in enumerate(plan.quantities):
        values = out[index]
        if into is not None and name in into.columns and index in written:
            values = into.columns[name]
        elif into is not None and name in into.columns:
            np.copyto(into.columns[name].reshape(shape), np.broadcast_to(values, shape))
            values = into.columns[name]
        elif not (isinstance(values, np.ndarray) and values.shape == shape and values.dtype == np.float64
                  and values.base is None and values.flags.c_contiguous and id(values) not in taken):
            values = np.array(np.broadcast_to(values, shape), dtype=float)  # a new array: the column owns it
        taken.add(id(values))
        values = values.reshape(-1)
        if mask is not None:
            values[mask] = np.nan
        columns[name] = values
    return Chunk(start, stop, Columns(columns, plan.grid, start, stop), regime, outside)


def _count_spread(values: np.ndarray, shape: tuple[int, ...]) -> int:
    """``count_nonzero(broadcast_to(values, shape))`` at ``values``' own size: each of its points
    stands for as many as the axes it is broadcast along hold (a domain over fewer axes is
    counted at its size)."""
    own = values.reshape((1,) * (len(shape) - values.ndim) + values.shape)
    repeat = math.prod(n for n, m in zip(shape, own.shape) if m == 1)
    return int(np.count_nonzero(own)) * repeat


@dataclass(frozen=True)
class Targets:
    """Where a chunk's columns and regime codes go: slices of the whole result (no copy after)."""

    columns: Mapping[str, np.ndarray]  # those not here are new arrays
    regime: np.ndarray | None  # None: a new array
    scratch: np.ndarray | None = None  # bool, reused by every chunk's regime decision
    floats: tuple[np.ndarray, ...] = ()  # a GridProgram's scratch buffers, reused by every chunk (flat, a chunk's size)
    bools: tuple[np.ndarray, ...] = ()


def buffers(function: Any, size: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """The scratch buffers of ``size`` points a :class:`GridProgram` needs (none for another function)."""
    if not isinstance(function, gridcode.GridProgram):
        return (), ()
    return (tuple(np.empty(size) for _ in range(function.floats_needed)),
            tuple(np.empty(size, dtype=bool) for _ in range(function.bools_needed)))


_AXES: Memo[int, tuple[object, list[np.ndarray]]] = Memo("sweep.run.axes", 64)


def _base_axes(plan: SweepPlan) -> list[np.ndarray]:
    """The plan's axis values in base units (computed once per plan object)."""
    known = _AXES.get(id(plan))
    if known is not None and known[0] is plan:
        return known[1]
    axes = [a.values * s if s != 1.0 else a.values for a, s in zip(plan.grid.axes, plan.scales)]
    _AXES[id(plan)] = (plan, axes)
    return axes


def _grid_chunk(plan: SweepPlan, function: Any, start: int, stop: int, into: Targets | None = None) -> Chunk:
    """:func:`evaluate_chunk` with NumPy, box by box of the grid (one box for a chunk of
    ``Grid.chunks``): each axis a ``(1, .., n, .., 1)`` view, the constants NumPy scalars, so each
    subexpression is computed at the size of the axes it uses and the last step's array is the column."""
    axes = _base_axes(plan)
    fixed = [np.float64(v) for _, v in plan.fixed]
    boxes = plan.grid.boxes(start, stop)
    count = len(axes)
    if isinstance(function, gridcode.GridProgram):
        return _buffered_chunk(plan, function, start, stop, axes, fixed, boxes, into)

    def run(bounds: tuple[tuple[int, int], ...]) -> tuple[Any, tuple[int, ...]]:
        coords = [axes[k][lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1)) for k, (lo, hi) in enumerate(bounds)]
        with np.errstate(all="ignore"):
            return function(*coords, *fixed), tuple(hi - lo for lo, hi in bounds)

    if len(boxes) == 1:
        out, shape = run(boxes[0][1])
        return _chunk(plan, start, stop, out, shape, into)
    whole: list[np.ndarray] = []
    for first, bounds in boxes:
        out, shape = run(bounds)
        if not whole:
            whole = [np.empty(stop - start, dtype=np.asarray(o).dtype) for o in out]
        width = int(np.prod(shape))
        for target, value in zip(whole, out):
            target[first - start:first - start + width] = np.broadcast_to(value, shape).reshape(-1)
    return _chunk(plan, start, stop, whole, (stop - start,), into)


def _buffered_chunk(plan: SweepPlan, program: gridcode.GridProgram, start: int, stop: int, axes: list[np.ndarray],
                    fixed: list[np.float64], boxes: list[tuple[int, tuple[tuple[int, int], ...]]], into: Targets | None) -> Chunk:
    """:func:`_grid_chunk` with a program that writes the quantities straight into the chunk's
    columns (``into``'s slices, else new arrays) and its other grid-sized steps into scratch buffers
    (``into``'s, reused chunk after chunk, else new)."""
    size = stop - start
    given = into.columns if into is not None else {}
    columns = {n: given[n] if n in given else np.empty(size) for n in plan.quantities}
    floats, bools = (into.floats, into.bools) if into is not None and len(into.floats) >= program.floats_needed \
        and len(into.bools) >= program.bools_needed and (not into.floats or into.floats[0].size >= size) \
        and (not into.bools or into.bools[0].size >= size) else buffers(program, size)
    target = Targets(columns, None if into is None else into.regime, None if into is None else into.scratch)
    count = len(axes)
    whole: list[Any] = []
    written: set[int] = set()
    for first, bounds in boxes:
        shape = tuple(hi - lo for lo, hi in bounds)
        offset, width = first - start, math.prod(shape)
        coords = [axes[k][lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1)) for k, (lo, hi) in enumerate(bounds)]
        targets = [columns[n][offset:offset + width].reshape(shape) for n in plan.quantities]
        with np.errstate(all="ignore"):
            out = program.function(*coords, *fixed, targets, [b[:width].reshape(shape) for b in floats],
                                   [b[:width].reshape(shape) for b in bools])
        if len(boxes) == 1:
            done = frozenset(i for i, t in enumerate(targets) if out[i] is t)
            return _chunk(plan, start, stop, out, shape, target, done,
                          functools.partial(gridcode.finish, program, out, targets) if program.deferred else None)
        if not whole:
            whole = [columns[n] for n in plan.quantities] + [np.empty(size, dtype=np.asarray(o).dtype) for o in out[len(targets):]]
            written = set(range(len(targets)))
        for index, (column, value) in enumerate(zip(whole, out)):
            if index >= len(targets) or out[index] is not targets[index]:
                column[offset:offset + width] = np.broadcast_to(value, shape).reshape(-1)
        gridcode.finish(program, out, targets)  # the box's operands are copied: the targets' last steps now
    return _chunk(plan, start, stop, whole, (size,), target, frozenset(written))


class Columns(Mapping[str, np.ndarray]):
    """A chunk's (or sweep's) columns: the quantities, and the axes' coordinates made on first use
    (a sweep's value is often all that is read; writers read the axes too)."""

    def __init__(self, values: dict[str, np.ndarray], grid: Grid, start: int, stop: int) -> None:
        self._values = values
        self._grid, self._start, self._stop = grid, start, stop
        self._names = list(grid.names) + list(values)

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._values and name in self._grid.names:
            self._values.update(zip(self._grid.names, _coordinates(self._grid, self._start, self._stop)))
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _coordinates(grid: Grid, start: int, stop: int) -> list[np.ndarray]:
    """Each axis's values at the points ``start..stop-1`` (declared units), box by box."""
    boxes = grid.boxes(start, stop)
    if len(boxes) != 1:
        return grid.chunk(start, stop)
    bounds = boxes[0][1]
    shape = tuple(hi - lo for lo, hi in bounds)
    count = len(bounds)
    out = []
    for k, (axis, (lo, hi)) in enumerate(zip(grid.axes, bounds)):
        column = np.empty(shape)
        column[...] = axis.values[lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1))
        out.append(column.reshape(-1))
    return out


def _fused_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int) -> Chunk:
    """:func:`evaluate_chunk` in one numba loop (quantities, domain mask and regime per point)."""
    out = np.empty((len(plan.quantities), stop - start))
    regime = np.empty(stop - start if plan.regime is not None else 0, dtype=np.int16)
    outside = _fused_run(plan, backend, function, start, out, regime)
    columns = {name: out[index] for index, name in enumerate(plan.quantities)}
    return Chunk(start, stop, Columns(columns, plan.grid, start, stop), regime if plan.regime is not None else None, outside)


def _fused_run(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, out: np.ndarray, regime: np.ndarray) -> int:
    """The numba loop over the points ``start..start + out.shape[1] - 1`` into ``out`` and ``regime``."""
    spec = fused.layout(plan, [a.values for a in plan.grid.axes], plan.scales, len(plan.quantities), plan.domain, plan.regime)
    boxes = plan.grid.boxes(start, start + out.shape[1])
    return fused.run(backend.module, function, spec, tuple(v for _, v in plan.fixed), boxes, start, out, regime)


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
    scratch = np.empty(2 * min(plan.grid.size, chunk_size), dtype=bool) if plan.regime is not None and backend == "numpy" else None
    floats, bools = buffers(function, min(plan.grid.size, chunk_size))
    try:
        for start, stop in plan.grid.chunks(chunk_size):
            if runner.name == "numpy":  # each chunk's columns new, the scratch reused
                chunk = _grid_chunk(plan, function, start, stop, Targets({}, None, scratch, floats, bools))
            else:
                chunk = evaluate_chunk(plan, runner, function, start, stop, scratch)
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
    size = plan.grid.size
    if backend == "numba":  # one loop over the whole grid, straight into the result
        runner = backends.load(backend)
        out = np.empty((len(plan.quantities), size))
        codes = np.empty(size if plan.regime is not None else 0, dtype=np.int16)
        outside = _fused_run(plan, runner, compile_plan(plan, runner), 0, out, codes)
        columns = {name: out[index] for index, name in enumerate(plan.quantities)}
        return SweepResult(plan, Columns(columns, plan.grid, 0, size), codes if plan.regime is not None else None, outside)
    columns = {n: np.empty(size) for n in plan.quantities}
    regime = np.empty(size, dtype=np.int16) if plan.regime is not None else None
    outside = 0
    if backend == "numpy":  # each chunk written straight into the result
        function = compile_plan(plan, backends.load(backend))
        scratch = np.empty(2 * min(size, chunk_size), dtype=bool) if regime is not None else None
        floats, bools = buffers(function, min(size, chunk_size))
        for start, stop in plan.grid.chunks(chunk_size):
            into = Targets({n: c[start:stop] for n, c in columns.items()}, None if regime is None else regime[start:stop], scratch,
                           floats, bools)
            outside += _grid_chunk(plan, function, start, stop, into).outside
        return SweepResult(plan, Columns(columns, plan.grid, 0, size), regime, outside)
    # NOTE: each chunk is copied into the result and dropped, so the next chunk's arrays reuse its
    # memory (cache-sized, no fresh pages); a chunk that is the whole grid is the result itself
    for part in iter_chunks(plan, backend, chunk_size):
        outside += part.outside
        if part.stop - part.start == size:
            columns = {n: part.columns[n] for n in plan.quantities}
            regime = part.regime
            break
        for name in plan.quantities:
            columns[name][part.start:part.stop] = part.columns[name]
        if regime is not None and part.regime is not None:
            regime[part.start:part.stop] = part.regime
    return SweepResult(plan, Columns(columns, plan.grid, 0, size), regime, outside)


def timed(plan: SweepPlan, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK) -> tuple[int, float]:
    """Evaluate the whole plan, discarding the chunks: (points outside the domain, seconds)."""
    begin = time.perf_counter()
    outside = sum(c.outside for c in iter_chunks(plan, backend, chunk_size))
    return outside, time.perf_counter() - begin
