"""What ``report --all`` shares between models in one process: compiled functions
(:func:`symgpu.evaluate.compiler._lambdify`), parsed entry texts (:func:`symgpu.derive.stored._parsed`)
and a check's substitutions parsed once (:func:`symgpu.derive.checked._parsed`); each shared
only where it is the same thing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

import symgpu
from symgpu.derive import checked, stored
from symgpu.evaluate import compiler


@dataclass(frozen=True)
class _Table:
    """A model as the entry reader sees it: its symbols by name, and an id."""

    symbols: dict[str, sympy.Symbol]
    id: str = "table"


def test_equal_arguments_and_expression_share_one_compiled_function():
    x, y = sympy.symbols("x y", positive=True)
    first = compiler._lambdify([x, y], x**2 + 3 * y)
    again = compiler._lambdify([sympy.Symbol("x", positive=True), sympy.Symbol("y", positive=True)], x**2 + 3 * y)
    assert again is first
    assert first(2.0, 1.0) == 7.0  # 2**2 + 3*1, by hand


def test_a_float_constant_or_other_argument_order_or_other_assumptions_compile_apart():
    x, y = sympy.symbols("x y", positive=True)
    exact = compiler._lambdify([x, y], 2 * x + y)
    assert compiler._lambdify([x, y], sympy.Float(2.0) * x + y) is not exact
    swapped = compiler._lambdify([y, x], 2 * x + y)
    assert swapped is not exact and swapped(1.0, 5.0) == 11.0  # y=1, x=5: 2*5 + 1
    assert compiler._lambdify([sympy.Symbol("x"), y], 2 * sympy.Symbol("x") + y) is not exact
    assert exact(np.array([1.0, 2.0]), 3.0).tolist() == [5.0, 7.0]


def test_an_entry_text_is_parsed_once_for_tables_that_agree_on_its_names():
    n, m = sympy.Symbol("n", positive=True), sympy.Symbol("m", positive=True)
    one = _Table({"n": n, "m": m})
    other = _Table({"n": sympy.Symbol("n", positive=True), "m": sympy.Symbol("m", positive=True), "unused": sympy.Symbol("unused")})
    text = "n*m + 1 < 2*n"
    parsed = stored._parsed(one, text, (), True)
    assert parsed == sympy.StrictLessThan(n * m + 1, 2 * n)
    assert stored._parsed(other, text, (), True) is parsed


def test_an_entry_text_whose_name_is_another_symbol_is_parsed_again():
    positive, integer = sympy.Symbol("n", positive=True), sympy.Symbol("n", integer=True)
    first = stored._parsed(_Table({"n": positive}), "n + 1", (), False)
    second = stored._parsed(_Table({"n": integer}), "n + 1", (), False)
    assert first == positive + 1 and second == integer + 1 and first != second
    label = stored._parsed(_Table({"n": positive}), "n + 1", ("n",), False)  # a plain name (a label) wins over the model's
    assert label == sympy.Symbol("n") + 1


def test_a_checks_substitution_text_is_parsed_once_and_unparsable_text_kept():
    model = symgpu.load("prior_huang_bw")
    pairs = checked._parsed(model, {"n": "n_max/2", "alpha": 2.0, "clock": "undeclared_name*2"})
    assert pairs[0] == ("n", model.symbols["n_max"] / 2)
    assert pairs[1] == ("alpha", 2.0)
    assert pairs[2] == ("clock", "undeclared_name*2")
    assert checked._parsed(model, None) == ()


def test_whether_an_expression_rebuilds_from_its_parts_is_decided_per_tag():
    x = sympy.Symbol("x", positive=True)
    table, refs = _Table({"x": x}), {stored._REFS: [x]}
    doubled = sympy.Add(x, x, evaluate=False)  # x + x as written; evaluating it gives 2*x
    parts = [{"ref": 0}, {"ref": 0}]
    assert stored._rebuilds(table, refs, {"split": ["Add", parts]}, doubled) is True
    assert stored._rebuilds(table, refs, {"evaluated": ["Add", parts]}, doubled) is False
    assert stored._rebuilds(table, refs, {"evaluated": ["Add", parts]}, 2 * x) is True
    assert stored._rebuilds(table, refs, {"split": ["Add", parts]}, doubled) is True  # asked again: the same answer
