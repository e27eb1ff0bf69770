"""``SignReasoner.refuted`` and ``proved`` answer as ``decide`` of the whole condition does (``decide(c) is False``,
``decide(c) is True``) where a part of an ``Or`` (of an ``And``, for ``proved``) is shown open first, without deciding
it or the others (``SignReasoner._open``: its sides' difference takes two signs at admissible points, exact values; an
inequality's also both a positive and a negative one): random ``And``/``Or``/``Not`` of relations between expressions
of symbols of every declared kind and constants of exact value, each answered by a reasoner that decides every part."""

from __future__ import annotations

import functools
import random
from fractions import Fraction

import pytest
import sympy

from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner

x, y = sympy.symbols("x y", positive=True)
k = sympy.Symbol("k", integer=True, nonnegative=True)
z = sympy.Symbol("z", real=True)
w = sympy.Symbol("w", negative=True)
c = sympy.Symbol("c", real=True)  # a constant of exact value 5/2 (its stand-in is positive)
ATOMS = [x, y, k, z, w, c, sympy.Integer(1), sympy.Integer(3), sympy.Rational(1, 2)]
DECLARED = Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (k, frozenset({"integer", "nonnegative"})),
                             (z, frozenset()), (w, frozenset({"negative"})), (c, frozenset())),
                    constants=((c, 2.5),), exact=((c, Fraction(5, 2)),))
RELATIONS = [sympy.Eq, sympy.Ne, sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan]


def _expr(rng: random.Random, depth: int) -> sympy.Expr:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    return rng.choice([a + b, a - b, a * b, a / (b + 2) if b != -2 else a, sympy.Min(a, b), a**2])


def _relation(rng: random.Random) -> sympy.Basic:
    left = _expr(rng, 2)
    right = left if rng.random() < 0.1 else _expr(rng, 2)  # an identity now and then (its difference is 0)
    return rng.choice(RELATIONS)(left, right, evaluate=False)


def _condition(rng: random.Random) -> sympy.Basic:
    parts = [_relation(rng) for _ in range(rng.randint(2, 3))]
    joined = rng.choice([sympy.Or, sympy.And])(*parts, evaluate=False)
    return sympy.Not(joined, evaluate=False) if rng.random() < 0.2 else joined


@functools.cache  # built when a test first reads it, not as the file is collected (by every worker)
def _conditions(count: int) -> list[sympy.Basic]:
    rng = random.Random(20261129)
    return [_condition(rng) for _ in range(count)]


@pytest.mark.parametrize("index", range(150))
def test_refuted_and_proved_are_decide_of_the_whole_condition(index: int) -> None:
    condition = _conditions(150)[index]
    verdict = SignReasoner(DECLARED).decide(condition)  # every part decided
    assert SignReasoner(DECLARED).refuted(condition) is (verdict is False)
    assert SignReasoner(DECLARED).proved(condition) is (verdict is True)


def _positive(rng: random.Random, depth: int) -> sympy.Expr:
    """A random sum or product of positive atoms (a positive value wherever the declarations admit)."""
    if depth == 0 or rng.random() < 0.3:
        return rng.choice([x, y, c, k + 1, sympy.Integer(3), sympy.Rational(1, 2)])
    a, b = _positive(rng, depth - 1), _positive(rng, depth - 1)
    return rng.choice([a + b, a * b, a / b, a**2])


@functools.cache
def _settled(count: int) -> list[tuple[sympy.Basic, bool]]:
    """An ``Or`` of false relations, or an ``And`` of true ones (each part decided), with a constant's exact value among them:
    where a part were taken as open by mistake, ``refuted``/``proved`` would answer False. Each with its verdict."""
    rng = random.Random(2026112902)
    out = []
    for _ in range(count):
        false = [rng.choice([lambda e: sympy.StrictLessThan(e, 0), lambda e: sympy.LessThan(e, 0), lambda e: sympy.Eq(e, 0, evaluate=False),
                             lambda e: sympy.GreaterThan(-e, 0)])(_positive(rng, 2)) for _ in range(rng.randint(1, 2))]
        false.append(rng.choice([sympy.Ne(c, sympy.Rational(5, 2), evaluate=False), sympy.StrictGreaterThan(c, 3, evaluate=False)]))
        true = [sympy.Not(f, evaluate=False) if rng.random() < 0.3 else f.negated for f in false]
        out += [(sympy.Or(*false, evaluate=False), False), (sympy.And(*true, evaluate=False), True)]
    return out


@pytest.mark.parametrize("index", range(80))  # _settled(40)'s Or and And of each draw
def test_an_or_of_refuted_parts_is_refuted_and_an_and_of_proved_parts_proved(index: int) -> None:
    condition, expected = _settled(40)[index]
    verdict = SignReasoner(DECLARED).decide(condition)
    assert verdict is expected  # by construction: every part decided so
    assert SignReasoner(DECLARED).refuted(condition) is (verdict is False)
    assert SignReasoner(DECLARED).proved(condition) is (verdict is True)


def test_the_open_parts_are_met_and_an_extra_relation_turns_them_off() -> None:
    shown = [p for c in _conditions(150) for p in (c.args[0] if isinstance(c, sympy.Not) else c).args if SignReasoner(DECLARED)._open(p)]
    assert len(shown) > 30  # the comparisons above meet the shortcut
    reasoner = SignReasoner(DECLARED, [sympy.StrictGreaterThan(x, y)])  # x = y + d: signs read through it, no shortcut
    assert not any(reasoner._open(p) for p in shown)
    assert SignReasoner(DECLARED)._open(sympy.Ne(x, y)) and SignReasoner(DECLARED)._open(sympy.StrictGreaterThan(x, y))
    assert not SignReasoner(DECLARED)._open(sympy.Ne(c, 2))  # a constant's exact value decides it: 5/2 != 2
    assert not SignReasoner(DECLARED)._open(sympy.GreaterThan(x * (y - x) + x**2, 0, evaluate=False))  # x*y >= 0: one sign
