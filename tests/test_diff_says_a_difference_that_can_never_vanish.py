"""``symgpu diff``'s agreement line says "never" where the difference of the two expressions cannot vanish, and why (a
nonzero constant, one sign over every input the declarations admit); "not solved" stays only where that is undecided,
with the two signs it is seen to take where exact points show them."""

from __future__ import annotations

import random
from fractions import Fraction

import sympy

import symgpu
from symgpu import compare
from symgpu.cli import main
from symgpu.compare import vanishing
from symgpu.proofs.sign_records import Declared

POSITIVE = "never: the difference is positive (A > B) at every input the declarations admit"


def _declared(expr: sympy.Basic) -> Declared:
    return Declared(symbols=tuple((s, frozenset({"positive"})) for s in expr.free_symbols))


def test_zhang_owens_min_exceeds_its_additive_variant_everywhere_and_diff_says_never(capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = symgpu.load("prior_zhang_owens"), symgpu.load("prior_zhang_owens_additive")
    result = compare.diff(a, b, "arithmetic_throughput")
    q = result.quantity
    assert q is not None and [branch.agree_when for branch in q.branches] == [(POSITIVE,)]
    # brute force, from the two expressions themselves (not their difference): A > B at random positive exact inputs
    rng = random.Random(7)
    names = sorted(s.name for s in q.a.free_symbols | q.b.free_symbols)
    for _ in range(200):
        point = {sympy.Symbol(n, positive=True): sympy.Rational(rng.randint(1, 4000), rng.randint(1, 40)) for n in names}
        at = {s: point[sympy.Symbol(s.name, positive=True)] for s in q.a.free_symbols | q.b.free_symbols}
        assert Fraction(str(q.a.xreplace(at))) > Fraction(str(q.b.xreplace(at)))
    assert main(["diff", "prior_zhang_owens", "prior_zhang_owens_additive", "arithmetic_throughput"]) == 0
    assert f"\n      zero: {POSITIVE}\n" in capsys.readouterr().out  # on its own line, not cut off after the long difference


def test_a_nonzero_constant_difference_is_said_to_be_that_constant() -> None:
    assert vanishing.never(sympy.Rational(-3, 2), Declared()) == "never: the difference is the nonzero constant -3/2"
    assert vanishing.never(sympy.Integer(0), Declared()) is None


def test_one_sign_is_proved_through_a_max_minus_one_of_its_arguments() -> None:
    t, x, y = sympy.symbols("t x y", positive=True)
    value = sympy.Max(t, x) - t + y  # >= y > 0, which the sign reasoner reads only as Max(0, x - t) + y
    assert vanishing.max_taken_out(value) == sympy.Max(0, x - t) + y
    assert vanishing.never(value, _declared(value)) == POSITIVE
    assert vanishing.never(-value, _declared(value)) == POSITIVE.replace("positive (A > B)", "negative (A < B)")


def test_taking_a_term_into_a_max_keeps_every_value() -> None:
    t, x, y = sympy.symbols("t x y", positive=True)
    rng = random.Random(3)
    for expr in (sympy.Max(t, x) - t + y, sympy.Min(2 * t, x) - 2 * t, y * (sympy.Max(x, t * y) - t * y) + sympy.Min(x, -y) + y):
        taken = vanishing.max_taken_out(expr)
        assert taken != expr
        for _ in range(50):
            at = {s: sympy.Rational(rng.randint(1, 99), rng.randint(1, 9)) for s in (t, x, y)}
            assert expr.xreplace(at) == taken.xreplace(at)  # exact rationals: the same value


def test_a_difference_of_both_signs_is_not_solved_and_says_so() -> None:
    x, y = sympy.symbols("x y", positive=True)
    value = sympy.Min(x, 2) - y  # x = 1, y = 2: -1; x = 3, y = 1: 1
    assert vanishing.never(value, _declared(value)) is None
    assert vanishing.undecided(value, "Min/Max/Piecewise in the difference") == (
        "not solved (Min/Max/Piecewise in the difference); it is positive at some admissible inputs and negative at others, "
        "so it may vanish between them")
    # a branch's difference holds only where its condition does: no claim from points that may not meet it
    assert vanishing.undecided(value, "Min/Max/Piecewise in the difference", whole=False) == "not solved (Min/Max/Piecewise in the difference)"
