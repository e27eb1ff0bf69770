"""Interval arithmetic over declared ranges (symgpu.proofs.intervals) and the cheap sign decisions it
gives the sign reasoner: enclosures hold every value at admissible points (checked by exact
evaluation at random points), and signs the intervals prove need neither factor nor simplify."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symgpu.derive import regime_conditions, signs
from symgpu.proofs import exact_signs, intervals
from symgpu.proofs.signs import SignReasoner
from symgpu import memo

x = sympy.Symbol("x", positive=True)
y = sympy.Symbol("y", positive=True)
n = sympy.Symbol("n", positive=True, integer=True)
k = sympy.Symbol("k", nonnegative=True, integer=True)
z = sympy.Symbol("z", nonnegative=True)
w = sympy.Symbol("w", real=True)
m = sympy.Symbol("m", positive=True, integer=True)
SYMBOLS = (x, y, n, k, z, w)

SMALL = settings(max_examples=200, deadline=None, database=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# ------------------------------------------------------------------ random expressions and points
_LEAVES = st.sampled_from(SYMBOLS) | st.sampled_from([sympy.Integer(v) for v in (-3, -1, 0, 1, 2, 7)] +
                                                     [sympy.Rational(1, 2), sympy.Rational(-5, 3), sympy.Float(0.25)])


def _built(function, *args):
    """``function(*args)``, or None where SymPy refuses it (Min of zoo) or it is not finite."""
    try:
        out = function(*args)
    except (ValueError, TypeError, ZeroDivisionError):
        return None
    return None if out.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) else out


def _extend(children: st.SearchStrategy[sympy.Expr]) -> st.SearchStrategy[sympy.Expr]:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda p: _built(sympy.Add, *p)),
        pair.map(lambda p: _built(lambda a, b: a - b, *p)),
        pair.map(lambda p: _built(sympy.Mul, *p)),
        st.tuples(children, st.sampled_from([-2, -1, 2, 3])).map(lambda p: _built(sympy.Pow, *p)),
        children.map(lambda c: _built(lambda a: sympy.sqrt(sympy.Abs(a)), c)),
        pair.map(lambda p: _built(sympy.Min, *p)),
        pair.map(lambda p: _built(sympy.Max, *p)),
        children.map(lambda c: _built(sympy.floor, c)),
        children.map(lambda c: _built(sympy.ceiling, c)),
        children.map(lambda c: _built(sympy.Abs, c)),
    ).filter(lambda e: e is not None)


EXPRESSIONS = _extend(_extend(st.recursive(_LEAVES, _extend, max_leaves=6)))  # at least two operations deep


def _value(symbol: sympy.Symbol) -> st.SearchStrategy[sympy.Rational]:
    """Exact values a symbol's assumptions allow."""
    if symbol.is_integer:
        low = 1 if symbol.is_positive else 0
        return st.integers(low, 50).map(sympy.Integer)
    # small values and ties between symbols (where differences cross 0) come often
    magnitude = st.sampled_from([sympy.Rational(v) for v in ("0", "1/3", "1/2", "1", "3/2", "2", "3")]) | \
        st.fractions(min_value=0, max_value=60, max_denominator=97).map(lambda f: sympy.Rational(f.numerator, f.denominator))
    if symbol.is_positive:
        return magnitude.filter(lambda v: v > 0)
    if symbol.is_nonnegative:
        return magnitude
    return st.tuples(magnitude, st.booleans()).map(lambda p: -p[0] if p[1] else p[0])


POINTS = st.fixed_dictionaries({s: _value(s) for s in SYMBOLS})


def _at(expr: sympy.Expr, point: dict[sympy.Symbol, sympy.Rational]) -> sympy.Expr | None:
    """The exact value of ``expr`` at ``point``; None where it is undefined (SymPy refuses ``Min(zoo, 1)``)."""
    try:
        return expr.xreplace(point)
    except (ValueError, TypeError, ZeroDivisionError):
        return None


@SMALL
@given(EXPRESSIONS, POINTS)
def test_every_value_at_an_admissible_point_lies_in_the_enclosure(expr, point):
    enclosure = intervals.enclose(expr)
    value = _at(expr, point)
    if enclosure is None or value is None or not value.is_number or value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or value.is_real is not True:
        return
    exact = value if value.is_Rational else None
    if exact is not None:
        assert enclosure.contains(exact), (expr, point, enclosure)
    else:  # irrational (a square root): compare with a high-precision value, on the boundary allowing the rounding
        approx = Fraction(str(value.evalf(40)))
        slack = Fraction(1, 10**30)
        assert enclosure.lo - slack <= approx <= enclosure.hi + slack, (expr, point, enclosure)


@SMALL
@given(EXPRESSIONS, POINTS)
def test_a_sign_the_enclosure_proves_holds_at_every_admissible_point(expr, point):
    proved = intervals.sign(expr)
    value = _at(expr, point)
    if proved is None or value is None or not value.is_number or value.has(sympy.nan, sympy.zoo) or value.is_real is not True:
        return
    assert (value > 0, value == 0, value < 0) == (proved == 1, proved == 0, proved == -1), (expr, point)


