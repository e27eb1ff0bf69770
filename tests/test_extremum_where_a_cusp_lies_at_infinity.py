"""Tester round 7, F2: a cusp or plateau edge whose location divides by 0 at the point (Volkov's
alu_bound/issue_bound edge alpha = alu_thru/(issue_thru - alu_thru) on Maxwell, where
alu_thru = issue_thru) is approached at infinity, not attained: it is no candidate there, so an
assumed end of the range is the maximum, and without one there is no maximum (the supremum is
approached as alpha -> oo). Expected values by hand from the model file and by brute force on the
evaluate path."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import derive, errors


def test_the_maximum_over_an_assumed_range_is_at_its_end_not_at_a_cusp_at_infinity():
    # maxwell, n = 32: arithmetic_throughput = 32*alpha*Min(32/(368 + 6*alpha), 0.0814, 4/alpha, 4/(alpha + 1)),
    # rising on (0, 100]: at alpha = 100, 32*100*32/(368 + 600) = 102400/968 = 105.7851239...
    model = symgpu.load("volkov_2016")
    xs = np.linspace(0.01, 100.0, 10000)
    ys = np.asarray(model.evaluate("arithmetic_throughput", "maxwell", values={"n": 32, "alpha": xs}).magnitude, dtype=float)
    assert ys.max() == pytest.approx(102400 / 968, rel=1e-12) and xs[ys.argmax()] == 100.0
    answer = model.extremum("arithmetic_throughput", "alpha", "max", preset="maxwell", values={"n": 32}, assume=["alpha <= 100"])
    assert float(derive.evaluate_result(model, answer, "maxwell", n=32).magnitude) == pytest.approx(102400 / 968, rel=1e-9)
    assert float(derive.evaluate_result(model, answer, "maxwell", which="location", n=32).magnitude) == 100.0


def test_without_an_upper_end_there_is_no_maximum_and_the_supremum_is_said():
    # as alpha -> oo: 32*alpha*4/(alpha + 1) -> 128 (the issue bound binds: 4/(alpha + 1) < 4/alpha, < 32/(368 + 6 alpha)
    # for alpha > 368/22), never reached
    model = symgpu.load("volkov_2016")
    answer = model.extremum("arithmetic_throughput", "alpha", "max", preset="maxwell", values={"n": 32})
    assert answer.location is None  # no alpha attains it (a refusal before tester round 13a, F5)
    assert "no maximum: the supremum 128 op/cycle/SM is approached as alpha -> oo" in answer.extra.elsewhere


def test_without_a_point_an_end_is_not_shown_where_the_limit_at_infinity_was_not_taken():
    # without values, which argument of Min(n/(mem_lat + alpha*alu_lat), mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))
    # wins as alpha -> oo depends on the inputs, so the end alpha = 0 (value 0) cannot be compared with the value
    # approached there (at g80 with n = 4 the quantity rises towards 32*Min(n/alu_lat, alu_thru, issue_thru) > 0): the
    # closed form is refused, saying what to ask instead, not shown (nor caught by the certificate)
    model = symgpu.load("volkov_2016")
    with pytest.raises(errors.DerivationError, match=r"^volkov_2016: the maximum of arithmetic_throughput over alpha has no "
                       r"closed form here: .*alpha -> oo.*ask at a point"):
        model.extremum("arithmetic_throughput", "alpha", "max")
