"""``proofs.linear_factors.factor`` gives ``sympy.factor``'s own form (compared by ``srepr``) for
polynomials linear in some variable, products of them included, and declines what it cannot
handle so that the caller asks ``sympy.factor``."""

from __future__ import annotations

import functools
import random

import pytest
import sympy
from sympy.polys.rings import sring

from symgpu.proofs import forms, linear_factors

NAMES = ("Coal", "Comp", "Uncoal", "Mem_LD", "Issue", "d2", "d10", "w")


def _random_factor(rng: random.Random, symbols: list[sympy.Symbol]) -> sympy.Expr:
    """A random small polynomial: a few monomials of degree <= 2, coefficients of either sign."""
    terms = []
    for _ in range(rng.randint(1, 4)):
        coefficient = rng.choice([-3, -2, -1, 1, 1, 1, 2, 5])
        monomial = sympy.Mul(*[s ** rng.choice([1, 1, 2]) for s in rng.sample(symbols, rng.randint(0, 3))])
        terms.append(coefficient * monomial)
    return sympy.Add(*terms)


@functools.cache  # built when a test first reads it, not as the file is collected (by every worker)
def _cases(count: int) -> list[sympy.Expr]:
    rng = random.Random(20261126)
    symbols = [sympy.Symbol(n, positive=True) for n in NAMES] + [sympy.Dummy("Issue_k", positive=True)]
    out = []
    for _ in range(count):
        product = sympy.Mul(*[_random_factor(rng, symbols) ** rng.choice([1, 1, 1, 2]) for _ in range(rng.randint(1, 4))])
        product *= rng.choice([1, 2, -1, -6])
        out.append(sympy.expand(product) if rng.random() < 0.7 else product)
    return out


@pytest.mark.parametrize("index", range(120))
def test_linear_route_gives_sympy_factors_own_form(index: int) -> None:
    expr = _cases(120)[index]
    found = linear_factors.factor(expr)
    if found is not None:
        # NOTE: sympy.factor's Wang algorithm draws evaluation points from SymPy's own generator, seeded
        # from the OS at import: some draws take minutes on these polynomials (seen once in a full run).
        # The factorisation is unique; a fixed seed makes the time the same in every run
        sympy.core.random.seed(1)
        assert sympy.srepr(found) == sympy.srepr(sympy.factor(expr))


def test_most_random_products_take_the_linear_route() -> None:
    """The comparison above is not vacuous: the route answers for most of the cases."""
    answered = sum(linear_factors.factor(e) is not None for e in _cases(120))
    assert answered > 60


def test_hong_kim_side_is_split_into_its_three_factors() -> None:
    """A side of Hong & Kim's eq23/eq24 condition, multiplied out here from three factors
    written by hand, comes back as those factors."""
    c, u, p, ddc, ddu, issue, mem = sympy.symbols("Coal Uncoal Comp Ddc Ddu Issue Mem", positive=True)
    first, second, third = c * ddc + ddu * u * u, c + p + u, c**2 * issue + c * mem * ddu + p * issue * u + mem * u
    found = linear_factors.factor(sympy.expand(first * second * third))
    assert found is not None
    assert set(sympy.Mul.make_args(found)) == {first, second, third}


@pytest.mark.parametrize("expr", [
    sympy.Rational(1, 2) * sympy.Symbol("x") + sympy.Symbol("y") + sympy.Symbol("z") + 1,  # not over the integers
    sympy.sqrt(sympy.Symbol("x")) * sympy.Symbol("y") + sympy.Symbol("y") + sympy.Symbol("z") + 1,  # a generator that is not a symbol
    sympy.Dummy("d") * sympy.Symbol("y") + sympy.Dummy("d") + sympy.Symbol("z") + 1,  # two generators sorted alike
    sympy.Symbol("x") ** 2 + sympy.Symbol("y") ** 2 + 2 * sympy.Symbol("x") * sympy.Symbol("y") + 1,  # linear in no variable
    sympy.Symbol("x") + 1,  # too small to gain
    sympy.Float(0.5) * (sympy.Symbol("x") * sympy.Symbol("y") + sympy.Symbol("y") + sympy.Symbol("z") + 1),  # a float factor
    sympy.Rational(1, 3) * (sympy.Symbol("x") * sympy.Symbol("y") + sympy.Symbol("y") + sympy.Symbol("z") + 1),  # a fraction
    (sympy.Symbol("x") * sympy.Symbol("y") + sympy.Symbol("y") + sympy.Symbol("z") + 1) / sympy.Symbol("w"),  # a quotient
])
def test_declines_what_it_cannot_show_is_sympys_form(expr: sympy.Expr) -> None:
    assert linear_factors.factor(expr) is None


