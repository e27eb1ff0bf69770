"""Fitting a kernel model's efficiency parameters on measured rows with :func:`symgpu.measure.fit.fit`.

The rows of every GPU go into one fit: each row's inputs and its GPU's preset values become
columns (so one parameter set serves every GPU), the measured latency the ``t_kernel`` column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgpu import api
from symgpu.evaluate import input_values
from symgpu.measure import data as measured
from symgpu.measure import fit as fitting
from symgpu.predict.engine import EFFICIENCY
from symgpu.predict.mapping import assign
from symgpu.predict.rows import KernelRow

#: the efficiency parameters each kernel model fits
PARAMETERS = {
    "kernel_streaming": ("eta_M", "t_launch"),
    "kernel_row_reduction": ("eta_R", "t_launch"),
    "kernel_gemm": ("eta_F", "e_flop", "t_launch"),
}


def fit_rows(model_id: str, rows: Sequence[KernelRow], label: str = "NeuSight rows") -> fitting.FitResult:
    """Fit :data:`PARAMETERS` of ``model_id`` to the measured latencies of the rows it predicts.

    Raises:
        errors.UsageError: no row of ``rows`` is predicted by ``model_id`` (from :func:`fitting.fit`).
        errors.FitCheckError: the fit fails a check.
    """
    model = api.load(model_id)
    members = [(r, a) for r in rows for a in [assign(r)] if a.model == model_id and np.isfinite(r.latency_ms)]
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
    data = measured.MeasuredData(f"{label} ({model_id}, {len(members)} rows)",
                                 tuple(measured.Column(n, units[n], tuple(v)) for n, v in columns.items()))
    return fitting.fit(model, "t_kernel", data, params, preset=EFFICIENCY, strict=False, max_rms=1.0)
