"""Chunked evaluation of a :class:`~symgpu.sweep.plan.SweepPlan`: memory bounded by the chunk
size, never by the grid; the same chunks for every backend and engine (the buffered NumPy
program's chunks and the records: :mod:`symgpu.sweep.chunks`)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import compiler, gridcode
from symgpu.memo import Memo
from symgpu.model import Model
from symgpu.sweep import backends, fused, settle_ties, threads
from symgpu.sweep.device import device_chunk
from symgpu.sweep.chunks import (DEFAULT_CHUNK, Chunk, Columns, Scratch, Settled, Targets, base_axes, buffered_chunk, buffered_chunks, chunk_of,
                                 evaluated, progress_bar, scratch_of, spans)
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.plan import SweepPlan, build_plan, fast_outputs

__all__ = ["DEFAULT_CHUNK", "MAX_IN_MEMORY", "Chunk", "Columns", "SweepResult", "compile_plan", "evaluate_chunk", "iter_chunks",
           "progress_bar", "sweep", "timed"]

#: the most points :func:`sweep` keeps in memory (write larger sweeps to a file)
MAX_IN_MEMORY = 50_000_000


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


#: each plan's compiled function by (the plan's id, backend), the plan kept with it (a repeated
#: request's plan is the same object: :func:`~symgpu.sweep.plan.build_plan`), so no SymPy or pint work repeats
_COMPILED: Memo[tuple[int, str], tuple[SweepPlan, Any]] = Memo("sweep.run.compiled", 64)


def compile_plan(plan: SweepPlan, backend: backends.Backend) -> Any:
    """The plan's fused function for ``backend`` (NumPy: a :class:`~symgpu.evaluate.gridcode.GridProgram`
    that writes into buffers, where the function can be rewritten)."""
    key = (id(plan), backend.name)
    known = _COMPILED.get(key)
    if known is not None and known[0] is plan:
        return known[1]
    function = _compile(plan, backend)
    _COMPILED[key] = (plan, function)
    return function


def _compile(plan: SweepPlan, backend: backends.Backend) -> Any:
    if backend.name == "numpy" and plan.grid.axes:
        # a Min/Max regime reads an argument that is also the value's last operand: that step is
        # left to the chunk (gridcode.finish, after the decision), so the argument is computed in the column
        defer = plan.regime is not None and plan.regime.kind in ("min", "max")
        program = compiler.grid_program(plan.model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units,
                                        len(plan.quantities), defer)
        if program is not None:
            return program
    exprs, units = plan.exprs, plan.out_units
    if backend.name in ("numba", "cupy", "jax") and plan.case_code is not None:  # the regime in the same function (its last output)
        exprs, units = exprs + (plan.case_code,), units + (None,)
    fast = fast_outputs(plan) if backend.name == "numba" else ()
    if fast:  # numba's fast pass, in the same function: the same values where it holds (one CSE, the same arithmetic)
        count = len(plan.quantities)
        exprs, units = exprs + fast, units + plan.out_units[:count] + (None,) * (len(fast) - count)
    # the clear-of-ties test (fast's last output) written as it is: its relations' selects unfolded
    return compiler.fused_function(plan.model, exprs, plan.grid.names, [k for k, _ in plan.fixed], units, backend=backend.name,
                                   tables=backend.name == "numba", unfolded=1 if fast else 0)


def evaluate_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int,
                   scratch: np.ndarray | None = None) -> Chunk:
    """Evaluate the points ``start..stop-1`` of the plan's grid (``scratch``: a bool array of
    twice as many points that the NumPy backend's regime decision reuses, chunk after chunk); numba's loop
    on one thread (a Dask worker's chunk: the workers are the parallelism)."""
    if backend.name == "numba":
        chunk = _fused_chunk(plan, backend, function, start, stop)
    elif backend.name == "numpy":
        chunk = _grid_chunk(plan, function, start, stop, Targets({}, None, scratch))
    else:  # cupy, jax
        chunk = device_chunk(plan, backend, function, start, stop)
    return settle_ties.settle(plan, chunk)[0]  # near-tie case conditions as evaluate decides them


def _grid_chunk(plan: SweepPlan, function: Any, start: int, stop: int, into: Targets | None = None) -> Chunk:
    """:func:`evaluate_chunk` with NumPy, box by box of the grid (one box for a chunk of ``Grid.chunks``):
    each axis a ``(1, .., n, .., 1)`` view, the constants NumPy scalars, so each subexpression is computed
    at the size of the axes it uses and the last step's array is the column (the GPU backends' own:
    :mod:`symgpu.sweep.device`)."""
    axes = base_axes(plan)
    fixed = [np.float64(v) for _, v in plan.fixed]
    boxes = plan.grid.boxes(start, stop)
    count = len(axes)
    if isinstance(function, gridcode.GridProgram):
        return buffered_chunk(plan, function, start, stop, axes, fixed, boxes, into)

    def run(bounds: tuple[tuple[int, int], ...]) -> tuple[Any, tuple[int, ...]]:
        coords = [axes[k][lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1)) for k, (lo, hi) in enumerate(bounds)]
        with np.errstate(all="ignore"):
            return list(function(*coords, *fixed)), tuple(hi - lo for lo, hi in bounds)

    if len(boxes) == 1:
        out, shape = run(boxes[0][1])
        return chunk_of(plan, start, stop, out, shape, into)
    whole: list[np.ndarray] = []
    for first, bounds in boxes:
        out, shape = run(bounds)
        if not whole:
            whole = [np.empty(stop - start, dtype=np.asarray(o).dtype) for o in out]
        width = int(np.prod(shape))
        for target, value in zip(whole, out):
            target[first - start:first - start + width] = np.broadcast_to(value, shape).reshape(-1)
    return chunk_of(plan, start, stop, whole, (stop - start,), into)


