"""A condition that divides by an input that may be 0, tidied into a polynomial relation (multiplied through by the
denominator), is not read as ``0 <= 0`` where it is 0: ``<=``/``>=`` over an input declared nonnegative reads as its
limit from above there (as the evaluation reads a nonnegative input a Min divides by), over anything else says it is
nonzero; ``<``/``>`` do not hold there.

The differential tester's seed 223 found ``extremum volkov_2016 memory_throughput_loaded_2term --over b --max``,
asked without a point and evaluated at ``x = 0`` (the attained throughput, declared nonnegative), giving 0.8
winst/cycle/SM at b = inf: at x = 0 the loaded latency does not depend on b, so the maximum is the value itself, 8/336.
The issue bound's branch needed ``n/Latency(b) = issue_thru/(alpha + 1)`` to be reachable, a condition over
``b* = N/(x*D)``; tidied by multiplying through by the denominator, it read ``x*P <= x*Q``, which x = 0 satisfies
whatever P and Q."""

from __future__ import annotations

from fractions import Fraction

import sympy

import symgpu
from symgpu import derive
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner

POINT = {"alpha": 4.0, "b_2": 156.0, "c_2": 121.0, "n": 8.0, "x": 0.0}


def test_the_symbolic_maximum_over_b_at_zero_throughput_is_the_models_value_which_b_does_not_change(empty_store):
    model = symgpu.load("volkov_2016")
    answer = model.extremum("memory_throughput_loaded_2term", over="b", kind="max")
    got = derive.evaluate_result(model, answer, "kepler_sfu", **POINT).magnitude
    preset = model.preset("kepler_sfu")
    # by hand at x = 0: Latency = a + alpha*alu_lat = 300 + 4*9 = 336 cycles, n/Latency = 8/336 below mem_thru (1),
    # alu_thru/alpha (1) and issue_thru/(alpha + 1) (0.8)
    a, alu_lat = Fraction(str(preset["a"].magnitude)), Fraction(str(preset["alu_lat"].magnitude))
    hand = Fraction(8) / (a + 4 * alu_lat)
    assert hand == Fraction(8, 336)
    assert got == float(hand)
    for b in (0.0, 1.0, 32.0, 1e6):  # brute force: the model is flat in b at x = 0
        assert model.evaluate("memory_throughput_loaded_2term", "kepler_sfu", values={**POINT, "b": b}).magnitude == float(hand)


def _reasoner() -> tuple[SignReasoner, sympy.Symbol, sympy.Symbol]:
    x, y = sympy.Symbol("x", real=True, nonnegative=True), sympy.Symbol("y", real=True, positive=True)
    return SignReasoner(Declared(symbols=((x, frozenset({"nonnegative"})), (y, frozenset({"positive"}))))), x, y


def test_a_non_strict_condition_over_a_nonnegative_input_reads_its_limit_from_above_at_its_zero():
    reasoner, x, y = _reasoner()
    for relation in (sympy.GreaterThan(-y / x, -1), sympy.LessThan(y / x, 1), sympy.GreaterThan(y / x, 1),
                     sympy.LessThan(-y / x, -1)):
        tidied = reasoner.tidy(relation)
        for y_value in (sympy.Rational(1, 3), 1, 7):
            # as x -> 0+, -y/x and y/x run to -oo and +oo: each relation's truth there is that of its sign
            limit = bool(relation.subs(y, y_value).subs(x, sympy.Rational(1, 10**30)))
            assert bool(tidied.subs({x: 0, y: y_value})) == limit, (relation, tidied, y_value)
        _same_where_defined(relation, tidied, x, y)


def test_a_strict_condition_or_one_over_another_divisor_does_not_hold_where_the_divisor_is_zero():
    reasoner, x, y = _reasoner()
    for relation, zero in ((sympy.StrictGreaterThan(1 - y / x, 0), 0), (sympy.StrictLessThan(y / x, 3), 0),
                           (sympy.LessThan(y / (x - 1), 2), 1), (sympy.GreaterThan(y / (x - 1), 2), 1)):
        tidied = reasoner.tidy(relation)
        for y_value in (sympy.Rational(1, 3), 1, 7):  # the relation has no value there: it does not hold
            assert tidied.subs({x: zero, y: y_value}) in (sympy.false, False), (relation, tidied, y_value)
        _same_where_defined(relation, tidied, x, y)


def _same_where_defined(relation: sympy.Basic, tidied: sympy.Basic, x: sympy.Symbol, y: sympy.Symbol) -> None:
    for x_value in (sympy.Rational(1, 7), sympy.Rational(3, 2), 2, 30):  # where it has a value, the tidied condition is it
        for y_value in (sympy.Rational(1, 3), 2, 30):
            at = {x: x_value, y: y_value}
            assert bool(tidied.subs(at)) == bool(relation.subs(at)), (relation, tidied, at)


def test_a_nonnegative_factor_of_the_numerator_is_kept_where_the_relation_holds_at_its_zero():
    reasoner, x, y = _reasoner()
    relation = sympy.LessThan(x * (1 - y), 0)  # defined at x = 0, where it holds: 0 <= 0
    tidied = reasoner.tidy(relation)
    assert bool(tidied.subs({x: 0, y: 3})) and bool(tidied.subs({x: 0, y: sympy.Rational(1, 2)}))
    assert not bool(tidied.subs({x: 1, y: sympy.Rational(1, 2)}))


def test_a_divisor_that_is_the_difference_of_the_sides_makes_the_relation_strict_not_a_separate_condition():
    a, b = sympy.Symbol("a", real=True, positive=True), sympy.Symbol("b", real=True, positive=True)
    reasoner = SignReasoner(Declared(symbols=((a, frozenset({"positive"})), (b, frozenset({"positive"})))))
    tidied = reasoner.tidy(sympy.GreaterThan(-a / (a - b), 0))  # -a/(a - b) >= 0: a < b (no value at a = b)
    assert tidied == sympy.StrictLessThan(a, b)
