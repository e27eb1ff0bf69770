"""The one matplotlib style of symgpu's figures: the Agg backend, and rcParams and metadata that
make SVG/PDF output reproducible byte for byte. Every figure symgpu draws goes through here."""

from __future__ import annotations

import io
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as pyplot  # noqa: E402,F401 - the backend must be chosen first; used as style.pyplot


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


def figures() -> Any:
    """``with style.figures():`` draws under symgpu's rcParams."""
    return pyplot.rc_context(RC)  # type: ignore[arg-type]  # matplotlib types rc keys as Literals


def save(fig: Any, kind: str, *, tight: bool = False) -> bytes:
    """``fig`` as ``kind`` (svg, pdf, png) bytes with date-free metadata."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=kind, metadata=METADATA.get(kind, {}), **({"bbox_inches": "tight"} if tight else {}))
    return buffer.getvalue()
