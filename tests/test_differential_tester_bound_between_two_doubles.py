"""The differential tester's inequality oracle and a supremum whose exact bound lies between two doubles.

Seed 226 asked `solve prior_huang_bw CPI_final --for reqs_per_inst --target 25.0846... --relation '>=' --kind max` at
kepler, alpha = 0, n = 48: the answer is the supremum 4823525/4603904 (not attained: there rho = 1, and Huang's
bandwidth delay is valid only where rho < 1). That bound read as a double lies just below it, where the model has a
value and the relation holds, so the tester called the supremum attained. Exact arithmetic decides it, not the scan:
where the double inside holds and the one beyond does not, the question is unchecked, not a disagreement."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

import symgpu
import differential_checks as checks
import differential_inequalities as inequalities
from differential_questions import Point, Question

_HUANG = Question("inequality", "prior_huang_bw", "CPI_final", "reqs_per_inst", Point("kepler", (("alpha", 0.0), ("n", 48.0))),
                  target=25.084604498538834, numeric_target=True, kind="max", relation=">=")
BOUND = Fraction(4823525, 4603904)


def test_the_bound_as_a_double_has_a_value_and_the_next_double_beyond_is_outside_the_models_domain():
    model = symgpu.load("prior_huang_bw")
    inside = float(BOUND)
    beyond = float(np.nextafter(inside, math.inf))
    assert Fraction(inside) < BOUND < Fraction(beyond)  # the exact bound lies between the two doubles
    values = {"alpha": 0.0, "n": 48.0}
    assert model.evaluate("CPI_final", "kepler", values={**values, "reqs_per_inst": inside}).magnitude >= _HUANG.target
    with pytest.raises(symgpu.DomainError, match="valid only when rho < 1"):
        model.evaluate("CPI_final", "kepler", values={**values, "reqs_per_inst": beyond})


def test_a_supremum_between_two_doubles_is_unchecked_not_called_attained():
    verdict = checks.judge(_HUANG, answer_of=lambda q, limit: checks.ask(q, 60.0))
    assert verdict.outcome == "unchecked", verdict.line()
    assert "lies between two doubles" in verdict.reason


def test_a_bound_its_double_is_or_one_beyond_which_the_relation_still_holds_is_still_judged():
    model = symgpu.load("prior_huang_bw")
    answer = checks.ask(_HUANG, 60.0)[0]
    assert not inequalities._the_double_is_the_bound(answer, float(BOUND))
    assert inequalities._the_double_is_the_bound(type(answer)(**{**answer.__dict__, "result": sympy.Rational(1, 2)}), 0.5)
    # well inside the admissible set the relation holds one double beyond too: a supremum claimed there is attained
    assert inequalities._holds_one_double_beyond(model, _HUANG, 0.5, 1.0)
    assert not inequalities._holds_one_double_beyond(model, _HUANG, float(BOUND), 1.0)
