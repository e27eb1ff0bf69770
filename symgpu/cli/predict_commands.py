"""The ``symgpu predict`` command: kernel latencies of NeuSight-format rows from the kernel models."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from typing import Any

from symgpu import errors, textfiles
from symgpu.cli.parsing import FAILED, OK
from symgpu.predict import accuracy, describe, explain, predict_rows, read_rows
from symgpu.predict.mapping import assign
from symgpu.report import predict_report as report
from symgpu.predict.rows import KernelRow

#: the columns added to every input column
ADDED = ("predicted_latency [ms]", "regime", "model", "reason")


def setup(sub: Any) -> None:
    """Add ``predict DATA.csv [-o OUT.csv] [--row N]``."""
    p = sub.add_parser("predict", help="predict measured kernel latencies (NeuSight CSV format) with the kernel models",
                       description="Read kernel rows in the NeuSight format (OPName, Latency [ms] (NeuSight's bare Latency: ms; [us], [s] "
                                   "converted), Device, Kernel Name, "
                                   "Grid/Block x/y/z, B/H or M/N/K), pick the model per row (kernel_streaming, "
                                   "kernel_row_reduction, kernel_gemm) from its operator and kernel name, predict each "
                                   "row at its GPU's preset with the fitted efficiency preset neusight_fit, and print "
                                   "MAPE, median and P90 error per operator and per GPU next to NeuSight's published "
                                   "MAPE. A row that cannot be predicted gets an empty prediction and a reason. A file with no "
                                   "Latency column (or its cells empty) is predicted with no accuracy statistics.")
    p.add_argument("data", nargs="?", help="CSV of kernel measurements (NeuSight format); omit with --kernel")
    p.add_argument("-o", "--output", help="write every input column plus predicted_latency [ms], regime, model, reason")
    p.add_argument("--row", type=int, help="explain one data row (0-based): binding limiters, sensitivities d log t / d log x, "
                                           "closed-form inverse questions with their certificates")
    p.add_argument("--kernel", help="explain a described kernel instead of a row: gemm, softmax, ln or an elementwise "
                                    "operator (add, relu...); with --gpu and --set")
    p.add_argument("--gpu", help="GPU preset of --kernel (a100_pcie_40gb, h100_sxm, ...)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a --kernel size: B, H (rows, row length), block (threads; the grid follows it); GEMM: M, N, K "
                        "(output M x N, reduction K), B (batch: B M rows), tile=TMxTN, split_k; grid overrides the launch's "
                        "grid (held fixed); a name the operator does not read is refused")
    p.add_argument("--json", help="write the explanation (--row or --kernel) as JSON to this file")
    p.add_argument("--report", metavar="DIR", help="write an accuracy report (Markdown, JSON, SVG plots) into DIR")


def run_predict(args: Any) -> int:
    """Run ``symgpu predict``."""
    if args.kernel is not None:
        return _explain_kernel(args)
    if args.data is None:
        raise errors.UsageError("predict: give DATA.csv, or --kernel KIND --gpu PRESET --set NAME=VALUE to explain a kernel")
    header, rows = read_rows(args.data)
    if not rows:
        raise errors.UsageError(f"{args.data}: no data rows; give at least one kernel row")
    out_path = textfiles.check_output_file(args.output) if args.output else None
    measured = any(math.isfinite(r.latency_ms) for r in rows)
    if args.report and not measured:
        raise errors.UsageError(f"--report: {args.data} has no measured times (no Latency column, or its cells empty): an accuracy "
                                "report compares predictions with them; give the Latency column, or leave --report out (-o writes the predictions)")
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
            seen = f"measured {r.latency_ms:.6g} ms" if math.isfinite(r.latency_ms) else "not measured"
            print(f"  model {p.model} at preset {p.gpu}+neusight_fit: {p.latency_ms:.6g} ms ({p.regime}); {seen}")
            _show(explain.explain(assign(r)), args.json)
    if args.report:
        written = report.write_report(args.report, rows, predictions)
        print(f"wrote {len(written)} files to {args.report}")
    missing = [p for p in predictions if p.reason]
    if measured:
        print("\n".join(accuracy.lines(*accuracy.table(rows, predictions))))
    else:
        print(f"{len(rows) - len(missing)} of {len(rows)} rows predicted; {args.data} has no measured times (no Latency column, "
              "or its cells empty): no accuracy statistics")
    if missing:
        print(f"{len(missing)} of {len(rows)} rows not predicted; first: row {missing[0].row}: {missing[0].reason}", file=sys.stderr)
    if out_path is not None:
        print(f"wrote {out_path} ({len(rows)} rows)")
    return OK if len(missing) < len(rows) else FAILED


def _explain_kernel(args: Any) -> int:
    if args.data is not None or args.row is not None or args.output or args.report:
        raise errors.UsageError("--kernel explains one described kernel; give it without DATA.csv, --row, -o or --report")
    if not args.gpu:
        raise errors.UsageError("--kernel needs --gpu PRESET (e.g. a100_pcie_40gb)")
    settings = {}
    for item in args.set:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise errors.UsageError(f"--set {item}: give NAME=VALUE")
        settings[name.strip()] = value.strip()
    row = describe.kernel_row(args.kernel, args.gpu, settings)
    if "grid" in settings:
        rule = describe.kernel_row(args.kernel, args.gpu, {k: v for k, v in settings.items() if k != "grid"}).grid
        if rule[0] * rule[1] != row.grid[0] * row.grid[1]:
            print(f"symgpu: note: --set grid={settings['grid']}: PyTorch launches {rule[0] * rule[1]} blocks (grid {rule}) for these "
                  "sizes; the explanation uses the given grid and holds it fixed", file=sys.stderr)
    a = assign(row)
    if a.reason:
        raise errors.UsageError(f"--kernel {args.kernel}: {a.reason}")
    print(f"{args.kernel} on {row.device}: kernel {row.kernel}, grid {row.grid}, block {row.block}")
    _show(explain.explain(a), args.json)
    return OK


def _show(explanation: Any, json_path: str | None) -> None:
    print("\n".join(explain.lines(explanation)))
    if json_path:
        path = textfiles.check_output_file(json_path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(explain.as_dict(explanation), indent=1, allow_nan=True) + "\n", encoding="utf-8")
        tmp.replace(path)
        print(f"wrote {path}")


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
