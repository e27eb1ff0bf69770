"""Figures that need not be redrawn are not: each figure's inputs digest, kept beside it in the report folder.

Drawing a figure is cheap; laying it out and writing it as SVG and PDF (``savefig``) is most
of a cold ``report --all``. So the drawing code talks to its axes and figure through a
:class:`Recorder`, which passes every call on and adds the call (method name, arguments: the
plotted numbers, labels, colours, legend handles) to a SHA-256. With the matplotlib and
FreeType versions, every rcParam in force (symgpu's and a user's matplotlibrc) and symgpu's
file metadata, the figure's size, the file types and
the source of what acts on the figure after the record (:mod:`symgpu.report.style`, this
module), that is the figure's *inputs digest*. :func:`finish` lays out and saves the figure
only when the folder's :class:`Book` has no file drawn from the same digest; else it returns
the bytes already on disk, which are what a redraw would write.

The book is a text file in each report folder (:data:`SIDECAR`), one line per figure file:
its name, its inputs digest and the SHA-256 of its bytes. It is parsed line by line, never
executed; a line out of shape makes the whole file count as absent (every figure is drawn),
and a kept file whose bytes no longer hash as recorded (edited, truncated) is drawn again.

NOTE: a call's arguments are hashed when it is made; code that changes an array after handing
it to matplotlib, or calls methods on the artists a call returns, must not draw through a
recorder (nothing in :mod:`symgpu.report.plots` does). An argument of a type not listed in
:func:`_encode` makes the figure undigestable: it is drawn, as without a book.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from symgpu.memo import memoised
from symgpu.report import style

#: The book's file name in each report folder.
SIDECAR = "figure_digests.txt"
#: Its first line (the format's version).
HEADER = "# symgpu figure digests 1: figure file, SHA-256 of its inputs, SHA-256 of the file"
#: Bounds on what is read back: the book's size, a figure's size.
MAX_SIDECAR_BYTES = 1 << 20
MAX_FIGURE_BYTES = 32 << 20
_LINE = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}) ([0-9a-f]{64}) ([0-9a-f]{64})")


class _Undigestable(Exception):
    """An argument this module cannot hash faithfully: the figure is drawn, not kept."""


# ============================================================================ recording
class Recorder:
    """One figure's calls, hashed as they are made (see the module docstring).

    Use :meth:`axes` and :meth:`figure` to get stand-ins that record each call and then make it.
    """

    def __init__(self, fig: Any, created: str) -> None:
        """``created``: how ``fig`` was made (``subplots`` and its arguments), part of the digest."""
        self._fig = fig
        self._hash = hashlib.sha256()
        self._known: dict[int, str] = {}
        self.undigestable = ""
        self.add("created", created)

    def axes(self, ax: Any, name: str = "ax") -> Any:
        """A stand-in for ``ax`` whose calls are recorded (``name`` tells several axes apart)."""
        self._known[id(ax.transAxes)] = f"{name}.transAxes"
        self._known[id(ax.transData)] = f"{name}.transData"
        return _Stand(self, ax, name)

    def figure(self) -> Any:
        """A stand-in for the figure whose calls are recorded."""
        self._known[id(self._fig.transFigure)] = "fig.transFigure"
        return _Stand(self, self._fig, "fig")

    def key(self, kinds: Sequence[str], finishing: str) -> str | None:
        """The inputs digest of the figure saved as ``kinds`` after ``finishing`` (a description
        of the steps :func:`finish` takes), or None when some call could not be hashed."""
        if self.undigestable:
            return None
        final = self._hash.copy()
        for part in (*_environment(), _rc_params(), ",".join(sorted(set(kinds))), finishing):
            final.update(_text(part))
        return final.hexdigest()

    def add(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Add the call ``name(*args, **kwargs)`` to the digest."""
        if self.undigestable:
            return
        try:
            chunks: list[bytes] = [_text(name)]
            _encode((args, kwargs), chunks, self._known)
        except (_Undigestable, RecursionError) as exc:
            self.undigestable = f"{name}: {exc}"
            return
        for chunk in chunks:
            self._hash.update(chunk)


