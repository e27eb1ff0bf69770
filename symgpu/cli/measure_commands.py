"""The ``symgpu fit``, ``symgpu measured`` and ``symgpu measure`` commands (measured data in, model vs measurement)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from symgpu import errors, textfiles, units
from symgpu.cli import common, data_files
from symgpu.evaluate import clocks
from symgpu.report import measurements
from symgpu.measure import compare, data, fit, fit_checks, microbench, prediction, residuals


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="model id or path to a .toml file")
    p.add_argument("quantity", help="the measured quantity (a column of the data file, defined by an equation)")
    p.add_argument("--data", required=True, action="append", metavar="FILE",
                   help="measured-data CSV with units in the headers, e.g. 'n [warp/SM]', or a sweep's CSV or Parquet "
                        "('symgpu sweep -o FILE'); repeat it to use several files "
                        "with the same columns as one data set (e.g. the ILP 1 and the ILP 2/4 series)")
    p.add_argument("--preset", "-p", help="preset for the values no column gives")
    p.add_argument("--preset-file", metavar="FILE",
                   help="a TOML file of [presets.ID] blocks (e.g. written by 'symgpu fit --preset-id ID -o FILE'), "
                        "added to the model before --preset is looked up")
    p.add_argument("--column", help="the measured column when its name differs from QUANTITY (same dimension)")
    p.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                   help="keep only rows where COLUMN equals VALUE: a number in the column's unit, or a quantity "
                        "such as 'lat=500 ns' converted to it exactly (repeatable)")


def setup_fit(sub: Any) -> None:
    """Add ``symgpu fit``."""
    p = sub.add_parser("fit", help="least-squares fit of model parameters to measured data",
                       description="Fit declared input symbols so that QUANTITY matches the measured column "
                                   "(relative residuals, scipy.optimize.least_squares, 95 % confidence intervals).")
    _common(p)
    p.add_argument("--params", required=True, help="comma-separated symbols to fit, e.g. a,b,c")
    p.add_argument("--init", action="append", default=[], metavar="NAME=VALUE",
                   help="starting value (quantity string or number in the declared unit); default: the preset's")
    p.add_argument("--max-rms", type=float, default=fit_checks.MAX_RMS, metavar="FRACTION",
                   help=f"largest acceptable RMS relative error (default {fit_checks.MAX_RMS:g}); a worse fit exits 1")
    p.add_argument("--max-evaluations", type=int, default=None, metavar="N",
                   help="stop the optimiser after N evaluations of the residuals per start (default: SciPy's); "
                        "a fit stopped there has not converged and exits 1")
    p.add_argument("--predict", action="append", default=[], metavar="NAME=VALUE[,NAME=VALUE...]",
                   help="predict the quantity at a point (inputs, e.g. n=4,ilp=4) with its band; points outside "
                        "the data the fit used are flagged as extrapolated (repeatable)")
    p.add_argument("--json", action="store_true", help="print the fit, its checks and predictions as JSON (ignored_columns: the data columns left out, and why)")
    p.add_argument("--preset-id", default="", help="write a [presets.ID] TOML block with the fitted values (each the float fitted, every digit; "
                                                          "with --json and no -o, the JSON's preset_block)")
    p.add_argument("-o", "--output", help="file for the TOML block (default: print it)")


def run_fit(args: argparse.Namespace) -> int:
    """Fit, print the parameters with intervals and the fit quality, and emit the preset block."""
    if args.output:
        textfiles.check_output_file(args.output, "-o")
    model = common.load_model_with_presets(args.model, args.preset_file)
    common.note_combined_preset(model, args.preset)
    measured = _filtered(args, model)
    start = dict(_pair(text, "--init") for text in args.init)
    params = [p.strip() for p in args.params.split(",") if p.strip()]
    if not 0 < args.max_rms:
        raise errors.UsageError(f"--max-rms {args.max_rms:g}: give a positive fraction, e.g. 0.1 for 10 %")
    if args.max_evaluations is not None and args.max_evaluations < 1:
        raise errors.UsageError(f"--max-evaluations {args.max_evaluations}: give a number of evaluations, 1 or more")
    points = [dict(_pair(item, "--predict") for item in text.split(",") if item.strip()) for text in args.predict]
    result = fit.fit(model, args.quantity, measured, params, preset=args.preset, start=start, column=args.column,
                     max_rms=args.max_rms, strict=False, max_evaluations=args.max_evaluations)
    predictions = [prediction.predict(model, result, point) for point in points] if not result.failed else []
    for note in (note for p in predictions for note in p.converted):
        print(f"symgpu: note: --predict {note}", file=sys.stderr)
    # with --json, stdout is one JSON document: a block not written to -o is its "preset_block"
    block = fit.preset_toml(result, args.preset_id) if args.preset_id and not result.failed else None
    if args.json:
        inline = {"preset_block": block} if block is not None and not args.output else {}
        print(json.dumps({**fit.as_dict(result), "predictions": [p.as_dict() for p in predictions], **inline}, indent=2))
    else:
        print("\n".join(fit.summary_lines(result)))
        for p in predictions:
            print("\n".join(prediction.lines(p, result)))
    if result.failed:
        print(f"symgpu: error: {fit.failure_message(result)}", file=sys.stderr)
        return common.FAILED
    for check in result.warnings:
        print(f"symgpu: warning: {check.name}: {check.detail}", file=sys.stderr)
    if block is not None:
        if args.output:
            common.write_output(args.output, block.encode("utf-8"), "-o", "the preset block")
            print(f"preset block written to {args.output}", file=sys.stderr if args.json else sys.stdout)
        elif not args.json:
            print()
            print(block, end="")
    return common.OK


def setup_measured(sub: Any) -> None:
    """Add ``symgpu measured``."""
    p = sub.add_parser("measured", help="model vs measurement: errors, knees and a plot",
                       description="Compare QUANTITY with the measured column: RMS and max relative error and the knee "
                                   "of each measured curve and of the model: the smallest swept value at which the "
                                   "curve, drawn as straight lines between its points (repeats averaged), reaches 90 % "
                                   "of its own highest point in the measured range (interpolated, so usually between "
                                   "swept values; the model drawn through 200 evenly spaced values; '-' when the "
                                   "first point is already above 90 %).")
    _common(p)
    p.add_argument("--variable", help="the swept column (default: n, or the most varied input column)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="extra symbol values")
    p.add_argument("--plot", help="write the plot to this file (PDF if it ends in .pdf, else SVG)")
    p.add_argument("--residuals", action="store_true",
                   help="print every point's measured and model value and relative residual, EXTRAPOLATED where the "
                        "preset's fit did not reach")
    p.add_argument("--json", action="store_true", help="print the comparison, every point's residual included, as JSON (ignored_columns: the data columns left out, and why)")
    p.add_argument("--fitted-on", action="append", default=[], metavar="FILE",
                   help="the data the preset was fitted to (default: read from the preset's 'symgpu fit' provenance)")


def run_measured(args: argparse.Namespace) -> int:
    """Print the comparison table and write the plot."""
    if args.plot:
        textfiles.check_output_file(args.plot, "--plot")
    model = common.load_model_with_presets(args.model, args.preset_file)
    common.note_combined_preset(model, args.preset)
    measured = _filtered(args, model)
    values = dict(_pair(text, "--set") for text in args.set)
    columns = {c.name for c in measured.columns}
    clash = next((name for name in values if name in columns), None)
    if clash is not None:  # the data's column gives it point by point: a --set would be ignored
        raise errors.UsageError(f"--set {clash}={values[clash]}: {clash} is a column of the measured data, which gives it "
                                f"at every point; drop the --set, or select rows with --where {clash}=VALUE")
    # a --set value moved across the clock, warp size or SM count at the preset as every command's is (refused where
    # that rate is a column of the data: it varies from point to point)
    moved, _ = common.across_the_clock(model, common.parse_assignments(model, args.set), None, preset=args.preset, swept=sorted(columns))
    comparison = compare.compare(model, args.quantity, measured, variable=args.variable, preset=args.preset, values=moved, column=args.column)
    fitted = residuals.fitted_data(model, comparison, args.fitted_on, data_files.read) if args.residuals or args.json else None
    points = residuals.point_residuals(comparison, fitted)
    if args.json:
        print(json.dumps(residuals.as_dict(comparison, points, fitted), indent=2))
    else:
        print("\n".join(compare.table_lines(comparison)))
        outside = sum(1 for p in points if p.extrapolated)
        if outside:
            print(f"  {outside} of {len(points)} points lie outside the data preset {comparison.preset} was fitted to "
                  "(EXTRAPOLATED in --residuals)")
    if args.residuals and not args.json:
        print("\n".join(residuals.lines(points, fitted, comparison.unit_text)))
    if args.plot:
        common.write_plot(args.plot, measurements.figure(comparison, "pdf" if args.plot.lower().endswith(".pdf") else "svg"))
        print(f"plot written to {args.plot}")
    return common.OK


def setup_measure(sub: Any) -> None:
    """Add ``symgpu measure``."""
    p = sub.add_parser("measure", help="run microbenchmarks on this machine's NVIDIA GPU (needs symgpu[cuda])",
                       description="Pointer-chase latency, FMA latency and peak, streaming read vs warps/SM x ILP x alpha; "
                                   "writes measured-data CSVs with units and device provenance. Needs CuPy and an NVIDIA GPU.")
    p.add_argument("-o", "--output", default="measurements", help="output folder (default: measurements/)")
    p.add_argument("--quick", action="store_true", help="fewer points (a smoke run)")


def run_measure(args: argparse.Namespace) -> int:
    """Run the microbenchmarks (refuses cleanly without CuPy or a GPU)."""
    written = microbench.run_all(Path(args.output), quick=args.quick)
    for path in written:
        print(f"wrote {path}")
    return common.OK


def _filtered(args: argparse.Namespace, model: Any) -> data.MeasuredData:
    measured = data.concat([data_files.read(path) for path in args.data])
    point = dict(_pair(text, "--set") for text in getattr(args, "set", []))
    given_by = "--set" if hasattr(args, "set") else None
    for text in args.where:
        name, value = _pair(text, "--where")
        measured = measured.where(name, _where_value(measured.column(name), value, text, model, args.preset, point, given_by))
    return measured


def _where_value(column: data.Column, value: str, text: str, model: Any, preset: str | None, point: dict[str, str],
                 given_by: str | None) -> float:
    """``--where``'s value in ``column``'s unit: a bare number is in that unit; a quantity (``500 ns``,
    read by symgpu's unit grammar) is converted to it exactly, across the model's clock, warp size or SM count at the
    preset where the units differ by them (``n=1024 thread/SM`` for a column in warp/SM), as ``--set`` is."""
    try:
        given = units.quantity(value, column.unit)
    except ValueError as exc:
        raise errors.UsageError(f"--where {text!r}: {exc}; give a number in the column's unit ({column.unit_text}) "
                                f"or a number with a unit, e.g. '{column.name}=2 {column.unit_text}'") from None
    if given.dimensionality == column.unit.dimensionality:
        return float(units.exact_convert(given, column.unit).magnitude)
    need = f"--where {text!r}: column '{column.name}' is in {column.unit_text}, so the value"
    instead = f"give it in {column.unit_text}"

    def give(name: str, example: str) -> str:
        return f"{given_by} '{name}={example}'" if given_by else f"a --preset-file block with {name} = '{example}'"
    found = clocks.moved_at_point(model, given, column.unit, preset=preset, values=point, need=need, give=give, instead=instead)
    if found is None:
        raise errors.UsageError(f"--where {text!r}: {value} has dimension {units.format_dimension(given.dimensionality)}, but column "
                                f"'{column.name} [{column.unit_text}]' is {units.format_dimension(column.unit.dimensionality)}; "
                                f"give it in {column.unit_text} or a compatible unit")
    moved, rates = found
    print(f"symgpu: note: --where {text!r}: {value} = {moved.magnitude:.10g} {column.unit_text} at "
          f"{' and '.join(rate.said for rate in rates)}", file=sys.stderr)
    return float(moved.magnitude)


def _pair(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise errors.UsageError(f"{option} {text!r}: expected NAME=VALUE")
    return name.strip(), value.strip()


def setup(sub: Any) -> None:
    """Add the fit, measured and measure subcommands."""
    setup_fit(sub)
    setup_measured(sub)
    setup_measure(sub)


#: subcommand -> run(args) -> exit code.
RUN = {"fit": run_fit, "measured": run_measured, "measure": run_measure}
