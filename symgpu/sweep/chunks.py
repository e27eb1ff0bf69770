"""A sweep's chunks evaluated by a buffered grid program (:class:`~symgpu.evaluate.gridcode.GridProgram`)
with NumPy, the outputs turned into columns (NaN outside the domain) and regime codes, and the
:class:`Chunk`/:class:`Columns` records every backend hands the writers.

What a chunk needs of a plan is :class:`Numbers` (a :class:`~symgpu.sweep.plan.SweepPlan`, or a
stored plan read back by :mod:`symgpu.sweep.replay`).

NOTE: imports neither SymPy nor pint.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from symgpu.evaluate import gridcode
from symgpu.memo import Memo
from symgpu.sweep.decide import RegimeSpec, decide
from symgpu.sweep import threads as sweep_threads
from symgpu.sweep.grid import Grid

#: what :func:`progressed` passes through
Item = TypeVar("Item")

#: points per chunk by default: a few MiB per array, well inside the CPU caches' reach
DEFAULT_CHUNK = 1 << 18


class Numbers(Protocol):
    """The numeric side of a sweep plan: what its chunks are evaluated from."""

    @property
    def quantities(self) -> tuple[str, ...]: ...
    @property
    def grid(self) -> Grid: ...
    @property
    def fixed(self) -> tuple[tuple[str, float], ...]: ...  # base units, in the program's argument order
    @property
    def scales(self) -> tuple[float, ...]: ...  # per axis: declared unit -> base units
    @property
    def domain(self) -> int | None: ...  # index of the domain output
    @property
    def regime(self) -> RegimeSpec | None: ...
    @property
    def near(self) -> int | None: ...  # index of the near-tie flag output (:mod:`symgpu.sweep.settle_ties`)


@dataclass(frozen=True)
class Chunk:
    """The points ``start..stop-1`` of the flattened grid: column arrays (declared units),
    regime codes (indices into the plan's regime labels, -1 for none), how many points
    lie outside the model's domain (their quantities are NaN) and the offsets (from ``start``) of the
    points near a case condition's tie, from the same pass (None: the plan has no such flag)."""

    start: int
    stop: int
    columns: Mapping[str, np.ndarray]
    regime: np.ndarray | None
    outside: int
    near: np.ndarray | None = None


@dataclass(frozen=True)
class Settled:
    """A point a sweep decided again as ``evaluate`` decides it (a case condition within rounding of a
    tie: :mod:`symgpu.sweep.settle_ties`): its flat index in the grid, its values (declared units, in
    the plan's order of quantities) and its regime code (None: no regime column)."""

    index: int
    values: tuple[float, ...]
    code: int | None


def with_settled(chunks: Iterator[Chunk], settled: Sequence[Settled], quantities: Sequence[str]) -> Iterator[Chunk]:
    """``chunks`` with the points ``settled`` names given their recorded values (of ``quantities``) and codes
    (a stored plan's replay: the points its full run settled, without SymPy)."""
    ordered = sorted(settled, key=lambda s: s.index)
    indices = np.array([s.index for s in ordered], dtype=np.int64)
    for chunk in chunks:
        lo, hi = np.searchsorted(indices, [chunk.start, chunk.stop])
        if lo == hi:
            yield chunk
            continue
        regime = chunk.regime if chunk.regime is None or chunk.regime.flags.writeable else np.array(chunk.regime)
        for point in ordered[lo:hi]:
            for name, value in zip(quantities, point.values):
                chunk.columns[name][point.index - chunk.start] = value
            if regime is not None and point.code is not None:
                regime[point.index - chunk.start] = point.code
        yield chunk if regime is chunk.regime else replace(chunk, regime=regime)


def chunk_of(plan: Numbers, start: int, stop: int, out: Sequence[Any], shape: tuple[int, ...],
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
        outside = size - count_spread(inside, shape) if inside.ndim else (0 if inside else size)
    mask = np.broadcast_to(~inside, shape).reshape(-1) if outside else None
    regime = None
    if plan.regime is not None:
        regime = decide(plan.regime, out, shape, None if into is None else into.regime,
                        None if into is None else into.scratch).reshape(-1)
        if mask is not None:
            regime = np.array(regime) if into is None or into.regime is None else regime
            regime[mask] = -1
    near = None
    if plan.near is not None:  # read before finish(), which may reuse the scratch buffers the flag is in
        flags = np.asarray(out[plan.near])
        flags = flags if flags.dtype == bool else flags > 0.5
        near = np.flatnonzero(np.broadcast_to(flags, shape)) if flags.any() else np.empty(0, dtype=np.intp)
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
                  and values.base is None and values.flags.writeable and values.flags.c_contiguous and id(values) not in taken):
            values = np.array(np.broadcast_to(values, shape), dtype=float)  # a new array: the column owns it
        taken.add(id(values))
        values = values.reshape(-1)
        if mask is not None:
            values[mask] = np.nan
        columns[name] = values
    return Chunk(start, stop, Columns(columns, plan.grid, start, stop), regime, outside, near)


def count_spread(values: Any, shape: tuple[int, ...], xp: Any = np) -> int:
    """``count_nonzero(broadcast_to(values, shape))`` at ``values``' own size: each of its points
    stands for as many as the axes it is broadcast along hold (a domain over fewer axes is
    counted at its size; ``xp``: the array module of ``values``, CuPy's on a GPU)."""
    own = (1,) * (len(shape) - values.ndim) + tuple(values.shape)
    repeat = math.prod(n for n, m in zip(shape, own) if m == 1)
    return int(xp.count_nonzero(values)) * repeat


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


def base_axes(plan: Numbers) -> list[np.ndarray]:
    """The plan's axis values in base units (computed once per plan object)."""
    known = _AXES.get(id(plan))
    if known is not None and known[0] is plan:
        return known[1]
    axes = [a.values * s if s != 1.0 else a.values for a, s in zip(plan.grid.axes, plan.scales)]
    _AXES[id(plan)] = (plan, axes)
    return axes


def buffered_chunk(plan: Numbers, program: gridcode.GridProgram, start: int, stop: int, axes: list[np.ndarray],
                    fixed: list[np.float64], boxes: list[tuple[int, tuple[tuple[int, int], ...]]], into: Targets | None) -> Chunk:
    """:func:`symgpu.sweep.run._grid_chunk` with a program that writes the quantities straight into the chunk's
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
            return chunk_of(plan, start, stop, out, shape, target, done,
                          functools.partial(gridcode.finish, program, out, targets) if program.deferred else None)
        if not whole:
            whole = [columns[n] for n in plan.quantities] + [np.empty(size, dtype=np.asarray(o).dtype) for o in out[len(targets):]]
            written = set(range(len(targets)))
        for index, (column, value) in enumerate(zip(whole, out)):
            if index >= len(targets) or out[index] is not targets[index]:
                column[offset:offset + width] = np.broadcast_to(value, shape).reshape(-1)
        gridcode.finish(program, out, targets)  # the box's operands are copied: the targets' last steps now
    return chunk_of(plan, start, stop, whole, (size,), target, frozenset(written))


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


def spans(grid: Grid, chunk_size: int, progress: bool | None) -> Iterator[tuple[int, int]]:
    """``grid.chunks(chunk_size)``, the progress bar moved on as each chunk is done (:func:`progressed`)."""
    return progressed(grid.chunks(chunk_size), grid.size, progress, lambda span: span[1] - span[0])


def progressed(items: Iterable[Item], total: int, progress: bool | None, points: Callable[[Item], int]) -> Iterator[Item]:
    """``items``, the progress bar of ``total`` points (:func:`progress_bar`) moved on by ``points(item)`` as the caller
    comes back for the next one (the item done) and closed when the loop ends, however it ends."""
    bar = progress_bar(total, progress)
    try:
        for item in items:
            yield item
            if bar is not None:
                bar.update(points(item))
    finally:
        if bar is not None:
            bar.close()


def buffered_chunks(plan: Numbers, program: gridcode.GridProgram, chunk_size: int = DEFAULT_CHUNK,
                    progress: bool | None = False, threads: int = 1) -> Iterator[Chunk]:
    """The plan's chunks by ``program`` (each chunk's columns new, the scratch buffers reused), on ``threads``
    threads (:func:`evaluated`)."""
    axes, fixed = base_axes(plan), [np.float64(v) for _, v in plan.fixed]

    def work(span: tuple[int, int], scratch: Scratch) -> Chunk:
        start, stop = span
        return buffered_chunk(plan, program, start, stop, axes, fixed, plan.grid.boxes(start, stop), Targets({}, None, *scratch))

    yield from evaluated(plan, work, chunk_size, progress, lambda: scratch_of(plan, program, chunk_size), threads)


#: a chunk's scratch buffers: the regime decision's (None: no regime), the program's floats and bools
Scratch = tuple[np.ndarray | None, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]


def scratch_of(plan: Numbers, function: Any, chunk_size: int) -> Scratch:
    """The scratch buffers one chunk of ``plan`` by ``function`` uses (one set per thread)."""
    size = min(plan.grid.size, chunk_size)
    scratch = np.empty(2 * size, dtype=bool) if plan.regime is not None else None
    return (scratch, *buffers(function, size))


def evaluated(plan: Numbers, work: Callable[[tuple[int, int], Scratch], Chunk], chunk_size: int, progress: bool | None,
              make: Callable[[], Scratch], threads: int = 1) -> Iterator[Chunk]:
    """``work(span, scratch)`` for each chunk of the grid (``Grid.chunks``), in order: one after the other with one set
    of scratch buffers, or, on ``threads`` threads where there is more than one chunk, :func:`symgpu.sweep.threads.in_order`
    (NumPy releases the GIL inside each operation; each thread has its own buffers, so every chunk is computed as
    alone). The progress bar moves as each chunk is read (:func:`progress_bar`)."""
    if threads <= 1 or plan.grid.size <= chunk_size:
        scratch = make()
        for span in spans(plan.grid, chunk_size, progress):
            yield work(span, scratch)
        return
    chunks = sweep_threads.in_order(work, plan.grid.chunks(chunk_size), make, threads)
    yield from progressed(chunks, plan.grid.size, progress, lambda chunk: chunk.stop - chunk.start)
