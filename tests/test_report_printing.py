"""The report's printers that keep each compound subexpression's text give exactly SymPy's text
and LaTeX, whatever they printed before (shared subexpressions, floats at the top and nested,
functions raised to powers, piecewise cases)."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgpu.model import printing as text_printing
from symgpu.report import latex, printing

x, y, n = sympy.symbols("x y N_warps", positive=True)
shared = sympy.Min(x / (y + 1), 3 * n)
EXPRESSIONS = [
    shared,
    sympy.Piecewise((shared, x > y), (shared ** 2 + sympy.Float("0.1250000"), True)),
    sympy.Float("2.50000"),                              # top level: full precision
    x + sympy.Float("2.50000"),                          # nested: stripped
    sympy.sin(x) ** 2 + sympy.sin(x),                    # LaTeX prints sin(x)^2 with exp=, sin(x) without
    sympy.Max(shared, sympy.ceiling(x / 32) * 32) / (n - 1),
    sympy.Eq(shared, sympy.Rational(1, 3) * y),
    sympy.Tuple(shared, -shared, shared * x),
    [shared, x],
]
NAMES = {n: r"N_{\mathrm{warps}}"}


def test_kept_text_is_sympys_text_in_any_order():
    for order in (EXPRESSIONS, EXPRESSIONS[::-1]):
        printer = printing.KeptStrPrinter()
        assert [printer.doprint(e) for e in order] == [sympy.sstr(e) for e in order]
        assert [printer.doprint(e) for e in order] == [sympy.sstr(e) for e in order]  # again, all kept


def test_kept_latex_is_sympys_latex_in_any_order():
    options = {"symbol_names": NAMES, "mul_symbol": "dot"}
    for order in (EXPRESSIONS, EXPRESSIONS[::-1]):
        printer = printing.KeptLatexPrinter(options)
        assert [printer.doprint(e) for e in order] == [sympy.latex(e, **options) for e in order]
        assert [printer.doprint(e) for e in order] == [sympy.latex(e, **options) for e in order]


def test_a_float_printed_nested_first_still_prints_in_full_at_the_top():
    printer = printing.KeptStrPrinter()
    half = sympy.Float("0.500000000000000", 30)
    assert printer.doprint(x + half) == sympy.sstr(x + half)
    assert printer.doprint(half) == sympy.sstr(half)


def test_the_report_latex_of_a_model_is_sympys_latex_with_its_symbol_names(ia):
    names = latex.symbol_names(ia)
    expressions = [equation.rhs for equation in ia.defining.values()]
    assert expressions
    for expr in expressions + expressions:
        assert latex.latex(ia, expr) == sympy.latex(expr, symbol_names=names, mul_symbol="dot")


@pytest.mark.parametrize("kind", ["text", "latex"])
def test_the_printer_starts_afresh_past_its_bound(kind):
    make, general = ((printing.KeptStrPrinter, sympy.sstr) if kind == "text"
                     else (printing.KeptLatexPrinter, lambda e: sympy.latex(e)))
    unbounded, bounded = make(), make(limit=10)
    for e in EXPRESSIONS:
        assert bounded.doprint(e) == unbounded.doprint(e) == general(e)
    # a kept text is a subexpression's, never longer than the longest whole text printed
    longest = max(len(general(e)) for e in EXPRESSIONS)
    assert unbounded.kept_characters > 10 + longest  # the bound is really passed
    assert bounded.kept_characters <= 10 + longest
    assert text_printing.KeptStrPrinter().kept_characters == 0


_atoms = st.sampled_from([x, y, n, sympy.Integer(2), sympy.Rational(3, 4), sympy.Float("1.5")])


def _combine(children: st.SearchStrategy) -> st.SearchStrategy:
    pair = st.tuples(children, children)
    return st.one_of(pair.map(lambda p: p[0] + p[1]), pair.map(lambda p: p[0] * p[1]), pair.map(lambda p: p[0] / (p[1] + 1)),
                     pair.map(lambda p: sympy.Min(p[0], p[1])), children.map(lambda c: sympy.sqrt(c)),
                     children.map(lambda c: sympy.exp(c) ** 2), pair.map(lambda p: sympy.Piecewise((p[0], x > y), (p[1], True))))


@settings(max_examples=60, deadline=None, database=None, derandomize=True)  # the same examples every run: a random one can be slow for SymPy
@given(st.lists(st.recursive(_atoms, _combine, max_leaves=12), min_size=1, max_size=5))
def test_random_expressions_print_as_sympy_prints_them(expressions):
    text, tex = printing.KeptStrPrinter(), printing.KeptLatexPrinter({"symbol_names": NAMES})
    for e in expressions + expressions:
        assert text.doprint(e) == sympy.sstr(e)
        assert tex.doprint(e) == sympy.latex(e, symbol_names=NAMES)
