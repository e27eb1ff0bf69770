"""Near-tie verdicts at a point computed in ``Fraction`` arithmetic where every part is rational arithmetic: the
same exact numbers, doubles and verdicts as SymPy's substitution, without building SymPy objects (issue 31: the
substitutions were a fifth of ``regimes hong_kim_2009 Exec_cycles_app``)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symgpu
from symgpu import memo
from symgpu.evaluate import piece_select, point, scaling, stepwise, ties
from symgpu.proofs import rational_value

x, y, z = sympy.symbols("x y z", positive=True)


def _as_fraction(number: sympy.Basic) -> Fraction:
    assert isinstance(number, sympy.Rational)
    return Fraction(int(number.p), int(number.q))


def test_a_rational_expression_has_sympys_exact_value() -> None:
    # Min(x/3, y) + floor(z**2/2) - Abs(x - 2*y)**2 at x = 3/2, y = 1/4, z = 7/3:
    # Min(1/2, 1/4) + floor(49/18) - (3/2 - 1/2)**2 = 1/4 + 2 - 1 = 5/4
    expr = sympy.Min(x / 3, y) + sympy.floor(z**2 / 2) - sympy.Abs(x - 2 * y) ** 2
    mapping = {x: sympy.Rational(3, 2), y: sympy.Rational(1, 4), z: sympy.Rational(7, 3)}
    assert rational_value.value(expr, rational_value.inputs(mapping)) == Fraction(5, 4)


@settings(database=None, derandomize=True, max_examples=60)
@given(st.fractions(min_value=Fraction(1, 1000), max_value=1000), st.fractions(min_value=Fraction(1, 1000), max_value=1000),
       st.integers(min_value=-5, max_value=5))
def test_rational_values_agree_with_sympys_substitution(a: Fraction, b: Fraction, k: int) -> None:
    mapping = {x: sympy.Rational(a.numerator, a.denominator), y: sympy.Rational(b.numerator, b.denominator), z: sympy.Integer(3)}
    exprs = [sympy.Max(x * y - z, x / y) ** k, sympy.ceiling(x / y) * sympy.Min(x, y, z) - x**2 / (y + z),
             sympy.Min(x - y, y - x) + sympy.Rational(1, 7)]
    for expr in exprs:
        assert rational_value.value(expr, rational_value.inputs(mapping)) == _as_fraction(expr.xreplace(mapping))


_FRACTIONS = st.one_of(st.fractions(max_denominator=10**6), st.integers(min_value=-10**30, max_value=10**30).map(Fraction),
                       st.sampled_from([Fraction(0), Fraction(1, 2**64), Fraction(-3, 2**64), Fraction(10**40, 3)]))


@settings(database=None, derandomize=True, max_examples=300)
@given(st.lists(_FRACTIONS, max_size=12))
def test_a_sum_or_product_reduced_once_is_the_fraction_reduced_after_every_step(parts: list[Fraction]) -> None:
    for once, each_step in ((rational_value.fraction_sum(parts), sum(parts, Fraction(0))),
                            (rational_value.fraction_product(parts), math.prod(parts, start=Fraction(1)))):
        assert type(once) is Fraction and (once.numerator, once.denominator) == (each_step.numerator, each_step.denominator)


def test_a_case_table_takes_its_first_case_that_holds_as_sympy_does() -> None:
    # at x = 2, y = 3: x > y fails, Eq(x + 1, y) & ~(x >= y) holds, so 2*x*y = 12 (the last case would be 1/3)
    table = sympy.Piecewise((x, x > y), (2 * x * y, sympy.And(sympy.Eq(x + 1, y), sympy.Not(x >= y))), (1 / y, True))
    mapping = {x: sympy.Integer(2), y: sympy.Integer(3)}
    assert rational_value.value(table, rational_value.inputs(mapping)) == Fraction(12) == _as_fraction(table.xreplace(mapping))


def test_floats_roots_poles_and_undefined_cases_are_left_to_sympy() -> None:
    mapping = {x: sympy.Integer(2), y: sympy.Integer(0), z: sympy.Float(0.5)}
    for expr in (sympy.Float(0.1) * x, sympy.sqrt(x), x / y, x * z, x ** sympy.Rational(1, 2),
                 sympy.Piecewise((x, x > 1), (1 / y, True)),  # a case that does not hold has no value: SymPy decides
                 sympy.Piecewise((x, x > 3), (2 * x, x > 5))):  # no case holds
        assert rational_value.value(expr, rational_value.inputs(mapping)) is None


def test_an_expression_too_deep_for_the_stack_has_no_value_and_is_not_kept_in_the_points_memo() -> None:
    x = sympy.Symbol("x", positive=True)
    deep: sympy.Expr = x
    for _ in range(5000):  # deeper than Python's default recursion limit of 1000
        deep = sympy.Add(deep, 1, evaluate=False)
    values = rational_value.inputs({x: sympy.Integer(2)})
    assert rational_value.value(deep, values) is None
    assert deep not in values  # the depth at which it was asked, not the expression: asked shallower, it may have one
    shallow = sympy.Add(x, 1, evaluate=False)
    assert rational_value.value(shallow, values) == 3 and values[shallow] == 3


def test_hong_kim_tie_at_decimal_inputs_is_decided_in_fractions_as_sympy_decides_it() -> None:
    # MWP_peak_BW = 71.68e9*300/(1e9*128*14) = 12 = N exactly (11.999999999999998 in IEEE arithmetic): the relations of
    # Exec_cycles_app's cases near a tie there, each decided again here by SymPy's own substitution of the exact inputs
    model = symgpu.load("hong_kim_2009")
    values = {"Freq": 1e9, "Mem_LD": 300, "Active_SMs": 14, "Active_blocks_per_SM": 3, "Uncoal_Mem_insts": 0,
              "Coal_Mem_insts": 6, "Mem_Bandwidth": 71.68e9}
    found: dict[sympy.Basic, None] = {}
    for piecewise in model.expression("Exec_cycles_app").atoms(sympy.Piecewise):
        for _, condition in piecewise.args:
            piece_select.collect_relations(condition, found)
    relations = [r for r in found if isinstance(r, sympy.core.relational.Relational)]
    expected = {}
    for relation in relations:
        based = scaling.base_expression(model, relation)
        exact = point.exact_base_values(model, based.free_symbols, "table2_example", values)
        assert exact is not None
        left, right = based.lhs.xreplace(exact), based.rhs.xreplace(exact)
        terms = [t.xreplace(exact) for t in sympy.Add.make_args(based.lhs - based.rhs)]
        size = max(abs(float(v)) for v in [left, right, *terms])
        if abs(float(left - right)) <= stepwise.NEAR * size:
            expected[relation] = bool(based.func(left, right))
    assert expected  # the point is a tie of MWP and N
    before = memo.tallies()["evaluate.ties.sympy_substitutions"]
    assert ties.near_relations(model, relations, "table2_example", values) == expected
    assert memo.tallies()["evaluate.ties.sympy_substitutions"] == before  # every part rational: no SymPy substitution


def test_hong_kim_value_at_a_tie_is_sympys_exact_value() -> None:
    # Exec_cycles_app at the tie MWP = N = 12 above: Eq. (22)'s (1800 + 132 + 22*11)*80/42 cycles, the number SymPy's
    # substitution of the exact inputs into the whole case table gives, without that substitution
    model = symgpu.load("hong_kim_2009")
    values = {"Freq": 1e9, "Mem_LD": 300, "Active_SMs": 14, "Active_blocks_per_SM": 3, "Uncoal_Mem_insts": 0,
              "Coal_Mem_insts": 6, "Mem_Bandwidth": 71.68e9}
    expr = model.expression("Exec_cycles_app")
    before = memo.tallies()["evaluate.ties.sympy_substitutions"]
    got = ties.tie_value(model, expr, model.units["Exec_cycles_app"], "table2_example", values)
    assert got == pytest.approx(float(Fraction(1800 + 132 + 22 * 11) * Fraction(80, 42)), rel=1e-15)
    assert memo.tallies()["evaluate.ties.sympy_substitutions"] == before
