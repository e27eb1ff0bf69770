"""``sympy.factor`` of an expression with ``Min``/``Max`` in it is given each node already built from its arguments
as ``expand`` leaves them (``forms._pieces_expanded``, every argument proved kept), so that ``factor``'s own deep
``expand`` has nothing to rebuild (issue 31: 0.1 s of ``regimes hong_kim_2009 Exec_cycles_app``, tidying its
``CWP >= MWP`` condition). Proved by comparing ``factor`` of it with ``factor`` of the expression as it is, by
``srepr``, on the differences and numerators Hong & Kim's and the prior models' Min/Max quantities give, and on
seeded sums of Min/Max of products and quotients of sums; the nodes whose arguments it cannot prove kept (nested,
or with one dominated) are left to SymPy."""

from __future__ import annotations

import random

import pytest
import sympy

import symgpu
from symgpu.proofs import forms

a, b, c, d = sympy.symbols("a b c d", positive=True)
n = sympy.Symbol("n", positive=True, integer=True)


def assert_same_factoring(expr: sympy.Expr) -> None:
    assert sympy.srepr(sympy.factor(forms._pieces_expanded(expr))) == sympy.srepr(sympy.factor(expr)), expr


def _model_differences(model_id: str, names: list[str]) -> list[sympy.Expr]:
    model = symgpu.load(model_id)
    exprs = [model.expression(name) for name in names]
    found = []
    for left in exprs:
        for right in exprs:
            if left != right:
                difference = sympy.together(left - right)
                found += [left - right, sympy.fraction(difference)[0]]
    return found


@pytest.mark.parametrize(("model_id", "names", "rebuilds"), [("hong_kim_2009", ["CWP", "MWP", "N", "Mem_cycles", "Comp_cycles"], True),
                                                             ("prior_sim", ["CWP", "MWP"], False)])
def test_a_models_min_max_differences_factor_as_sympy_factors_them(model_id: str, names: list[str], rebuilds: bool) -> None:
    differences = _model_differences(model_id, names)
    rebuilt = [e for e in differences if forms._pieces_expanded(e) != e]
    assert bool(rebuilt) is rebuilds  # the cheap route is taken where an argument expands (prior_sim's are expanded already)
    for expr in differences:
        assert_same_factoring(expr)


def test_seeded_sums_of_min_max_factor_as_sympy_factors_them() -> None:
    rng = random.Random(31)
    parts = [a * (b + c), (a + b) ** 2 / c, a / (b + 1), c * (a - d) + d, (a + b) * (c + d) / (a + 1), n * (a + 2), b / (c * (d + a)),
             2 * a + 2 * b]
    taken = 0
    for _ in range(80):
        nodes = []
        for _ in range(rng.randint(1, 2)):
            func = rng.choice([sympy.Min, sympy.Max])
            nodes.append(func(*rng.sample(parts, rng.randint(2, 3))))
        expr = sum(rng.choice([-2, -1, 1, 3]) * node for node in nodes) + rng.choice([0, a * (b + c), 1])
        taken += forms._pieces_expanded(expr) != expr
        assert_same_factoring(expr)
    assert taken > 10


def test_nested_or_dominated_nodes_are_left_to_sympy_and_a_number_beside_an_expression_is_not() -> None:
    nested = sympy.Min(a * (b + c), sympy.Max(b, c * (a + 1))) - d
    dominated = sympy.Min(a * (b + c), a * (b + c) + 1, evaluate=False) - d
    for expr in (nested, dominated):
        assert forms._pieces_expanded(expr) is expr
        assert_same_factoring(expr)
    numbered = sympy.Min(a * (b + c), 3) - d  # 3 and a*b + a*c are ordered both ways: proved kept
    assert forms._pieces_expanded(numbered) == sympy.Min(a * b + a * c, 3) - d
    assert_same_factoring(numbered)
