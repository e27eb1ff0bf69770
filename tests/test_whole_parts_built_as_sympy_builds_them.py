"""``whole_parts.built(floor, x)`` (and ``ceiling``) is the node SymPy's evaluation of ``floor(x)`` builds, by
``srepr``: where exact values at admissible points prove the evaluation leaves it as it is, built unevaluated without
SymPy's assumption queries; everywhere else SymPy's own. Proved against ``sympy.floor``/``sympy.ceiling`` of the same
argument: on every whole part of the occupancy model (its arguments, twice them, their base-unit forms) and on seeded
arguments over symbols of every assumption set, among them the ones SymPy does rewrite (an integer, a value within a
unit interval, a whole part or minus one, an integer term of a sum), which the route refuses."""

from __future__ import annotations

import random

import pytest
import sympy

import symgpu
from symgpu.proofs import forms, whole_parts

PARTS = (sympy.floor, sympy.ceiling)


def assert_as_sympy_builds_it(x: sympy.Expr) -> int:
    """``built`` gives SymPy's node for both functions; 1 where the route (no evaluation) was taken."""
    for func in PARTS:
        assert sympy.srepr(whole_parts.built(func, x)) == sympy.srepr(func(x)), (func, x)
    return int(whole_parts.left_as_it_is(x))


def test_the_occupancy_whole_parts_are_built_as_sympy_builds_them() -> None:
    model = symgpu.load("occupancy")
    arguments = set()
    for name in ("active_blocks_per_SM", "active_warps_per_SM", "occupancy"):
        for node in forms.atoms(model.expression(name), *PARTS):
            arguments.add(node.args[0])
    taken = 0
    for x in sorted(arguments, key=sympy.default_sort_key):
        taken += assert_as_sympy_builds_it(x) + assert_as_sympy_builds_it(2 * x) + assert_as_sympy_builds_it(-x)
    assert len(arguments) >= 12 and taken >= 2 * len(arguments), (len(arguments), taken)


def _symbols() -> list[sympy.Symbol]:
    kinds = [{"positive": True}, {"positive": True, "integer": True}, {"nonnegative": True, "integer": True}, {"real": True},
             {"negative": True}, {"integer": True}, {"nonnegative": True}, {}, {"positive": True, "even": True}]
    return [sympy.Symbol(f"v{i}", **kind) for i, kind in enumerate(kinds)]


def _argument(rng: random.Random, symbols: list[sympy.Symbol], depth: int) -> sympy.Expr:
    pick = lambda: rng.choice(symbols)  # noqa: E731
    shapes = [lambda: pick() / pick(), lambda: pick() * pick(), lambda: pick() * pick() / pick(), lambda: pick() / (pick() + pick()),
              lambda: pick() / (pick() + rng.choice([1, 2, 3])), lambda: sympy.Rational(rng.choice([1, 3, 7]), rng.choice([2, 4])) * pick(),
              lambda: pick() ** rng.choice([2, 3, -1]), lambda: pick() + pick(), lambda: -pick(), lambda: 2 * pick(),
              lambda: sympy.Max(pick(), pick()) / pick(), lambda: pick() * sympy.pi]
    out = rng.choice(shapes)()
    if depth and rng.random() < 0.6:
        inner = rng.choice(PARTS)(_argument(rng, symbols, depth - 1))
        out = rng.choice([out / inner, out * inner, inner, -inner, inner / pick()])
    return out


def test_seeded_whole_parts_are_built_as_sympy_builds_them() -> None:
    rng = random.Random(4099)
    symbols = _symbols()
    taken = refused = 0
    for _ in range(400):
        x = _argument(rng, symbols, 2)
        if assert_as_sympy_builds_it(x):
            taken += 1
        else:
            refused += 1
    assert taken > 120 and refused > 120, (taken, refused)


@pytest.mark.parametrize("x", [
    "n*m", "a/(a + b)", "b/(a + b) + 0", "-a/(a + b)", "2*n", "floor(a)", "-ceiling(a)", "a + 1/2", "a/b + n", "pi*a", "3/2",
    "n/2 + 1", "a*0 + 4", "1/(a + 1)", "2*a/(2*a + 1)", "(n + 1)*n/2",
], ids=lambda text: text)
def test_a_whole_part_sympy_may_rewrite_or_that_is_not_proved_left_alone_is_left_to_sympy(x: str) -> None:
    names = {"a": sympy.Symbol("a", positive=True), "b": sympy.Symbol("b", positive=True),
             "n": sympy.Symbol("n", integer=True, positive=True), "m": sympy.Symbol("m", integer=True)}
    expr = sympy.sympify(x, locals=names)
    assert not whole_parts.left_as_it_is(expr)
    assert_as_sympy_builds_it(expr)


def test_sympy_does_rewrite_those_whole_parts() -> None:
    a, b = sympy.symbols("a b", positive=True)
    n = sympy.Symbol("n", integer=True)
    assert sympy.floor(a / (a + b)) == 0 and sympy.ceiling(a / (a + b)) == 1 and sympy.floor(n * 3) == 3 * n
    assert sympy.floor(sympy.floor(a)) == sympy.floor(a)


def test_a_node_rebuilt_from_new_arguments_is_the_one_sympy_builds() -> None:
    a, b = sympy.symbols("a b", positive=True)
    n = sympy.Symbol("n", integer=True)
    for func, args in [(sympy.floor, [a / (3 * b)]), (sympy.ceiling, [a * b / 7]), (sympy.floor, [a / (a + b)]),
                       (sympy.ceiling, [3 * n]), (sympy.Add, [a, b, 2]), (sympy.Mul, [a, sympy.Rational(1, 2)]),
                       (sympy.Max, [a, b]), (sympy.log, [a])]:
        assert sympy.srepr(whole_parts.rebuilt(func, args)) == sympy.srepr(func(*args))
    assert whole_parts.left_as_it_is(a / (3 * b))  # the first is built without SymPy's evaluation
