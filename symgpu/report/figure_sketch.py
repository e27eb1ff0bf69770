"""Figures sketched before they are drawn: matplotlib is called only for a figure that is not kept.

A :class:`Sketch` stands in for a figure and its axes. The drawing code makes its calls on the
stand-ins; each call is added to a :class:`symgpu.report.figure_digests.Recorder` exactly as a
recorder's own stand-ins add it (same name, same arguments, so the same inputs digest) and
kept in a list, but nothing is drawn. :meth:`Sketch.finish` hands the recorder to
:func:`symgpu.report.figure_digests.finish`; only when that lays out and saves the figure (its
files are not kept in the report folder's book) is the real figure made (``make``: the
``subplots`` call that ``created`` describes) and every call replayed on it, in order, with the
same arguments: what a recorder forwarding each call would have drawn.

The drawing code reads a few return values; a sketch answers them from the calls so far:

* ``get_xscale``/``get_yscale``: the last ``set_xscale``/``set_yscale`` (``"linear"`` before any);
* ``get_legend_handles_labels``: a :class:`matplotlib.lines.Line2D`, made without axes, for
  each labelled ``plot`` (two 1-D arrays, no format string), ``axvline`` and ``axhline``, in
  the order made (what matplotlib's axes list, and with the same public getters, which the
  digest hashes); in the replay the real handles take their place in later calls.

Any other return value is an :class:`_Unread`: passed to a later call it is replaced in the
replay by what matplotlib returned (the digest cannot hash it: the figure is drawn, as with a
recorder); used in any other way it raises :class:`SketchError`. So do a labelled call other
than those three before ``get_legend_handles_labels``, and an attribute read (``ax.xaxis``).
The replay checks each answer against matplotlib's and raises :class:`SketchError` on a
difference: a figure that is drawn is drawn as without a sketch or not at all.

NOTE: an array handed to a call is read again in the replay, so it must not change afterwards
(as :mod:`symgpu.report.figure_digests` already requires for the digest). This module's source
is not part of the inputs digest (that would have changed every committed figure book): the
replay makes the recorded calls unchanged, and tests/test_figure_sketch.py compares its files
with those of a forwarding recorder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgpu.report import figure_digests, style

#: Methods that make legend handles the sketch can answer for (with a ``label``).
_LINES = frozenset({"plot", "axvline", "axhline"})


class SketchError(RuntimeError):
    """The drawing code used something a sketch cannot answer (a bug in the drawing code)."""


@dataclass(frozen=True)
class _Call:
    target: str
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _Unread:
    """What a sketched call returns when the sketch cannot answer: known only in the replay."""

    __slots__ = ("call",)

    def __init__(self, call: int) -> None:
        self.call = call

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise SketchError(f"the drawing code used what call {self.call} of a sketched figure returned; "
                          "a sketch answers only get_xscale, get_yscale and get_legend_handles_labels")

    __getattr__ = __iter__ = __bool__ = __len__ = __getitem__ = __call__ = __float__ = __index__ = _fail


class Sketch:
    """One figure's calls, recorded and hashed now, drawn on a real figure only if needed."""

    def __init__(self, created: str, make: Callable[[], tuple[Any, Any]]) -> None:
        """``created``: how the figure is made, as :class:`figure_digests.Recorder` takes it;
        ``make``: makes it (the figure and its axes: one, or an array of them)."""
        self._recorder = figure_digests.Recorder(None, created)
        self._make = make
        self._calls: list[_Call] = []
        self._answers: dict[int, Any] = {}
        self._scales: dict[tuple[str, str], Any] = {}
        self._handles: dict[str, list[Any] | None] = {}
        self._axes: dict[str, int | None] = {}
        self.drawn: Any = None

    @property
    def recorder(self) -> figure_digests.Recorder:
        """The recorder the calls are added to (its :meth:`~figure_digests.Recorder.key` is the inputs digest)."""
        return self._recorder

    def axes(self, name: str = "ax", index: int | None = None) -> Any:
        """The stand-in for the axes ``make`` returns (with ``index``: ``axes.flat[index]``)."""
        self._axes[name] = index
        self._handles[name] = []
        return _Stand(self, name, "axes")

    def figure(self) -> Any:
        """The stand-in for the figure."""
        return _Stand(self, "fig", "figure")

    def call(self, target: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Record ``target.method(*args, **kwargs)`` and answer it (see the module docstring)."""
        self._recorder.add(f"{target}.{method}", *args, **kwargs)
        index = len(self._calls)
        self._calls.append(_Call(target, method, args, kwargs))
        if method in ("set_xscale", "set_yscale"):
            value = args[0] if args else kwargs.get("value")
            self._scales[target, method[4]] = value if isinstance(value, str) else None
        elif method in ("get_xscale", "get_yscale"):
            answer = self._scales.get((target, method[4]), "linear")
            if answer is None:
                raise SketchError(f"{target}.{method}: the scale was not set by name")
            self._answers[index] = answer
            return answer
        elif method == "get_legend_handles_labels":
            handles = self._handles.get(target)
            if handles is None:
                raise SketchError(f"{target}.{method}: a labelled call other than {', '.join(sorted(_LINES))} came before it")
            labels = [h.get_label() for h in handles]
            self._answers[index] = (tuple(handles), tuple(labels))  # the caller may extend the lists it gets
            return list(handles), labels
        if "label" in kwargs and target in self._handles:
            self._add_handle(target, method, args, kwargs)
        return _Unread(index)

    def _add_handle(self, target: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        handles = self._handles[target]
        label = kwargs["label"]
        if handles is None or label is None or not str(label) or str(label).startswith("_"):
            return  # matplotlib's rule: no handle for an artist without a label or with one that starts with _
        line = _line(method, args, kwargs)
        if line is None:
            self._handles[target] = None
        else:
            handles.append(line)

    def finish(self, kinds: Sequence[str], names: Mapping[str, str] | None, book: figure_digests.Book | None, *,
               layout: bool, tight: bool = False, look: style.Look = style.LOOK) -> dict[str, bytes]:
        """:func:`figure_digests.finish` of this figure: kept files, or the figure made, drawn and saved."""
        try:
            return figure_digests.finish(_Deferred(self), self._recorder, kinds, names, book, layout=layout, tight=tight,
                                         look=look)
        finally:
            if self.drawn is not None:
                style.pyplot.close(self.drawn)

    def draw(self) -> Any:
        """The real figure with every call replayed on it (made once)."""
        if self.drawn is not None:
            return self.drawn
        fig, axes = self._make()
        self.drawn = fig
        targets = {"fig": fig}
        for name, index in self._axes.items():
            targets[name] = axes if index is None else np.asarray(axes, dtype=object).flat[index]
        results: dict[int, Any] = {}
        handles: dict[int, Any] = {}
        for index, call in enumerate(self._calls):
            args = tuple(_real(a, targets, results, handles) for a in call.args)
            kwargs = {k: _real(v, targets, results, handles) for k, v in call.kwargs.items()}
            result = getattr(targets[call.target], call.method)(*args, **kwargs)
            results[index] = result
            if index in self._answers:
                _check(call, self._answers[index], result, handles)
        return fig


class _Stand:
    """An axes or figure of a :class:`Sketch`: every method call goes to :meth:`Sketch.call`."""

    def __init__(self, sketch: Sketch, name: str, kind: str) -> None:
        self._sketch = sketch
        self._name = name
        self._kind = kind

    def __getattr__(self, attribute: str) -> Any:
        if not callable(getattr(_matplotlib_type(self._kind), attribute, None)):
            raise SketchError(f"{self._name}.{attribute}: a sketched {self._kind} answers only method calls")

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._sketch.call(self._name, attribute, args, kwargs)

        return call


class _Deferred:
    """The figure :func:`figure_digests.finish` lays out and saves: drawn on first use."""

    def __init__(self, sketch: Sketch) -> None:
        self._sketch = sketch

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._sketch.draw(), attribute)


def figures(look: style.Look = style.LOOK) -> Any:
    """:func:`style.figures` through matplotlib's own ``rc_context`` (pyplot's is the same one): a sketch whose figure
    is kept from its book draws nothing, so a report whose figures are all kept never imports pyplot (half a second
    a process). The rcParams in force are the same either way, and they are among each figure's digested inputs."""
    import matplotlib  # noqa: PLC0415 - loaded only where a figure is sketched

    matplotlib.use("Agg")
    rc: Any = style.RC if look.svg_fonttype == style.RC["svg.fonttype"] else {**style.RC, "svg.fonttype": look.svg_fonttype}
    return matplotlib.rc_context(rc)


