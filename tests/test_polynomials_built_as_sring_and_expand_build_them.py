"""``proofs.linear_factors.ring_of`` builds the ring and polynomial ``sring`` builds, by the ring's own arithmetic (no
SymPy expansion), and ``proofs.forms.expanded`` writes such a polynomial out as ``sympy.expand`` does (the same tree:
each node's class and arguments in the same order, atoms equal; ``srepr`` also spells a symbol's assumptions as given,
which SymPy's caches of equal objects, and the rings', leave to whichever spelling came first): random nested sums,
products and powers of symbols of every kind and integers, the products of Hong & Kim's case relations' sides, and what
the ring route declines (left to ``sring`` and ``sympy.expand``)."""

from __future__ import annotations

import random

import pytest
import sympy
from sympy.polys.rings import sring

import symgpu
from symgpu.evaluate import ties
from symgpu.proofs import forms, linear_factors

#: symbols of every declared kind, names with numeric indices (ordered as numbers: d2 before d10) and a positive stand-in
SYMBOLS = [sympy.Symbol("Coal", positive=True), sympy.Symbol("Uncoal", nonnegative=True, integer=True), sympy.Symbol("z", real=True),
           sympy.Symbol("w", negative=True), sympy.Symbol("d2"), sympy.Symbol("d10"), sympy.Symbol("Mem_LD", positive=True),
           sympy.Dummy("Issue_k", positive=True)]


def _nested(rng: random.Random, depth: int) -> sympy.Expr:
    """A random sum, product or positive power of smaller ones, down to symbols and integers of either sign."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(SYMBOLS) if rng.random() < 0.8 else sympy.Integer(rng.choice([-3, -1, 2, 7]))
    kind = rng.choice(["add", "add", "mul", "mul", "pow"])
    if kind == "pow":
        return _nested(rng, depth - 1) ** rng.choice([2, 3])
    parts = [_nested(rng, depth - 1) for _ in range(rng.randint(2, 3))]
    return sympy.Add(*parts) if kind == "add" else sympy.Mul(*parts)


def _cases(count: int) -> list[sympy.Expr]:
    rng = random.Random(20261129)
    return [_nested(rng, 4) for _ in range(count)]


def _same_tree(a: sympy.Basic, b: sympy.Basic) -> bool:
    """The same expression tree: each node's class, its arguments in the same order, equal atoms."""
    if a.is_Atom or b.is_Atom:
        return a == b and type(a) is type(b)
    return type(a) is type(b) and len(a.args) == len(b.args) and all(_same_tree(x, y) for x, y in zip(a.args, b.args))


def _same_as_sring(expr: sympy.Expr) -> bool:
    """ring_of(expr) is sring(expr) where it answers (an equal ring: its generators in the same order, the domain and
    order; an equal polynomial)."""
    built = linear_factors.ring_of(expr)
    if built is None:
        return False
    ring, poly = sring(expr)
    assert built[0] == ring and built[0].symbols == ring.symbols and built[1] == poly
    return True


@pytest.mark.parametrize("expr", _cases(200), ids=lambda e: f"{sympy.count_ops(e)}_ops")
def test_ring_of_is_sring_and_expanded_is_sympy_expand(expr: sympy.Expr) -> None:
    _same_as_sring(expr)
    assert _same_tree(forms.expanded(expr), sympy.expand(expr))


def test_most_random_polynomials_take_the_ring_route() -> None:
    """The comparisons above are not vacuous: most cases are built by the ring (a constant, or a symbol that cancels, is not)."""
    assert sum(_same_as_sring(e) for e in _cases(200)) > 120


def _hong_kim_products() -> list[sympy.Expr]:
    """Products as a tidied condition multiplies them: each case relation's difference over one denominator (its Min/Max
    read as symbols), its numerator times its denominator."""
    model = symgpu.load("hong_kim_2009")
    expr = model.expression(model.equation_for("Exec_cycles_app").definition.defines)
    out = []
    for relation in ties.tested_relations([expr]):
        pieces = {m: sympy.Symbol(f"m{i}", positive=True) for i, m in enumerate(sorted(relation.atoms(sympy.Min, sympy.Max), key=sympy.default_sort_key))}
        numerator, denominator = sympy.fraction(sympy.together((relation.lhs - relation.rhs).xreplace(pieces)))
        out += [numerator * denominator, numerator**2, sympy.factor(numerator) * denominator]
    return out


def test_hong_kim_products_are_built_as_sring_builds_them_and_written_out_as_expand() -> None:
    products = _hong_kim_products()
    assert sum(_same_as_sring(p) for p in products) >= len(products) - 1
    for product in products:
        assert _same_tree(forms.expanded(product), sympy.expand(product))


x, y = sympy.symbols("x y", positive=True)


@pytest.mark.parametrize("expr", [x / 2 + y, 2.0 * x * (x + y), x**-1 * (x + y), sympy.floor(x) * (x + y), (x + y) * sympy.sqrt(2),
                                  (x * (y + 1) - x * y - x + y) * (y + 2), sympy.Integer(6), (x + sympy.Symbol("x", real=True)) * y, sympy.Min(x, y) * y])
def test_what_the_ring_route_declines_is_left_to_sring_and_expand(expr: sympy.Expr) -> None:
    # a fraction, a float, a negative power, a function, an irrational number, a symbol that cancels (the ring's generators
    # would not be sring's), no symbol, two symbols of one name (their order would be set by the order they are met)
    assert linear_factors.ring_of(expr) is None
    assert _same_tree(forms.expanded(expr), sympy.expand(expr))
