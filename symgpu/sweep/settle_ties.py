"""A sweep's points whose case conditions are within rounding of a tie, decided again as ``evaluate``
decides them at one point: in exact arithmetic, the inputs as the decimals given.

The sweep's compiled pass decides a case relation by the tie rule (:mod:`symgpu.sweep.tie_conditions`,
:mod:`symgpu.sweep.decide`: sides within :data:`~symgpu.evaluate.rule.TIE` of the larger magnitude are
equal); ``evaluate`` decides a relation within :data:`~symgpu.evaluate.stepwise.NEAR` of a tie in exact
arithmetic (:func:`symgpu.evaluate.stepwise.near_tie`). A strict inequality that holds by 1.4e-13
relative (Hong & Kim's ``Comp_cycles > Mem_cycles`` at ``Mem_LD = 419.9999999999``) is a tie to the
first and true to the second, so the sweep wrote another case's value (2.25 times too high).

:func:`symgpu.evaluate.ties.near_condition` is, per point, "some case relation is within ``NEAR`` of a tie" (sides equal
as doubles included where they may be unequal decimals: :func:`symgpu.evaluate.stepwise.may_be_unequal`, the rule
the scalar path decides by); :func:`settle` evaluates it over a chunk and re-decides only the
points where it holds (rare: the sweep's speed is unchanged) through the scalar path,
:func:`symgpu.evaluate.evaluator.evaluate` for each value and :func:`symgpu.evaluate.active.active_regime`
for the regime, each axis value taken as the shortest decimal that reads back as its double.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import active, compiler, evaluator
from symgpu.memo import Memo
from symgpu.sweep import backends, fused
from symgpu.sweep.chunks import DEFAULT_CHUNK, Chunk, Columns, Settled, base_axes, buffers

if TYPE_CHECKING:
    from symgpu.sweep.plan import SweepPlan


def settle(plan: SweepPlan, chunk: Chunk, backend: str = "numpy") -> tuple[Chunk, tuple[Settled, ...]]:
    """``chunk`` with its near-tie points (:func:`~symgpu.evaluate.ties.near_condition`, inside the domain)
    re-decided by the scalar path, and those points as :class:`~symgpu.sweep.chunks.Settled` records.
    The columns and regime codes are changed in place (the codes copied first where read-only); with
    ``backend="numba"`` the near-tie points are found in a compiled loop (:func:`_near_flags`)."""
    if plan.near is None or chunk.stop == chunk.start:
        return chunk, ()
    points = _near_flags(plan, chunk.start, chunk.stop) if backend == "numba" else _near_points(plan, chunk.start, chunk.stop)
    if points.size == 0:
        return chunk, ()
    columns = {n: chunk.columns[n] for n in plan.quantities}
    regime = chunk.regime
    if regime is not None and not regime.flags.writeable:
        regime = np.array(regime)
    done = []
    for index in points.tolist():
        if any(np.isnan(columns[n][index]) for n in plan.quantities):
            continue  # outside the domain, or no value: as the compiled pass left it
        values: dict[str, Any] = dict(plan.values)
        where = np.unravel_index(chunk.start + index, plan.grid.shape)
        values.update({a.name: float(a.values[i]) for a, i in zip(plan.grid.axes, where)})
        _settle_point(plan, values, columns, regime, index)
        done.append(Settled(chunk.start + index, tuple(float(columns[n][index]) for n in plan.quantities),
                            None if regime is None else int(regime[index])))
    if regime is not chunk.regime:
        chunk = replace(chunk, regime=regime)
    return chunk, tuple(done)


def _near_points(plan: SweepPlan, start: int, stop: int) -> np.ndarray:
    """The offsets in ``start..stop-1`` where ``plan.near`` holds, box by box of the grid, each axis a
    broadcasting view (every part of the condition computed at the size of the axes it uses)."""
    axes = base_axes(plan)
    fixed = [np.float64(v) for _, v in plan.fixed]
    names, constants = plan.grid.names, [k for k, _ in plan.fixed]
    program = compiler.grid_program(plan.model, [plan.near], names, constants, [None], 0) if names else None
    function: Any = compiler.fused_function(plan.model, [plan.near], names, constants, [None]) if program is None else None
    floats, bools = buffers(program, stop - start)
    count = len(axes)
    found = []
    for first, bounds in plan.grid.boxes(start, stop):
        shape = tuple(hi - lo for lo, hi in bounds)
        width = int(np.prod(shape))
        coords = [axes[k][lo:hi].reshape((1,) * k + (hi - lo,) + (1,) * (count - k - 1)) for k, (lo, hi) in enumerate(bounds)]
        with np.errstate(all="ignore"):
            if program is not None:  # scratch buffers reused step after step, as the sweep's own program
                out = program.function(*coords, *fixed, [], [b[:width].reshape(shape) for b in floats],
                                       [b[:width].reshape(shape) for b in bools])
            else:
                out = function(*coords, *fixed)
            flagged = np.asarray(out[0], dtype=bool)
        if np.any(flagged):
            found.append(np.flatnonzero(np.broadcast_to(flagged, shape)) + (first - start))
    return np.concatenate(found) if found else np.empty(0, dtype=np.intp)


#: per plan, the object its near-tie layout is kept under (:func:`symgpu.sweep.fused.layout` keeps one per
#: owner object: the plan's own is its sweep's, and equal near conditions of two plans are one SymPy object)
_NEAR_OWNERS: Memo[int, tuple[Any, object]] = Memo("sweep.settle_ties.owners", 64)


def _near_flags(plan: SweepPlan, start: int, stop: int) -> np.ndarray:
    """:func:`_near_points` in the numba backend's loop over the grid (:mod:`symgpu.sweep.fused`): the
    near-tie condition is one more compiled function, its flag written as a column of 0.0/1.0 (a tenth
    of the time NumPy takes to compute the relations' sides again; the value pass is not changed)."""
    assert plan.near is not None
    runner = backends.load("numba")
    function = compiler.fused_function(plan.model, [plan.near], plan.grid.names, [k for k, _ in plan.fixed], [None], backend="numba")
    known = _NEAR_OWNERS.get(id(plan))
    if known is None or known[0] is not plan:
        known = (plan, object())
        _NEAR_OWNERS[id(plan)] = known
    spec = fused.layout(known[1], [a.values for a in plan.grid.axes], plan.scales, 1, None, None)
    flags = np.empty((1, stop - start))
    fused.run(runner.module, function, spec, tuple(v for _, v in plan.fixed), plan.grid.boxes(start, stop), start, flags,
              np.empty(0, dtype=np.int16))
    return np.flatnonzero(flags[0] > 0.5)


def _settle_point(plan: SweepPlan, values: dict[str, Any], columns: dict[str, np.ndarray], regime: np.ndarray | None,
                  index: int) -> None:
    """The values and regime at one point by the scalar path (a point it refuses keeps the compiled answer)."""
    for name in plan.quantities:
        try:
            columns[name][index] = float(evaluator.evaluate(plan.model, name, preset=plan.preset, values=values,
                                                            checks=plan.checks).magnitude)
        except errors.SymgpuError:
            pass
    if regime is not None and plan.regime is not None:
        try:
            label = active.active_regime(plan.model, plan.regime.quantity, plan.preset, **values)[0]
        except errors.SymgpuError:
            return
        if label in plan.regime.labels:
            regime[index] = plan.regime.labels.index(label)


def settled_whole(plan: SweepPlan, columns: dict[str, np.ndarray], regime: np.ndarray | None, backend: str = "numpy") -> None:
    """:func:`settle` over a whole sweep held in memory (``columns`` and ``regime``, changed in place)."""
    if plan.near is None:
        return
    for start, stop in plan.grid.chunks(DEFAULT_CHUNK):  # a chunk's temporaries stay in the caches
        part = None if regime is None else regime[start:stop]
        chunk = Chunk(start, stop, Columns({n: c[start:stop] for n, c in columns.items()}, plan.grid, start, stop), part, 0)
        settled = settle(plan, chunk, backend)[0]
        if part is not None and settled.regime is not part:
            part[...] = settled.regime


def counted(plan: SweepPlan, chunks: Iterable[Chunk], tally: list[Settled] | None, backend: str = "numpy") -> Iterator[Chunk]:
    """``chunks`` each settled (:func:`settle`), the points settled added to ``tally``."""
    for chunk in chunks:
        settled, points = settle(plan, chunk, backend)
        if tally is not None:
            tally.extend(points)
        yield settled
