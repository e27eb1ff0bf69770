"""The one matplotlib style of symgpu's figures: the Agg backend, and rcParams and metadata that
make SVG/PDF output reproducible byte for byte. Every figure symgpu draws goes through here.

matplotlib is imported when a figure is first drawn (``style.pyplot``, PEP 562), not when a
module that can draw is imported: ``symgpu sweep`` without ``--plot`` never loads it."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

from symgpu.memo import memoised


def __getattr__(name: str) -> Any:
    """``pyplot`` (matplotlib's, the Agg backend chosen first) and :class:`PlainLogFormatter`,
    imported on first use."""
    if name == "pyplot":
        return _pyplot()
    if name == "PlainLogFormatter":
        return _formatter_type()
    raise AttributeError(f"module 'symgpu.report.style' has no attribute {name!r}")


def _pyplot() -> Any:
    # NOTE: function-level imports on purpose: matplotlib costs about a second of start-up
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot  # noqa: PLC0415 - the backend must be chosen first

    return pyplot


#: rcParams that make SVG/PDF output reproducible byte for byte.
RC = {
    "svg.hashsalt": "symgpu",
    "svg.fonttype": "path",
    "pdf.fonttype": 3,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "path.simplify": False,
}


#: File metadata without dates (so regenerated files are identical).
METADATA = {
    "svg": {"Date": None, "Creator": "symgpu"},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "symgpu", "Producer": "symgpu"},
    "png": {"Software": "symgpu"},
}


@dataclass(frozen=True)
class Look:
    """How a figure is saved: log-axis tick labels in plain text (:func:`plain_log_labels`; False:
    matplotlib's mathtext) and SVG text as glyph paths (``svg_fonttype`` ``"path"``; ``"none"``:
    as text). :data:`LOOK` is symgpu's; benchmarks time the others."""

    plain_log_labels: bool = True
    svg_fonttype: str = "path"


#: symgpu's look (what every report is drawn with)
LOOK = Look()


def figures(look: Look = LOOK) -> Any:
    """``with style.figures():`` draws under symgpu's rcParams (SVG text as ``look`` says)."""
    rc = RC if look.svg_fonttype == RC["svg.fonttype"] else {**RC, "svg.fonttype": look.svg_fonttype}
    return _pyplot().rc_context(rc)  # type: ignore[arg-type]  # matplotlib types rc keys as Literals


#: Superscript digits and minus, for exponents written without mathtext.
_SUPERSCRIPT = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")
#: A log-axis tick label as matplotlib writes it in mathtext: ``$\\mathdefault{[c\\times]b^{e}}$`` or ``$\\mathdefault{v}$``.
_MATHTEXT_LABEL = re.compile(r"\$\\mathdefault\{(?:([0-9.]+)\\times)?([0-9.]+)(?:\^\{(-?[0-9]+)\})?\}\$")


def plain_label(text: str) -> str:
    """A log-axis tick label in plain text (``$\\mathdefault{10^{-3}}$`` -> ``10\u207b\u00b3``); any other text unchanged."""
    match = _MATHTEXT_LABEL.fullmatch(text)
    if not match:
        return text
    coefficient, base, exponent = match.groups()
    return (f"{coefficient}\u00d7" if coefficient else "") + base + (exponent.translate(_SUPERSCRIPT) if exponent else "")


@memoised("report.style.formatter_type", 1)
def _formatter_type() -> Any:
    from matplotlib import ticker  # noqa: PLC0415 - see _pyplot

    class PlainLogFormatter(ticker.Formatter):
        """A log axis's own formatter (which ticks get a label, and its value) with the label
        written as plain text instead of mathtext.

        NOTE: matplotlib parses each mathtext label afresh for every renderer (its parse cache
        belongs to the renderer's parser), about 15 ms a label, in every figure and in both its
        SVG and its PDF; plain text with superscript digits reads the same and costs nothing.
        """

        def __init__(self, inner: ticker.Formatter) -> None:
            self.inner = inner

        def set_axis(self, axis: Any) -> None:
            super().set_axis(axis)
            self.inner.set_axis(axis)

        def set_locs(self, locs: Any) -> None:
            self.inner.set_locs(locs)

        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_label(self.inner(x, pos))

        def format_ticks(self, values: Any) -> list[str]:
            return [plain_label(text) for text in self.inner.format_ticks(values)]

        def format_data(self, value: float) -> str:
            return plain_label(self.inner.format_data(value))

        def format_data_short(self, value: float) -> str:
            return self.inner.format_data_short(value)

        def get_offset(self) -> str:
            return plain_label(self.inner.get_offset())

    return PlainLogFormatter


def plain_log_labels(fig: Any) -> None:
    """Give every log axis of ``fig`` plain-text tick labels (:class:`PlainLogFormatter`);
    call it once the scales are set, before the layout is computed."""
    from matplotlib import ticker  # noqa: PLC0415 - see _pyplot

    formatter = _formatter_type()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            if isinstance(axis.get_major_formatter(), ticker.LogFormatterMathtext):
                axis.set_major_formatter(formatter(axis.get_major_formatter()))
            if isinstance(axis.get_minor_formatter(), ticker.LogFormatterMathtext):
                axis.set_minor_formatter(formatter(axis.get_minor_formatter()))


def save(fig: Any, kind: str, *, tight: bool = False, look: Look = LOOK) -> bytes:
    """``fig`` as ``kind`` (svg, pdf, png) bytes with date-free metadata (log axes labelled
    in plain text, :func:`plain_log_labels`, unless ``look`` says otherwise)."""
    if look.plain_log_labels:
        plain_log_labels(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=kind, metadata=METADATA.get(kind, {}), **({"bbox_inches": "tight"} if tight else {}))
    return buffer.getvalue()
