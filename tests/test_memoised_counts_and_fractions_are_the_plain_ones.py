"""The memoised ``count_ops`` test of a condition at a root (case_boundary.too_large_to_tidy) and the memoised
``fraction(together(...))`` (roots.together_parts) give what the plain SymPy calls give, on the first call and on a
memo hit, on the conditions and differences the Hong & Kim questions meet (large ones with square roots, small ones,
ones with Min/Max, atoms and non-rational expressions)."""

from __future__ import annotations

import sympy

from symgpu import memo
from symgpu.derive import case_boundary, roots

x, y, z = sympy.symbols("x y z", positive=True)
w = sympy.Symbol("w")

#: a quadratic's root with a square root of a long discriminant (as a case switch's root is), and relations built on it
_ROOT = (-(x + y) * z + sympy.sqrt((x * y + z) ** 2 * (x + 2 * y + 3 * z) ** 3 - 4 * x * y * z * (x - y) ** 5)) / (2 * (x - z))
_CASES: list[sympy.Basic] = [
    x, sympy.Integer(3), sympy.true, sympy.Eq(x, 2), x > y,
    sympy.expand((x + y + z) ** 6) > 0, sympy.expand((x - y + 2 * z) ** 9) >= sympy.expand((x + y) ** 7),
    _ROOT ** 2 + _ROOT * y - x >= 0, sympy.Min(x, _ROOT * y) - sympy.Max(z, _ROOT) < 0,
    sympy.And(x > _ROOT, sympy.Or(y <= _ROOT ** 3, sympy.Not(sympy.Eq(z, _ROOT)))),
    sympy.Float(1.5) * x - sympy.Rational(-3, 7) * w > 0,
]


def test_too_large_to_tidy_is_count_ops_above_the_bound_first_and_from_the_memo() -> None:
    memo.clear_all()
    plain = [sympy.count_ops(c) > case_boundary.MAX_TIDIED_OPS for c in _CASES]
    assert True in plain and False in plain  # both verdicts among the cases
    assert [case_boundary.too_large_to_tidy(c) for c in _CASES] == plain  # computed
    assert [case_boundary.too_large_to_tidy(c) for c in _CASES] == plain  # from the memo


def test_together_parts_is_fraction_of_together_first_and_from_the_memo() -> None:
    memo.clear_all()
    exprs: list[sympy.Expr] = [x, sympy.Integer(0), sympy.Rational(3, 4), 1 / x + 1 / (y - x), _ROOT - x / (y + z),
                               (x ** 2 - y) / (x - 1) + z / (x + 1) ** 2, sympy.Min(x, y) / (z + 1) - 1 / x,
                               sympy.log(x) / (x + y) - sympy.sqrt(w) / x, w / (w - x) - (x * w - 1) / (w ** 2 + y)]
    plain = [sympy.fraction(sympy.together(e)) for e in exprs]
    for _ in range(2):  # computed, then from the memo
        found = [roots.together_parts(e) for e in exprs]
        assert found == plain
        assert all(f[0].func == p[0].func and f[1].func == p[1].func for f, p in zip(found, plain))  # the same forms


def test_numerator_poly_reads_the_shared_fraction_as_before() -> None:
    memo.clear_all()
    target = (x ** 2 * y - z) / (x - y) + 3 / (x + z)
    numerator, denominator = sympy.fraction(sympy.together(target))
    assert roots.numerator_poly(target, x) == (sympy.Poly(numerator, x), denominator)
    assert roots.numerator_poly(sympy.log(x) + x, x) is None  # not rational in x: no fraction asked
