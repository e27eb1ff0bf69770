"""The short cut in SymPy's number comparison (``symgpu.derive.speedups``) answers exactly as
SymPy does: a number never equals a plain dictionary, anything else goes SymPy's own way, and
``simplify`` gives the same expressions with and without it."""

from __future__ import annotations

import sympy
from sympy.core.numbers import Rational

from symgpu.derive import forms, speedups  # forms installs the short cut

x, y, z = sympy.symbols("x y z", positive=True)
NUMBERS = [sympy.S.One, sympy.S.Zero, sympy.S.NegativeOne, sympy.Integer(7), sympy.Rational(3, 4), sympy.S.Half]
OTHERS = [{}, {sympy.S.One: sympy.S.One}, {x: 2, y: -1}, {1: 1}, 1, 0, 7, 0.75, sympy.Rational(3, 4), sympy.Float(0.75), x, None, "1"]


class _Mapping(dict):
    """A dict subclass with its own ``_sympy_``: it goes SymPy's way, not the short cut."""

    def _sympy_(self):
        return sympy.Integer(len(self))


def test_the_short_cut_is_installed_once():
    assert Rational.__eq__ is speedups._rational_eq
    speedups.install()
    assert Rational.__eq__ is speedups._rational_eq


def test_numbers_compare_with_anything_as_sympy_compares_them():
    for number in NUMBERS:
        for other in OTHERS + [_Mapping({"a": 1})]:
            # the replaced method against SymPy's own, on the same arguments (NotImplemented included)
            assert speedups._rational_eq(number, other) == speedups._SYMPY_EQ(number, other), (number, other)
        assert (number == {}) is False and (number == {x: 1}) is False


def test_simplify_gives_the_same_expressions_with_and_without_the_short_cut(monkeypatch):
    expressions = [
        (x * y + x * z) / (x ** 2 * y) + 1 / (y + z),
        x / (x * (y + 1)) - (x * y - x) / (x * (y ** 2 - 1)),
        (x ** 2 * y + x * y ** 2) / (z * (x + y)) + sympy.Rational(3, 4) * x * z / (y * z),
        sympy.floor(x / (y * sympy.ceiling(z / y))) + x * (y + z) / (x * y + x * z),
    ]
    fast = [sympy.simplify(e) for e in expressions]
    monkeypatch.setattr(Rational, "__eq__", speedups._SYMPY_EQ)
    sympy.core.cache.clear_cache()
    slow = [sympy.simplify(e) for e in expressions]
    assert [sympy.srepr(e) for e in fast] == [sympy.srepr(e) for e in slow]
    assert forms.small_simplify is not None
