"""A difference that takes a positive and a negative value at admissible points has no weak sign,
and the reasoner says so from those values, without expanding and factoring it; a difference whose
weak sign needs that expansion still gets it."""

from __future__ import annotations

import random
from fractions import Fraction

import sympy

from symgpu import memo
from symgpu.proofs import exact_signs
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner

x = sympy.Symbol("x", real=True, positive=True)
y = sympy.Symbol("y", real=True, positive=True)
n = sympy.Symbol("n", integer=True, nonnegative=True)


def reasoner() -> SignReasoner:
    return SignReasoner(Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})),
                                          (n, frozenset({"integer", "nonnegative"})))))


def test_a_difference_positive_at_one_point_and_negative_at_another_takes_both_signs():
    e = x * (n + 1) - y * (x + 2)
    # by hand: x = 1, y = 1, n = 5 gives 6 - 3 = 3 > 0; x = 1, y = 1, n = 0 gives 1 - 3 = -2 < 0
    assert Fraction(1 * 6 - 1 * 3) > 0 and Fraction(1 * 1 - 1 * 3) < 0
    memo.clear_all()
    assert exact_signs.both_ways(e)
    assert reasoner().weak_sign(e) is None


def test_a_difference_that_is_never_negative_is_not_said_to_take_both_signs_and_keeps_its_weak_sign():
    e = x * (n + 1) - x * n  # x once expanded: positive, proved only after expand and factor_terms
    memo.clear_all()
    assert not exact_signs.both_ways(e)
    assert reasoner().weak_sign(e) == 1
    assert reasoner().weak_sign(-e) == -1


def test_a_sum_that_is_zero_somewhere_and_positive_elsewhere_keeps_its_weak_sign():
    e = n * (x + y) + n * x - n * x  # 0 at n = 0, positive elsewhere: two signs (0 and +), never -
    memo.clear_all()
    assert exact_signs.refuted(e)  # no strict sign
    assert not exact_signs.both_ways(e)
    assert reasoner().weak_sign(e) == 1


def _random_difference(rng: random.Random) -> sympy.Expr:
    z = sympy.Symbol("z", real=True)
    parts = [x, y, n, z, x + y, x - y, n - 2, sympy.Min(x, y), sympy.Max(x, n), sympy.floor(x / y), sympy.ceiling(n / (x + 1))]
    def term() -> sympy.Expr:
        return rng.choice((1, 2, -1, sympy.Rational(1, 3))) * sympy.Mul(*(rng.choice(parts) ** rng.choice((1, 1, 2, -1)) for _ in range(rng.randint(1, 2))))
    return sympy.Add(*(term() for _ in range(rng.randint(1, 3))))


def test_where_both_signs_are_seen_no_structural_proof_of_either_sign_holds():
    """``weak_sign`` asks ``both_ways`` before its structural proofs (``nonnegative`` of the difference and of its
    negation, SymPy's ``is_nonnegative`` among them): where a positive and a negative value are seen at admissible
    points, neither proof holds, so the verdict (None) is the one those proofs gave. Seeded random differences of
    sums, products, powers, Min/Max and floor/ceiling of positive, nonnegative integer and real symbols."""
    rng = random.Random(7)
    seen = 0
    for _ in range(120):
        e = _random_difference(rng)
        if not isinstance(e, sympy.Basic) or not exact_signs.both_ways(e):
            continue
        seen += 1
        assert not exact_signs.nonnegative(e) and not exact_signs.nonnegative(-e), e
        assert reasoner().weak_sign(e) is None
    assert seen >= 30  # enough differences taking both signs to say so


def test_both_ways_after_refuted_is_both_ways_alone():
    """``refuted`` records ``both_ways`` where its points showed a positive and a negative value (the points
    ``both_ways`` reads, in the same order): the verdict is the one ``both_ways`` reaches with its memo empty."""
    rng = random.Random(11)
    exprs = [e for e in (_random_difference(rng) for _ in range(80)) if isinstance(e, sympy.Basic)]
    memo.clear_all()
    alone = [exact_signs.both_ways(e) for e in exprs]
    memo.clear_all()
    refuted = [exact_signs.refuted(e) for e in exprs]
    after = [exact_signs.both_ways(e) for e in exprs]
    assert after == alone
    assert sum(alone) >= 20 and sum(r and not a for r, a in zip(refuted, alone)) >= 1  # both kinds of refutation met


def test_signs_read_for_one_scan_give_every_later_scan_the_verdict_it_reaches_alone():
    """``refuted`` and ``both_ways`` read one sequence of points per expression (and known positives), each until its
    own criterion holds; the signs read so far are kept and a later scan reads on from them, and the values at a point
    are shared by the expressions of the same symbols (here all of them read x, y and n, or some): in either order,
    and with positives known, each verdict is the one reached with every memo empty first."""
    rng = random.Random(29)
    exprs = [e for e in (_random_difference(rng) for _ in range(80)) if isinstance(e, sympy.Basic)]
    positives = (x - y,)

    def alone(check):
        out = []
        for e in exprs:
            memo.clear_all()
            out.append(check(e))
        return out

    refuted_alone, both_alone = alone(exact_signs.refuted), alone(exact_signs.both_ways)
    with_positives_alone = alone(lambda e: exact_signs.refuted(e, positives))
    memo.clear_all()
    both_first = [exact_signs.both_ways(e) for e in exprs]
    refuted_after = [exact_signs.refuted(e) for e in exprs]
    with_positives_after = [exact_signs.refuted(e, positives) for e in exprs]
    assert (both_first, refuted_after, with_positives_after) == (both_alone, refuted_alone, with_positives_alone)
    assert sum(refuted_alone) > sum(both_alone) >= 20  # refutations that need a zero, and both signs, met
