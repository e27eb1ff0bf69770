"""Issue 31: a figure is sketched first (:mod:`symgpu.report.figure_sketch`) and drawn with
matplotlib only when its files are not kept. The reference throughout is the forwarding
:class:`symgpu.report.figure_digests.Recorder` (each call made on real axes as it comes): a
sketch must give the same inputs digest (so the committed figure books stay valid) and, when
drawn, the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgpu
from symgpu.report import figure_digests, plot_specs, plot_values, plots, style
from symgpu.report.figure_digests import Book, Recorder
from symgpu.report.figure_sketch import Sketch, SketchError

MODEL = "interval_analysis"  # curves with regime markers and marks, and a regime map
SIZE = (6.4, 4.2)
CREATED = "subplots figsize=(6.4, 4.2)"


def _paint(model: symgpu.Model, spec: plot_specs.PlotSpec) -> Callable[[Any], None]:
    def paint(ax: Any) -> None:
        values = plot_values.PlotValues(model, spec)
        if spec.kind == "regime_map":
            plots.regime_map(model, spec, ax, values)
        else:
            plots.curve(model, spec, ax, values, bounds=spec.kind == "asymptotes")
        ax.set_title(spec.title, fontsize=9)
    return paint


def _forwarded(paint: Callable[[Any], None]) -> tuple[str, bytes]:
    """Inputs digest and SVG of a figure drawn the way the recorder forwards each call."""
    book = Book(None)
    with style.figures():
        fig, real_ax = style.pyplot.subplots(figsize=SIZE)
        try:
            recorder = Recorder(fig, CREATED)
            paint(recorder.axes(real_ax))
            svg = figure_digests.finish(fig, recorder, ["svg"], {"svg": "f.svg"}, book, layout=True)["svg"]
        finally:
            style.pyplot.close(fig)
    return book.current["f.svg"].inputs, svg


def _sketched(paint: Callable[[Any], None], book: Book | None = None) -> tuple[str, bytes, Sketch]:
    book = book if book is not None else Book(None)
    with style.figures():
        sketch = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE))
        paint(sketch.axes())
        svg = sketch.finish(["svg"], {"svg": "f.svg"}, book, layout=True)["svg"]
    return book.current["f.svg"].inputs, svg, sketch


@pytest.fixture(scope="module")
def painters() -> dict[str, Callable[[Any], None]]:
    model = symgpu.load(MODEL)
    return {f"{spec.kind} {spec.quantity}": _paint(model, spec) for spec in plot_specs.plan(model, None)}


def test_the_model_plots_include_a_legend_read_back_and_a_regime_map(painters):
    kinds = {name.split()[0] for name in painters}
    assert "regime_map" in kinds and kinds - {"regime_map"}


def test_a_sketched_figure_has_the_digest_and_bytes_of_a_forwarded_one(painters):
    for name, paint in painters.items():
        key, svg = _forwarded(paint)
        sketch_key, sketch_svg, sketch = _sketched(paint)
        assert sketch_key == key, name
        assert sketch_svg == svg, name
        assert sketch.drawn is not None


def test_a_kept_figure_is_never_made_in_matplotlib(painters, tmp_path):
    paint = next(iter(painters.values()))
    key, svg = _forwarded(paint)
    (tmp_path / "f.svg").write_bytes(svg)
    drawn = Book(tmp_path)
    drawn.note(key, {"f.svg": svg})
    (tmp_path / figure_digests.SIDECAR).write_bytes(drawn.text())
    kept_key, kept_svg, sketch = _sketched(paint, Book.read(tmp_path))
    assert (kept_key, kept_svg) == (key, svg)
    assert sketch.drawn is None


def test_a_scale_read_back_is_the_one_set():
    sketch = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE))
    ax = sketch.axes()
    assert ax.get_yscale() == "linear"
    ax.set_yscale("log")
    assert (ax.get_yscale(), ax.get_xscale()) == ("log", "linear")


def test_legend_handles_read_back_are_the_labelled_lines_in_order():
    sketch = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE))
    ax = sketch.axes()
    ax.plot(np.arange(3.0), np.arange(3.0), label="a", color="C1")
    ax.plot(np.arange(3.0), np.arange(3.0))  # unlabelled: no handle
    ax.scatter(np.arange(3.0), np.arange(3.0))
    ax.axvline(1.5, label="b", linestyle=":")
    ax.axhline(2.0, label="_hidden")
    handles, labels = ax.get_legend_handles_labels()
    assert labels == ["a", "b"]
    assert (handles[0].get_color(), handles[1].get_linestyle()) == ("C1", ":")
    assert handles[1].get_xydata().tolist() == [[1.5, 0.0], [1.5, 1.0]]


def test_a_legend_read_after_a_labelled_call_it_cannot_answer_raises():
    ax = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE)).axes()
    ax.fill_between([0.0, 1.0], [0.0, 1.0], [1.0, 2.0], label="band")
    with pytest.raises(SketchError, match="labelled call"):
        ax.get_legend_handles_labels()


def test_using_a_return_value_the_sketch_cannot_answer_raises():
    ax = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE)).axes()
    lines = ax.plot([1.0, 2.0], [3.0, 4.0])
    with pytest.raises(SketchError):
        (line,) = lines
    with pytest.raises(SketchError):
        lines.get_color()


def test_an_attribute_read_raises():
    ax = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE)).axes()
    with pytest.raises(SketchError, match="ax.xaxis"):
        ax.xaxis


def test_a_return_value_handed_on_is_the_real_one_when_drawn():
    def paint(ax: Any, fig: Any) -> None:
        mesh = ax.pcolormesh(np.arange(3.0), np.arange(2.0), np.arange(6.0).reshape(2, 3), shading="nearest")
        fig.colorbar(mesh, ax=ax)

    with style.figures():
        fig, ax = style.pyplot.subplots(figsize=SIZE)
        paint(ax, fig)
        expected = style.save(fig, "svg")
        style.pyplot.close(fig)
        sketch = Sketch(CREATED, lambda: style.pyplot.subplots(figsize=SIZE))
        paint(sketch.axes(), sketch.figure())
        assert sketch.recorder.undigestable  # a QuadMesh cannot be hashed: the figure is always drawn
        assert sketch.finish(["svg"], None, None, layout=False)["svg"] == expected
