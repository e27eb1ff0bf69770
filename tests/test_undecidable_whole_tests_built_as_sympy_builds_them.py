"""The near-tie tests of one input that the rescaler rebuilds (``s != floor(s)``, ``s > c``, ``Max(s, -s) > c``: each
input's, in every compiled ``may_be_unequal`` test) are built unevaluated where no sound evaluation can decide them,
without SymPy's 1-3 ms of assumptions queries each (issue 31: 36 ms of ``regimes hong_kim_2009 Exec_cycles_app``).
Proved against SymPy's own evaluation for every set of assumptions a model's symbol or constant can have (``real``
with any of ``positive``, ``nonnegative``, ``integer``; a constant's ``real, positive``), under two names, beside
the limit scaled as the rescaler scales it; the shapes SymPy does decide (an integer's ``s != floor(s)``, a bound
that is not positive) are left to SymPy and agree too."""

from __future__ import annotations

import itertools

import pytest
import sympy

from symgpu import memo
from symgpu.evaluate import scaling, stepwise

WORDS = ["positive", "nonnegative", "integer"]
ASSUMPTIONS = [{"real": True, **{w: True for w in words}} for r in range(len(WORDS) + 1) for words in itertools.combinations(WORDS, r)]
BOUNDS = [stepwise.WHOLE_LIMIT, stepwise.WHOLE_LIMIT * sympy.Rational(1, 10**9), stepwise.WHOLE_LIMIT * 10**9, sympy.Integer(5),
          sympy.Integer(0), -stepwise.WHOLE_LIMIT]


def _cases(symbol: sympy.Symbol) -> list[tuple[type, tuple[sympy.Basic, ...]]]:
    magnitudes = [symbol, -symbol, sympy.Max(symbol, -symbol, evaluate=False), sympy.Max(-symbol, symbol, evaluate=False),
                  sympy.Max(symbol, -symbol)]
    return [(sympy.Ne, (symbol, sympy.floor(symbol)))] + [(sympy.StrictGreaterThan, (m, b)) for m in magnitudes for b in BOUNDS]


@pytest.mark.parametrize("assumptions", ASSUMPTIONS, ids=lambda a: "-".join(sorted(a)))
@pytest.mark.parametrize("name", ["Freq", "a_z"])
def test_each_inputs_test_is_what_sympys_evaluation_builds(assumptions: dict[str, bool], name: str) -> None:
    memo.clear_all()
    symbol = sympy.Symbol(name, **assumptions)
    for func, sides in _cases(symbol):
        expected = func(*sides)
        assert sympy.srepr(scaling.relation(func, *sides)) == sympy.srepr(expected), (func, sides)


def test_the_cheap_build_is_taken_for_a_real_non_integer_symbol_and_a_positive_bound() -> None:
    positive, integer = sympy.Symbol("x", real=True, positive=True), sympy.Symbol("n", real=True, integer=True)
    assert scaling._undecidable(sympy.Ne, (positive, sympy.floor(positive)))
    assert scaling._undecidable(sympy.StrictGreaterThan, (sympy.Max(integer, -integer, evaluate=False), stepwise.WHOLE_LIMIT))
    assert not scaling._undecidable(sympy.Ne, (integer, sympy.floor(integer)))  # false: SymPy decides it
    assert not scaling._undecidable(sympy.StrictGreaterThan, (positive, sympy.Integer(0)))  # true: SymPy decides it
    assert not scaling._undecidable(sympy.StrictGreaterThan, (positive + 1, stepwise.WHOLE_LIMIT))
