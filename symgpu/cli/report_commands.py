"""The ``symgpu report`` command: Markdown, LaTeX and JSON reports with plots, written atomically."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from symgpu import errors
from symgpu.cli import common
from symgpu.report import comparison, files, render


def setup(sub: Any) -> None:
    """Add the ``report`` subcommand to the CLI's subparsers."""
    p = sub.add_parser("report", help="write a model's report (Markdown, LaTeX, JSON, plots)",
                       description="Render model reports. 'symgpu report --all' regenerates reports/ for every bundled model.")
    p.add_argument("model", nargs="?", help="model id or path to a .toml file")
    p.add_argument("--all", action="store_true", help="every bundled model, into reports/<model>/ (or -o DIR/<model>/)")
    p.add_argument("--preset", "-p", action="append", default=[], help="preset to report (repeatable; default: all)")
    p.add_argument("--format", "-f", choices=("md", "tex", "json", "all"), default="all", help="report format (default: all)")
    p.add_argument("-o", "--output", help="output folder (default: reports/<model>/)")
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
        models, broken = render.loadable_models()
        failed = 0
        for model_id, problem in broken:
            failed += 1
            print(f"FAIL {model_id}: does not load, skipped: {problem}", file=sys.stderr)
        for model in models:
            try:
                report = render.render_report(model, formats=formats, templates=args.templates)
            except errors.UsageError:
                raise
            except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
                failed += 1
                print(f"FAIL {model.id}: report not written: {exc}", file=sys.stderr)
                continue
            written = files.write_files(base / model.id, report.files)
            print(f"ok   {model.id}: {len(written)} files in {_shown(base / model.id)}")
        failed += _comparison_report(base / "comparison", [m.id for m in models])
        return common.FAILED if failed else common.OK
    if not args.model:
        raise errors.UsageError("give a model id (or --all)")
    model = common.load_model(args.model)
    report = render.render_report(model, presets=args.preset or None, formats=formats, templates=args.templates)
    target = _output_folder(args.output) if args.output else render.REPORTS / model.id
    try:
        written = files.write_files(target, report.files)
    except OSError as exc:
        raise errors.UsageError(f"-o {args.output or str(target)!r}: cannot write the report there: {exc.strerror or exc}") from None
    for path in written:
        print(_shown(path))
    return common.OK


def _output_folder(text: str) -> Path:
    """The ``-o`` folder, refused (usage error) when it names an existing file."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise errors.UsageError(f"-o {text!r}: is an existing file, not a folder; give a folder for the report files")
    return folder


def _comparison_report(target: Path, loaded: list[str]) -> int:
    """Write the prior-models comparison (Volkov 2016, Ch. 7) when its models are bundled; 1 on failure."""
    if "volkov_2016" not in loaded or not any(m.startswith("prior_") for m in loaded):
        return 0
    try:
        rendered = comparison.comparison_report(None)
    except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
        print(f"FAIL comparison: report not written: {exc}", file=sys.stderr)
        return 1
    written = files.write_files(target, rendered)
    print(f"ok   comparison: {len(written)} files in {_shown(target)}")
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: subcommand -> run(args) -> exit code.
RUN = {"report": run}
