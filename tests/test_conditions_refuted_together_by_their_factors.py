"""Relations that hold nowhere together, though each is open alone (symgpu.proofs.factor_signs): each relation's
difference factored, each factor's sign read from the declared assumptions and the other relations. Every claim
of "not refuted" here is shown by a point where all the relations hold (checked in exact arithmetic)."""

from __future__ import annotations

import sympy

from symgpu.proofs import factor_signs

P, Q, S, T = sympy.symbols("p q s t", positive=True)
C, U = sympy.symbols("c u", nonnegative=True)
X = sympy.Symbol("x", real=True)


def _sign(e: sympy.Expr) -> int | None:
    return 1 if e.is_positive else -1 if e.is_negative else 0 if e.is_zero else None


def _weak(e: sympy.Expr) -> int | None:
    return 1 if e.is_nonnegative else -1 if e.is_nonpositive else None


def _refuted(*conditions: sympy.Basic) -> bool:
    return factor_signs.refuted_together(conditions, _sign, _weak)


def _all_hold(conditions: tuple[sympy.Basic, ...], point: dict[sympy.Symbol, sympy.Rational]) -> bool:
    return all(bool(c.xreplace(point)) for c in conditions)


def test_a_factor_positive_by_one_relation_refutes_an_odd_power_of_it_required_negative() -> None:
    # the diverging_at_zero maximum's conditions: the location 2L > 0 and the second derivative K/(8 L**3) < 0, with
    # L = p**2 + q**2 - 2 written as SymPy's expansion of s*(s**2 + 12) - 2*(3 s**2 + 4) = (s - 2)**3, s = p**2 + q**2
    s = P**2 + Q**2
    assert _refuted(s * (s**2 + 12) < 2 * (3 * s**2 + 4), s > 2)
    consistent = (s * (s**2 + 12) < 2 * (3 * s**2 + 4), s < 2)
    assert not _refuted(*consistent) and _all_hold(consistent, {P: sympy.Rational(1), Q: sympy.Rational(1, 2)})


def test_a_product_required_positive_makes_its_nonnegative_factor_positive() -> None:
    # (c + u)*(s - t) > 0 with c, u >= 0: c + u > 0 and s - t > 0; then t*(c + u)**2*(s - t)**5 < 0 is impossible
    first, second = (C + U) * (S - T) > 0, T * (C + U)**2 * (S - T)**5 < 0
    assert _refuted(first, second) and _refuted(second, first)
    other = (first, T * (C + U)**2 * (S - T)**5 > 0)
    assert not _refuted(*other) and _all_hold(other, {C: sympy.Rational(1), U: sympy.Rational(0), S: sympy.Rational(3), T: sympy.Rational(1)})


def test_a_denominator_counts_with_its_sign_and_a_negated_factor_with_its_own() -> None:
    # (t - s)/(p*(s - t)) = -1/p < 0 wherever it is defined: required > 0 it is refuted
    assert _refuted((T - S) / (P * (S - T)) > 0)
    # x**2 > 1 beside x < 0 holds at x = -2: an even power says nothing of its base's sign
    assert not _refuted(X**2 > 1, X < 0) and _all_hold((X**2 > 1, X < 0), {X: sympy.Integer(-2)})


def test_relations_with_a_min_inside_are_left_out() -> None:
    # Min(s, t) > s + 1 holds nowhere, but a Min is not factored: not refuted here (nor claimed to hold)
    assert not _refuted(sympy.Min(S, T) > S + 1, S - T > 0)
