"""Log-axis tick labels are plain text with superscript digits, not mathtext (which matplotlib
parses afresh for every figure and format); every other label is left as it is."""

from __future__ import annotations

import pytest

from symgpu.report import style


@pytest.mark.parametrize(("mathtext", "plain"), [
    (r"$\mathdefault{10^{-3}}$", "10\u207b\u00b3"),
    (r"$\mathdefault{10^{0}}$", "10\u2070"),
    (r"$\mathdefault{2^{15}}$", "2\u00b9\u2075"),
    (r"$\mathdefault{2\times10^{1}}$", "2\u00d710\u00b9"),
    (r"$\mathdefault{0}$", "0"),
])
def test_a_log_tick_label_becomes_plain_text(mathtext, plain):
    assert style.plain_label(mathtext) == plain


@pytest.mark.parametrize("text", ["", "12", r"$\alpha$", r"$\mathdefault{-10^{2}}$", r"$\mathdefault{10^{x}}$"])
def test_any_other_label_is_kept_as_it_is(text):
    assert style.plain_label(text) == text


def test_a_figure_with_log_axes_is_labelled_without_mathtext_in_both_formats():
    with style.figures():
        fig, ax = style.pyplot.subplots()
        try:
            ax.plot([1e-3, 1e3], [2.0, 2.0 ** 12])
            ax.set_xscale("log")
            ax.set_yscale("log", base=2)
            svg = style.save(fig, "svg")
            pdf = style.save(fig, "pdf")
            labels = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
        finally:
            style.pyplot.close(fig)
    assert svg.startswith(b"<?xml") and pdf.startswith(b"%PDF")
    assert "10\u207b\u00b3" in labels and "10\u00b3" in labels and "2\u00b9\u00b2" in labels
    assert not [t for t in labels if "$" in t]
