"""Issue 31: a figure whose inputs are unchanged is kept as it is on disk, byte for byte what a
redraw writes; anything unexpected in the folder's figure book (:mod:`symgpu.report.figure_digests`)
means the figure is drawn again."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu.report import figure_digests, render, style
from symgpu.report.figure_digests import HEADER, SIDECAR, Book, Recorder

MODEL = "interval_analysis"  # three plots (a regime map among them), SVG and PDF each


@pytest.fixture(scope="module")
def model() -> symgpu.Model:
    return symgpu.load(MODEL)


@pytest.fixture(scope="module")
def redrawn(model) -> dict[str, bytes]:
    """The report with every figure drawn (no book read), as ``report --all --force`` renders it."""
    return render.render_report(model, formats=("md", "tex"), figures=Book(None)).files


def _figures(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files.items() if name.endswith((".svg", ".pdf"))}


def _folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def _render(model, folder: Path) -> dict[str, bytes]:
    return render.render_report(model, formats=("md", "tex"), figures=Book.read(folder)).files


def _tamper(folder: Path, name: str, inputs: str | None = None) -> bytes:
    """Replace figure ``name`` by other bytes and record those in the book (with ``inputs`` as
    its inputs digest when given): a figure taken from disk is then told from a drawn one."""
    other = b"<svg>not what matplotlib writes</svg>\n"
    (folder / name).write_bytes(other)
    book = figure_digests.parse((folder / SIDECAR).read_bytes())
    entry = book[name]
    book[name] = figure_digests.Entry(inputs or entry.inputs, hashlib.sha256(other).hexdigest())
    lines = [HEADER] + [f"{n} {e.inputs} {e.sha256}" for n, e in sorted(book.items())]
    (folder / SIDECAR).write_text("\n".join(lines) + "\n", encoding="ascii")
    return other


def test_the_book_names_every_figure_with_the_hash_of_its_bytes(redrawn):
    book = figure_digests.parse(redrawn[SIDECAR])
    figures = _figures(redrawn)
    assert len(figures) == 6 and set(book) == set(figures)
    assert all(book[name].sha256 == hashlib.sha256(data).hexdigest() for name, data in figures.items())
    # the SVG and the PDF of one plot come from one drawing: the same inputs digest
    assert len({entry.inputs for entry in book.values()}) == 3


def test_figures_kept_from_the_book_are_byte_identical_to_a_redraw(model, redrawn, tmp_path):
    kept = _render(model, _folder(tmp_path, redrawn))
    assert kept == redrawn


def test_a_figure_whose_inputs_are_unchanged_is_taken_from_disk_not_drawn(model, redrawn, tmp_path):
    folder = _folder(tmp_path, redrawn)
    name = sorted(_figures(redrawn))[0]
    other = _tamper(folder, name)
    assert _render(model, folder)[name] == other


def test_a_figure_recorded_from_other_inputs_is_drawn_again(model, redrawn, tmp_path):
    folder = _folder(tmp_path, redrawn)
    name = sorted(_figures(redrawn))[0]
    _tamper(folder, name, inputs="0" * 64)
    assert _render(model, folder)[name] == redrawn[name]


def test_a_figure_edited_on_disk_is_drawn_again(model, redrawn, tmp_path):
    folder = _folder(tmp_path, redrawn)
    name = sorted(_figures(redrawn))[-1]
    (folder / name).write_bytes(redrawn[name][:-10])  # truncated; the book still has the old hash
    assert _render(model, folder)[name] == redrawn[name]


@pytest.mark.parametrize("damage", [
    lambda text: text.replace(HEADER, "# symgpu figure digests 2"),  # another format
    lambda text: text + "extra line\n",
    lambda text: text[:-1],  # no final newline: cut short
    lambda text: text + text.splitlines(keepends=True)[1],  # a name twice
    lambda text: text.replace(".svg ", ".svg\t", 1),  # a tab for a space
    lambda text: "\u00e9" + text,  # not ASCII
])
def test_a_malformed_book_means_every_figure_is_drawn(model, redrawn, tmp_path, damage):
    folder = _folder(tmp_path, redrawn)
    name = sorted(_figures(redrawn))[0]
    _tamper(folder, name)
    (folder / SIDECAR).write_text(damage((folder / SIDECAR).read_text(encoding="ascii")), encoding="utf-8")
    assert figure_digests.parse((folder / SIDECAR).read_bytes()) == {}
    assert _render(model, folder)[name] == redrawn[name]


def test_a_figure_behind_a_link_is_not_read(model, redrawn, tmp_path):
    folder = tmp_path / "report"
    folder.mkdir()
    _folder(folder, redrawn)
    name = sorted(_figures(redrawn))[0]
    other = _tamper(folder, name)
    (tmp_path / "elsewhere.svg").write_bytes(other)
    (folder / name).unlink()
    (folder / name).symlink_to(tmp_path / "elsewhere.svg")
    assert _render(model, folder)[name] == redrawn[name]


def _key(x: np.ndarray, label: str = "a", handle: object = None) -> str | None:
    with style.figures():
        fig, ax = style.pyplot.subplots()
        try:
            recorder = Recorder(fig, "test")
            stand = recorder.axes(ax)
            stand.plot(x, x * 2, label=label)
            if handle is not None:
                stand.legend(handles=[handle])
            return recorder.key(["svg"], "test")
        finally:
            style.pyplot.close(fig)


def test_the_digest_changes_with_a_plotted_number_or_a_label_and_only_then():
    x = np.linspace(1.0, 2.0, 5)
    moved = x.copy()
    moved[3] = np.nextafter(moved[3], 3.0)  # one unit in the last place
    assert _key(x) == _key(x.copy())
    assert len({_key(x), _key(moved), _key(x, label="b")}) == 3


def test_an_argument_it_cannot_hash_makes_the_figure_undigestable():
    from matplotlib.patches import Circle

    assert _key(np.ones(3), handle=Circle((0, 0), 1, label="c")) is None  # a Patch subclass: its geometry is not hashed


def test_the_digest_of_a_legend_handle_follows_its_style():
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    keys = {_key(np.ones(3), handle=h) for h in (Line2D([], [], color="red"), Line2D([], [], color="blue"),
                                                  Patch(color="red", label="x"), Patch(color="red", label="y"))}
    assert None not in keys and len(keys) == 4


def test_measured_data_plots_are_kept_from_the_book_too(tmp_path):
    from symgpu.report import measurements

    model = symgpu.load("volkov_2016_ilp")  # three [[measurements]] entries
    book = Book(None)
    drawn = measurements.sections(model, pdf=True, book=book)
    files = {name: data for s in drawn for name, data in ((s.svg_name, s.svg), (s.pdf_name, s.pdf))}
    assert len(files) == 6 and set(book.current) == set(files)
    folder = _folder(tmp_path, {**files, SIDECAR: book.text()})
    name = drawn[0].pdf_name
    other = _tamper(folder, name)
    kept = measurements.sections(model, pdf=True, book=Book.read(folder))
    expected = [(files[s.svg_name], other if s.pdf_name == name else files[s.pdf_name]) for s in drawn]
    assert [(s.svg, s.pdf) for s in kept] == expected


def test_the_digest_follows_the_rc_params_in_force():
    from matplotlib import rc_context

    x = np.linspace(1.0, 2.0, 5)
    with rc_context({"lines.linewidth": 3.0}):  # as a user's matplotlibrc would set it
        wider = _key(x)
    assert _key(x) != wider


def test_a_report_without_figures_has_no_book():
    files = render.render_report(symgpu.load("prior_agarwal"), formats=("md", "tex"), figures=Book(None)).files
    assert not _figures(files) and SIDECAR not in files


_KEPT_SCRIPT = """
import sys
from pathlib import Path
import symgpu
from symgpu.report import render
from symgpu.report.figure_digests import Book
folder = Path(sys.argv[1])
files = render.render_report(symgpu.load(sys.argv[2]), formats=("md", "tex"), figures=Book.read(folder)).files
same = all((folder / name).read_bytes() == data for name, data in files.items())
print(same, "matplotlib.pyplot" in sys.modules)
"""


@pytest.mark.parametrize("tampered", [False, True])
def test_a_report_whose_figures_are_all_kept_never_imports_pyplot(redrawn, tmp_path, tampered):
    # pyplot costs half a second a process; a kept figure is only sketched, under matplotlib's own rc_context
    import subprocess
    import sys

    folder = _folder(tmp_path, redrawn)
    if tampered:  # one figure recorded from other inputs: drawn again (with pyplot), so not the bytes on disk
        _tamper(folder, sorted(_figures(redrawn))[0], inputs="0" * 64)
    found = subprocess.run([sys.executable, "-c", _KEPT_SCRIPT, str(folder), MODEL], capture_output=True, text=True, check=True)
    assert found.stdout.split() == (["False", "True"] if tampered else ["True", "False"])
