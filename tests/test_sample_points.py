"""``symgpu.proofs.sample_points``, the one point sampler: every value a symbol is given meets its declared
assumptions, and the points and draws are the same on every run (and the same as the seeded
generators the samplers used before they shared it)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
import sympy

from symgpu.proofs import sample_points, unordered

x = sympy.Symbol("x", positive=True)
k = sympy.Symbol("k", integer=True, nonnegative=True)
w = sympy.Symbol("w", negative=True)
z = sympy.Symbol("z", real=True)
p = sympy.Symbol("p", prime=True)

#: each symbol's assumptions written as plain comparisons (independent of SymPy's assumption system)
RULES = {
    x: lambda v: v > 0,
    k: lambda v: v >= 0 and Fraction(v).denominator == 1,
    w: lambda v: v < 0,
    z: lambda v: True,
    p: lambda v: v in (2, 3, 5, 7),
}


@pytest.mark.parametrize("pool", [sample_points.SMALL, sample_points.WIDE], ids=["small", "wide"])
@pytest.mark.parametrize("symbol", list(RULES), ids=str)
def test_a_pool_gives_a_symbol_exactly_the_values_that_meet_its_assumptions_in_pool_order(pool, symbol):
    assert pool.admissible(symbol) == tuple(v for v in pool.values if RULES[symbol](v))
    assert pool.admissible(symbol)  # every one of these symbols has values in both pools


def test_a_fact_sympy_leaves_open_for_a_number_counts_against_it_unless_allowed():
    polar = sympy.Symbol("q", polar=True)
    assert sympy.Rational(3).is_polar is None
    assert not sample_points.meets(sympy.Rational(3), polar)
    assert sample_points.meets(sympy.Rational(3), polar, undecided_ok=True)
    assert sample_points.SMALL.admissible(polar) == ()


def test_points_meet_the_assumptions_and_repeat_on_every_run():
    symbols = sample_points.ordered([z, w, x, k])
    assert [s.name for s in symbols] == ["k", "w", "x", "z"]
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    first = list(sample_points.points(symbols, pools, 1729, 10, fixed_first=2))
    assert first == list(sample_points.points(symbols, pools, 1729, 10, fixed_first=2))
    assert len(first) == 10
    assert all(RULES[s](v) for point in first for s, v in point.items())
    # the first two points take each pool's first two values; the others are drawn (not all the same)
    assert [first[0][s] for s in symbols] == [pool[0] for pool in pools]
    assert [first[1][s] for s in symbols] == [pool[1] for pool in pools]
    assert len({tuple(point.values()) for point in first[2:]}) > 1
    assert list(sample_points.points(symbols, pools, 97, 3)) != list(sample_points.points(symbols, pools, 98, 3))


def test_one_large_gives_each_symbol_in_turn_its_largest_admissible_value_and_the_others_their_first():
    symbols = sample_points.ordered([z, w, x, k])
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    found = list(sample_points.one_large(symbols, pools))
    # SMALL's largest magnitudes: 4096 (k, x, z; z's pool also holds -100), -100 (w); first values 1, 1, 1, -1
    assert found == [{k: 4096, w: -1, x: 1, z: 1}, {k: 1, w: -100, x: 1, z: 1},
                     {k: 1, w: -1, x: 4096, z: 1}, {k: 1, w: -1, x: 1, z: 4096}]
    assert all(RULES[s](v) for point in found for s, v in point.items())


def test_one_large_over_small_gives_each_symbol_in_turn_its_largest_value_and_the_others_their_smallest_nonzero():
    symbols = sample_points.ordered([z, w, x, k])
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    found = list(sample_points.one_large_over_small(symbols, pools))
    # SMALL's smallest nonzero magnitudes, the first such: 1 (k, an integer), -1/2 (w), 1/10 (x, z)
    tenth, half = sympy.Rational(1, 10), sympy.Rational(-1, 2)
    assert found == [{k: 4096, w: half, x: tenth, z: tenth}, {k: 1, w: -100, x: tenth, z: tenth},
                     {k: 1, w: half, x: 4096, z: tenth}, {k: 1, w: half, x: tenth, z: 4096}]
    assert all(RULES[s](v) for point in found for s, v in point.items())
    zero = sympy.Symbol("zero", zero=True)  # a pool of 0 alone: its first value
    assert list(sample_points.one_large_over_small([zero], [sample_points.SMALL.admissible(zero)])) == [{zero: 0}]


def _extremes_by_search(pool):
    """The values the samplers used before their extremes were kept per pool: searched again at each call."""
    return min((v for v in pool if v != 0), key=abs, default=pool[0]), max(pool, key=abs)


def test_points_with_one_symbol_large_are_the_same_as_searching_the_pools_at_each_call():
    symbols = sample_points.ordered([z, w, x, k, p])
    for pools in ([sample_points.SMALL.admissible(s) for s in symbols], [sample_points.WIDE.admissible(s) for s in symbols[:4]]):
        chosen = symbols[:len(pools)]
        small = {s: _extremes_by_search(pool)[0] for s, pool in zip(chosen, pools)}
        first = {s: pool[0] for s, pool in zip(chosen, pools)}
        assert list(sample_points.one_large_over_small(chosen, pools)) == [
            {**small, s: _extremes_by_search(pool)[1]} for s, pool in zip(chosen, pools)]
        assert list(sample_points.one_large(chosen, pools)) == [{**first, s: _extremes_by_search(pool)[1]} for s, pool in zip(chosen, pools)]


def test_one_large_over_small_looks_at_no_pool_before_its_first_point_is_asked_for():
    broken = ("not a number",)  # abs() of it raises: a pool searched at once would fail here
    points = sample_points.one_large_over_small([x], [broken])
    with pytest.raises(TypeError):
        next(points)


def test_ordered_sorts_dummies_of_one_name_by_their_index():
    a, b = sympy.Dummy("t"), sympy.Dummy("t")
    assert sample_points.ordered([b, x, a]) == [a, b, x]


def test_the_generic_point_gives_each_symbol_its_own_admissible_value_until_cleared():
    point = sample_points.GenericPoint()
    n = sympy.Symbol("n", integer=True, positive=True)
    values = point.at([x, n, w, sympy.Symbol("m", nonpositive=True)])
    assert values[x] == sympy.Rational(53, 7) and values[n] == 59 and values[w] == sympy.Rational(-61, 7)
    assert len(set(values.values())) == 4 and len(point) == 4
    assert all(sample_points.meets(v, s) for s, v in values.items())
    assert point.at([x]) == {x: sympy.Rational(53, 7)}  # the same value on every later call
    others = point.at(sympy.symbols("s0:30", positive=True))
    # after the 25 primes the next round adds 180: symbol number 26 (index 25) takes (53 + 180)/7
    assert others[sympy.Symbol("s21", positive=True)] == sympy.Rational(53 + 180, 7)
    point.clear()
    assert len(point) == 0 and point.at([n]) == {n: 53}


@pytest.mark.parametrize("seed", [0, 20160101, "hong_kim_2009/T_exec/n_warps"], ids=["int", "fixed points", "certificate"])
def test_draws_are_the_draws_of_pythons_generator_with_the_same_seed(seed):
    # the certificates', the fixed points' and the Min/Max proofs' points are those they drew before
    draws, before = sample_points.Draws(seed), random.Random(seed)
    values = (1, 2, 3, 4, 8, 16)
    assert [draws.choice(values) for _ in range(20)] == [before.choice(values) for _ in range(20)]
    assert [draws.uniform(-2, 2) for _ in range(5)] == [before.uniform(-2, 2) for _ in range(5)]
    drawn = [draws.admissible(k, sample_points.WIDE) for _ in range(10)]
    assert drawn == [before.choice(sample_points.WIDE.admissible(k)) for _ in range(10)]


def test_a_draw_for_a_symbol_no_pool_value_admits_is_none_and_draws_nothing():
    draws, other = sample_points.Draws(7), sample_points.Draws(7)
    assert draws.admissible(sympy.Symbol("q", polar=True), sample_points.SMALL) is None
    assert draws.choice(range(100)) == other.choice(range(100))


@pytest.mark.parametrize("assumptions, holds", [
    (("integer", "positive"), lambda v: np.all((v >= 1) & (v == np.round(v)))),
    (("integer", "nonnegative"), lambda v: np.all((v >= 0) & (v == np.round(v))) and np.any(v == 0)),
    (("positive",), lambda v: np.all(v > 0)),
    (("nonnegative",), lambda v: np.all(v >= 0) and np.any(v == 0)),
    ((), lambda v: np.any(v < 0) and np.any(v > 0)),
], ids=["positive integer", "nonnegative integer", "positive", "nonnegative", "real"])
def test_a_column_meets_the_declared_assumptions_and_repeats_by_name(assumptions, holds):
    column = sample_points.column("x", assumptions, 4096)
    assert column.shape == (4096,) and holds(column)
    assert np.array_equal(column, sample_points.column("x", assumptions, 4096))
    assert not np.array_equal(column, sample_points.column("x", assumptions, 4096, rank=1))


def test_each_pools_extremes_found_once_are_those_found_afresh_and_of_the_pools_own_type():
    symbols = [x, k, w, z, p, sympy.Symbol("n", nonnegative=True), sympy.Symbol("q", integer=True)]
    pools = [pool.admissible(s) for pool in (sample_points.SMALL, sample_points.WIDE, unordered.HUGE, unordered.MIXED)
             for s in symbols]
    for pool in [p for p in pools if p] * 2:  # the second round reads the memo
        smallest, largest = sample_points._extremes(pool)
        searched = _extremes_by_search(pool)
        assert smallest is searched[0] and largest is searched[1]  # the first of equal magnitudes, as min and max keep
    fractions, numbers = (Fraction(-1), Fraction(1), Fraction(3)), (sympy.Integer(-1), sympy.Integer(1), sympy.Integer(3))
    assert fractions == numbers  # equal values: kept apart by their types
    assert sample_points._extremes(numbers) == (-1, 3) == sample_points._extremes(fractions)
    assert all(isinstance(v, sympy.Integer) for v in sample_points._extremes(numbers))
    assert all(type(v) is Fraction for v in sample_points._extremes(fractions))
