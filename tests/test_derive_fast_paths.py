"""The engine's fast paths give what the general machinery gives: linear roots without
``sympy.solve``, expectations refuted at a point (or proved by expansion) before ``simplify``,
and the diff's normal form memoised."""

from __future__ import annotations

import sympy

from symgpu.compare import normalize
from symgpu.derive import jobs, regime_split, requests

a, b, c = sympy.symbols("a b c", positive=True)
x = sympy.Symbol("x", real=True)


def test_linear_roots_agree_with_sympy_solve():
    for target in (a * x - b, a / (x - b) - c, (a * x + b) / (c * x + 1) - a, x / a + b / (a + c) - 1):
        mine = jobs.linear_roots(target, x)
        assert mine is not None and len(mine) == 1
        (theirs,) = sympy.solve(target, x)
        assert sympy.cancel(mine[0] - theirs) == 0


def test_linear_roots_leave_other_equations_to_sympy_solve():
    assert jobs.linear_roots(x**2 - a, x) is None  # quadratic
    assert jobs.linear_roots(sympy.sqrt(x) - a, x) is None  # not rational in x
    assert jobs.linear_roots(sympy.floor(x) - a, x) is None
    assert jobs.linear_roots(sympy.Min(a, x) - b, x) is None


def test_linear_root_at_a_pole_is_not_returned():
    # x/(x - b) - b/(x - b) is 1 wherever it is defined: x = b zeroes the numerator and the denominator
    target = x / (x - b) - b / (x - b)
    assert sympy.solve(target, x) == []
    assert jobs.linear_roots(target, x) in (None, [])



def test_memoised_roots_are_those_solved_afresh_and_each_equation_is_solved_once(monkeypatch):
    n = sympy.Symbol("n", nonnegative=True)
    equations = [sympy.Eq(n**2 - a * n, b), n**2 - a, sympy.Eq(sympy.sqrt(n), a + b), sympy.Eq(n, n + 1), a * n - b]
    fresh = []
    for equation in equations:
        jobs._ROOTS.clear()
        fresh.append(jobs._roots(equation, n))
    calls: list[sympy.Basic] = []
    solve = sympy.solve
    monkeypatch.setattr(sympy, "solve", lambda target, *args, **kw: calls.append(target) or solve(target, *args, **kw))
    jobs._ROOTS.clear()
    first = [jobs._roots(equation, n) for equation in equations]
    again = [jobs._roots(equation, n) for equation in equations]
    assert first == again == fresh
    # by hand: a*n - b is linear (no sympy.solve); n = n + 1 has no root; n**2 - a = 0 at n = ±sqrt(a) (the domain filter comes after)
    assert fresh[4] == [b / a] and fresh[3] == [] and sympy.sqrt(a) in fresh[1]
    assert len(calls) == 3  # the three nonlinear equations, once each
    # the same equation in another variable is another question
    assert jobs._roots(sympy.Eq(a * n - b, 0), n) == [b / a] and jobs._roots(a * n - b, a) == [b / n]
    # a caller may change the list it gets: the memo keeps its own
    first[4].append(sympy.Integer(7))
    assert jobs._roots(equations[4], n) == [b / a]

def test_expressions_that_differ_at_an_admissible_point_are_refuted():
    assert requests._differ_at_a_point(a + b, a - b)
    assert requests._differ_at_a_point(sympy.sqrt(a * b), a)


def test_an_expression_equal_to_zero_is_never_refuted_by_its_rounding_residue():
    # cos(a)**2 + sin(a)**2 - 1 evaluates to a tiny residue, not 0, at 30 digits
    assert not requests._differ_at_a_point(sympy.cos(a) ** 2 + sympy.sin(a) ** 2 - 1, sympy.Integer(0))
    assert not requests._differ_at_a_point(sympy.sqrt(2) * sympy.sqrt(3) * sympy.sqrt(a) - sympy.sqrt(6 * a), sympy.Integer(0))


def test_equal_expressions_are_never_refuted_at_a_point():
    # the two forms of the smaller root of a*x**2 - (a*c + b)*x + b*c (cancellation-free and textbook)
    disc = (a * c + b) ** 2 - 4 * a * b * c
    textbook = ((a * c + b) - sympy.sqrt(disc)) / (2 * a)
    stable = 2 * b * c / ((a * c + b) + sympy.sqrt(disc))
    assert not requests._differ_at_a_point(textbook, stable)
    assert not requests._differ_at_a_point(sympy.sqrt(a**2), a)
    assert requests._equal(textbook, stable)
    assert not requests._equal(textbook, stable + 1)


def test_normal_form_with_a_shared_memo_is_the_fresh_one():
    n = sympy.Symbol("n", positive=True)
    first = a + sympy.Max(4 + sympy.Max(0, 33 - a), 444 - (n - 1) * (a + 4))
    second = 2 * sympy.Min(first, b) + c
    memo: dict[sympy.Basic, sympy.Basic] = {}
    assert normalize(first, memo) == normalize(first)
    assert normalize(second, memo) == normalize(second)
    assert first in memo  # the subexpression was normalised once and reused


def test_opposite_conditions_are_found_and_others_refuted_at_a_point():
    h = (a * x - b) / (c + x)
    assert regime_split.cancel_to_zero(h, -h)
    assert regime_split.cancel_to_zero(h, (b - a * x) / (x + c))
    assert regime_split.cancel_to_zero(h, sympy.Mul(-1, a * x - b, evaluate=False) / (c + x))
    assert not regime_split.cancel_to_zero(h, -h + 1 / (c + x))
    assert not regime_split.cancel_to_zero(h, h)