# ------------------------------------------------------------------ ranges and endpoints
def test_declared_assumptions_give_the_ranges():
    assert intervals.declared(x) == intervals.Interval(Fraction(0), float("inf"), lo_open=True)
    assert intervals.declared(n).lo == 1 and not intervals.declared(n).lo_open  # a positive integer is at least 1
    assert intervals.declared(z).lo == 0 and not intervals.declared(z).lo_open
    assert intervals.declared(w) == intervals.REALS
    assert intervals.declared(sympy.Symbol("c")) is None  # not known to be real: no claim


def test_open_and_closed_ends_decide_strict_signs():
    assert intervals.sign(x * y) == 1          # (0, oo) * (0, oo) excludes 0
    assert intervals.sign(x * z) is None       # z may be 0
    assert intervals.sign(z + 1) == 1
    assert intervals.sign(-(n + x**2)) == -1
    assert intervals.sign(1 / (x + z)) == 1
    assert intervals.sign(sympy.floor(x / y) + 1) == 1
    assert intervals.sign(sympy.Min(n, x) - 2) is None
    assert intervals.sign(n - 1) is None       # n = 1 gives 0


def test_each_rule_gives_the_enclosure_worked_out_by_hand():
    inf, F, I = float("inf"), Fraction, intervals.Interval
    small = {w: I(F(-2), F(1)), z: I(F(4), F(9))}
    assert intervals.enclose(w**2) == I(F(0), inf)                      # a square of a real: [0, oo), 0 included
    assert intervals.enclose(w**2, small) == I(F(0), F(4))              # w in [-2, 1]: the largest square is 4
    assert intervals.enclose(w**3, small) == I(F(-8), F(1))
    assert intervals.enclose(1 / x) == I(F(0), inf, True, True)
    assert intervals.enclose(1 / (x - 2)) == intervals.REALS            # the denominator may be 0
    assert intervals.enclose(x * z) == I(F(0), inf)                     # z = 0 gives 0
    assert intervals.enclose(sympy.Min(x, n)) == I(F(0), inf, True, True)
    assert intervals.enclose(sympy.Max(x, n)) == I(F(1), inf)
    assert intervals.enclose(sympy.floor(x)) == I(F(0), inf)
    assert intervals.enclose(sympy.Abs(w), small) == I(F(0), F(2))
    assert intervals.enclose(w - z, small) == I(F(-11), F(-3))
    root = intervals.enclose(sympy.sqrt(z), small)
    assert root.contains(2) and root.contains(3) and root.lo > F(199, 100) and root.hi < F(301, 100)


def test_a_huge_exponent_keeps_only_the_sign_of_the_base():
    huge = 10**9  # raised exactly, the endpoints would have a billion digits
    inf, F, I = float("inf"), Fraction, intervals.Interval
    assert intervals.enclose(x**huge) == I(F(0), inf, True, True)
    assert intervals.enclose((x - 2) ** huge) == I(F(0), inf)               # even: 0 where x = 2
    assert intervals.enclose((x - 2) ** (huge + 1)) == intervals.REALS      # odd: the sign of x - 2
    assert intervals.sign(-((x + 1) ** (huge + 1))) == -1
    assert intervals.sign(1 / x**huge) == 1


def test_the_enclosure_never_claims_a_sign_it_cannot_prove():
    for expr in (x - y, sympy.floor(x) - 1, w, 1 / (x - 3), w**2 - 1, sympy.ceiling(x / y) - 1):
        assert intervals.sign(expr) is None, expr


def test_a_root_of_a_tiny_positive_number_is_never_claimed_zero():
    """x**(1/3) at x = 1e-320 (a float subnormal; 1e-400 underflows to 0.0): positive, at most 1,
    never the point 0."""
    for tiny in (Fraction(1, 10**320), Fraction(1, 10**400)):
        inside = {x: intervals.Interval(tiny, tiny)}
        root = intervals.enclose(x ** sympy.Rational(1, 3), inside)
        exact = sympy.root(sympy.Rational(tiny.numerator, tiny.denominator), 3)
        assert root is not None and 0 <= root.lo <= exact <= root.hi <= 1
        assert intervals.sign(x ** sympy.Rational(1, 3), inside) != 0


def test_unsupported_expressions_give_no_enclosure():
    assert intervals.enclose(sympy.Piecewise((x, w > 0), (y, True))) is None
    assert intervals.enclose(sympy.I * x) is None
    assert intervals.enclose(sympy.Function("f")(x)) is None
    assert intervals.enclose(sympy.sqrt(w)) is None  # w may be negative: the root may be complex


def test_bounds_given_for_a_symbol_replace_its_declared_range():
    inside = {x: intervals.Interval(Fraction(2), Fraction(3))}
    assert intervals.sign(x - 1, inside) == 1
    assert intervals.enclose(x**2, inside) == intervals.Interval(Fraction(4), Fraction(9))


