"""``rational_solve.solved`` (sympy.solve of an equation rational in its unknown, the candidates' checks shown to keep
every one by exact values at a point instead of run) gives exactly ``sympy.solve``'s roots, in its order: the oracle
is SymPy's own checked solve of the same equation. Hand cases where the checks drop a candidate (a root of the
denominator too, a root that is never real) and seeded random quadratics in several symbols."""

from __future__ import annotations

import random

import pytest
import sympy

from symgpu.derive import rational_solve

x = sympy.Dummy("x", real=True)
a, b, c, d = sympy.symbols("a b c d", positive=True)
n = sympy.Symbol("n", integer=True, positive=True)
z = sympy.Symbol("z", real=True)


def _same(target: sympy.Expr) -> list[sympy.Expr]:
    found = rational_solve.solved(target, x)
    assert [sympy.srepr(r) for r in found] == [sympy.srepr(r) for r in sympy.solve(target, x, dict=False)]
    return found


@pytest.mark.parametrize("target", [
    a * x**2 + b * x - c,                                   # two radical roots, one of each sign
    (a * x + b) / (x + c) - d * x,                          # a quadratic numerator over a denominator in x
    (x * (x + a) - b * (x + c)) / ((x + a) * (x + b + c)),  # Hong & Kim's shape: Comp/Mem cycles meeting
    (x**2 - 1) / (x - 1),                                   # x = 1 zeroes the denominator: dropped by the check
    x**2 + a**2 + 1,                                        # never real: dropped
    x**2 - 2 * z * x + z**2 - n,                            # a root with an integer symbol under it
    (x - a) * (x - b) / (x - c),                            # rational roots
    x**2 + a * x + sympy.Rational(1, 4) * a**2 - b,         # a perfect square plus b
    b / x - a * x,                                          # x in the denominator only
])
def test_hand_equations_have_sympys_roots(target: sympy.Expr) -> None:
    _same(target)


@pytest.mark.parametrize("seed", range(3))
def test_random_quadratics_over_denominators_have_sympys_roots(seed: int) -> None:
    rng = random.Random(seed)
    atoms = [a, b, c, d, n, z, sympy.Integer(1), sympy.Integer(2), sympy.Rational(1, 3)]
    for _ in range(6):
        coefficients = [rng.choice(atoms) * rng.choice(atoms) * rng.choice((-1, 1)) for _ in range(3)]
        numerator = coefficients[0] * x**2 + coefficients[1] * x + coefficients[2]
        denominator = x + rng.choice(atoms) if rng.random() < 0.6 else sympy.Integer(1)
        _same(numerator / denominator)


def test_candidates_are_kept_without_the_checks_only_where_the_checks_keep_them() -> None:
    for target in (a * x**2 + b * x - c, (a * x + b) / (x + c) - d * x, (x * (x + a) - b * (x + c)) / ((x + a) * (x + b + c))):
        candidates = sympy.solve(target, x, dict=False, check=False)
        assert len(candidates) == 2 and all(rational_solve._kept(target, x, r) for r in candidates)  # no check run
    for target in ((x**2 - 1) / (x - 1), x**2 + a**2 + 1):  # a root of the denominator; roots never real: SymPy's checks run
        assert not all(rational_solve._kept(target, x, r) for r in sympy.solve(target, x, dict=False, check=False))
