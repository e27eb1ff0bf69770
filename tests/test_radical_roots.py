"""Roots with the unknown under a square root (issue 31: Volkov's H100 loaded-latency model solved
for n took minutes): the answer agrees with a bisection of the evaluate path, a function free of the
unknown stays whole in the root, the squared equation's candidates are kept or dropped by the sign
the root needs, and exact sign refutation skips points where a symbolic exponent becomes huge."""

from __future__ import annotations

import re

import sympy

from conftest import bisect_sign_change
import symgpu
from symgpu import cli
from symgpu.derive import roots
from symgpu.proofs import exact_signs


def test_h100_loaded_latency_solved_for_warps_agrees_with_a_bisection_of_the_model(capsys):
    command = ["--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "n", "--target", "2000 GB/s",
               "--preset", "h100_fit", "--set", "ilp=1", "--set", "alpha=0"]
    assert cli.main(command) == 0
    printed = capsys.readouterr().out
    answer = float(re.search(r"^  value: ([0-9.]+) (\S+ \[warp/SM\]|warp/SM)", printed, re.M).group(1))  # a root of the numbers: no regime
    model = symgpu.load("volkov_2016_h100")

    def excess(n: float) -> float:
        return model.evaluate("dram_throughput", preset="h100_fit", ilp=1, alpha=0, n=n).to("GB/s").magnitude - 2000

    assert excess(1) < 0 < excess(64)  # the target lies between 1 and 64 warps per SM: one crossing (the model rises in n)
    assert abs(answer - bisect_sign_change(excess, 1, 64)) < 1e-6 * answer


def test_a_function_free_of_the_unknown_stays_whole_in_the_root():
    # y = 2*n*k/(n*p + q + sqrt((q - n*p)**2 + 4*n*r)) with q = a + s*log(i/j), the shape of the H100
    # loaded-latency root: solved by hand, n = y*(k*q - p*q*y + r*y)/(k**2 - k*p*y) ... as SymPy's
    # unfrozen solve gives it, but with log(i/j) whole (not log(i**(s*...)*j**(...)), whose exponent
    # would carry the units of y), and n = 0, where the right side is 0 < y, is no root
    n, y, k, p, r, a, s, i, j = sympy.symbols("n y k p r a s i j", positive=True)
    q = a + s * sympy.log(i / j)
    target = y - 2 * n * k / (n * p + q + sympy.sqrt((q - n * p) ** 2 + 4 * n * r))
    found = [root for root, _ in roots._radical_roots(target, n)]
    assert len(found) == 1 and found[0] != 0
    assert found[0].has(sympy.log(i / j)) and not any(isinstance(e.exp, sympy.Expr) and e.exp.has(y)
                                                       for e in found[0].atoms(sympy.Pow))
    by_hand = y * (k * q - p * q * y + r * y) / (k * (k - p * y))
    point = {y: 1, k: 3, p: 1, r: 5, a: 2, s: sympy.Rational(1, 3), i: 2, j: 1}
    assert abs(complex((found[0] - by_hand).xreplace(point).evalf(30))) < 1e-25
    assert abs(complex(target.xreplace({n: found[0]}).xreplace(point).evalf(30))) < 1e-25


def test_exact_sign_refutation_skips_a_point_whose_symbolic_exponent_would_be_huge():
    x, s, c = sympy.symbols("x s c", positive=True)
    exponents = exact_signs.symbolic_exponents(x ** (s * c * 10**6) - 2)
    assert exponents == (s * c * 10**6,)
    assert not exact_signs.modest_at(exponents, {s: sympy.Integer(2), c: sympy.Integer(3)})  # 6 million: skipped
    assert exact_signs.modest_at((s * c,), {s: sympy.Integer(2), c: sympy.Integer(3)})
    # x**(s*c*10**6) - 2 takes both signs (x < 1 and x > 1), but at every sample point s*c*10**6 is at
    # least 250000: each point is skipped, so it is not refuted (before, 3**(6*10**6) and the like were
    # computed, a million digits each, and the two signs found)
    assert exact_signs.refuted(x ** (s * c * 10**6) - 2) is False


