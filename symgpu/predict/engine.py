"""Predicted latencies of kernel rows: each (model, GPU) group evaluated at once on arrays.

Each group is one call of :func:`symgpu.evaluate.evaluator.evaluate` per quantity with the
rows' inputs as NumPy arrays (the compiled path), at the GPU's preset combined with the
efficiency preset (``neusight_fit`` unless other values are given). The regime of a row is the
binding argument of the model's ``Max`` (its ``limiters`` names), ``launch-bound`` when the launch
overhead exceeds the body, and ``wave-quantized`` for a compute-bound GEMM whose partly filled
last wave adds at least :data:`WAVE_LOSS` to its compute time (``waves/(blocks/per_wave) - 1``:
7 waves for 6.4 waves' work adds 9.4%, 8 for 7.2 adds 11.1%).

A row outside a ``valid_when`` domain of its model (a block of more threads than the GPU launches)
and a row whose prediction is no finite number (sizes whose time overflows IEEE doubles) get no
prediction, only the reason, as ``symgpu eval`` refuses them (:func:`refusals`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy

from symgpu import api, units
from symgpu.evaluate import evaluator, input_values, refusal_digits
from symgpu.model import literal_constants
from symgpu.predict.mapping import Assignment, assign
from symgpu.predict.rows import KernelRow

#: the efficiency preset of every kernel model
EFFICIENCY = "neusight_fit"
#: per model: the two arguments of the body's Max and their regime names
BOUNDS = {
    "kernel_streaming": (("t_memory", "memory-bound"), ("t_latency", "latency-bound")),
    "kernel_row_reduction": (("t_memory", "memory-bound"), ("t_latency", "latency-bound")),
    "kernel_gemm": (("t_compute", "compute-bound"), ("t_dram", "memory-bound")),
}
#: the share of a compute-bound GEMM's compute time its partly filled last wave adds, from which it is called wave-quantized
WAVE_LOSS = 0.10


@dataclass(frozen=True)
class Prediction:
    """The prediction for one row (``latency_ms`` NaN and ``reason`` set when there is none)."""

    row: int
    model: str
    gpu: str
    latency_ms: float
    regime: str
    reason: str = ""


def predict_rows(rows: Sequence[KernelRow], values: Mapping[str, Mapping[str, float]] | None = None) -> tuple[Prediction, ...]:
    """Predict every row, in row order.

    Args:
        rows: the kernel rows.
        values: per model id, efficiency parameters (declared units) replacing the preset's.
    """
    # NOTE: keyed by position in ``rows``, not by KernelRow.index: rows of several files share indices
    assignments = [replace(assign(r), row=position) for position, r in enumerate(rows)]
    out: dict[int, Prediction] = {a.row: Prediction(rows[a.row].index, a.model, a.gpu, float("nan"), "", a.reason)
                                  for a in assignments if a.reason}
    groups: dict[tuple[str, str], list[Assignment]] = {}
    for a in assignments:
        if not a.reason:
            groups.setdefault((a.model, a.gpu), []).append(a)
    for (model_id, gpu), members in groups.items():
        given = dict((values or {}).get(model_id, {}))
        for p in group_predictions(model_id, gpu, members, given):
            out[p.row] = replace(p, row=rows[p.row].index)
    return tuple(out[position] for position in range(len(rows)))


def group_arrays(members: Sequence[Assignment]) -> dict[str, np.ndarray]:
    """The members' inputs as one array per input."""
    names = [n for n, _ in members[0].inputs]
    return {n: np.asarray([dict(a.inputs)[n] for a in members], dtype=float) for n in names}


