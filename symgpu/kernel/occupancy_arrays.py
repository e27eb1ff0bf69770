"""The occupancy answer for many launches at once: :func:`symgpu.kernel.occupancy.compute` on arrays.

Each launch's numbers (the limits, active blocks and warps, occupancy) come from
:func:`symgpu.evaluate.evaluator.evaluate` on arrays of the launch inputs (which settles a point near a
case tie as a scalar call does); each limit's applying case from its case conditions decided on arrays
by :func:`symgpu.evaluate.active.condition_mask`, the rule the scalar record applies at one point
(:func:`symgpu.evaluate.record.regime_of`); the binding limits as :func:`occupancy.compute` names them
(tied with the minimum by :func:`symgpu.evaluate.active.tied`, a limit standing in for "no bound" left out).

A launch where the arrays may decide otherwise than the scalar path is answered by the scalar path
itself (:func:`occupancy.compute`): a symbol of a limit's equation that is no finite number there (the
scalar record then names no case), or a relation of a case condition (or a ``floor``/``ceiling`` in
one) within :data:`DOUBT` of its tie or whole number without being on it in doubles (where
the scalar path's 17-digit substitution and the doubles might round apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.evaluate import active, evaluator, input_values, piece_select
from symgpu.kernel import occupancy
from symgpu.memo import Tally

#: launches answered by the scalar path (:func:`occupancy.compute`): those the arrays leave to it
SCALAR_LAUNCHES = Tally("kernel.occupancy_arrays.scalar_launches")

#: relative distance from a tie (or a whole number) under which a case relation is left to the scalar path
DOUBT = 1e-9


@dataclass(frozen=True)
class ManyLaunches:
    """The occupancy answer per launch (arrays of one length).

    Attributes:
        active_blocks, active_warps, occupancy: the occupancy model's values (declared units).
        limiting: per launch, the binding limits with their cases (:meth:`occupancy.OccupancyResult.limiting_text`).
        scalar: how many launches were answered by the scalar path (:func:`occupancy.compute`).
    """

    active_blocks: np.ndarray
    active_warps: np.ndarray
    occupancy: np.ndarray
    limiting: tuple[str, ...]
    scalar: int


def compute_many(cc_preset: str, threads: np.ndarray, regs: np.ndarray, smem: np.ndarray, barriers: np.ndarray) -> ManyLaunches:
    """:func:`occupancy.compute` at every launch (arrays of one length, declared units) on ``cc_preset``,
    each quantity evaluated once on arrays.

    Raises:
        errors.UsageError: unknown compute-capability preset.
        errors.SymgpuError: an input is refused (as the scalar path refuses it).
    """
    occ = occupancy.occupancy_model()
    occ.preset(cc_preset)  # raises UsageError for an unknown compute capability
    inputs = {occupancy.INPUTS["threads"]: np.asarray(threads, dtype=float), occupancy.INPUTS["regs"]: np.asarray(regs, dtype=float),
              occupancy.INPUTS["smem"]: np.asarray(smem, dtype=float), "barriers_per_block": np.asarray(barriers, dtype=float)}
    size = len(inputs["threads_per_block"])
    if not size:
        return ManyLaunches(np.zeros(0), np.zeros(0), np.zeros(0), (), 0)
    shape = np.ones(size)
    doubt = np.zeros(size, dtype=bool)
    known: dict[str, np.ndarray | None] = {}
    merged = input_values.merge_values(occ, cc_preset, None)

    def value(name: str) -> np.ndarray | None:
        """``name`` per launch in its declared unit (None: refused at some launch, those left to the scalar path)."""
        if name not in known:
            try:
                if name in inputs:
                    found = inputs[name]
                elif name in occ.defining:
                    found = np.asarray(evaluator.evaluate(occ, name, preset=cc_preset, values=inputs).magnitude, dtype=float) * shape
                else:
                    found = np.asarray(input_values.to_magnitude(occ, name, merged[name], check=False), dtype=float) * shape
            except (errors.SymgpuError, KeyError):
                found = None
            known[name] = found
        return known[name]

    limiters = occ.equation_for("active_blocks_per_SM").limiters
    limits: dict[str, np.ndarray] = {}
    cases: dict[str, list[str]] = {}
    for name, term in limiters:
        symbol = str(term)
        if symbol not in occ.defining:  # the block slots: a preset value, no cases
            limits[name] = np.asarray(evaluator.evaluate_expression(occ, term, occ.units["active_blocks_per_SM"], preset=cc_preset,
                                                                    values=inputs).magnitude, dtype=float) * shape
            cases[name] = [""] * size
            continue
        limit = value(symbol)
        if limit is None:
            return _scalar_all(cc_preset, inputs)
        limits[name] = limit
        cases[name], unsure = _cases(occ, symbol, cc_preset, value, size)
        doubt |= unsure
    blocks = np.asarray(evaluator.evaluate(occ, "active_blocks_per_SM", preset=cc_preset,
                                           values={**inputs, **{str(t): limits[n] for n, t in limiters if str(t) in occ.defining}}).magnitude,
                        dtype=float) * shape
    warps = np.asarray(evaluator.evaluate(occ, "active_warps_per_SM", preset=cc_preset,
                                          values={**inputs, "active_blocks_per_SM": blocks}).magnitude, dtype=float) * shape
    fraction = np.asarray(evaluator.evaluate(occ, "occupancy", preset=cc_preset,
                                             values={**inputs, "active_warps_per_SM": warps}).magnitude, dtype=float) * shape
    ties = {name: np.asarray(active.tied(limit, blocks), dtype=bool) for name, limit in limits.items()}
    unbounded: dict[tuple[str, ...], frozenset[str]] = {}
    texts = []
    for i in range(size):
        applying = tuple(cases[name][i] for name in limits)
        if applying not in unbounded:
            unbounded[applying] = occupancy.unbounded_limits(occ, dict(zip(limits, applying)))
        texts.append(", ".join(f"{name} [{case}]" if case else name for name, case in zip(limits, applying)
                               if ties[name][i] and name not in unbounded[applying]))
    for i in map(int, np.flatnonzero(doubt)):
        SCALAR_LAUNCHES.add()
        one = occupancy.compute(cc_preset, float(inputs["threads_per_block"][i]), float(inputs["regs_per_thread"][i]),
                                float(inputs["smem_per_block"][i]), extra={"barriers_per_block": float(inputs["barriers_per_block"][i])})
        blocks[i], warps[i], fraction[i] = (float(q.magnitude) for q in (one.active_blocks, one.active_warps, one.occupancy))
        texts[i] = one.limiting_text()
    return ManyLaunches(blocks, warps, fraction, tuple(texts), int(np.count_nonzero(doubt)))


def _cases(occ: Any, symbol: str, cc_preset: str, value: Any, size: int) -> tuple[list[str], np.ndarray]:
    """Per launch, the id of the first case of ``symbol``'s equation whose condition holds ("" where none does),
    and where that is left to the scalar path (:data:`DOUBT`, or a symbol of the equation with no finite value)."""
    equation = occ.equation_for(symbol)
    doubt = np.zeros(size, dtype=bool)
    given: dict[str, np.ndarray] = {}
    for sym in sorted(equation.rhs.free_symbols, key=lambda s: s.name):  # the values the scalar record decides from
        found = value(sym.name)
        if found is None:
            return [""] * size, np.ones(size, dtype=bool)
        finite = np.isfinite(found)
        doubt |= ~finite
        given[sym.name] = np.where(finite, found, 1.0)  # a stand-in where the scalar path decides (a value must be finite)
    code = np.full(size, -1)
    relations: dict[sympy.Basic, None] = {}
    for index, case in enumerate(equation.cases):
        piece_select.collect_relations(case.condition, relations)
        try:
            holds = np.asarray(active.condition_mask(occ, case.condition, cc_preset, given), dtype=bool) & np.ones(size, dtype=bool)
        except errors.SymgpuError:  # a condition not decided on arrays: the scalar path decides it
            return [""] * size, np.ones(size, dtype=bool)
        code[(code < 0) & holds] = index
    try:
        for relation in relations:
            doubt |= _near(occ, relation, cc_preset, given, size)
    except errors.SymgpuError:
        doubt[:] = True
    ids = [case.id for case in equation.cases]
    return [ids[c] if c >= 0 else "" for c in code], doubt


def _near(occ: Any, relation: sympy.Basic, cc_preset: str, given: Mapping[str, np.ndarray], size: int) -> np.ndarray:
    """Where ``relation``'s sides, or a ``floor``/``ceiling`` argument in it, are within :data:`DOUBT` of a tie or a
    whole number (relative to the larger magnitude) without being on it in doubles."""
    if not isinstance(relation, sympy.core.relational.Relational):
        return np.zeros(size, dtype=bool)

    def number(expr: sympy.Basic) -> np.ndarray:
        if expr.is_number:
            return np.full(size, float(expr))
        return np.asarray(evaluator.evaluate_expression(occ, expr, None, preset=cc_preset, values=given).magnitude, dtype=float) * np.ones(size)

    if relation.lhs.is_number or relation.rhs.is_number:  # a bare literal side: compared through the difference, as the rule does
        pairs = [(number(relation.lhs - relation.rhs), np.zeros(size), number(relation.rhs if relation.lhs.is_number else relation.lhs))]
    else:
        left = number(relation.lhs)
        pairs = [(left, number(relation.rhs), left)]
    for whole in relation.atoms(sympy.floor, sympy.ceiling):
        argument = number(whole.args[0])
        pairs.append((argument, np.rint(argument), argument))
    out = np.zeros(size, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        for left, right, side in pairs:
            gap = np.abs(left - right)
            scale = np.maximum(np.maximum(np.abs(left), np.abs(right)), np.abs(side))
            out |= (gap != 0) & (gap <= DOUBT * scale)
    return out


def _scalar_all(cc_preset: str, inputs: Mapping[str, np.ndarray]) -> ManyLaunches:
    """Every launch by the scalar path (a limit refused on arrays: the scalar path says at which launch, or answers each)."""
    for _ in range(len(inputs["threads_per_block"])):
        SCALAR_LAUNCHES.add()
    answers = [occupancy.compute(cc_preset, float(t), float(r), float(s), extra={"barriers_per_block": float(b)})
               for t, r, s, b in zip(*(inputs[k] for k in ("threads_per_block", "regs_per_thread", "smem_per_block", "barriers_per_block")))]
    return ManyLaunches(np.array([float(a.active_blocks.magnitude) for a in answers]), np.array([float(a.active_warps.magnitude) for a in answers]),
                        np.array([float(a.occupancy.magnitude) for a in answers]), tuple(a.limiting_text() for a in answers), len(answers))
