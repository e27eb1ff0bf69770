"""A sum of distinct generators (symbols, ``floor``/``ceiling``) with coefficients 1 and -1 is given back by
``forms.factored`` as ``sympy.factor`` gives it, and by ``forms.expanded`` as ``sympy.expand`` does, without factoring
(``forms._sum_of_generators``: the occupancy limits' differences ``floor(A) - floor(B)`` tidied in a regime table, 1-4
ms each in ``factor``). Proved by comparing with ``sympy.factor`` and ``sympy.expand`` of the same expression, by ``srepr``: on the differences of the occupancy model's
floors (among them a generator whose ``expand`` differs, ``ceiling((s + r)/u)`` read as ``ceiling(s/u + r/u)``),
and on seeded sums of floors and ceilings of products, quotients and sums of symbols of every assumption set;
the route is refused where it does not apply (a coefficient other than 1 or -1, a product, two terms of one
generator once expanded, a generator whose ``expand`` is a sum)."""

from __future__ import annotations

import itertools
import random

import sympy

import symgpu
from symgpu import memo
from symgpu.proofs import forms


def assert_factor_of_it(expr: sympy.Expr) -> bool:
    """The route's form is ``sympy.factor``'s (by srepr) where it is taken; whether it was."""
    got = forms._sum_of_generators(expr)
    if got is None:
        return False
    assert sympy.srepr(got) == sympy.srepr(sympy.factor(expr)), expr
    assert sympy.srepr(forms.expanded(expr)) == sympy.srepr(sympy.expand(expr)), expr  # the same sum is expand's
    return True


def test_the_occupancy_floors_differences_factor_as_sympy_factors_them() -> None:
    model = symgpu.load("occupancy")
    expr = model.expression("active_blocks_per_SM")
    floors = sorted(forms.atoms(expr, sympy.floor, sympy.ceiling), key=sympy.default_sort_key)
    symbols = sorted(expr.free_symbols, key=sympy.default_sort_key)[:4]
    parts = floors[:12] + symbols
    taken = 0
    for left, right in itertools.combinations(parts, 2):
        for expr in (left - right, right - left, left + right, -left - right):
            taken += assert_factor_of_it(expr)
    for part in floors:
        taken += assert_factor_of_it(part) + assert_factor_of_it(-part)
    assert taken > 300
    rewritten = [f for f in floors if sympy.expand(f) != f]
    assert rewritten, "a floor whose expand differs (the shared memory limit's ceiling of a sum)"
    for floor in rewritten:
        assert assert_factor_of_it(floor - symbols[0])


def test_factored_takes_the_route_without_a_factoring() -> None:
    a, b, c = sympy.symbols("a b c", positive=True, integer=True)
    expr = sympy.floor(a / sympy.ceiling((b + c) / a)) - sympy.floor(b / c)
    memo.clear_all()
    assert forms.factored(expr) == sympy.factor(expr) != expr
    assert memo.tallies()["proofs.forms.factor"] == 0


def _symbols() -> list[sympy.Symbol]:
    kinds = [{"positive": True}, {"positive": True, "integer": True}, {"nonnegative": True, "integer": True},
             {"real": True}, {"negative": True}, {"integer": True}, {}]
    return [sympy.Symbol(f"s{i}", **kind) for i, kind in enumerate(kinds)] + [sympy.Symbol("t", positive=True)]


def _argument(rng: random.Random, symbols: list[sympy.Symbol], depth: int) -> sympy.Expr:
    pick = lambda: rng.choice(symbols)  # noqa: E731
    shapes = [lambda: pick() / pick(), lambda: pick() * pick() / pick(), lambda: (pick() + pick()) / pick(),
              lambda: pick() / (pick() + rng.choice([1, 2])), lambda: sympy.Rational(rng.choice([1, 3]), rng.choice([2, 4])) * pick(),
              lambda: 2 * (pick() + 1), lambda: (pick() + pick()) ** 2 / pick()]
    out = rng.choice(shapes)()
    if depth and rng.random() < 0.5:
        out = out / rng.choice([sympy.floor, sympy.ceiling])(_argument(rng, symbols, depth - 1))
    return out


def test_seeded_sums_of_generators_factor_as_sympy_factors_them() -> None:
    rng = random.Random(2931)
    symbols = _symbols()
    taken = refused = rewritten = 0
    for _ in range(400):
        generators = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.25:
                generators.append(rng.choice(symbols))
            else:
                generators.append(rng.choice([sympy.floor, sympy.ceiling])(_argument(rng, symbols, 2)))
        expr = sum(rng.choice([1, -1, 1, -1, 2, -3]) * g for g in generators)
        if assert_factor_of_it(expr):
            taken += 1
            rewritten += forms._sum_of_generators(expr) != expr  # a generator as expand leaves it
        else:
            refused += 1
    assert taken > 120 and refused > 100 and rewritten > 60, (taken, refused, rewritten)


def test_the_route_is_refused_where_it_does_not_apply() -> None:
    x, y, z = sympy.symbols("x y z", positive=True)
    n = sympy.Symbol("n", integer=True)
    for expr in (2 * sympy.floor(x / y) - sympy.floor(y / x),  # a coefficient other than 1 or -1
                 x * sympy.floor(y / z) - z,  # a product
                 sympy.floor((x + y) / z) - sympy.floor(x / z + y / z) + z,  # two terms of one generator, once expanded
                 sympy.floor(n * (x + 1)) - y,  # expanded, floor(n*x + n) is floor(n*x) + n: a sum
                 sympy.Min(x, y) - z, x + 1):
        assert forms._sum_of_generators(expr) is None, expr
    assert sympy.expand(sympy.floor(n * (x + 1))) == sympy.floor(n * x) + n
    assert sympy.factor(sympy.floor((x + y) / z) - sympy.floor(x / z + y / z) + z) == z
