"""Fitting a kernel model's efficiency parameters on measured rows with :func:`symgpu.measure.fit.fit`.

The rows of every GPU go into one fit: each row's inputs and its GPU's preset values become
columns (so one parameter set serves every GPU), the measured latency the ``t_kernel`` column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgpu import api
from symgpu.evaluate import evaluator, input_values
from symgpu.measure import data as measured
from symgpu.measure import fit as fitting
from symgpu.predict.engine import EFFICIENCY, group_arrays
from symgpu.predict.mapping import Assignment, assign
from symgpu.predict.rows import KernelRow

#: the efficiency parameters each kernel model fits
PARAMETERS = {
    "kernel_streaming": ("eta_M", "t_launch"),
    "kernel_row_reduction": ("eta_R", "t_launch"),
    "kernel_gemm": ("eta_F", "e_flop", "t_launch"),
}


def fit_rows(model_id: str, rows: Sequence[KernelRow], label: str = "NeuSight rows") -> fitting.FitResult:
    """Fit :data:`PARAMETERS` of ``model_id`` to the measured latencies of the rows it predicts; a row outside a
    ``valid_when`` domain of the model is skipped, and the data's label says how many were.

    Raises:
        errors.UsageError: no row of ``rows`` is predicted by ``model_id`` (from :func:`fitting.fit`).
        errors.FitCheckError: the fit fails a check.
    """
    model = api.load(model_id)
    found = [(r, a) for r in rows for a in [assign(r)] if a.model == model_id and np.isfinite(r.latency_ms)]
    inside = _inside_domain(model, [a for _, a in found])
    members = [m for m, kept in zip(found, inside) if kept]
    skipped = len(found) - len(members)
    params = PARAMETERS[model_id]
    columns: dict[str, list[float]] = {}
    hardware = [n for n in model.inputs("t_kernel") if n not in params and n not in dict(members[0][1].inputs)
                and n not in model.preset(EFFICIENCY) and n not in model.constants] if members else []
    for row, a in members:
        preset = model.preset(a.gpu)
        for name, value in a.inputs:
            columns.setdefault(name, []).append(value)
        for name in hardware:
            columns.setdefault(name, []).append(float(input_values.to_magnitude(model, name, preset[name], check=False)))
        columns.setdefault("t_kernel", []).append(row.latency_ms)
    units = {name: model.unit_text(name) for name in columns if name != "t_kernel"} | {"t_kernel": "ms"}
    outside = f"; {skipped} outside a valid_when domain of the model skipped, as predict leaves them out" if skipped else ""
    data = measured.MeasuredData(f"{label} ({model_id}, {len(members)} rows{outside})",
                                 tuple(measured.Column(n, units[n], tuple(v)) for n, v in columns.items()))
    return fitting.fit(model, "t_kernel", data, params, preset=EFFICIENCY, strict=False, max_rms=1.0)


def _inside_domain(model: api.Model, members: Sequence[Assignment]) -> list[bool]:
    """Per member, whether its row lies inside every ``valid_when`` domain on the way to ``t_kernel`` at its GPU's preset
    with the efficiency preset: the rows :func:`symgpu.predict.engine.predict_rows` predicts (a block of more threads than
    the GPU launches is outside, its latency no evidence of the model's parameters)."""
    inside = [True] * len(members)
    by_gpu: dict[str, list[int]] = {}
    for at, a in enumerate(members):
        by_gpu.setdefault(a.gpu, []).append(at)
    for gpu, where in by_gpu.items():
        held = evaluator.inside_domain(model, "t_kernel", f"{gpu}+{EFFICIENCY}", group_arrays([members[i] for i in where]),
                                       len(where), check=False)
        for i, ok in zip(where, held.tolist()):
            inside[i] = bool(ok)
    return inside
