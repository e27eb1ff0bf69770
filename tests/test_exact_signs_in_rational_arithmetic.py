"""The signs :func:`symgpu.proofs.exact_signs.signs_at` reads at a point, in Python's rational arithmetic
where an expression is built of sums, products, integer powers, floor/ceiling and Min/Max, are the signs
of SymPy's exact substitution (``values_at``), poles and parts it cannot evaluate included (issue 31); so are those
read in ``a + b*sqrt(r)`` (symgpu.proofs.surds) where square roots come in."""

from __future__ import annotations

from typing import Any

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgpu.proofs import exact_signs

x, y = sympy.symbols("x y", positive=True)
z = sympy.Symbol("z", real=True)

EXPRESSIONS = (
    x - y, (x - y) ** 3 / (x + y), 1 / (x - y), 1 / (1 + 1 / (x - y)),  # zoo**-1 is 0 for SymPy at x = y
    sympy.floor(x / y) - 1, sympy.ceiling(x * y / 3) - x, sympy.Min(x, 2 * y) - sympy.Max(y, z),
    (x - y) / (x - y), z**2 - x * z + y, sympy.sqrt(x) - y, x**sympy.Rational(3, 2) - y, sympy.log(x) + z,
)


def _sympy_signs(exprs, point):
    values = exact_signs.values_at(exprs, point)
    return None if values is None else tuple(exact_signs._value_sign(v) for v in values)


def test_signs_by_hand_at_a_pole_and_a_staircase():
    point = {x: sympy.Integer(3), y: sympy.Integer(3), z: sympy.Rational(-1, 2)}
    # x - y = 0; 1/(x - y) is a pole (no sign); 1/(1 + 1/(x - y)) = 1/zoo = 0; floor(3/3) - 1 = 0;
    # ceiling(9/3) - 3 = 0; Min(3, 6) - Max(3, -1/2) = 0; z**2 - x*z + y = 1/4 + 3/2 + 3 > 0; sqrt(3) - 3 < 0
    signs = exact_signs.signs_at([EXPRESSIONS[i] for i in (0, 2, 3, 4, 5, 6, 8, 9)], point)
    assert signs == (0, None, 0, 0, 0, 0, 1, -1)


#: points (x, y positive, z of either sign) as hypothesis draws them
_POSITIVE = st.fractions(min_value=0, max_value=20).filter(lambda f: f > 0)
_POINTS = (_POSITIVE, _POSITIVE, st.fractions(min_value=-20, max_value=20))


def _point(*fractions: Any) -> dict[sympy.Symbol, sympy.Rational]:
    return {s: sympy.Rational(f.numerator, f.denominator) for s, f in zip((x, y, z), fractions)}


@settings(database=None, derandomize=True, max_examples=60)
@given(*_POINTS)
def test_signs_in_rational_arithmetic_are_sympys(fx, fy, fz):
    point = _point(fx, fy, fz)
    assert exact_signs.signs_at(EXPRESSIONS, point) == _sympy_signs(EXPRESSIONS, point)


#: values with square roots (a quadratic's root, a root of a possibly negative number, a pole between two roots):
#: read in surds' arithmetic (a + b*sqrt(r)), or by SymPy where they have no real value
ROOTED = (
    (-y + sympy.sqrt(y**2 + 4 * x * z)) / (2 * x) - 1, sympy.sqrt(z) - x, 1 / (sympy.sqrt(x) - sympy.sqrt(y)),
    sympy.Min(sympy.sqrt(x * y), z) - sympy.sqrt(2) * y, sympy.floor(sympy.sqrt(x)) - sympy.sqrt(y), sympy.sqrt(x) * sympy.sqrt(2 * y) - x,
)


@settings(database=None, derandomize=True, max_examples=60)
@given(*_POINTS)
def test_signs_of_values_with_square_roots_are_sympys(fx, fy, fz):
    point = _point(fx, fy, fz)
    assert exact_signs.signs_at(ROOTED, point) == _sympy_signs(ROOTED, point)
