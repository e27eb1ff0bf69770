"""The ``symgpu report`` command: Markdown, LaTeX and JSON reports with plots, written atomically."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from symgpu import api, errors, resources, textfiles
from symgpu.cli import common
from symgpu.model import loader
from symgpu.model.definition_reader import MODEL_ID
from symgpu import workers
from symgpu.report import comparison, content, figure_digests, files, freshness, kernel_example, render, schedule


def setup(sub: Any) -> None:
    """Add the ``report`` subcommand to the CLI's subparsers."""
    p = sub.add_parser("report", help="write a model's report (Markdown, LaTeX, JSON, plots)",
                       description="Render model reports. 'symgpu report --all' regenerates reports/ for every bundled model.")
    p.add_argument("model", nargs="?", help="model id or path to a .toml file")
    p.add_argument("--all", action="store_true", help="every bundled model, into reports/<model>/ (or -o DIR/<model>/)")
    p.add_argument("--preset", "-p", action="append", default=[], help="preset to report (repeatable; default: all)")
    p.add_argument("--format", "-f", choices=("md", "tex", "json", "all"), default="all", help="report format (default: all)")
    p.add_argument("-o", "--output", help="output folder (default: for a bundled model, the checkout's reports/<model>/; "
                   "for your own model file, ./reports/<model>/ in the current folder, never over a bundled model's report)")
    p.add_argument("--templates", help="folder with templates overriding templates/report.md.j2 and report.tex.j2")
    p.add_argument("--force", action="store_true", help="with --all: render every report, also those whose inputs and "
                   "files are unchanged since they were last rendered (skipped otherwise)")
    p.add_argument("--models", metavar="ID[,ID...]",
                   help="with --all: these models only (comma-separated ids; default: every model in the model folders); "
                        "the comparison is rendered when volkov_2016 and a prior_* model are among them, the kernel example always")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="with --all: render N reports at once, each in a process of its own (default: the number of CPU cores; "
                   "1: one after the other); the files are the same either way")


def run(args: argparse.Namespace) -> int:
    """Render and write the requested reports; see :func:`setup` for the options.

    Returns:
        0 on success, 1 if some bundled model failed to load or render (``--all``), 2 on bad usage.
    """
    formats = tuple(render.FORMATS) if args.format == "all" else (args.format,)
    if args.templates and not Path(args.templates).is_dir():
        raise errors.UsageError(f"--templates {args.templates!r}: no such folder")
    if args.all:
        if args.model:
            raise errors.UsageError("give a model or --all, not both")
        if args.preset:
            raise errors.UsageError("--preset applies to one model; --all reports every preset")
        if args.jobs is not None and args.jobs < 1:
            raise errors.UsageError(f"--jobs {args.jobs}: give the number of reports to render at once, 1 or more")
        ids = _chosen(args.models) if args.models is not None else render.model_ids()
        base = _output_folder(args.output) if args.output else render.REPORTS
        try:
            base.mkdir(parents=True, exist_ok=True)  # fail before minutes of rendering, not after
        except OSError as exc:
            raise errors.UsageError(f"-o {str(base)!r}: cannot write the reports there: {exc.strerror or exc}") from None
        return _report_all(args, base, formats, ids)
    if not args.model:
        raise errors.UsageError("give a model id (or --all)")
    if args.models is not None:
        raise errors.UsageError("--models applies to --all (give the one model as the argument)")
    if args.jobs is not None:
        raise errors.UsageError("--jobs applies to --all (one model's report is rendered in this process)")
    model = common.load_model(args.model, whole=True)
    target = _output_folder(args.output) if args.output else default_folder(model)
    where = f"-o {args.output or str(target)!r}: cannot write the report there"
    try:
        target.mkdir(parents=True, exist_ok=True)  # fail before rendering, not after
    except OSError as exc:
        raise errors.UsageError(f"{where}: {exc.strerror or exc}") from None
    report = render.render_report(model, presets=args.preset or None, formats=formats, templates=args.templates)
    try:
        written = files.write_files(target, report.files)
    except OSError as exc:
        raise errors.UsageError(f"{where}: {exc.strerror or exc}") from None
    for path in written:
        print(_shown(path))
    return common.OK