@SMALL
@given(st.lists(EXPRESSIONS, min_size=2, max_size=6))
def test_enclosures_read_from_the_shared_memo_are_those_computed_afresh(exprs):
    # the enclosures over the declared ranges are kept per node for the process: each expression's, asked after the
    # others (their shared parts read from the memo), is the one computed with every memo emptied first, and a call
    # with bounds neither reads nor fills it
    fresh = []
    for expr in exprs:
        memo.clear_all()
        fresh.append(intervals.enclose(expr))
    memo.clear_all()
    shared = [intervals.enclose(expr) for expr in exprs]
    inside = {x: intervals.Interval(Fraction(2), Fraction(3))}
    bounded = [intervals.enclose(expr, inside) for expr in exprs]
    assert shared == fresh == [intervals.enclose(expr) for expr in exprs]
    memo.clear_all()
    assert bounded == [intervals.enclose(expr, inside) for expr in exprs]


# ------------------------------------------------------------------ the sign reasoner uses them first
def test_signs_the_intervals_prove_need_neither_factor_nor_simplify(ia):
    memo.clear_all()
    reasoner = SignReasoner(signs.declared(ia))  # no verdict store: decided afresh
    a, b = sympy.Symbol("a_iv", positive=True, integer=True), sympy.Symbol("b_iv", nonnegative=True)
    assert reasoner.sign(sympy.floor(b / a) + sympy.ceiling(a / (b + 1))) == 1
    assert reasoner.sign(-(a + b) ** 3 - sympy.Min(a, b + 1)) == -1
    assert reasoner.sign(sympy.Max(a, b) / (a + b)) == 1
    done = memo.tallies()
    assert done["proofs.signs.factor"] == done["proofs.forms.factor"] == done["proofs.forms.simplify"] == 0, \
        "factor or simplify called for a sign the intervals decide"


def test_a_value_of_zero_and_a_positive_value_refute_every_sign_claim():
    assert exact_signs.refuted(sympy.floor(y / x))      # 0 where y < x, positive elsewhere
    assert not exact_signs.refuted(sympy.floor(x / y) + 1)
    assert not exact_signs.refuted(x * y)


def test_a_square_of_counts_that_vanishes_only_where_every_count_is_zero_is_refuted():
    """Like Hong & Kim's ``(Coal + Comp + Uncoal)**2`` times positive factors, multiplied out: 0
    only where all five counts are 0 (a corner random points meet once in 14**5), positive
    elsewhere, so it has no sign; the same square plus a positive term is never 0."""
    counts = sympy.symbols("coal comp uncoal shared local", nonnegative=True)
    rate = sympy.Symbol("rate", positive=True)
    assert exact_signs.refuted(sympy.expand(rate * sympy.Add(*counts) ** 2))
    assert not exact_signs.refuted(sympy.expand(rate * sympy.Add(*counts) ** 2 + rate))


def test_a_value_nonzero_at_a_small_point_shows_an_expression_is_not_zero():
    small_floor = sympy.floor(90 / (n * m))            # 0 wherever n*m > 90, as at the generic point (primes from 53)
    assert exact_signs.nonzero_somewhere(-2 * small_floor)   # n = m = 1 (the pools' first values): -180
    assert not exact_signs.nonzero_somewhere(x * (y + 1) - x * y - x)   # 0 at every point
    assert not exact_signs.nonzero_somewhere(sympy.floor(n / (n + 1)))  # 0 for every positive n
    assert not exact_signs.nonzero_somewhere(x ** (10**9) - y)  # too big to evaluate: not shown (not a hang)


def test_exact_values_are_not_computed_for_huge_powers():
    huge = x ** (10**9) - y  # at x = 3 the power alone would have half a billion digits
    assert not exact_signs.modest_powers(huge) and exact_signs.modest_powers(x**2 - y)
    assert not exact_signs.refuted(huge)                     # no points tried: "not refuted", not a hang
    assert exact_signs.refuted(x**2 - y)


# ------------------------------------------------------------------ opposite conditions of the regime split
@pytest.mark.parametrize("a, b", [
    (sympy.floor(x / y) - n, n - sympy.floor(x / y)),
    (x - y, y - x + 1),
    (x * (y + 1) - x * y - x, sympy.Integer(0)),
    ((x**2 - y**2) / (x - y), -x - y),
    (sympy.ceiling(z) - 53, 53 - sympy.ceiling(z) + sympy.Rational(1, 10**9)),
    (x ** (10**9) - y, y - x ** (10**9)),              # too big to evaluate: decided by cancel alone
    (sympy.floor(90 / (n * m)), sympy.floor(90 / (n * m))),   # 0 at the generic point (n, m >= 53), 90 at n = m = 1
])
def test_cancel_to_zero_agrees_with_sympy_cancel(a, b):
    assert regime_conditions.cancel_to_zero(a, b) == (sympy.cancel(a + b) == 0)