class _Stand:
    """An axes or figure whose method calls are added to a :class:`Recorder` before being made."""

    def __init__(self, recorder: Recorder, target: Any, name: str) -> None:
        self._recorder = recorder
        self._target = target
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        found = getattr(self._target, attribute)
        if not callable(found):
            # an attribute (ax.xaxis...) changed through would not be recorded
            self._recorder.undigestable = f"{self._name}.{attribute} read"
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            self._recorder.add(f"{self._name}.{attribute}", *args, **kwargs)
            return found(*args, **kwargs)

        return call


def _text(value: str) -> bytes:
    data = value.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(data)) + data


def _encode(value: Any, out: list[bytes], known: Mapping[int, str]) -> None:
    """Append an unambiguous byte form of ``value`` to ``out`` (type tag, then content)."""
    if value is None or isinstance(value, bool):
        out.append(_text(f"const {value!r}"))
    elif isinstance(value, int):
        out.append(_text(f"int {value}"))
    elif isinstance(value, float):
        out.append(b"f" + struct.pack("<d", value))
    elif isinstance(value, str):
        out.append(b"s" + _text(value))
    elif isinstance(value, (tuple, list)):
        out.append(_text(f"{type(value).__name__} {len(value)}"))
        for item in value:
            _encode(item, out, known)
    elif isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _Undigestable("a mapping with keys that are not text")
        out.append(_text(f"dict {len(value)}"))
        for k in sorted(value):
            out.append(_text(k))
            _encode(value[k], out, known)
    elif isinstance(value, np.ma.MaskedArray):
        out.append(_text("masked"))
        _encode(np.ma.getdata(value), out, known)
        _encode(np.ma.getmaskarray(value), out, known)
    elif isinstance(value, (np.ndarray, np.generic)):
        array = np.ascontiguousarray(value)
        if array.dtype.hasobject:
            raise _Undigestable("an array of Python objects")
        out.append(_text(f"array {array.dtype.str} {array.shape}"))
        out.append(array.tobytes())
    elif id(value) in known:
        out.append(_text(f"transform {known[id(value)]}"))
    else:
        _encode_artist(value, out, known)


#: What is hashed of an artist handed to a call (legend handles), by type name: its public getters.
_ARTIST_GETTERS = {
    "Line2D": ("get_xydata", "get_color", "get_linestyle", "get_linewidth", "get_marker", "get_markersize",
               "get_markerfacecolor", "get_markeredgecolor", "get_markeredgewidth", "get_fillstyle", "get_drawstyle",
               "get_label", "get_alpha", "get_zorder", "get_visible"),
    "Patch": ("get_facecolor", "get_edgecolor", "get_linewidth", "get_linestyle", "get_hatch", "get_fill",
              "get_label", "get_alpha", "get_zorder", "get_visible"),
    "ListedColormap": ("name", "N", "colors", "get_bad", "get_over", "get_under"),
}


def _encode_artist(value: Any, out: list[bytes], known: Mapping[int, str]) -> None:
    name = type(value).__name__
    getters = _ARTIST_GETTERS.get(name)
    if getters is None or type(value).__module__.split(".")[0] != "matplotlib":
        raise _Undigestable(f"an argument of type {name}")
    out.append(_text(f"artist {name}"))
    for getter in getters:
        found = getattr(value, getter)
        _encode(found() if callable(found) else found, out, known)


def _rc_params() -> str:
    """Every rcParam in force (symgpu's :data:`style.RC` over matplotlib's defaults and the
    user's matplotlibrc, which can change what a figure looks like)."""
    from matplotlib import rcParams  # noqa: PLC0415 - loaded only where a figure is drawn

    return repr(sorted((key, repr(value)) for key, value in rcParams.items()))


@memoised("report.figure_digests.environment", 1)
def _environment() -> tuple[str, ...]:
    """What acts on every figure besides its calls: library versions, symgpu's style, and the
    source of the code that lays out and saves a figure."""
    import matplotlib  # noqa: PLC0415 - loaded only where a figure is drawn
    from matplotlib import ft2font  # noqa: PLC0415

    source = hashlib.sha256()
    for module_file in (style.__file__, __file__):
        source.update(Path(module_file).read_bytes())
    return (f"matplotlib {matplotlib.__version__}", f"freetype {ft2font.__freetype_version__}",
            f"rc {style.RC!r}", f"metadata {style.METADATA!r}",
            f"source {source.hexdigest()}")