def _chosen(text: str) -> list[str]:
    """The ``--models`` ids, sorted, each once.

    Raises:
        errors.UsageError: none given, or an id no model folder has.
    """
    ids = sorted({part.strip() for part in text.split(",") if part.strip()})
    if not ids:
        raise errors.UsageError("--models: give model ids separated by commas, e.g. --models roofline,volkov_2016")
    unknown = [m for m in ids if not MODEL_ID.match(m) or loader.find(m) is None]
    if unknown:
        raise errors.UsageError(f"--models: unknown model {textfiles.printable(unknown[0], 200)!r} "
                                f"(models: {textfiles.listing(loader.list_models()) or 'none'}); give ids of models in the model folders")
    return ids


def _report_all(args: argparse.Namespace, base: Path, formats: tuple[str, ...], ids: list[str]) -> int:
    """``report --all``: the reports of the models ``ids``, the comparison and the kernel example into ``base``.

    A report whose inputs and written files are unchanged since it was last rendered is
    skipped (:mod:`symgpu.report.freshness`; ``--force`` renders it anyway), decided from the
    files alone: no model is built for it. The others are rendered into memory first and
    written in one step at the end (:func:`files.write_run`), so Ctrl-C or a crash part-way
    leaves the previous reports intact; only then are they recorded as up to date.
    """
    seen = freshness.InputFiles()  # each input file read once for all the digests
    inputs: dict[str, freshness.Inputs | None] = {m: freshness.model_inputs(m, formats, args.templates, files=seen) for m in ids}
    inputs["comparison"] = freshness.folder_inputs("comparison", formats, comparison.model_ids(), templates=args.templates,
                                                   files=seen)
    inputs[kernel_example.FOLDER] = freshness.folder_inputs(kernel_example.FOLDER, formats, *kernel_example.sources(),
                                                            templates=args.templates, files=seen)
    skipped = [f for f, found in inputs.items() if not args.force and freshness.up_to_date(base / f, found)]
    stale = [m for m in ids if m not in skipped]
    # NOTE: with --force every figure is drawn again (no figure book read), else unchanged figures are kept
    tasks: list[workers.Task] = [(m, _render_model, (m, formats, args.templates, None if args.force else base / m)) for m in stale]
    # NOTE: the comparison is rendered beside the models; it is kept only if its models load (below)
    if "comparison" not in skipped and _comparison_wanted(ids):
        tasks.append(("comparison", _comparison_report, (None if args.force else base / "comparison",)))
    if kernel_example.FOLDER not in skipped:
        tasks.append((kernel_example.FOLDER, _kernel_task, (formats,)))

    def started(index: int, name: str) -> None:
        if name == "comparison":
            print("rendering the prior-models comparison", file=sys.stderr, flush=True)
        elif name == kernel_example.FOLDER:
            print("rendering the kernel worked example", file=sys.stderr, flush=True)
        else:
            print(f"[{index}/{len(stale)}] rendering {name}", file=sys.stderr, flush=True)

    # longest first (the previous run's times, else a rough estimate from the model files)
    estimates = {m: schedule.model_units(m, seen) for m in stale}
    estimates["comparison"] = schedule.figure_units(comparison.model_ids()[1:], 2, seen)
    estimates[kernel_example.FOLDER] = schedule.figure_units(kernel_example.sources()[0], 1, seen)
    # a variant after its bases, which store the derivations it shares with them
    after = {m: schedule.bases(m, seen) for m in stale}
    order = schedule.longest_first([name for name, _, _ in tasks], estimates, schedule.previous(), after)
    seconds: dict[str, float] = {}
    if stale:
        render.warm_templates(formats, args.templates)  # compiled once, here: the forked workers share them
    outcomes = dict(workers.run(tasks, args.jobs or workers.default_workers(), started, order=order, seconds=seconds, after=after))
    schedule.record(seconds)
    broken = [m for m in stale if outcomes[m].broken]
    if "comparison" in outcomes and not _comparison_wanted([m for m in ids if m not in broken]):
        del outcomes["comparison"]  # a model it compares does not load: no comparison, as without it
    rendered: dict[str, dict[str, bytes]] = {}
    failed = 0
    for name, _, _ in tasks:
        if name not in outcomes:
            continue
        outcome = outcomes[name]
        if outcome.message:
            print(outcome.message, file=sys.stderr)
        failed += outcome.failed
        if outcome.files:
            rendered[name] = outcome.files
    try:
        written = files.write_run(base, rendered) if rendered else []
    except OSError as exc:
        raise errors.UsageError(f"-o {str(base)!r}: cannot write the reports there: {exc.strerror or exc}") from None
    for folder, made in rendered.items():
        found = inputs.get(folder)
        if found is not None:
            freshness.record(found, made)
    print(f"reports in {_shown(base)}: {len(rendered)} rendered, {len(skipped)} up to date (skipped"
          + ("; --force renders them again" if skipped else "") + ")" + (f", {failed} failed" if failed else ""))
    for folder in sorted([*rendered, *skipped]):
        if folder in rendered:
            count = sum(1 for path in written if path.parent == base / folder)
            print(f"ok   {folder}: {count} files in {_shown(base / folder)}")
        else:
            print(f"ok   {folder}: up to date (skipped)")
    return common.FAILED if failed else common.OK


