"""Every bundled symbol has a proper LaTeX name: no underscore of any symbol of any bundled model
becomes a subscript by accident, and a model's notebook table prints the reports' names."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.model import latex_names, loader
from symgpu.report import latex as report_latex

BUNDLED = loader.list_models()


@pytest.mark.parametrize("model_id", BUNDLED)
def test_no_symbol_of_a_bundled_model_renders_an_underscore_as_an_accidental_subscript(model_id):
    model = symgpu.load(model_id)
    names = latex_names.symbol_names(model)
    offenders = [
        f"{s.name}: {why}" for s in model.definition.symbols
        if (why := latex_names.accidental_subscript(s.name, names[model.symbols[s.name]], declared=bool(s.latex)))
    ]
    assert not offenders, f"{model_id}: give these symbols a `latex` field:\n" + "\n".join(offenders)


def test_every_bundled_model_file_is_checked():
    assert BUNDLED == sorted(p.stem for p in loader.equations_dir().glob("*.toml")) and len(BUNDLED) >= 20


@pytest.mark.parametrize(("name", "sympy_default"), [
    ("Coal_Mem_insts", "Coal_{Mem insts}"),
    ("alg1_per_mw", "alg_{1 per mw}"),
])
def test_the_check_refuses_sympys_default_names(name, sympy_default):
    assert sympy.latex(sympy.Symbol(name)) == sympy_default
    assert "not the name" in latex_names.accidental_subscript(name, sympy_default, declared=False)


@pytest.mark.parametrize(("tex", "problem"), [
    (r"t_L2", "one character of a longer word"),
    (r"\mathrm{a}_{b_{c}}", "a subscript inside a subscript"),
    (r"\mathrm{a}_{b", "unbalanced braces"),
])
def test_the_check_refuses_a_declared_latex_with_a_broken_subscript(tex, problem):
    assert problem in latex_names.accidental_subscript("t_L2_hit", tex, declared=True)


@pytest.mark.parametrize(("name", "tex"), [
    ("P", "P"),
    ("alu_lat", r"\mathrm{alu}_{\mathrm{lat}}"),
    ("n_needed_ilp", r"n_{\mathrm{needed\_ilp}}"),
    ("alpha_cusp_alu", r"\alpha_{\mathrm{cusp\_alu}}"),
    ("Coal_Mem_insts", r"\mathrm{Coal\_Mem\_insts}"),
    ("memory_throughput_loaded", r"\mathrm{memory\_throughput\_loaded}"),
])
def test_a_name_without_a_latex_field_is_spelled_upright_by_one_rule(name, tex):
    assert latex_names.default_latex(name) == tex
    assert latex_names.accidental_subscript(name, tex, declared=False) == ""


def test_the_reports_use_the_same_names_as_the_model_package():
    assert report_latex.symbol_names is latex_names.symbol_names


def test_the_notebook_table_prints_the_reports_names_not_sympys():
    model = symgpu.load("volkov_2016_h100")
    shown = model._repr_html_() + model._repr_markdown_()
    assert r"\mathrm{memory\_throughput\_loaded}" in shown or r"\mathrm{memory}" in shown
    assert "throughput loaded" not in shown and "_{cycles sched}" not in shown
    hk = symgpu.load("hong_kim_2009")
    names = latex_names.symbol_names(hk)
    first = next(iter(hk.equations.values()))
    assert report_latex.latex(hk, first.relation) in hk._repr_markdown_()
    assert "Mem insts" not in hk._repr_markdown_() and names[hk.symbols["Mem_L"]] in hk._repr_markdown_()