# ============================================================================ the book
@dataclass(frozen=True)
class Entry:
    """One figure file as the book records it: the digest of its inputs and the SHA-256 of its bytes."""

    inputs: str
    sha256: str


@dataclass(frozen=True)
class Book:
    """The figures of one report folder: those found on disk (``previous``, from its :data:`SIDECAR`)
    and those of this rendering (``current``), which :meth:`text` writes."""

    folder: Path | None
    previous: dict[str, Entry] = field(default_factory=dict)
    current: dict[str, Entry] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path) -> Book:
        """The book of ``folder`` (empty when its sidecar is absent, too large or out of shape)."""
        return cls(folder, parse(_read(folder / SIDECAR, MAX_SIDECAR_BYTES) or b""))

    def kept(self, key: str, names: Mapping[str, str]) -> dict[str, bytes] | None:
        """The files ``names`` (kind -> file name) as on disk, when each was drawn from inputs
        ``key`` and still has the recorded bytes; else None (draw them)."""
        if self.folder is None:
            return None
        found: dict[str, bytes] = {}
        for kind, name in names.items():
            entry = self.previous.get(name)
            if entry is None or entry.inputs != key:
                return None
            data = _read(self.folder / name, MAX_FIGURE_BYTES)
            if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
                return None
            found[kind] = data
        return found

    def note(self, key: str, files: Mapping[str, bytes]) -> None:
        """Record ``files`` (file name -> bytes) as drawn from inputs ``key``."""
        for name, data in files.items():
            self.current[name] = Entry(key, hashlib.sha256(data).hexdigest())

    def text(self) -> bytes:
        """This rendering's book, as written into the report folder."""
        lines = [HEADER] + [f"{name} {e.inputs} {e.sha256}" for name, e in sorted(self.current.items())]
        return ("\n".join(lines) + "\n").encode("ascii")


def parse(data: bytes) -> dict[str, Entry]:
    """A sidecar's entries; empty unless every line is in shape and no name repeats."""
    try:
        lines = data.decode("ascii").split("\n")
    except UnicodeDecodeError:
        return {}
    if not lines or lines[0] != HEADER or lines[-1] != "":
        return {}
    entries: dict[str, Entry] = {}
    for line in lines[1:-1]:
        match = _LINE.fullmatch(line)
        if match is None or match[1] in entries:
            return {}
        entries[match[1]] = Entry(match[2], match[3])
    return entries


def _read(path: Path, limit: int) -> bytes | None:
    """``path``'s bytes when it is a regular file (not a link) of at most ``limit`` bytes."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


# ============================================================================ finishing
def finish(fig: Any, recorder: Recorder, kinds: Sequence[str], names: Mapping[str, str] | None, book: Book | None, *,
           layout: bool, tight: bool = False, look: style.Look = style.LOOK) -> dict[str, bytes]:
    """``fig`` as each of ``kinds`` (kind -> bytes): kept from ``book`` when its files ``names``
    (kind -> file name) were drawn from the same inputs, else plain log labels (as ``look`` says),
    ``tight_layout`` (with ``layout``) and saved (:func:`style.save`, with ``tight`` its bounding
    box cut to the drawing). The files are noted in ``book``."""
    kinds = sorted(set(kinds))
    if not kinds:
        return {}
    finishing = f"plain log labels, tight_layout {layout}, save tight {tight}" + ("" if look == style.LOOK else f", {look!r}")
    key = recorder.key(kinds, finishing) if book is not None and names else None
    wanted = {kind: names[kind] for kind in kinds} if names else {}
    if key is not None and book is not None:
        kept = book.kept(key, wanted)
        if kept is not None:
            book.note(key, {wanted[k]: data for k, data in kept.items()})
            return kept
    if look.plain_log_labels:
        style.plain_log_labels(fig)  # before the layout: the labels' sizes
    if layout:
        fig.tight_layout()
    out = {kind: style.save(fig, kind, tight=tight, look=look) for kind in kinds}
    if key is not None and book is not None:
        book.note(key, {wanted[k]: data for k, data in out.items()})
    return out


__all__ = ["Book", "Entry", "HEADER", "Recorder", "SIDECAR", "finish", "parse"]
