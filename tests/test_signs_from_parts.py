"""Signs of expressions with Min/Max bounded part by part (``proofs.sign_parts``) agree with the
general sign reasoning (common denominator, factoring) and with brute force at random points."""

from __future__ import annotations

import random

import pytest
import sympy

from symgpu.derive import signs
from symgpu.proofs import exact_signs, sign_parts
from symgpu.proofs.signs import SignReasoner
from symgpu import memo

a, b, c = sympy.symbols("a b c", positive=True)
x = sympy.Symbol("x", real=True)

#: (expression, its sign proved by hand from the parts)
CASES = [
    (sympy.Min(a + b, a * sympy.Max(0, b - c) + 1), 1),  # both arguments positive (a Max with a 0 argument is >= 0)
    (sympy.Min(a, -b), -1),  # one argument negative
    (-sympy.Max(a, b - c) - 1, -1),  # a Max with a positive argument is positive
    (1 / sympy.Min(a, b + c), 1),
    (a * sympy.Max(0, x) + b, 1),
    ((b - 1) ** 2 / a + sympy.Max(c, x), 1),  # the Min/Max-free part is decided whole: >= 0 plus a positive Max
    (sympy.Min(a - b, c), None),  # a - b has no sign
    (sympy.Max(0, x), None),  # only >= 0: 0 at x <= 0
    (sympy.Min(a, b) - sympy.Max(a, b), None),  # <= 0, and 0 where a = b
]


def general_sign(model, expr):
    """The sign reasoning with the part-by-part bound switched off (the general path), decided
    afresh (no verdict store)."""
    return SignReasoner(signs.declared(model), by_parts=False).sign(expr)


def brute_force_signs(expr, points=400):
    """The signs ``expr`` takes at random points (positive symbols > 0, x of either sign)."""
    rng = random.Random(7)
    seen = set()
    for _ in range(points):
        at = {s: sympy.Rational(rng.randint(1, 400), rng.randint(1, 40)) * (rng.choice((-1, 1)) if s is x else 1)
              for s in expr.free_symbols}
        value = expr.xreplace(at)
        seen.add(int(bool(value > 0)) - int(bool(value < 0)))
    return seen


@pytest.mark.parametrize("expr, by_hand", CASES)
def test_sign_from_parts_is_the_sign_worked_out_by_hand(ia, expr, by_hand):
    ctx = signs.reasoner(ia)
    assert sign_parts.sign_from_parts(expr, ctx.sign, exact_signs.nonnegative) == by_hand


@pytest.mark.parametrize("expr, by_hand", CASES)
def test_sign_from_parts_never_contradicts_brute_force_or_the_general_path(ia, expr, by_hand):
    found = signs.reasoner(ia).sign(expr)
    if found is not None:
        assert brute_force_signs(expr) == {found}
    general = general_sign(ia, expr)
    assert general is None or general == found  # the fast path decides at least what the general one does


def test_a_minimum_of_positive_sums_with_nested_max_is_decided_without_factoring(ia):
    # the shape of Huang's GTO IPC denominator: Min of sums whose terms hold Max(0, Min(...))
    inner = sympy.Max(0, sympy.Min(a - b, (c + 1) / (a + 1) - b))
    expr = sympy.Min(a * (b + 1) + a * inner + (c + 2) / c, a + a * inner + 1)
    memo.clear_all()
    assert signs.reasoner(ia).sign(expr) == 1
    done = memo.tallies()
    assert done["proofs.signs.factor"] == done["proofs.forms.factor"] == 0, "factored an expression the parts decide"
