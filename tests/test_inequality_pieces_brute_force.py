"""The set where ``f(x) REL t`` holds, assembled from Min/Max/ceiling/floor regimes at exact numbers
(:func:`symgpu.derive.inequality_pieces.where_holds`), equals the brute force's: every relation of random
compositions of staircases, Min/Max, sums and reciprocals checked at 300 points (exactly where the value is
within 1e-6 of the target)."""

from __future__ import annotations

import random

import sympy

from symgpu.derive.inequality_pieces import where_holds

X = sympy.Dummy("x", positive=True)
R = sympy.Rational
OPS = (sympy.LessThan, sympy.StrictLessThan, sympy.GreaterThan, sympy.StrictGreaterThan)
POINTS = [R(k, 4) for k in range(1, 200)] + [R(k, 4) + R(1, 10**9) for k in range(1, 100)]


def _leaf(r: random.Random) -> sympy.Expr:
    a, b, d = R(r.randint(1, 9), r.randint(1, 4)), R(r.randint(-5, 9)), r.randint(1, 7)
    return r.choice([a * X + b, a * sympy.ceiling(X / d), a * sympy.floor(X / d) + b, R(r.randint(1, 50)) / sympy.ceiling(X / d), b + a / X])


def _expr(r: random.Random, depth: int = 0) -> sympy.Expr:
    if depth > 1 or r.random() < 0.3:
        return _leaf(r)
    k = r.randrange(4)
    if k == 0:
        return sympy.Min(_expr(r, depth + 1), _expr(r, depth + 1))
    if k == 1:
        return sympy.Max(_expr(r, depth + 1), _expr(r, depth + 1))
    if k == 2:
        return _expr(r, depth + 1) + R(r.randint(0, 5))
    return sympy.ceiling(_expr(r, depth + 1) / r.randint(1, 3))


def test_random_regime_relations_hold_exactly_where_the_brute_force_says() -> None:
    r = random.Random(7)
    universe = sympy.Interval.open(0, sympy.oo)
    for _ in range(25):
        f, op, t = _expr(r), r.choice(OPS), R(r.randint(1, 60), r.randint(1, 3))
        found = where_holds(f, op, t, X, universe)
        fn = sympy.lambdify(X, f, "math")
        for v in POINTS:
            value = fn(float(v))
            holds = bool(op(f.subs(X, v), t)) if abs(value - float(t)) < 1e-6 else bool(op(value, float(t)))
            assert holds == bool(found.contains(v)), f"{f} {op.rel_op} {t} at x = {v}: brute force {holds}, set {found}"