def _fused_chunk(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, stop: int,
                 into: dict[str, np.ndarray] | None = None, codes: np.ndarray | None = None, threads: int = 1) -> Chunk:
    """:func:`evaluate_chunk` in one numba loop (quantities, domain mask, regime and near-tie flags per point; on
    ``threads`` threads); with ``into`` (and ``codes``), the columns (and regime codes) copied into those arrays (a whole
    sweep's slices), which the chunk then holds."""
    out = np.empty((len(plan.quantities), stop - start))
    regime = np.empty(stop - start if plan.regime is not None else 0, dtype=np.int16)
    outside, near = _fused_run(plan, backend, function, start, out, regime, threads)
    columns = {name: out[index] for index, name in enumerate(plan.quantities)}
    for name, target in (into or {}).items():
        target[...] = columns[name]
        columns[name] = target
    if codes is not None and plan.regime is not None:
        codes[...] = regime
        regime = codes
    return Chunk(start, stop, Columns(columns, plan.grid, start, stop), regime if plan.regime is not None else None, outside, near)


def _fused_run(plan: SweepPlan, backend: backends.Backend, function: Any, start: int, out: np.ndarray,
               regime: np.ndarray, threads: int = 1) -> tuple[int, np.ndarray | None]:
    """The numba loop over the points ``start..start + out.shape[1] - 1`` into ``out`` and ``regime`` (on ``threads``
    threads: :func:`symgpu.sweep.fused.run`): the number of points outside the domain and the offsets of those near a
    case condition's tie (None: no flag)."""
    fast = len(plan.exprs) + (plan.case_code is not None) if fast_outputs(plan) else None
    steady = plan.domain is not None and {s.name for s in plan.exprs[plan.domain].free_symbols}.isdisjoint(plan.grid.names)
    spec = fused.layout(plan, [a.values for a in plan.grid.axes], plan.scales, len(plan.quantities), plan.domain, plan.regime,
                        plan.near, plan.code, fast, steady)
    boxes = plan.grid.boxes(start, start + out.shape[1])
    # zeros (untouched pages cost nothing): numba's fast pass writes the flag only where a point is not clear of ties
    flags = np.zeros(out.shape[1] if plan.near is not None else 0, dtype=np.bool_)
    outside, nearby = fused.run(backend.module, function, spec, tuple(v for _, v in plan.fixed), boxes, start, out, regime, flags,
                               threads)
    if plan.near is None:
        return outside, None
    return outside, np.flatnonzero(flags) if nearby else np.empty(0, dtype=np.intp)