def group_predictions(model_id: str, gpu: str, members: Sequence[Assignment], given: Mapping[str, float]) -> list[Prediction]:
    """Predictions for rows of one model on one GPU."""
    model = api.load(model_id)
    inputs: dict[str, object] = dict(group_arrays(members))
    inputs.update(given)
    preset = f"{gpu}+{EFFICIENCY}"

    def value(name: str, unit: str = "us") -> np.ndarray:
        q = units.magnitude_in(evaluator.evaluate(model, name, preset=preset, values=inputs, checks=False), unit)
        return np.broadcast_to(np.asarray(q, dtype=float), (len(members),))

    total = value("t_kernel", "ms")
    (first, first_name), (second, second_name) = BOUNDS[model_id]
    a, b = value(first), value(second)
    merged = input_values.merge_values(model, preset, inputs)

    def given_value(name: str) -> float:
        return float(input_values.to_magnitude(model, name, merged[name], check=False))

    launch = given_value("t_launch")
    regime = np.where(a >= b, first_name, second_name).astype(object)
    if model_id == "kernel_gemm":
        waves = value("waves", "1")
        per_wave = given_value("n_SM") * given_value("ctas_per_SM")
        loss = waves * per_wave / np.asarray(inputs["blocks"], dtype=float) - 1  # the whole waves over the waves of work
        regime = np.where((regime == first_name) & (loss >= WAVE_LOSS), "wave-quantized", regime)
    regime = np.where(launch > np.maximum(a, b), "launch-bound", regime)
    refused = refusals(model, preset, inputs, total)
    return [Prediction(m.row, model_id, gpu, math.nan, "", why) if why else Prediction(m.row, model_id, gpu, float(t), str(r))
            for m, t, r, why in zip(members, total, regime, refused)]


def refusals(model: Any, preset: str, inputs: Mapping[str, object], total: np.ndarray) -> list[str]:
    """Per row (the points of ``inputs``), why ``total`` (its ``t_kernel`` in ms) is no prediction ("" where it is one):
    the first ``valid_when`` condition on the way to ``t_kernel`` the row breaks (the model gives no value there), else a
    value that is no finite number (an overflow of IEEE doubles on the way)."""
    size = len(total)
    why = ["" if math.isfinite(t) else (f"{model.id}: t_kernel is no finite number ({t}) at this row's sizes: IEEE doubles overflow "
                                        f"(a value beyond {np.finfo(float).max:.4g} arises on the way); give sizes within range") for t in total.tolist()]
    merged = input_values.merge_values(model, preset, inputs)

    def value(name: str, at: int) -> float:
        found = (input_values.to_magnitude(model, name, merged[name], check=False) if name in merged else
                 evaluator.evaluate(model, name, preset=preset, values=inputs, checks=False).magnitude)
        return float(np.broadcast_to(np.asarray(found, dtype=float), (size,))[at])

    def row(at: int) -> dict[str, object]:  # the row's own inputs (declared units), as the scalar path reads them
        return {n: float(np.broadcast_to(v, (size,))[at]) if isinstance(v, np.ndarray) and v.ndim else v for n, v in inputs.items()}

    def holds_as_quoted(condition: Any, at: int, quoted: Mapping[str, float]) -> bool:  # the condition, these values as quoted
        flag = sympy.Piecewise((1, condition), (0, True))
        return bool(evaluator.evaluate_expression(model, flag, None, preset=preset, values={**row(at), **{
            n: units.registry().Quantity(v, model.units[n]) for n, v in quoted.items()}}).magnitude)

    for equation, condition, holds in reversed(evaluator.domain_masks(model, "t_kernel", preset, inputs, size, check=False)):
        written = literal_constants.as_written(condition, model.literal_constants)
        names = sorted((s.name for s in condition.free_symbols if s.name not in {c.name for c in model.literal_constants}), key=written.find)
        for at in np.flatnonzero(~holds).tolist():
            # digits enough that the values as quoted fail the condition (1048577 threads against 1048576.5 is not 1.04858e+06
            # against 1.04858e+06), as eval quotes them (refusal_digits)
            shown = refusal_digits.derived(model, names, functools.partial(_row_value, value, at),
                                           functools.partial(holds_as_quoted, condition, at))
            why[at] = (f"{model.id}: equation {equation.id} is valid only when {written}, "
                       f"but {', '.join(shown)}; the model gives no value outside this domain")
    return why


def _row_value(value: Callable[[str, int], float], at: int, name: str) -> float:
    """``value(name, at)``: a quantity's value at one row, for :func:`symgpu.evaluate.refusal_digits.derived`."""
    return value(name, at)
