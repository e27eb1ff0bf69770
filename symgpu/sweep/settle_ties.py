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
the scalar path decides by). It is one more output of the plan's compiled pass (sharing the relations' sides with
the values and the regime: NumPy's grid program and numba's loop alike), each chunk carries the offsets where it
holds (:attr:`~symgpu.sweep.chunks.Chunk.near`), and :func:`settle` re-decides only those points (rare) through the scalar path,
:func:`symgpu.evaluate.evaluator.evaluate` for each value and :func:`symgpu.evaluate.active.active_regime`
for the regime, each axis value taken as the shortest decimal that reads back as its double.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from symgpu import errors
from symgpu.evaluate import active, evaluator
from symgpu.sweep.chunks import Chunk, Settled

if TYPE_CHECKING:
    from symgpu.sweep.plan import SweepPlan


def settle(plan: SweepPlan, chunk: Chunk) -> tuple[Chunk, tuple[Settled, ...]]:
    """``chunk`` with its near-tie points (``chunk.near``: the plan's near-tie flag, computed in the same
    compiled pass as the values) re-decided by the scalar path, and those points as
    :class:`~symgpu.sweep.chunks.Settled` records. The columns and regime codes are changed in place
    (the codes copied first where read-only)."""
    if chunk.near is None or chunk.near.size == 0:
        return chunk, ()
    columns = {n: chunk.columns[n] for n in plan.quantities}
    regime = chunk.regime
    if regime is not None and not regime.flags.writeable:
        regime = np.array(regime)
    done = []
    for index in chunk.near.tolist():
        if all(np.isnan(columns[n][index]) for n in plan.quantities):
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


def _settle_point(plan: SweepPlan, values: dict[str, Any], columns: dict[str, np.ndarray], regime: np.ndarray | None,
                  index: int) -> None:
    """The values and regime at one point by the scalar path (a point it refuses keeps the compiled answer)."""
    for name in plan.quantities:
        if np.isnan(columns[name][index]):
            continue  # outside the quantity's own domain, or no value: as the compiled pass left it
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


def counted(plan: SweepPlan, chunks: Iterable[Chunk], tally: list[Settled] | None) -> Iterator[Chunk]:
    """``chunks`` each settled (:func:`settle`), the points settled added to ``tally``."""
    for chunk in chunks:
        settled, points = settle(plan, chunk)
        if tally is not None:
            tally.extend(points)
        yield settled
