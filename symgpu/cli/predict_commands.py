"""The ``symgpu predict`` command: kernel latencies of NeuSight-format rows from the kernel models."""

from __future__ import annotations

import csv
import io
import sys
from typing import Any

from symgpu import errors, textfiles
from symgpu.cli.parsing import FAILED, OK
from symgpu.predict import accuracy, predict_rows, read_rows
from symgpu.predict.rows import KernelRow

#: the columns added to every input column
ADDED = ("predicted_latency [ms]", "regime", "model", "reason")


def setup(sub: Any) -> None:
    """Add ``predict DATA.csv [-o OUT.csv] [--row N]``."""
    p = sub.add_parser("predict", help="predict measured kernel latencies (NeuSight CSV format) with the kernel models",
                       description="Read kernel rows in the NeuSight format (OPName, Latency [ms], Device, Kernel Name, "
                                   "Grid/Block x/y/z, B/H or M/N/K), pick the model per row (kernel_streaming, "
                                   "kernel_row_reduction, kernel_gemm) from its operator and kernel name, predict each "
                                   "row at its GPU's preset with the fitted efficiency preset neusight_fit, and print "
                                   "MAPE, median and P90 error per operator and per GPU next to NeuSight's published "
                                   "MAPE. A row that cannot be predicted gets an empty prediction and a reason.")
    p.add_argument("data", help="CSV of kernel measurements (NeuSight format)")
    p.add_argument("-o", "--output", help="write every input column plus predicted_latency [ms], regime, model, reason")
    p.add_argument("--row", type=int, help="explain one data row (0-based): model, GPU, regime, prediction")


def run_predict(args: Any) -> int:
    """Run ``symgpu predict``."""
    header, rows = read_rows(args.data)
    if not rows:
        raise errors.UsageError(f"{args.data}: no data rows; give at least one kernel row")
    out_path = textfiles.check_output_file(args.output) if args.output else None
    predictions = predict_rows(rows)
    if out_path is not None:
        _write(out_path, header, rows, predictions)
    if args.row is not None:
        if not 0 <= args.row < len(rows):
            raise errors.UsageError(f"--row {args.row}: {args.data} has rows 0..{len(rows) - 1}")
        p, r = predictions[args.row], rows[args.row]
        print(f"row {args.row}: {r.operator} on {r.device}, kernel {r.kernel[:80]}")
        if p.reason:
            print(f"  not predicted: {p.reason}")
        else:
            print(f"  model {p.model} at preset {p.gpu}+neusight_fit: {p.latency_ms:.6g} ms ({p.regime}); measured {r.latency_ms:.6g} ms")
    missing = [p for p in predictions if p.reason]
    per_op, per_gpu = accuracy.table(rows, predictions)
    print("\n".join(accuracy.lines(per_op, per_gpu)))
    if missing:
        print(f"{len(missing)} of {len(rows)} rows not predicted; first: row {missing[0].row}: {missing[0].reason}", file=sys.stderr)
    if out_path is not None:
        print(f"wrote {out_path} ({len(rows)} rows)")
    return OK if len(missing) < len(rows) else FAILED


def _write(path: Any, header: tuple[str, ...], rows: tuple[KernelRow, ...], predictions: Any) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header + ADDED)
    for r, p in zip(rows, predictions):
        value = "" if p.reason else repr(p.latency_ms)
        writer.writerow(r.cells + (value, p.regime, p.model, p.reason))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(buffer.getvalue(), encoding="utf-8")
    tmp.replace(path)


RUN = {"predict": run_predict}
