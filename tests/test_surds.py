"""Exact arithmetic in ``a + b*sqrt(r)`` (symgpu.proofs.surds) agrees with SymPy's exact arithmetic and with
mpmath at 120 digits: on hand cases (signs decided only by ``a**2`` against ``b**2 * r``, floors next to an
integer, roots of negative numbers refused) and on seeded random values, sums, products, quotients, powers,
comparisons (also of unrelated roots), floors and whole expressions at a point."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest
import sympy

from symgpu.proofs import surds
from symgpu.proofs.surds import Surd


@pytest.fixture(autouse=True)
def _digits_120():
    """mpmath at 120 digits in this file's tests only (the process's other tests keep its default)."""
    with mpmath.workdps(120):
        yield


def _sympy(x: surds.Number) -> sympy.Expr:
    """The value as SymPy's exact number (the independent oracle)."""
    if isinstance(x, Surd):
        return sympy.Rational(x.a.numerator, x.a.denominator) + sympy.Rational(x.b.numerator, x.b.denominator) * sympy.sqrt(x.r)
    return sympy.Rational(x.numerator, x.denominator)


def _mp(x: surds.Number) -> mpmath.mpf:
    if isinstance(x, Surd):
        return mpmath.mpf(x.a.numerator) / x.a.denominator + mpmath.mpf(x.b.numerator) / x.b.denominator * mpmath.sqrt(x.r)
    return mpmath.mpf(x.numerator) / x.denominator


def _same(x: surds.Number, y: sympy.Expr) -> bool:
    """Is ``x`` exactly SymPy's ``y`` (their difference rationalised and expanded is 0)?"""
    return sympy.expand(sympy.radsimp(_sympy(x) - y)) == 0


def _mp_sign(x: mpmath.mpf) -> int:
    assert abs(x) > mpmath.mpf(10) ** -80, "too near 0 for the oracle"
    return 1 if x > 0 else -1


def test_hand_signs_are_decided_by_comparing_squares() -> None:
    r2 = surds.sqrt(Fraction(2))
    assert surds.sign(1 - r2) == -1 and surds.sign(r2 - 1) == 1
    assert surds.sign(3 - 2 * r2) == 1  # 9 > 8
    assert surds.sign(-3 + 2 * r2) == -1
    assert surds.sign(Fraction(-17, 12) + r2) == -1 and surds.sign(Fraction(-141, 100) + r2) == 1  # 1.41 < sqrt 2 < 1.41666
    assert surds.sign(Fraction(0)) == 0


def test_hand_values_reduce_to_rationals_where_the_root_cancels() -> None:
    assert surds.sqrt(Fraction(9, 4)) == Fraction(3, 2) and isinstance(surds.sqrt(Fraction(9, 4)), Fraction)
    assert surds.sqrt(Fraction(8)) * surds.sqrt(Fraction(2)) == 4
    assert surds.sqrt(Fraction(8)) / surds.sqrt(Fraction(2)) == 2
    assert surds.sqrt(Fraction(8)) == 2 * surds.sqrt(Fraction(2))  # different radicands, one root
    r2 = surds.sqrt(Fraction(2))
    assert 1 / (r2 - 1) == r2 + 1
    assert (r2 - r2) == 0 and isinstance(r2 - r2, Fraction)
    assert (1 + r2) ** 2 == 3 + 2 * r2 and (1 + r2) ** -1 == r2 - 1
    assert surds.sqrt(Fraction(1, 3)) == surds.sqrt(Fraction(3)) / 3


def test_roots_of_negatives_and_of_surds_and_sums_of_unrelated_roots_are_refused() -> None:
    with pytest.raises(surds.NotReal):
        surds.sqrt(Fraction(-1))
    with pytest.raises(surds.Unsupported):
        surds.sqrt(1 + surds.sqrt(Fraction(2)))
    with pytest.raises(surds.Unsupported):
        surds.sqrt(Fraction(2)) + surds.sqrt(Fraction(3))
    with pytest.raises(ZeroDivisionError):
        surds.sqrt(Fraction(2)) / 0
    with pytest.raises(TypeError):
        hash(surds.sqrt(Fraction(2)))


