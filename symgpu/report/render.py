"""Rendering a model's report: plots drawn and every format rendered into memory (nothing written until :mod:`symgpu.report.files`)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
import jinja2

from symgpu import errors
from symgpu.model import loader
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu import resources
from symgpu.report import content, figure_digests, measurements, plot_specs, plots
from symgpu.report.scenarios import scrub
from symgpu.report.templates import render_template, shared_environment


#: Where ``symgpu report --all`` writes (one folder per model).
REPORTS = resources.reports()


#: Report formats and their template names (``json`` needs no template).
FORMATS = {"md": "report.md.j2", "tex": "report.tex.j2", "json": ""}


#: Plot file type per report format: SVG next to Markdown, PDF next to LaTeX.
PLOT_TYPES = {"md": "svg", "tex": "pdf"}


# ============================================================================ rendering
@dataclass
class Report:
    """Rendered report files, in memory: file name -> bytes (nothing written yet)."""

    model: str
    files: dict[str, bytes] = field(default_factory=dict)


def render_report(model: Model, *, presets: Sequence[str] | None = None, formats: Iterable[str] = ("md", "tex", "json"),
                  templates: str | os.PathLike[str] | None = None, stem: str | None = None,
                  draw_plots: bool = True, figures: figure_digests.Book | None = None) -> Report:
    """Render one model's report in the requested formats, plots included, into memory.

    Args:
        model: the model.
        presets: preset ids (default all).
        formats: any of ``md``, ``tex``, ``json``.
        templates: folder overriding the bundled templates.
        stem: base file name (default: the model id).
        draw_plots: write plot images; ``False`` still evaluates every plot (its marks and
            availability are part of the report) but produces no image files (used by tests).

    Raises:
        errors.UsageError: unknown preset or format, or a template problem.
    """
    formats = [f for f in FORMATS if f in set(formats)]
    stem = stem or model.id
    report = Report(model.id)
    outcomes = content.run_derivations(model)  # the marks are the derivations' own: a failed expect marks nothing
    specs = plot_specs.plan(model, presets, missed=content.expect_misses(model, outcomes))
    drawn = []
    for spec in specs:
        entry = spec.describe(stem)
        try:
            images = plots.draw(model, spec, [PLOT_TYPES[f] for f in formats if f in PLOT_TYPES] if draw_plots else [],
                                entry["files"], figures)
        except (errors.SymgpuError, ValueError, ArithmeticError, TypeError) as exc:
            entry["available"] = False
            entry["reason"] = scrub(f"{type(exc).__name__}: {exc}")
            entry["files"] = {}
        else:
            entry["marks"] = [m.as_dict() for m in spec.resolved_marks]
            entry["points"] = [p.as_dict() for p in spec.points]
            for kind, data in images.items():
                report.files[entry["files"][kind]] = data
        drawn.append(entry)
    context = content.build_context(model, presets, plots=drawn, outcomes=outcomes)
    found = measurements.sections(model, stem, pdf=draw_plots and "tex" in formats, book=figures if draw_plots else None)
    if found:
        context["measurements"] = [m.as_dict() for m in found]
    report.files.update({m.svg_name: m.svg for m in found if draw_plots and "md" in formats})
    report.files.update({m.pdf_name: m.pdf for m in found if m.pdf})
    for fmt in formats:
        if fmt == "json":
            text = json.dumps(context, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        else:
            text = render_template(shared_environment(fmt, str(templates) if templates else None), FORMATS[fmt], context)
        report.files[f"{stem}.{fmt}"] = text.encode("utf-8")
    if figures is not None and figures.current:  # a report without figures has no book
        report.files[figure_digests.SIDECAR] = figures.text()
    return report


def warm_templates(formats: Iterable[str], templates: str | os.PathLike[str] | None = None) -> None:
    """Compile the report templates of ``formats`` now (``report --all`` does before it forks its
    workers, which then share them); a template that does not compile is left for the report
    that renders it to report."""
    for fmt in formats:
        if FORMATS.get(fmt):
            with contextlib.suppress(jinja2.TemplateError, errors.UsageError):
                shared_environment(fmt, str(templates) if templates else None).get_template(FORMATS[fmt])


def model_ids() -> list[str]:
    """Ids of the models ``report --all`` reports on: every model in the model folders."""
    return loader.list_models()


def warn(message: str) -> None:
    """Print a one-line message on stderr."""
    print(message, file=sys.stderr)


__all__ = ["FORMATS", "PLOT_TYPES", "REPORTS", "Report", "model_ids", "render_report", "warm_templates", "warn"]