def cycle_colors() -> list[str]:
    """The colours of the property cycle in force (``with figures():``), read without pyplot."""
    import matplotlib  # noqa: PLC0415 - see figures

    return list(matplotlib.rcParams["axes.prop_cycle"].by_key()["color"])


def _matplotlib_type(kind: str) -> type:
    from matplotlib.axes import Axes  # noqa: PLC0415 - loaded only where a figure is drawn
    from matplotlib.figure import Figure  # noqa: PLC0415

    return Axes if kind == "axes" else Figure


def _line(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The Line2D ``method`` makes (as its public getters read), or None when not one of the known forms."""
    from matplotlib.lines import Line2D  # noqa: PLC0415 - loaded only where a figure is drawn

    if method == "plot":
        if len(args) != 2 or isinstance(args[1], str) or {"data", "scalex", "scaley"} & set(kwargs):
            return None
        x, y = np.atleast_1d(args[0]), np.atleast_1d(args[1])
        if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
            return None
        return Line2D(x, y, **kwargs)
    if method in ("axvline", "axhline") and len(args) <= 3 and "transform" not in kwargs:
        names = ("x", "ymin", "ymax") if method == "axvline" else ("y", "xmin", "xmax")
        given = dict(zip(names, args)) | {k: kwargs[k] for k in names if k in kwargs}
        rest = {k: v for k, v in kwargs.items() if k not in names}
        at, low, high = given.get(names[0], 0), given.get(names[1], 0), given.get(names[2], 1)
        return Line2D([at, at], [low, high], **rest) if method == "axvline" else Line2D([low, high], [at, at], **rest)
    return None


def _real(value: Any, targets: Mapping[str, Any], results: Mapping[int, Any], handles: Mapping[int, Any]) -> Any:
    """``value`` with each stand-in, :class:`_Unread` and sketched legend handle replaced by the real one."""
    if isinstance(value, _Unread):
        return results[value.call]
    if isinstance(value, _Stand):
        return targets[value._name]
    if id(value) in handles:
        return handles[id(value)]
    if isinstance(value, (list, tuple)):
        return type(value)(_real(v, targets, results, handles) for v in value)
    if isinstance(value, dict):
        return {k: _real(v, targets, results, handles) for k, v in value.items()}
    return value


def _check(call: _Call, answer: Any, result: Any, handles: dict[int, Any]) -> None:
    """Raise when the sketch answered ``call`` otherwise than matplotlib; map sketched handles to real ones."""
    if call.method == "get_legend_handles_labels":
        (sketched, labels), (real, real_labels) = answer, result
        if list(labels) != real_labels or len(sketched) != len(real):
            raise SketchError(f"{call.target}.get_legend_handles_labels: the sketch found {labels}, matplotlib {real_labels}")
        handles.update({id(s): r for s, r in zip(sketched, real)})
    elif answer != result:
        raise SketchError(f"{call.target}.{call.method}: the sketch answered {answer!r}, matplotlib {result!r}")


__all__ = ["Sketch", "SketchError"]
