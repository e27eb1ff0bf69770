"""What a researcher sees in a notebook: models, derivations and evaluated values (scalars and
arrays) each render as LaTeX, HTML or Markdown, short and correct."""

from __future__ import annotations

import tomllib

import numpy as np
import pint
import pytest
import sympy

import symgpu
from symgpu import numbers
from symgpu.derive.derivation import Derivation
from symgpu.model import latex_names
from symgpu import resources
from symgpu.units import quantities


@pytest.fixture(scope="module")
def ia():
    return symgpu.load("interval_analysis")


def q(magnitude, unit):
    return quantities.registry().Quantity(magnitude, unit)


# ---------------------------------------------------------------- evaluated values
def test_scalar_quantity_renders_its_number_and_unit_in_latex():
    assert q(972.0, "thread")._repr_latex_() == r"$972\ \mathrm{thread}$"
    assert q(0.25, "1")._repr_latex_() == "$0.25$"


def test_array_quantity_renders_every_element_of_a_short_array():
    shown = q(np.array([1.0, 2.5, 3e9]), "cycle")._repr_latex_()
    assert shown == r"$\begin{bmatrix} 1 & 2.5 & 3 \times 10^{9} \end{bmatrix}\ \mathrm{cy}$"


def test_long_array_is_elided_in_the_middle_not_empty():
    shown = q(np.arange(10.0), "thread")._repr_latex_()
    assert shown == r"$\begin{bmatrix} 0 & 1 & 2 & 3 & \cdots & 8 & 9 \end{bmatrix}\ \mathrm{thread}$"


def test_matrix_quantity_renders_rows_and_elides_long_columns():
    shown = q(np.array([[1.0, 2.0], [3.0, 4.0]]), "B/s")._repr_latex_()
    assert shown == r"$\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}\ \frac{\mathrm{B}}{\mathrm{s}}$"
    tall = q(np.zeros((20, 1)), "cycle")._repr_latex_()
    assert tall.count(r"\\") == 4 + 1 + 2 - 1 and r"\vdots" in tall


def test_markdown_of_a_quantity_is_its_latex():
    value = q(np.array([1.0, 2.0]), "warp")
    assert value._repr_markdown_() == value._repr_latex_()


def test_numbers_in_latex_use_powers_of_ten_and_name_non_finite_values():
    assert numbers.latex_number(1.5e-7) == r"1.5 \times 10^{-7}"
    assert numbers.latex_number(1e12) == r"10^{12}"
    assert numbers.latex_number(1234567) == "1234567"
    assert numbers.latex_number(float("nan")) == r"\mathrm{NaN}"
    assert numbers.latex_number(-float("inf")) == r"-\infty"


def test_evaluated_array_renders_in_latex(ia):
    m = np.array([1.0, 2.0, 3.0])
    values = ia.evaluate("P_K0", preset="gtx1080", values={"M": m, "N": 16})
    shown = values._repr_latex_()
    cells = shown.removeprefix(r"$\begin{bmatrix} ").split(r" \end{bmatrix}")[0].split(" & ")
    assert [float(c) for c in cells] == pytest.approx(values.magnitude, rel=1e-5)
    assert shown.endswith(r"\ \mathrm{thread}$")


def test_evaluated_scalar_renders_in_latex(ia):
    value = ia.evaluate("P_K0", preset="gtx1080", values={"M": 16, "N": 16})
    shown = value._repr_latex_()
    assert shown.startswith("$") and shown.endswith(r"\ \mathrm{thread}$")
    assert float(shown[1:].split("\\")[0]) == pytest.approx(value.magnitude, rel=1e-5)


def test_other_registries_keep_pints_own_representation():
    other = pint.UnitRegistry(None)
    assert other.Quantity._repr_latex_ is not quantities.registry().Quantity._repr_latex_


# ---------------------------------------------------------------- derivations
def record(**fields):
    base = dict(model="m", operation="solve", quantity="t", variable="P", steps=(), result=2 * sympy.Symbol("a"), unit="thread")
    return Derivation(**{**base, **fields})


def test_derivation_latex_says_what_was_asked_and_gives_the_result_with_its_unit():
    assert record()._repr_latex_() == (
        r"$$\begin{aligned}& \text{solve of t over P (m)} \\ P &= 2 a \quad \text{[thread]}\end{aligned}$$"
    )


def test_derivation_latex_escapes_underscores_in_prose():
    shown = record(model="hong_kim_2009", quantity="Mem_L", unit="")._repr_latex_()
    assert r"\text{solve of Mem\_L over P (hong\_kim\_2009)}" in shown and "[" not in shown


def test_extremum_shows_where_and_what():
    x = sympy.Symbol("x")
    shown = record(operation="extremum", quantity="f", variable="x", location=sympy.Integer(3), result=x + 1, unit="")._repr_latex_()
    assert r"x^{*} &= 3 \\ f &= x + 1" in shown


def test_boundaries_are_listed_by_the_regimes_that_meet():
    shown = record(operation="boundary", result={"a|b": sympy.Integer(4)})._repr_latex_()
    assert r"& \text{a / b:} \\ P &= 4 \quad \text{[thread]}" in shown


def test_long_result_is_folded_into_named_subexpressions():
    xs = sympy.symbols("y0:80")
    common = sum(xs)
    shown = record(result=sympy.sqrt(common) + common**2 + sympy.Min(common, xs[0]))._repr_latex_()
    assert r"x_{1} &= " in shown
    assert len(shown) < len(sympy.latex(sympy.sqrt(common) + common**2 + sympy.Min(common, xs[0])))


def test_derivation_markdown_has_the_text_summary_then_the_latex():
    shown = record()._repr_markdown_()
    text, maths = shown.split("```\n\n")
    assert text.startswith("```text\nsolve of t over P (m)\n  result: 2*a  [thread]")
    assert maths.strip() == record()._repr_latex_()


def test_engine_derivation_renders(ia):
    d = ia.solve("P_sat", for_="Theta_M")
    shown = d._repr_latex_()
    assert shown.startswith(r"$$\begin{aligned}& \text{solve of P\_sat over Theta\_M (interval\_analysis)}")
    # each symbol by the one naming rule of reports and notebooks (declared latex, else upright names)
    assert sympy.latex(d.result, symbol_names=latex_names.symbol_names(ia)) in shown


# ---------------------------------------------------------------- models
def test_model_html_has_title_counts_and_an_equation_table(ia):
    with open(resources.equations() / "interval_analysis.toml", "rb") as handle:
        data = tomllib.load(handle)
    shown = ia._repr_html_()
    assert f"{len(data['symbols'])} symbols" in shown
    assert f"{len(data['equations'])} equations" in shown
    assert "<b>Interval analysis: interval latency" in shown
    assert f"… and {len(data['equations']) - 30} more equations" in shown
    assert shown.count("<tr>") == 1 + 30 + 1
    assert r"\(P_{\mathrm{sat}} = " in shown  # the declared `latex`, as in the reports
    assert len(shown) < 20_000


def test_model_markdown_is_a_table_with_one_row_per_equation_shown(ia):
    lines = ia._repr_markdown_().splitlines()
    assert lines[0] == "**Interval analysis: interval latency, thread bounds and matrix-vector kernels** (`interval_analysis`)"
    rows = [line for line in lines if line.startswith("| `")]
    assert len(rows) == 30 and rows[0].startswith("| `t_NP` | `t_NP` | s |")
