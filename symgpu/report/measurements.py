"""The report section "Model vs measurement": one table and one SVG plot per ``[[measurements]]`` entry.

Each entry names a measured-data CSV in the repository (units in the headers), the compared
quantity and the preset; :func:`sections` compares the model with it
(:func:`symgpu.measure.compare.compare`) and :func:`figure` draws the model curves, the
measured points and both knees, as SVG (Markdown report) and on request PDF (LaTeX report).
Both are deterministic (fixed hash salt, no date).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any


from symgpu import errors, resources
from symgpu.measure import compare, data
from symgpu.model import Model, schema
from symgpu.report import figure_digests, figure_sketch, style


@dataclass(frozen=True)
class MeasurementSection:
    """One model-vs-measurement comparison for the report.

    Attributes:
        request: the ``[[measurements]]`` entry.
        comparison: the comparison (errors and knees per series).
        comments: provenance lines of the data file.
        svg_name: file name of the plot.
        svg: the plot as SVG bytes.
        pdf: the plot as PDF bytes (empty unless asked for), file name :attr:`pdf_name`.
    """

    request: schema.MeasurementRequest
    comparison: compare.Comparison
    comments: tuple[str, ...]
    svg_name: str
    svg: bytes
    pdf: bytes = b""

    @property
    def pdf_name(self) -> str:
        """File name of the PDF plot (the SVG's, with ``.pdf``)."""
        return self.svg_name.removesuffix(".svg") + ".pdf"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record for the report context."""
        c = self.comparison
        return {
            "id": self.request.id, "data": self.request.data, "quantity": c.quantity, "unit": c.unit_text,
            "variable": c.variable, "variable_unit": c.variable_unit, "preset": c.preset,
            "caption": self.request.caption, "provenance": list(self.comments),
            "source": {"ref": self.request.source.ref, "locator": self.request.source.locator},
            "rms_relative": round(c.rms_relative, 3), "max_relative": round(c.max_relative, 3),
            "plot": self.svg_name, "plot_pdf": self.pdf_name,
            "series": [{"label": s.label, "points": len(s.x), "rms_relative": round(s.rms_relative, 3),
                        "max_relative": round(s.max_relative, 3),
                        "knee_measured": None if s.knee_measured is None else round(s.knee_measured, 1),
                        "knee_model": None if s.knee_model is None else round(s.knee_model, 1)} for s in c.series],
        }


def load_data(request: schema.MeasurementRequest) -> data.MeasuredData:
    """Read the entry's data file and apply its ``where`` filters."""
    measured = data.read_csv(resources.measured_file(request.data))
    measured = replace(measured, path=request.data)
    for column, value in request.where:
        measured = measured.where(column, value)
    return measured


def sections(model: Model, stem: str | None = None, *, pdf: bool = False,
             book: figure_digests.Book | None = None) -> list[MeasurementSection]:
    """Compare ``model`` with every ``[[measurements]]`` entry of its file.

    Args:
        model: the model.
        stem: base of the plot file names (default: the model id).
        pdf: draw each plot as PDF too (for the LaTeX report).
        book: the report folder's figure book: plots drawn from unchanged inputs are kept.

    Raises:
        errors.UsageError: an entry names a missing column, preset or quantity.
    """
    out = []
    for request in model.definition.measurements:
        measured = load_data(request)
        try:
            comparison = compare.compare(model, request.quantity, measured, variable=request.variable or None,
                                         preset=request.preset or None, column=request.column or None)
        except errors.SymgpuError as exc:
            raise errors.UsageError(f"{model.id}: measurements {request.id}: {exc}") from None
        name = f"{stem or model.id}_measured_{request.id}.svg"
        names = {"svg": name, "pdf": name.removesuffix(".svg") + ".pdf"}
        drawn = figures(comparison, ["svg", "pdf"] if pdf else ["svg"], names, book)
        out.append(MeasurementSection(request, comparison, measured.comments, name, drawn["svg"], drawn.get("pdf", b"")))
    return out


def figure(comparison: compare.Comparison, kind: str = "svg") -> bytes:
    """Model curves (lines), measured points (markers) and knees (dotted: model, dashed: measured),
    as ``kind`` (svg or pdf) bytes."""
    return figures(comparison, [kind])[kind]


def figures(comparison: compare.Comparison, kinds: Sequence[str], names: Mapping[str, str] | None = None,
            book: figure_digests.Book | None = None) -> dict[str, bytes]:
    """:func:`figure` drawn once and saved as each of ``kinds`` (kind -> bytes); with ``book`` and
    ``names`` (kind -> file name), kept from the report folder when drawn from the same inputs."""
    with figure_sketch.figures():
        sketch = figure_sketch.Sketch("subplots figsize=(6.4, 4.2)", lambda: style.pyplot.subplots(figsize=(6.4, 4.2)))
        ax = sketch.axes()
        colors = figure_sketch.cycle_colors()
        for index, s in enumerate(comparison.series):
            color = colors[index % len(colors)]
            ax.plot(s.curve_x, s.curve, color=color, linewidth=1.4, label=f"model, {s.label} (RMS {s.rms_relative:.1%})")
            ax.plot(s.x, s.measured, linestyle="none", marker="o", markersize=2.5, color=color, alpha=0.8)
            if s.knee_model is not None:
                ax.axvline(s.knee_model, color=color, linestyle=":", linewidth=0.9)
            if s.knee_measured is not None:
                ax.axvline(s.knee_measured, color=color, linestyle="--", linewidth=0.9)
        ax.set_xlabel(f"{comparison.variable} [{comparison.variable_unit}]")
        ax.set_ylabel(f"{comparison.quantity} [{comparison.unit_text}]")
        preset = f", preset {comparison.preset}" if comparison.preset else ""
        ax.set_title(f"{comparison.model_id}: model (lines) vs measured (dots){preset}", fontsize=8)
        ax.legend(fontsize=6, loc="upper left")
        return sketch.finish(kinds, names, book, layout=False)


def markdown_lines(section: MeasurementSection) -> list[str]:
    """The section as Markdown (table, plot link, caption), for templates that lack it."""
    c = section.comparison
    lines = [f"### {section.request.id}: {c.quantity} vs `{section.request.data}`", "",
             f"![{section.request.id}]({section.svg_name})", "",
             f"| series | points | RMS rel. error | max rel. error | knee measured [{c.variable_unit}] | knee model [{c.variable_unit}] |",
             "|---|---|---|---|---|---|"]
    for s in c.series:
        knee_m = "-" if s.knee_measured is None else f"{s.knee_measured:.1f}"
        knee_p = "-" if s.knee_model is None else f"{s.knee_model:.1f}"
        lines.append(f"| {s.label} | {len(s.x)} | {s.rms_relative:.1%} | {s.max_relative:.1%} | {knee_m} | {knee_p} |")
    lines += ["", section.request.caption, ""]
    return lines