def test_unrelated_roots_still_compare_exactly() -> None:
    r2, r3 = surds.sqrt(Fraction(2)), surds.sqrt(Fraction(3))
    assert r2 < r3 and r3 > r2 and r2 != r3
    assert min(r3, r2, Fraction(3, 2)) == r2 and max(r3, r2, Fraction(3, 2)) == r3
    assert 1 + r2 > r3 and Fraction(3, 10) + r2 < r3  # 2.414 > 1.732; 1.714 < 1.732


def test_floors_next_to_an_integer() -> None:
    big = surds.sqrt(Fraction(10**10 + 1))  # 100000.000005
    assert surds.floor(big) == 100000 and surds.ceiling(big) == 100001
    assert surds.floor(-big) == -100001 and surds.ceiling(-big) == -100000
    near = surds.sqrt(Fraction(10**10 - 1))  # 99999.999995
    assert surds.floor(near) == 99999 and surds.floor(100000 - near) == 0 and surds.floor(near - 100000) == -1
    assert surds.floor(surds.sqrt(Fraction(2))) == 1 and surds.ceiling(-surds.sqrt(Fraction(2))) == -1


def _random_surd(rng: random.Random, radicands: tuple[int, ...]) -> surds.Number:
    a = Fraction(rng.randint(-40, 40), rng.randint(1, 12))
    b = Fraction(rng.randint(-40, 40), rng.randint(1, 12))
    return surds.surd(a, b, rng.choice(radicands))


