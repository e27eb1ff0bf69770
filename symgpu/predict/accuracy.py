"""Prediction errors per operator and per GPU, and NeuSight's published per-operator MAPE."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from symgpu import resources
from symgpu.predict.engine import Prediction
from symgpu.predict.rows import KernelRow

#: operator -> NeuSight's column in published_perop_mape.csv
PUBLISHED_COLUMN = {"linear": "FC", "bmm": "BMM", "softmax": "Softmax", "ln": "LN"}
#: operators NeuSight's EW column covers
ELEMENTWISE = "EW"


@dataclass(frozen=True)
class ErrorStats:
    """Absolute relative errors of one group of rows (percent)."""

    group: str
    rows: int
    mape: float
    median: float
    p90: float


def stats(group: str, errors_: np.ndarray) -> ErrorStats:
    """MAPE, median and 90th percentile of ``errors_`` (fractions), in percent."""
    e = errors_[np.isfinite(errors_)]
    if not len(e):
        return ErrorStats(group, 0, math.nan, math.nan, math.nan)
    return ErrorStats(group, len(e), 100 * float(e.mean()), 100 * float(np.median(e)), 100 * float(np.percentile(e, 90)))


def relative_errors(rows: Sequence[KernelRow], predictions: Sequence[Prediction]) -> np.ndarray:
    """|predicted/measured - 1| per row (NaN without a prediction or a measurement)."""
    with np.errstate(all="ignore"):
        return np.abs(np.asarray([p.latency_ms / r.latency_ms - 1 for r, p in zip(rows, predictions)], dtype=float))


def family(operator: str) -> str:
    """The operator's group in the tables: ``linear``, ``ln``, ``softmax`` or ``elementwise``."""
    return operator if operator in PUBLISHED_COLUMN else "elementwise"


def table(rows: Sequence[KernelRow], predictions: Sequence[Prediction]) -> tuple[tuple[ErrorStats, ...], tuple[ErrorStats, ...]]:
    """(per operator family, per operator family and GPU) error statistics."""
    e = relative_errors(rows, predictions)
    ops = np.asarray([family(r.operator) for r in rows])
    devices = np.asarray([r.device for r in rows])
    per_op = tuple(stats(op, e[ops == op]) for op in sorted(set(ops)))
    per_gpu = tuple(stats(f"{op} / {d}", e[(ops == op) & (devices == d)]) for op in sorted(set(ops)) for d in sorted(set(devices[ops == op])))
    return per_op, per_gpu


def published() -> dict[tuple[str, str], float]:
    """NeuSight's published MAPE (%): (method, 'in'/'out' + ':' + column) -> value (data/neusight/published_perop_mape.csv)."""
    text = resources.measured_file("data/neusight/published_perop_mape.csv").read_text(encoding="utf-8")
    lines = list(csv.reader(io.StringIO(text)))
    columns = lines[1][1:]
    out = {}
    for line in lines[2:]:
        for i, cell in enumerate(line[1:len(columns) + 1]):
            if cell.strip():
                out[(line[0], ("in:" if i < 5 else "out:") + columns[i])] = float(cell)
    return out


def published_for(op: str) -> str:
    """NeuSight's and the roofline's out-of-distribution MAPE for ``op``, as text."""
    column = PUBLISHED_COLUMN.get(op, ELEMENTWISE)
    table_ = published()
    parts = [f"{m} {table_[(m, 'out:' + column)]:.1f}" for m in ("NeuSight", "Roofline") if (m, "out:" + column) in table_]
    return ", ".join(parts)


def lines(per_op: Sequence[ErrorStats], per_gpu: Sequence[ErrorStats]) -> list[str]:
    """The printed table."""
    out = [f"{'operator':<12} {'rows':>5} {'MAPE %':>7} {'median %':>8} {'P90 %':>7}   published out-of-distribution MAPE % (NeuSight paper)"]
    for s in per_op:
        out.append(f"{s.group:<12} {s.rows:>5} {s.mape:>7.1f} {s.median:>8.1f} {s.p90:>7.1f}   {published_for(s.group)}")
    out.append("")
    out.append(f"{'operator / GPU':<44} {'rows':>5} {'MAPE %':>7} {'median %':>8} {'P90 %':>7}")
    for s in per_gpu:
        if not s.rows:
            continue
        out.append(f"{s.group:<44} {s.rows:>5} {s.mape:>7.1f} {s.median:>8.1f} {s.p90:>7.1f}")
    return out
