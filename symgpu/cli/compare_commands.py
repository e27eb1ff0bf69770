"""The ``symgpu diff``, ``symgpu compare`` and ``symgpu report-comparison`` commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from symgpu import compare, errors
from symgpu.cli import common, given_numbers
from symgpu import resources
from symgpu.report import comparison, files


def setup_diff(sub: Any) -> None:
    """Add ``diff MODEL_A MODEL_B [QUANTITY]``."""
    p = sub.add_parser("diff", help="which equations two models define differently; symbolic difference of a shared quantity",
                       description="Compare two models equation by equation (by id): which equations differ first, then, with "
                                   "QUANTITY, its values in both at every shared preset and validation case, then both expanded "
                                   "expressions, the difference A - B and ratio A/B, and where they agree.")
    p.add_argument("model_a", help="model id or path")
    p.add_argument("model_b", help="model id or path")
    p.add_argument("quantity", nargs="?", help="a quantity both models define")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--full", action="store_true", help="print every expression in full (default: lines cut to 200 characters)")


def run_diff(args: argparse.Namespace) -> int:
    """Print the diff; exit 0 (differences are not failures)."""
    a, b = common.load_model(args.model_a), common.load_model(args.model_b)
    result = compare.diff(a, b, args.quantity)
    if args.json:
        print(json.dumps(compare.diff_json(result), indent=2))
    else:  # each model's literal constants as their number and unit (1 warp/SM), where the two models say them alike
        print(given_numbers.spoken(compare.format_diff(result, full=args.full), constants_of_both(a, b)))
    return common.OK


def constants_of_both(a: Any, b: Any) -> tuple[tuple[str, str], ...]:
    """The literal constants of ``a`` and ``b`` (:func:`given_numbers.model_constants`), each name once; a name the two
    models give different numbers or units is left as its name."""
    said: dict[str, str] = {}
    clash: set[str] = set()
    for name, text in (*given_numbers.model_constants(a), *given_numbers.model_constants(b)):
        if said.setdefault(name, text) != text:
            clash.add(name)
    return tuple((name, text) for name, text in said.items() if name not in clash)


def setup_compare(sub: Any) -> None:
    """Add ``compare MODEL_A MODEL_B QUANTITY --over VAR=START:STOP[:STEP] ...``."""
    p = sub.add_parser("compare", help="ratio of two models' predictions of a quantity over a sweep",
                       description="Evaluate QUANTITY in both models over the grid of the --over variables and report "
                                   "the ratio B/A, its minimum and maximum and where they occur.")
    p.add_argument("model_a")
    p.add_argument("model_b")
    p.add_argument("quantity")
    common.add_value_options(p)
    p.add_argument("--over", action="append", default=[], metavar="VAR=START:STOP[:STEP]",
                   help="sweep variable in its declared unit (repeatable, at most two for --plot)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--plot", metavar="FILE", help="write a plot (.svg, .png or .pdf): 1 variable -> predictions and ratio, 2 -> ratio heat map")


def _values(models: list[Any], items: list[str], preset: str | None, swept: Sequence[str] = ()) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in items:
        name = item.partition("=")[0].strip()
        owner = next((m for m in models if name in m.symbols), None)
        if owner is None:
            raise errors.UsageError(f"--set {item!r}: neither {models[0].id} nor {models[1].id} declares '{name}'")
        values.update(common.parse_assignments(owner, [item]))
    return _across_the_clock(models, values, preset, swept)


def _across_the_clock(models: list[Any], values: dict[str, Any], preset: str | None, swept: Sequence[str] = ()) -> dict[str, Any]:
    """``--set`` values given as a time for a symbol in cycles (or the reverse) moved across the clock as the other
    commands' are (:func:`symgpu.cli.common.across_the_clock`: the clock at the preset, said on stderr), by each model
    that declares the symbol; refused where the two models count it at different clocks, or where the clock is one of
    the ``swept`` (``--over``) variables."""
    by_model = [(m, common.across_the_clock(m, {k: v for k, v in values.items() if k in m.symbols}, None, preset=preset, swept=swept)[0])
                for m in models]
    moved: dict[str, Any] = dict(values)
    for name, given in values.items():
        answers = [(m, own[name]) for m, own in by_model if name in own]
        if any(a[1] != answers[0][1] for a in answers):
            (first, at_first), (second, at_second) = answers[0], answers[1]
            raise errors.UsageError(f"--set {name}={given:~}: {first.id} counts it as {at_first:~.10g} and {second.id} as "
                                    f"{at_second:~.10g} (their clocks differ): give {name} in {first.unit_text(name)}")
        moved[name] = answers[0][1]
    return moved


def run_compare(args: argparse.Namespace) -> int:
    """Run the sweep; print a summary or JSON; optionally write the plot."""
    a, b = common.load_model(args.model_a), common.load_model(args.model_b)
    for model in (a, b) if a.id != b.id else (a,):
        common.note_combined_preset(model, args.preset)
    over = [compare.parse_range(text) for text in args.over]
    if args.plot and len(over) not in (1, 2):
        raise errors.UsageError("--plot needs one or two --over variables")
    result = compare.sweep(a, b, args.quantity, preset=args.preset, values=_values([a, b], args.set, args.preset, [name for name, _ in over]), over=over)
    if args.plot:
        kind = Path(args.plot).suffix.lstrip(".").lower() or "svg"
        if kind not in ("svg", "png", "pdf"):
            raise errors.UsageError(f"--plot {args.plot!r}: use a .svg, .png or .pdf file name")
        common.write_plot(args.plot, comparison.plot_sweep(result, kind))
    if args.json:
        print(json.dumps(compare.sweep_json(result)))
    else:
        print(compare.format_sweep(result))
        if args.plot:
            print(f"plot written to {args.plot}")
    return common.OK


def setup_report(sub: Any) -> None:
    """Add ``report-comparison [-o DIR]``."""
    p = sub.add_parser("report-comparison", help="write the prior-models comparison report (Markdown + SVG)",
                       description="Compare every bundled prior_* model with volkov_2016 (Volkov 2016, Ch. 7): error "
                                   "factors over alpha = 1..512 and n = 1..n_max, needed-occupancy curves.")
    p.add_argument("-o", "--output", help="output folder (default: reports/comparison/)")
    p.add_argument("--models", nargs="*", help="prior model ids (default: all bundled prior_* models)")


def run_report(args: argparse.Namespace) -> int:
    """Render and write the report."""
    rendered = comparison.comparison_report(args.models or None)
    target = Path(args.output) if args.output else resources.reports() / "comparison"
    written = files.write_files(target, rendered)
    print(f"ok   prior models comparison: {len(written)} files in {target}", file=sys.stderr)
    return common.OK


def setup(sub: Any) -> None:
    """Add the diff, compare and report-comparison subcommands."""
    setup_diff(sub)
    setup_compare(sub)
    setup_report(sub)


#: subcommand -> run(args) -> exit code.
RUN = {"diff": run_diff, "compare": run_compare, "report-comparison": run_report}