@pytest.mark.parametrize("seed", range(4))
def test_random_arithmetic_matches_sympy_exactly(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        r = rng.choice(((2, 8, 18, 50), (3, 12), (7, 28), (4, 9)))  # radicands of one root (2, 8, 18, 50), squares (4, 9)
        x, y = _random_surd(rng, r), _random_surd(rng, r)
        sx, sy = _sympy(x), _sympy(y)
        assert _same(x + y, sx + sy) and _same(x - y, sx - sy) and _same(x * y, sx * sy)
        if y != 0:
            assert _same(x / y, sx / sy)
        k = rng.randint(-4, 5)
        if x != 0 or k >= 0:
            assert _same(x ** k if isinstance(x, Surd) else x ** k, sx ** k)
        q = Fraction(rng.randint(-9, 9), rng.randint(1, 9))
        assert _same(x + q, sx + _sympy(q)) and _same(q - x, _sympy(q) - sx) and _same(q * x, _sympy(q) * sx)


@pytest.mark.parametrize("seed", range(4))
def test_random_signs_comparisons_and_floors_match_mpmath(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(300):
        x = _random_surd(rng, (2, 3, 5, 6, 8, 10, 12))
        y = _random_surd(rng, (2, 3, 5, 6, 8, 10, 12))
        mx, my = _mp(x), _mp(y)
        if x != 0:
            assert surds.sign(x) == _mp_sign(mx)
        if mx != my:
            assert surds.compare(x, y) == _mp_sign(mx - my)
            assert (x < y) == (mx < my) and (x > y) == (mx > my) and (min(x, y) == x) == (mx < my)
        assert surds.floor(x) == int(mpmath.floor(mx)) and surds.ceiling(x) == int(mpmath.ceil(mx))


def test_signs_of_nearly_cancelling_surds_match_sympy() -> None:
    # a + b*sqrt(r) with a/b a continued-fraction convergent of -sqrt(r): the two terms cancel to 10+ digits
    for r in (2, 3, 5, 7, 13):
        for p, q in _convergents(r, 14):
            for a, b in ((Fraction(p), Fraction(-q)), (Fraction(-p), Fraction(q))):
                exact = sympy.Integer(int(a)) + sympy.Integer(int(b)) * sympy.sqrt(r)
                assert surds.sign(surds.surd(a, b, r)) == (1 if exact.is_positive else -1)


def _convergents(r: int, count: int) -> list[tuple[int, int]]:
    """The first continued-fraction convergents ``p/q`` of ``sqrt(r)`` (alternately below and above it)."""
    out, h0, h1, k0, k1 = [], 1, 0, 0, 1
    m, d, a0 = 0, 1, int(sympy.sqrt(r))
    a = a0
    for _ in range(count):
        h0, h1 = a * h0 + h1, h0
        k0, k1 = a * k0 + k1, k0
        out.append((h0, k0))
        m = d * a - m
        d = (r - m * m) // d
        a = (a0 + m) // d
    return out


def test_expression_values_at_a_point_match_sympy_substitution() -> None:
    x, y, z = sympy.symbols("x y z", positive=True)
    exprs = [
        (-y + sympy.sqrt(y**2 + 4 * x * z)) / (2 * x),
        sympy.Min(x + sympy.sqrt(x * y), 3 * z, y / sympy.sqrt(z + 1), sympy.Max(x, sympy.sqrt(2) * y)),  # unrelated roots compared
        sympy.sqrt(x) * sympy.sqrt(2 * y) - sympy.sqrt(2 * x * y) / 3,  # a product of unrelated roots is a root
        sympy.floor(sympy.sqrt(x * 1000 + y)) + sympy.ceiling(-sympy.sqrt(z)) + sympy.Abs(1 - sympy.sqrt(x)),
        (x + sympy.sqrt(y)) ** 3 / (z - sympy.sqrt(y)) ** 2 + y ** sympy.Rational(3, 2) - 1 / sympy.sqrt(y),
    ]
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        point = {s: Fraction(rng.randint(1, 30), rng.randint(1, 7)) for s in (x, y, z)}
        at = {s: sympy.Rational(v.numerator, v.denominator) for s, v in point.items()}
        for e in exprs:
            try:
                got = surds.value(e, point.__getitem__, 16, {})
            except ZeroDivisionError:
                continue
            assert _same(got, e.xreplace(at))
            checked += 1
    assert checked > 150


def test_expression_values_refuse_what_is_not_this_arithmetic() -> None:
    x = sympy.Symbol("x", positive=True)
    with pytest.raises(surds.NotReal):
        surds.value(sympy.sqrt(x - 5), {x: Fraction(1)}.__getitem__, 16)
    with pytest.raises(surds.Unsupported):  # a sum over two unrelated roots
        surds.value(sympy.sqrt(x) + sympy.sqrt(x + 1), {x: Fraction(2)}.__getitem__, 16)
    for e in (x ** sympy.Rational(1, 3), sympy.log(x), x**40, sympy.Float(0.5) * x, sympy.sqrt(1 + sympy.sqrt(x))):
        with pytest.raises(surds.Unsupported):
            surds.value(e, {x: Fraction(2)}.__getitem__, 16)


def test_a_sum_or_product_of_fractions_alone_is_reduced_once_to_the_stepwise_fraction_and_a_surd_keeps_surd_arithmetic() -> None:
    rng = random.Random(11)
    for _ in range(200):
        parts = [Fraction(rng.randint(-10**6, 10**6), rng.randint(1, 10**4)) for _ in range(rng.randint(0, 9))]
        for node, stepwise in ((sympy.Add, sum(parts, Fraction(0))), (sympy.Mul, math.prod(parts, start=Fraction(1)))):
            once = surds.FOLDS[node](parts)
            assert type(once) is Fraction and (once.numerator, once.denominator) == (stepwise.numerator, stepwise.denominator)
    root = surds.sqrt(Fraction(2))
    assert isinstance(root, surds.Surd)
    assert surds.FOLDS[sympy.Add]([Fraction(1, 3), root, Fraction(1, 6)]) == sum([Fraction(1, 3), root, Fraction(1, 6)], Fraction(0))
    assert surds.FOLDS[sympy.Mul]([Fraction(3), root, root]) == Fraction(6)  # sqrt(2)*sqrt(2) = 2, by hand
