"""The ``symgpu kernel`` command: compiler resource usage + launch + compute capability -> occupancy,
and optionally Nsight Compute metrics -> a model's prediction next to the measured time."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import textwrap
from typing import Any

from symgpu import errors, textfiles
from symgpu.cli import common
from symgpu.kernel import occupancy
from symgpu.kernel import answer, batch, device_match, mapping, ncu, resources, targets


#: Longest line of the human output.
LINE = 190


def setup(sub: Any) -> None:
    """Add the ``kernel`` subcommand to the CLI's subparsers."""
    p = sub.add_parser("kernel", help="occupancy (and a model's prediction) for a kernel from compiler output and profiler metrics",
                       description="Read 'nvcc --resource-usage' / 'ptxas -v' / 'cuobjdump --dump-resource-usage' output and answer: "
                                   "active blocks and warps per SM, the binding limit, the next register or shared-memory step, "
                                   "the best block size; with --ncu and --model, the model's prediction next to the measured time.")
    p.add_argument("resources", help="file with the compiler's resource-usage output")
    p.add_argument("--kernel", "-k", help="kernel name (mangled, demangled, or demangled up to '('); needed when the file has several")
    p.add_argument("--threads", "-t", type=int, help="threads per block of the launch (one launch)")
    p.add_argument("--launches", metavar="CSV", help="answer every launch configuration of a CSV file with a header "
                   "'kernel,threads,dynamic_smem' (kernel optional with one kernel; dynamic_smem default 0), as one table")
    p.add_argument("--all-launches", action="store_true", help="answer every launch of the --ncu export, as one table "
                   "(threads from its Block Size column; with --model, every prediction next to the measured value)")
    p.add_argument("--json", action="store_true", help="with --launches/--all-launches: one JSON object per launch, as a list")
    p.add_argument("-o", "--output", metavar="CSV", help="with --launches/--all-launches: write the table as CSV")
    p.add_argument("--dynamic-smem", type=int, default=0, help="dynamic shared memory per block in bytes (default 0)")
    p.add_argument("--cc", required=True, help="compute-capability preset of the occupancy model, e.g. cc_9_0")
    p.add_argument("--ncu", help="Nsight Compute export (ncu --csv --page raw)")
    p.add_argument("--launch", help="ID of the launch in the export (default: the kernel's first launch)")
    p.add_argument("--model", "-m", help="model to predict with, e.g. hong_kim_2009 (needs --ncu and a metric mapping)")
    common.add_value_options(p)


def run(args: argparse.Namespace) -> int:
    """Print the occupancy answer and, with ``--model``, the prediction; exit 0, or 2 on bad input."""
    if args.launches or args.all_launches:
        return run_many(args)
    if args.json or args.output:
        raise errors.UsageError("--json and -o answer many launches: use them with --launches CSV or --all-launches")
    if args.threads is None:
        raise errors.UsageError("give --threads N (one launch), --launches CSV or --ncu EXPORT --all-launches")
    if args.threads <= 0 or args.dynamic_smem < 0:
        raise errors.UsageError("--threads must be positive and --dynamic-smem non-negative")
    kernel = resources.select(resources.read(args.resources), args.kernel, args.cc)
    result = answer.answer(kernel, args.cc, args.threads, args.dynamic_smem)
    note = targets.note(kernel.arch, args.cc)
    if note:
        print(f"symgpu: note: {note}", file=sys.stderr)
    print("\n".join(answer.lines(result)))
    if args.model is None:
        if args.ncu:
            raise errors.UsageError("--ncu needs --model (hong_kim_2009 or volkov_2016) to map the metrics onto")
        return common.OK
    if not args.ncu:
        raise errors.UsageError("--model needs --ncu (the Nsight Compute export whose metrics feed the model)")
    model = common.load_model(args.model)
    common.note_combined_preset(model, args.preset)
    table = mapping.load(model)
    launch = ncu.select(ncu.read(args.ncu), args.kernel if args.launch is None else None, args.launch)
    derived = mapping.derive(table, model, launch, args.cc)
    values: dict[str, Any] = {d.symbol: d.value for d in derived}
    print(f"model {model.id}: inputs from {launch.origin} ({launch.kernel}) via {table.path}")
    for d in derived:
        used = ", ".join(f"{name} = {q.magnitude:g} {q.units:~}".rstrip() for name, q in d.metrics)
        shown = f"{d.symbol} = {d.value.magnitude:.6g} {_unit(model, d.symbol, d.value)}".rstrip()
        line = f"  {shown}  <- {d.expression}  [{used}]"
        if len(line) <= LINE:
            print(line)
        else:
            print(f"  {shown}  <- {d.expression}")
            print("\n".join(textwrap.wrap(used, width=LINE, initial_indent="      from ", subsequent_indent="      ")))
    if occupancy.mapping_of(model) is not None:
        if not result.can_launch:
            raise errors.DomainError(f"{kernel.display_name}: the block cannot launch on {args.cc}; {model.id} has no prediction")
        occ = occupancy.occupancy_chain(model, args.cc, args.threads, kernel.registers, result.smem_per_block,
                                        extra=answer.launch_barriers(kernel)).values
        for name, value in occ.items():
            where = f"occupancy ({args.cc}, {kernel.registers} reg/thread, {result.smem_per_block} B/block)"
            if name in values:  # the profiler's (achieved) value stands; the theoretical one is shown
                print(f"  ({name} = {value.magnitude:g} {_unit(model, name, value)} by {where}; the measured value above is used)")
                continue
            print(f"  {name} = {value.magnitude:g} {_unit(model, name, value)}  <- {where}")
            values[name] = value
    for item in args.set:
        name, _, raw = item.partition("=")
        values[name.strip()] = raw.strip()
    if not table.prediction:
        print(f"  ({table.path} names no prediction quantity)")
        return common.OK
    said = device_match.note(model, table.prediction, [(launch, values)], args.preset)
    if said:
        print(f"symgpu: note: {said}", file=sys.stderr)
    predicted = model.evaluate(table.prediction, preset=args.preset, values=values)
    print(f"  prediction: {table.prediction} = {predicted.magnitude:.6g} {_unit(model, table.prediction, predicted)}")
    for metric in ("sm__cycles_elapsed.avg", "gpu__time_duration.sum"):
        if metric in launch.metrics:
            q = launch.metrics[metric]
            print(f"  measured:   {metric} = {q.magnitude:.6g} {q.units:~}")
    try:
        comparisons = mapping.compare(table, launch, predicted, args.cc)
    except errors.UsageError as exc:  # the prediction stands; the export cannot be compared with it
        print("\n".join(textwrap.wrap(f"not compared: {exc}", width=LINE, initial_indent="  ", subsequent_indent="    ")))
        return common.OK
    for compared in comparisons:
        c = compared.comparison
        print(f"  predicted {compared.predicted.magnitude:.6g} vs measured {compared.measured.magnitude:.6g} {c.unit}: "
              f"ratio {compared.ratio:.3g}  [{c.predicted_text} vs {c.measured_text}]")
    return common.OK