def test_a_candidate_of_the_squared_equation_is_a_root_only_where_the_root_sign_allows():
    # sqrt(x) = x - 2: squared, x = x**2 - 4*x + 4, candidates 1 and 4 (by hand); sqrt(1) = 1 but
    # 1 - 2 = -1, so 1 is no root; sqrt(4) = 2 = 4 - 2, so 4 is. Decided by P*Q's sign (P = -(x - 2),
    # Q = 1 here), not by sympy.solve's simplification at each candidate.
    x = sympy.Symbol("x", positive=True)
    assert roots._squared_roots(sympy.sqrt(x) - (x - 2), x, roots.one_square_root(sympy.sqrt(x) - (x - 2), x)) == [(4, sympy.true)]


def test_the_squared_polynomial_is_one_function_for_roots_and_inequality_crossings():
    # sqrt(x) - (x - 2): P = 2 - x, Q = 1, R = x, so P**2 - Q**2*R = x**2 - 5*x + 4 (by hand), real roots 1 and 4
    x = sympy.Symbol("x", positive=True)
    squared = roots.squared_numerator(roots.one_square_root(sympy.sqrt(x) - (x - 2), x))
    assert sympy.expand(squared - (x ** 2 - 5 * x + 4)) == 0
    assert roots.exact_real_roots(sympy.Poly(squared, x)) == [1, 4]
    assert roots.exact_real_roots(sympy.Poly(x ** 2 - sympy.sqrt(2), x)) is None  # no rational coefficients: the guard answers


def test_a_candidate_that_makes_the_denominator_vanish_is_no_root():
    # k*x/(c + sqrt(c**2 + x)) = y: x = 0 is a candidate of the squared numerator only where the
    # denominator is c + |c| (0 for c < 0): it is dropped; the other candidate, solved by hand,
    # x = y*(2*c*k + y)/k**2, is kept (its sign is open: kept, as sympy.solve keeps an undecided one),
    # with the condition it needs: sqrt(c**2 + x) = (k*x - c*y)/y >= 0, that is c*k + y >= 0 (true at c = 1)
    x, k, y = sympy.symbols("x k y", positive=True)
    c = sympy.Symbol("c", real=True)
    target = k * x / (c + sympy.sqrt(c ** 2 + x)) - y
    found = roots._radical_roots(target, x)
    assert len(found) == 1 and sympy.simplify(found[0][0] - y * (2 * c * k + y) / k ** 2) == 0
    assert found[0][1].xreplace({c: 1, k: 2, y: 3}) is sympy.true


def test_a_second_root_or_a_root_inside_a_function_goes_to_sympy_solve():
    x, a = sympy.symbols("x a", positive=True)
    assert roots.one_square_root(sympy.sqrt(x) + sympy.cbrt(x) - a, x) is None
    assert roots.one_square_root(sympy.sqrt(x) + sympy.sqrt(x + 1) - a, x) is None
    assert roots.one_square_root(sympy.log(sympy.sqrt(x) + 1) - a, x) is None


def test_no_complex_candidate_of_the_squared_equation_is_given_as_a_real_root():
    x = sympy.Symbol("x", real=True)
    # sqrt(x + 1) = -(x + 2) needs x <= -2 and x >= -1 at once (by hand): no real root; the squared
    # equation's candidates -3/2 +- sqrt(3)*I/2 were returned (a review's finding)
    assert roots.real_roots(-x - sympy.sqrt(x + 1) - 2, x) == []
    # x = sqrt(x + 1)/(x - 2): every root returned is real and satisfies the equation (in 30 digits)
    found = roots.real_roots(x - sympy.sqrt(x + 1) / (x - 2), x)
    assert found and all(r.is_extended_real is not False for r in found)
    for r in found:
        value = complex(r.evalf(30))
        assert value.imag == 0 and abs(value.real - (value.real + 1) ** 0.5 / (value.real - 2)) < 1e-9