def test_factored_answers_as_sympy_factor_either_way() -> None:
    for expr in _cases(30):
        assert sympy.srepr(forms.factored(expr)) == sympy.srepr(sympy.factor(expr))


def _irreducibles(expr: sympy.Expr) -> tuple[sympy.Expr, list[tuple[sympy.Expr, int]]]:
    """SymPy's own ``Poly.factor_list`` (the dense route), the factors as expressions, sorted by ``srepr``."""
    coeff, factors = sympy.Poly(expr).factor_list()
    return coeff, sorted(((f.as_expr(), k) for f, k in factors), key=lambda fk: (sympy.srepr(fk[0]), fk[1]))


def _expanded() -> list[sympy.Expr]:
    return [sympy.expand(e) for e in _cases(120)] + [
    sympy.expand(-6 * sympy.Symbol("x") * (sympy.Symbol("y") + 2 * sympy.Symbol("z")) ** 2),  # b = 0: the content is all of it but x
    sympy.expand((-sympy.Symbol("x") * sympy.Symbol("y") - sympy.Symbol("z") - 3) * (sympy.Symbol("w") + 1) * 4),  # negative leading term
    sympy.expand((sympy.Symbol("x") ** 2 + sympy.Symbol("y") ** 2) * (sympy.Symbol("x") * sympy.Symbol("z") + sympy.Symbol("y"))),  # content without a linear variable
    sympy.expand(sympy.Symbol("Coal") * sympy.Symbol("Ddc") + sympy.Symbol("Ddu") * sympy.Symbol("Uncoal") ** 2)
    * sympy.expand((sympy.Symbol("Coal") + sympy.Symbol("Comp") + sympy.Symbol("Uncoal")) ** 2),
]


@pytest.mark.parametrize("index", range(124))  # _expanded()'s: the 120 cases and the 4 written out
def test_sparse_factor_list_gives_the_dense_factor_lists_factors(index: int) -> None:
    """The linear route's arithmetic on sparse polynomials built by ``sring`` (``_factor_list``) finds SymPy's own
    ``Poly.factor_list`` (dense ``Poly`` arithmetic, what the route ran on before): the same coefficient and the same normalised factors,
    for every polynomial over the integers that is linear in one of its variables (the others go to SymPy as before)."""
    cases = _expanded()
    assert len(cases) == 124  # the range above covers every case
    expr = cases[index]
    if expr.is_number:
        pytest.skip("a number: the route takes it as the coefficient")
    ring, poly = sring(expr)  # as the route builds it: Poly(expr)'s generators and domain
    assert tuple(ring.symbols) == sympy.Poly(expr).gens and ring.domain == sympy.Poly(expr).domain
    if not ring.domain.is_ZZ or not any(poly.degree(g) == 1 for g in ring.gens):
        pytest.skip("not a polynomial over the integers linear in a variable")
    sympy.core.random.seed(1)  # as above: SymPy's Wang algorithm draws from its own generator
    coeff, found = linear_factors._factor_list(poly)
    factors = sorted(((f.as_expr(), k) for f, k in found), key=lambda fk: (sympy.srepr(fk[0]), fk[1]))
    assert (coeff, factors) == _irreducibles(expr)
    assert all(sympy.srepr(f) == sympy.srepr(g) for (f, _), (g, _) in zip(factors, _irreducibles(expr)[1]))
