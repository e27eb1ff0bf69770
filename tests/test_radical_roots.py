"""Roots with the unknown under a square root (issue 31: Volkov's H100 loaded-latency model solved
for n took minutes): a function free of the unknown stays whole in the root and the root is the one
solved by hand; exact sign refutation skips points where a symbolic exponent becomes huge. (The H100
solve itself takes two minutes, too long for the suite: timing is never a pass/fail test.)"""

from __future__ import annotations

import sympy

from symgpu.derive import roots
from symgpu.proofs import exact_signs


def test_a_function_free_of_the_unknown_stays_whole_in_the_root():
    # y = 2*n*k/(n*p + q + sqrt((q - n*p)**2 + 4*n*r)) with q = a + s*log(i/j), the shape of the H100
    # loaded-latency root: solved by hand, n = y*(k*q - p*q*y + r*y)/(k**2 - k*p*y) ... as SymPy's
    # unfrozen solve gives it, but with log(i/j) whole (not log(i**(s*...)*j**(...)), whose exponent
    # would carry the units of y), and n = 0, where the right side is 0 < y, is no root
    n, y, k, p, r, a, s, i, j = sympy.symbols("n y k p r a s i j", positive=True)
    q = a + s * sympy.log(i / j)
    target = y - 2 * n * k / (n * p + q + sympy.sqrt((q - n * p) ** 2 + 4 * n * r))
    found = roots._radical_roots(target, n)
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
