"""The ``symgpu kernel`` command: compiler resource usage + launch + compute capability -> occupancy,
and optionally Nsight Compute metrics -> a model's prediction next to the measured time."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from symgpu import errors
from symgpu.cli import common
from symgpu.evaluate import occupancy
from symgpu.kernel import answer, mapping, ncu, resources


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
    p.add_argument("--threads", "-t", type=int, required=True, help="threads per block of the launch")
    p.add_argument("--dynamic-smem", type=int, default=0, help="dynamic shared memory per block in bytes (default 0)")
    p.add_argument("--cc", required=True, help="compute-capability preset of the occupancy model, e.g. cc_9_0")
    p.add_argument("--ncu", help="Nsight Compute export (ncu --csv --page raw)")
    p.add_argument("--launch", help="ID of the launch in the export (default: the kernel's first launch)")
    p.add_argument("--model", "-m", help="model to predict with, e.g. hong_kim_2009 (needs --ncu and a metric mapping)")
    common.add_value_options(p)


def run(args: argparse.Namespace) -> int:
    """Print the occupancy answer and, with ``--model``, the prediction; exit 0, or 2 on bad input."""
    if args.threads <= 0 or args.dynamic_smem < 0:
        raise errors.UsageError("--threads must be positive and --dynamic-smem non-negative")
    kernel = resources.select(resources.read(args.resources), args.kernel)
    result = answer.answer(kernel, args.cc, args.threads, args.dynamic_smem)
    print("\n".join(answer.lines(result)))
    if args.model is None:
        if args.ncu:
            raise errors.UsageError("--ncu needs --model (hong_kim_2009 or volkov_2016) to map the metrics onto")
        return common.OK
    if not args.ncu:
        raise errors.UsageError("--model needs --ncu (the Nsight Compute export whose metrics feed the model)")
    model = common.load_model(args.model)
    table = mapping.load(model)
    launch = ncu.select(ncu.read(args.ncu), args.kernel if args.launch is None else None, args.launch)
    derived = mapping.derive(table, model, launch)
    values: dict[str, Any] = {d.symbol: d.value for d in derived}
    print(f"model {model.id}: inputs from {launch.origin} ({launch.kernel}) via {table.path}")
    for d in derived:
        used = ", ".join(f"{name} = {q.magnitude:g} {q.units:~}".rstrip() for name, q in d.metrics)
        line = f"  {d.symbol} = {d.value.magnitude:.6g} {d.value.units:~}  <- {d.expression}  [{used}]"
        if len(line) <= LINE:
            print(line)
        else:
            print(f"  {d.symbol} = {d.value.magnitude:.6g} {d.value.units:~}  <- {d.expression}")
            print("\n".join(textwrap.wrap(used, width=LINE, initial_indent="      from ", subsequent_indent="      ")))
    if model.id in occupancy.TARGETS and args.preset:
        if not result.can_launch:
            raise errors.DomainError(f"{kernel.display_name}: the block cannot launch on {args.cc}; {model.id} has no prediction")
        occ = occupancy.occupancy_chain(model, args.cc, args.threads, kernel.registers, result.smem_per_block,
                                        extra=answer.launch_barriers(kernel)).values
        for name, value in occ.items():
            where = f"occupancy ({args.cc}, {kernel.registers} reg/thread, {result.smem_per_block} B/block)"
            if name in values:  # the profiler's (achieved) value stands; the theoretical one is shown
                print(f"  ({name} = {value.magnitude:g} {value.units:~} by {where}; the measured value above is used)")
                continue
            print(f"  {name} = {value.magnitude:g} {value.units:~}  <- {where}")
            values[name] = value
    for item in args.set:
        name, _, raw = item.partition("=")
        values[name.strip()] = raw.strip()
    if not table.prediction:
        print(f"  ({table.path} names no prediction quantity)")
        return common.OK
    predicted = model.evaluate(table.prediction, preset=args.preset, values=values)
    print(f"  prediction: {table.prediction} = {predicted.magnitude:.6g} {predicted.units:~}")
    for metric in ("sm__cycles_elapsed.avg", "gpu__time_duration.sum"):
        if metric in launch.metrics:
            q = launch.metrics[metric]
            print(f"  measured:   {metric} = {q.magnitude:.6g} {q.units:~}")
    try:
        comparisons = mapping.compare(table, launch, predicted)
    except errors.UsageError as exc:  # the prediction stands; the export cannot be compared with it
        print("\n".join(textwrap.wrap(f"not compared: {exc}", width=LINE, initial_indent="  ", subsequent_indent="    ")))
        return common.OK
    for compared in comparisons:
        c = compared.comparison
        print(f"  predicted {compared.predicted.magnitude:.6g} vs measured {compared.measured.magnitude:.6g} {c.unit}: "
              f"ratio {compared.ratio:.3g}  [{c.predicted_text} vs {c.measured_text}]")
    return common.OK


#: subcommand -> run(args) -> exit code.
RUN = {"kernel": run}
