"""Accuracy of the kernel models on NeuSight's measured rows (data/neusight/, four GPUs).

Prints (1) the fit of each model's efficiency parameters on the rows of every GPU (one set, 95 %
intervals), (2) the per-operator and per-GPU MAPE / median / P90 error at the bundled preset
neusight_fit, next to NeuSight's published out-of-distribution MAPE, and (3) leave-one-GPU-out:
the parameters fitted on three GPUs, the fourth predicted.

    PYTHONPATH=. python benchmarks/neusight_accuracy.py
"""

from __future__ import annotations

import time

import numpy as np

from symgpu import resources
from symgpu.measure import fit as fitting
from symgpu.predict import accuracy, predict_rows, read_rows
from symgpu.predict.calibrate import PARAMETERS, fit_rows

FILES = ("linear", "elementwise", "layernorm", "softmax")


def main() -> None:
    rows = tuple(r for f in FILES for r in read_rows(resources.measured_file(f"data/neusight/{f}.csv"))[1])
    start = time.perf_counter()
    for model_id in PARAMETERS:
        print("\n".join(fitting.summary_lines(fit_rows(model_id, rows))))
    print(f"(fits: {time.perf_counter() - start:.1f} s)\n")
    start = time.perf_counter()
    predictions = predict_rows(rows)
    print(f"== bundled preset neusight_fit, all {len(rows)} rows ({time.perf_counter() - start:.2f} s)")
    print("\n".join(accuracy.lines(*accuracy.table(rows, predictions))))
    print("\n== leave one GPU out: fitted on the other three, this GPU predicted")
    devices = sorted({r.device for r in rows})
    for held in devices:
        train = tuple(r for r in rows if r.device != held)
        test = tuple(r for r in rows if r.device == held)
        values = {}
        for model_id, params in PARAMETERS.items():
            if any(r.operator for r in train):
                result = fit_rows(model_id, train, label=f"without {held}")
                values[model_id] = {p.name: p.value for p in result.parameters}
        per_op, _ = accuracy.table(test, predict_rows(test, values))
        shown = ", ".join(f"{s.group} {s.mape:.1f} % (P90 {s.p90:.1f})" for s in per_op)
        print(f"{held:<24} MAPE {shown}")
    e = accuracy.relative_errors(rows, predictions)
    print(f"\noverall MAPE {100 * float(np.nanmean(e)):.1f} % over {int(np.isfinite(e).sum())} rows")


if __name__ == "__main__":
    main()