def iter_chunks(plan: SweepPlan, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK,
                progress: bool | None = False, settled: list[Settled] | None = None) -> Iterator[Chunk]:
    """Evaluate the plan chunk by chunk (each chunk's arrays are new; nothing is kept), the points near a
    case condition's tie decided as ``evaluate`` decides them (:mod:`symgpu.sweep.settle_ties`; those points
    added to ``settled``)."""
    yield from settle_ties.counted(plan, _chunks(plan, backend, chunk_size, progress), settled)


@dataclass(frozen=True)
class _Whole:
    """A whole sweep's result arrays, which :func:`_chunks` writes each chunk into (its slices)."""

    columns: dict[str, np.ndarray]
    regime: np.ndarray | None


def _chunks(plan: SweepPlan, backend: str, chunk_size: int, progress: bool | None, whole: _Whole | None = None,
            cores: int | None = None) -> Iterator[Chunk]:
    """:func:`iter_chunks` as the compiled pass decides them; with ``whole``, each chunk's columns and codes written
    straight into its slices of those arrays (NumPy, cupy, jax: from the device straight into the result). NumPy's
    chunks and numba's loop run on ``cores`` threads (None: :func:`symgpu.sweep.threads.local_threads`)."""
    cores = threads.local_threads() if cores is None else cores
    runner = backends.load(backend)
    function = compile_plan(plan, runner)
    if runner.name == "numpy" and isinstance(function, gridcode.GridProgram):
        if whole is None:
            yield from buffered_chunks(plan, function, chunk_size, progress, cores)  # as a stored plan's replay
            return

        def into_whole(span: tuple[int, int], scratch: Scratch) -> Chunk:  # each chunk written into the result's slices
            start, stop = span
            regime = None if whole.regime is None else whole.regime[start:stop]
            return _grid_chunk(plan, function, start, stop, Targets({n: c[start:stop] for n, c in whole.columns.items()}, regime, *scratch))

        yield from evaluated(plan, into_whole, chunk_size, progress, lambda: scratch_of(plan, function, chunk_size), cores)
        return
    scratch, floats, bools = scratch_of(plan, function, chunk_size) if runner.name == "numpy" else (None, (), ())
    for start, stop in spans(plan.grid, chunk_size, progress):
        columns = {} if whole is None else {n: c[start:stop] for n, c in whole.columns.items()}
        regime = None if whole is None or whole.regime is None else whole.regime[start:stop]
        if runner.name == "numpy":  # each chunk's columns new (or the result's slices), the scratch reused
            yield _grid_chunk(plan, function, start, stop, Targets(columns, regime, scratch, floats, bools))
        elif runner.name == "numba":
            yield _fused_chunk(plan, runner, function, start, stop, columns, regime, cores)
        else:  # cupy, jax: only the columns and codes come back
            yield device_chunk(plan, runner, function, start, stop, columns or None, regime)


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
        outside, near = _fused_run(plan, runner, compile_plan(plan, runner), 0, out, codes, threads.local_threads())
        columns = {name: out[index] for index, name in enumerate(plan.quantities)}
        whole = Chunk(0, size, Columns(columns, plan.grid, 0, size), codes if plan.regime is not None else None, outside, near)
        whole = settle_ties.settle(plan, whole)[0]
        return SweepResult(plan, whole.columns, whole.regime, outside)
    columns = {n: np.empty(size) for n in plan.quantities}
    regime = np.empty(size, dtype=np.int16) if plan.regime is not None else None
    outside = 0
    for chunk in _chunks(plan, backend, chunk_size, False, _Whole(columns, regime)):  # each written straight into the result
        part = settle_ties.settle(plan, chunk)[0]
        if regime is not None and part.regime is not None and not np.may_share_memory(part.regime, regime):
            regime[part.start:part.stop] = part.regime  # codes copied by the settling (read-only ones)
        outside += part.outside
    return SweepResult(plan, Columns(columns, plan.grid, 0, size), regime, outside)


def timed(plan: SweepPlan, backend: str = "numpy", chunk_size: int = DEFAULT_CHUNK) -> tuple[int, float]:
    """Evaluate the whole plan, discarding the chunks: (points outside the domain, seconds)."""
    begin = time.perf_counter()
    outside = sum(c.outside for c in iter_chunks(plan, backend, chunk_size))
    return outside, time.perf_counter() - begin
