"""The ``symgpu sweep`` and ``symgpu plot`` commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from symgpu import errors, textfiles
from symgpu.cli import common, sweep_replay
from symgpu.evaluate import gridcode
from symgpu.report import sweep_plots
from symgpu.sweep import backends, build_plan, distributed, parse_grid, readers, replay, writers
from symgpu.sweep.chunks import Settled
from symgpu.sweep.run import DEFAULT_CHUNK, compile_plan

#: the largest accepted --chunk-size
MAX_CHUNK = 1 << 26
#: the most workers of a local Dask cluster (--workers)
MAX_WORKERS = 256


def _chunk_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_CHUNK:
        raise argparse.ArgumentTypeError(f"{value} is outside 1..{MAX_CHUNK}")
    return value


def setup_sweep(sub: Any) -> None:
    """Add ``sweep MODEL QUANTITY... --grid NAME=SPEC ... -o FILE``."""
    p = sub.add_parser("sweep", help="evaluate quantities over a grid of inputs, in chunks, to Parquet or CSV",
                       description="Evaluate QUANTITY (one or more) over the Cartesian grid of the --grid axes, chunk "
                                   "by chunk (memory bounded by the chunk size), with a column naming the active "
                                   "regime, and write it atomically as Parquet (units in the schema metadata) or CSV "
                                   "(units in the headers). Axis specs, in the declared unit: n=1:64, alpha=0:256:2, "
                                   "a=1,2,4, x=1e3:1e6:log20; or with one unit, converted to the declared one: "
                                   "L_M=0.2us:0.8us:log4.")
    p.add_argument("model", help="model id or path")
    p.add_argument("quantities", nargs="+", metavar="QUANTITY", help="quantities to evaluate")
    common.add_value_options(p)
    p.add_argument("--grid", "-g", action="append", default=[], metavar="NAME=SPEC", help="a swept input (repeatable)")
    p.add_argument("-o", "--output", required=True, help="output file (.parquet or .csv; a folder with --engine dask)")
    p.add_argument("--format", choices=writers.FORMATS, help="output format (default: from the file name)")
    p.add_argument("--backend", default="numpy", choices=tuple(backends.NEEDS), help="array backend (default numpy)")
    p.add_argument("--engine", default="local", choices=("local", "dask"), help="local (default) or dask (partitioned Parquet)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="an existing Dask scheduler (default: a local cluster)")
    p.add_argument("--workers", type=int, default=2, help="workers of the local Dask cluster (default 2)")
    p.add_argument("--chunk-size", type=_chunk_size, default=DEFAULT_CHUNK, help=f"points per chunk (default {DEFAULT_CHUNK})")
    p.add_argument("--regime-of", metavar="QUANTITY", help="quantity whose active regime is a column (default: the first with regimes, else the one quantity with regimes "
                        "that the first of them whose regimes come from one reads; '' for none)")
    p.add_argument("--no-checks", action="store_true", help="skip assumption and domain checks")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr for sweeps over a second (default: on a terminal)")
    p.add_argument("--plot", metavar="FILE", help="also draw the result (.svg or .png): 1 varying axis -> line, 2 -> heat map")


def run_sweep(args: argparse.Namespace) -> int:
    """Plan, evaluate and write the sweep; print a one-line summary per fact."""
    model = common.load_model(args.model)
    if args.engine != "dask" and (args.scheduler or args.workers != 2):
        raise errors.UsageError("--scheduler and --workers need --engine dask")
    if args.engine == "dask" and not 1 <= args.workers <= MAX_WORKERS:
        raise errors.UsageError(f"--workers {args.workers}: a local Dask cluster needs 1 to {MAX_WORKERS} workers")
    if args.plot and Path(args.plot).suffix.lower() not in (".svg", ".png"):
        raise errors.UsageError(f"--plot {args.plot!r}: use a .svg or .png file name")
    if args.plot:
        textfiles.check_output_file(args.plot, "--plot")
    if args.engine != "dask":
        textfiles.check_output_file(args.output, "-o")
    grid = parse_grid(args.grid)
    values, _ = common.across_the_clock(model, common.parse_assignments(model, args.set), None, preset=args.preset,
                                        swept=[axis.name for axis in grid.axes])
    plan = build_plan(model, args.quantities, preset=args.preset, grid=grid, values=values,
                      checks=not args.no_checks, regime_of=args.regime_of)
    for axis in plan.grid.axes:
        if axis.across:
            print(f"symgpu: note: --grid {axis.text!r}: {axis.unit} moved to {model.unit_text(axis.name)} at {axis.across}", file=sys.stderr)
    backends.load(args.backend)
    sweep_replay.note_unchecked(args)
    if args.engine == "dask":
        if args.format == "csv":
            raise errors.UsageError("--engine dask writes partitioned Parquet; leave out --format csv")
        summary = distributed.write_dask(plan, args.output, backend=args.backend, chunk_size=args.chunk_size,
                                         scheduler=args.scheduler, workers=args.workers, progress=args.progress)
    else:
        settled: list[Settled] = []
        summary = writers.write(plan, args.output, fmt=args.format, backend=args.backend, chunk_size=args.chunk_size,
                                progress=args.progress, settled=settled)
        if args.backend == "numpy" and not args.set and not any(axis.across for axis in plan.grid.axes):
            # the next run of this request: from the stored plan (not one whose axis a rate moved: it says so each run)
            function = compile_plan(plan, backends.load("numpy"))
            if isinstance(function, gridcode.GridProgram):
                replay.keep(sweep_replay.request(args, summary.format), plan, function, settled)
    for line in sweep_replay.summary_lines(summary, plan.quantities, plan.regime.quantity if plan.regime else ""):
        print(line)
    if args.plot:
        _draw(readers.read(summary.path), args.plot, None, option="--plot")
        print(f"plot written to {args.plot}")
    return common.OK


def _draw(table: readers.SweepTable, target: str, quantity: str | None, axes: list[str] | None = None, option: str = "-o") -> None:
    kind = Path(target).suffix.lower().lstrip(".")
    if kind not in ("svg", "png"):
        raise errors.UsageError(f"{option} {target!r}: use a .svg or .png file name")
    data = sweep_plots.plot_sweep(table, kind, quantity, axes)
    common.write_output(target, data, option, "the plot")


def setup_plot(sub: Any) -> None:
    """Add ``plot SWEEP -o FILE [--quantity Q] [--axes X [Y]]``."""
    p = sub.add_parser("plot", help="draw a written sweep: a line (1 varying axis) or heat map (2), regime boundaries marked",
                       description="Read a sweep written by 'symgpu sweep' (Parquet file or folder, or CSV) and draw "
                                   "QUANTITY over its varying axes with the boundaries between active regimes.")
    p.add_argument("sweep", help="the sweep's file or folder")
    p.add_argument("-o", "--output", required=True, help="the figure (.svg or .png)")
    p.add_argument("--quantity", "-q", help="the column to draw (default: the first quantity)")
    p.add_argument("--axes", nargs="+", metavar="NAME", help="the swept columns (default: from the sweep's metadata)")


def run_plot(args: argparse.Namespace) -> int:
    """Draw the plot."""
    if Path(args.output).suffix.lower() not in (".svg", ".png"):
        raise errors.UsageError(f"-o {args.output!r}: use a .svg or .png file name")
    textfiles.check_output_file(args.output, "-o")
    _draw(readers.read(args.sweep), args.output, args.quantity, args.axes)
    print(f"plot written to {args.output}", file=sys.stderr)
    return common.OK


def setup(sub: Any) -> None:
    """Add the sweep and plot subcommands."""
    setup_sweep(sub)
    setup_plot(sub)


#: subcommand -> run(args) -> exit code.
RUN = {"sweep": run_sweep, "plot": run_plot}