def _unit(model: Any, name: str, value: Any) -> str:
    """``name``'s unit as the model declares it (``winst/cycle/SM``, not pint's ``winst / cy / SM``); nothing for a pure number."""
    return "" if value.dimensionless else common.declared_unit_text(model, name, value)


def run_many(args: argparse.Namespace) -> int:
    """Every launch of ``--ncu`` (``--all-launches``) or of ``--launches``: a table, ``--json`` or ``-o`` CSV."""
    if args.launches and args.all_launches:
        raise errors.UsageError("give --launches CSV or --all-launches (every launch of --ncu), not both")
    if args.all_launches and not args.ncu:
        raise errors.UsageError("--all-launches answers every launch of an export: give it with --ncu EXPORT")
    if args.threads is not None or args.dynamic_smem < 0:
        raise errors.UsageError("--threads is for one launch; the launches give theirs (--dynamic-smem must be non-negative)")
    kernels = resources.read(args.resources)
    if args.kernel:
        kernels = (resources.select(kernels, args.kernel, args.cc),)
    if args.launches:
        raw = textfiles.read_bounded(args.launches, limit=batch.MAX_LAUNCHES * 200, what="launch list", hint="split the list")
        text = textfiles.decode_text(raw, args.launches, "launch list")
        configs = batch.from_list(kernels, text, args.launches, args.cc)
    else:
        configs = batch.from_export(kernels, ncu.read(args.ncu), args.dynamic_smem, args.cc)
    model = table = None
    if args.model is not None:
        if not args.all_launches:
            raise errors.UsageError("--model needs profiled launches: use --ncu EXPORT --all-launches")
        model = common.load_model(args.model)
        common.note_combined_preset(model, args.preset)
        table = mapping.load(model)
    values = {name.strip(): raw.strip() for name, _, raw in (item.partition("=") for item in args.set)}
    rows = batch.answer_all(configs, args.cc, model=model, table=table, preset=args.preset, values=values)
    if model is not None and table is not None and table.prediction:
        _note_device(model, table, [c.launch for c in configs if c.launch is not None], args, values)
    if args.output:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(batch.HEADER)
        writer.writerows(batch.cells(r, exact=True) for r in rows)
        common.write_output(args.output, buffer.getvalue().encode("utf-8"), "-o", "the table")
    if args.json:
        print(json.dumps([batch.as_json(r) for r in rows], indent=1))
    elif not args.output:
        shown = [[str(c) for c in batch.cells(r)][:13] for r in rows]
        widths = [max(len(h.split(" [")[0]), *(len(row[k]) for row in shown)) for k, h in enumerate(batch.HEADER[:13])]
        print("  ".join(h.split(" [")[0].ljust(w) for h, w in zip(batch.HEADER, widths)).rstrip())
        for row, answer_row in zip(shown, rows):
            line = "  ".join(textfiles.printable(c, 100).ljust(w) for c, w in zip(row, widths)).rstrip()
            print(line + (f"  ({textfiles.printable(answer_row.note, 120)})" if answer_row.note else ""))
    else:
        print(f"{len(rows)} launches -> {args.output}")
    return common.OK


def _note_device(model: Any, table: mapping.MetricMapping, launches: list[ncu.Launch], args: argparse.Namespace,
                 values: dict[str, Any]) -> None:
    """Say on stderr where the export's SM count or clock differs from the values the predictions take
    (:mod:`symgpu.kernel.device_match`), each launch's values as its prediction reads them; a launch whose
    metrics do not map (its row says why) is left out."""
    read: list[tuple[ncu.Launch, dict[str, Any]]] = []
    for launch in launches:
        try:
            derived = {d.symbol: d.value for d in mapping.derive(table, model, launch, args.cc)}
        except errors.SymgpuError:
            continue
        read.append((launch, {**derived, **values}))
    said = device_match.note(model, table.prediction, read, args.preset)
    if said:
        print(f"symgpu: note: {said}", file=sys.stderr)


#: subcommand -> run(args) -> exit code.
RUN = {"kernel": run}