def _output_folder(text: str) -> Path:
    """The ``-o`` folder, refused (usage error) when it names an existing file."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise errors.UsageError(f"-o {text!r}: is an existing file, not a folder; give a folder for the report files")
    return folder


def default_folder(model: Any) -> Path:
    """Where a report goes without ``-o``: a bundled model's into the checkout's ``reports/<id>/``;
    a user's own model file into ``./reports/<id>/`` of the current folder.

    Raises:
        errors.UsageError: that folder is a bundled model's committed report (a user's model
            with a bundled id, run from the checkout), which it would overwrite.
    """
    if content.origin(model)["bundled"]:
        return render.REPORTS / model.id
    target = Path.cwd() / "reports" / model.id
    if target.resolve() == (render.REPORTS / model.id).resolve() and model.id in loader.list_models(resources.equations()):
        raise errors.UsageError(f"{model.path}: its id '{model.id}' is a bundled model's, and ./reports/{model.id}/ is that model's "
                                f"report; give a folder with -o, e.g. -o my_reports/{model.id}")
    return target


@dataclass(frozen=True)
class _Outcome:
    """What rendering one report folder gave: its files (none if it failed), 1 if it failed,
    the line to print about it, and whether its model does not load."""

    files: dict[str, bytes]
    failed: int = 0
    message: str = ""
    broken: bool = False


def _render_model(model_id: str, formats: tuple[str, ...], templates: str | None, folder: Path | None) -> _Outcome:
    """One bundled model's report in memory (a task of :func:`workers.run`); figures whose inputs
    are unchanged kept from ``folder``'s figure book (None: every figure drawn; the book is written either way).

    Raises:
        errors.UsageError: a template problem (every report would fail alike).
    """
    try:
        model = api.load(model_id, whole=True)
    except errors.SymgpuError as exc:
        return _Outcome({}, 1, f"FAIL {model_id}: does not load, skipped: {exc}", broken=True)
    try:
        book = figure_digests.Book.read(folder) if folder is not None else figure_digests.Book(None)
        return _Outcome(render.render_report(model, formats=formats, templates=templates, figures=book).files)
    except errors.UsageError:
        raise
    except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
        return _Outcome({}, 1, f"FAIL {model_id}: report not written: {exc}")


def _comparison_wanted(loaded: list[str]) -> bool:
    """Whether the prior-models comparison is rendered: its reference and a prior model load."""
    return "volkov_2016" in loaded and any(m.startswith("prior_") for m in loaded)


def _comparison_report(folder: Path | None) -> _Outcome:
    """The prior-models comparison (Volkov 2016, Ch. 7) in memory; plots whose inputs are
    unchanged kept from ``folder``'s figure book (None: every plot drawn)."""
    book = figure_digests.Book.read(folder) if folder is not None else figure_digests.Book(None)
    try:
        return _Outcome(comparison.comparison_report(None, figures=book))
    except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
        return _Outcome({}, 1, f"FAIL comparison: report not written: {exc}")


def _kernel_task(formats: tuple[str, ...]) -> _Outcome:
    """:func:`kernel_example_files` as a task of :func:`workers.run` (its FAIL line printed where it runs)."""
    made, failed = kernel_example_files(formats)
    return _Outcome(made, failed)


def kernel_example_files(formats: tuple[str, ...]) -> tuple[dict[str, bytes], int]:
    """The kernel worked example (Markdown and LaTeX) in memory, and 1 if it failed (0 otherwise)."""
    try:
        return kernel_example.render(tuple(f for f in formats if f in kernel_example.TEMPLATES)), 0
    except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
        print(f"FAIL {kernel_example.FOLDER}: report not written: {exc}", file=sys.stderr)
        return {}, 1


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: subcommand -> run(args) -> exit code.
RUN = {"report": run}
