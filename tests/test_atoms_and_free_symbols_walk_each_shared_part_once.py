"""``forms.atoms`` and ``forms.ordered_free_symbols`` are SymPy's ``atoms`` and ``free_symbols`` with each distinct
subexpression walked once (issue 31: the near-tie relations of the 228-row occupancy regime table walked its 73
thousand tree nodes, 15 ms per call, and its rows' free symbols were walked afresh by each check reading them): the
same sets, iterated in the same order (so what is collected from them comes in the same order), compared with
``expr.atoms`` and ``expr.free_symbols`` on the bundled regime tables and on seeded expressions whose parts recur, as
the same object and as equal copies, under ``And``/``Or``/``Min``/``Max`` (which SymPy walks in their argument-set
order), ``Piecewise`` and an integral (whose own ``free_symbols`` leaves out its variable)."""

from __future__ import annotations

import random

import pytest
import sympy

import symgpu
from symgpu.proofs import forms

TYPES = [(sympy.Piecewise,), (sympy.floor, sympy.ceiling), (sympy.Symbol,), (sympy.Min, sympy.Max), (sympy.Eq, sympy.Ne),
         (sympy.Rational,), (sympy.Add, sympy.Mul), (sympy.Pow,)]
x, y, z = sympy.symbols("x y z", positive=True)
n = sympy.Symbol("n", integer=True, positive=True)


def assert_same_atoms(expr: sympy.Basic) -> None:
    for types in TYPES:
        assert list(forms.atoms(expr, *types)) == list(expr.atoms(*types)), types
    assert list(forms.ordered_free_symbols(expr)) == list(expr.free_symbols)
    assert forms.free_symbols(expr) == frozenset(expr.free_symbols)


@pytest.mark.parametrize(("model_id", "quantity"), [("occupancy", "active_blocks_per_SM"), ("hong_kim_2009", "Exec_cycles_app")])
def test_a_regime_tables_atoms_are_sympys_in_sympys_order(model_id: str, quantity: str) -> None:
    derivation = symgpu.load(model_id).regimes(quantity)
    assert_same_atoms(derivation.result)
    for regime in derivation.regimes:
        assert_same_atoms(sympy.And(*regime.conditions))


def test_seeded_expressions_with_recurring_parts_have_sympys_atoms_in_sympys_order() -> None:
    rng = random.Random(31)
    leaves = [x, y, z, n, sympy.Integer(3), sympy.Rational(1, 2)]
    for _ in range(150):
        parts: list[sympy.Basic] = list(leaves)
        for _ in range(rng.randint(3, 12)):
            a, b = rng.choice(parts), rng.choice(parts)
            build = rng.choice([lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a / (b + 1), lambda a, b: sympy.floor(a / (b + 1)),
                                lambda a, b: sympy.ceiling(a * b), lambda a, b: sympy.Min(a, b + x), lambda a, b: sympy.Max(a, b * y)])
            parts.append(build(a, b))
        exprs = [p for p in parts if isinstance(p, sympy.Expr) and not p.is_Atom]
        if len(exprs) < 2:
            continue
        first, second = rng.sample(exprs, 2)
        copy = sympy.sympify(str(first), locals={"x": x, "y": y, "z": z, "n": n})  # an equal part that is another object
        table = sympy.Piecewise((first + copy, sympy.And(first > second, sympy.Or(sympy.Eq(second, 1), first < 3))),
                                (second * first, sympy.Ne(copy, second)), (0, True))
        assert_same_atoms(table)
        assert_same_atoms(sympy.Tuple(first, second, copy, sympy.Min(first, second, copy)))
        assert_same_atoms(first * sympy.Integral(second * x, (x, 0, copy)) + sympy.Dummy("d", positive=True) * second)
