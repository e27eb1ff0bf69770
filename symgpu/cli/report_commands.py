"""The ``symgpu report`` command: Markdown, LaTeX and JSON reports with plots, written atomically."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from symgpu import errors, resources
from symgpu.cli import common
from symgpu.model import loader
from symgpu.report import comparison, content, files, kernel_example, render


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
        base = _output_folder(args.output) if args.output else render.REPORTS
        try:
            base.mkdir(parents=True, exist_ok=True)  # fail before minutes of rendering, not after
        except OSError as exc:
            raise errors.UsageError(f"-o {str(base)!r}: cannot write the reports there: {exc.strerror or exc}") from None
        models, broken = render.loadable_models()
        failed = 0
        for model_id, problem in broken:
            failed += 1
            print(f"FAIL {model_id}: does not load, skipped: {problem}", file=sys.stderr)
        # NOTE: everything is rendered into memory first and written in one step at the end
        # (files.write_run), so Ctrl-C or a crash part-way leaves the previous reports intact.
        rendered: dict[str, dict[str, bytes]] = {}
        for index, model in enumerate(models, 1):
            print(f"[{index}/{len(models)}] rendering {model.id}", file=sys.stderr, flush=True)
            try:
                rendered[model.id] = render.render_report(model, formats=formats, templates=args.templates).files
            except errors.UsageError:
                raise
            except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
                failed += 1
                print(f"FAIL {model.id}: report not written: {exc}", file=sys.stderr)
        comparison_files, comparison_failed = _comparison_report([m.id for m in models])
        failed += comparison_failed
        if comparison_files:
            rendered["comparison"] = comparison_files
        example_files, example_failed = _kernel_example(formats)
        failed += example_failed
        if example_files:
            rendered[kernel_example.FOLDER] = example_files
        try:
            written = files.write_run(base, rendered)
        except OSError as exc:
            raise errors.UsageError(f"-o {str(base)!r}: cannot write the reports there: {exc.strerror or exc}") from None
        for folder in sorted(rendered):
            count = sum(1 for path in written if path.parent == base / folder)
            print(f"ok   {folder}: {count} files in {_shown(base / folder)}")
        return common.FAILED if failed else common.OK
    if not args.model:
        raise errors.UsageError("give a model id (or --all)")
    model = common.load_model(args.model)
    target = _output_folder(args.output) if args.output else _default_folder(model)
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


def _output_folder(text: str) -> Path:
    """The ``-o`` folder, refused (usage error) when it names an existing file."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise errors.UsageError(f"-o {text!r}: is an existing file, not a folder; give a folder for the report files")
    return folder


def _default_folder(model: Any) -> Path:
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


def _comparison_report(loaded: list[str]) -> tuple[dict[str, bytes], int]:
    """The prior-models comparison (Volkov 2016, Ch. 7) when its models are bundled, in memory,
    and 1 if it failed (0 otherwise)."""
    if "volkov_2016" not in loaded or not any(m.startswith("prior_") for m in loaded):
        return {}, 0
    print("rendering the prior-models comparison", file=sys.stderr, flush=True)
    try:
        return comparison.comparison_report(None), 0
    except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
        print(f"FAIL comparison: report not written: {exc}", file=sys.stderr)
        return {}, 1


def _kernel_example(formats: tuple[str, ...]) -> tuple[dict[str, bytes], int]:
    """The kernel worked example (Markdown and LaTeX) in memory, and 1 if it failed (0 otherwise)."""
    print("rendering the kernel worked example", file=sys.stderr, flush=True)
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
