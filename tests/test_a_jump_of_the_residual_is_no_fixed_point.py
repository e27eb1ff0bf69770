"""A change of sign of ``x - g(x)`` across a jump (a case table's step, a staircase's) is no fixed point: the scan's
bracket is bisected (:func:`symgpu.derive.fixed_point_scan.crossing`) and a sign change where the residual stays large
at an end is rejected, unless the step's edge belongs to the side where it vanishes (the case condition that switches
there admits equality: the fixed point is attained, gen_11_25's ``q0 >= c1`` at c1 = q0). The differential tester's generated model gen_11_63 (seed 11) found ``fixed_point`` answering
t0 = 0.008067 us, the step where ``q4`` switches from ``ceiling(q1/t2)*t3`` (0.81 s) to ``q2``: its certificate caught it
("maps to 810000: the residual does not vanish"). Values by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mpmath
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.derive import fixed_point_numeric, fixed_point_scan, jobs
from conftest import toy_header


def _jump(x: mpmath.mpf) -> mpmath.mpf:
    """x - g(x) with g = 1 above x = 1 and 5 at and below it: -4 at 1, +1e-30 just above: no root."""
    return x - (1 if x > 1 else 5)


def test_a_sign_change_across_a_jump_is_no_crossing() -> None:
    assert fixed_point_scan.crossing(_jump, mpmath.mpf("0.9"), _jump(mpmath.mpf("0.9")), mpmath.mpf("1.1"), _jump(mpmath.mpf("1.1"))) is None


def test_a_continuous_sign_change_is_bisected_to_its_root() -> None:
    def f(x: mpmath.mpf) -> mpmath.mpf:
        return x - 2 / x  # x = 2/x at sqrt(2)
    with mpmath.workdps(40):
        root = fixed_point_scan.crossing(f, mpmath.mpf(1), f(mpmath.mpf(1)), mpmath.mpf(2), f(mpmath.mpf(2)))
        assert root is not None and abs(root - mpmath.sqrt(2)) <= mpmath.mpf(10) ** -28


def _text(case_a: str, case_b: str) -> str:
    return _TEXT.replace('when = "c < x", value = "c"', case_a).replace('value = "ceiling(x/t2)*t3"', case_b)


_TEXT = toy_header("step_fp", "A fixed point sought across a step", "q is c above c, else whole t2 steps of t3") + """
[symbols.x]
description = "the variable"
unit = "us"
assumptions = ["positive"]
[symbols.c]
description = "a short time"
unit = "us"
assumptions = ["positive"]
[symbols.t2]
description = "a step"
unit = "us"
assumptions = ["positive"]
[symbols.t3]
description = "a long time"
unit = "s"
assumptions = ["positive"]
[symbols.q]
description = "c above c, else ceiling(x/t2) t3"
unit = "us"
role = "output"
[[equations]]
id = "eq_q"
defines = "q"
cases = [
  { id = "a", when = "c < x", value = "c" },
  { id = "b", when = "otherwise", value = "ceiling(x/t2)*t3" },
]
source = { ref = "toy2026", locator = "1" }
[presets.p0]
description = "values"
source = { ref = "toy2026", locator = "p0" }
[presets.p0.values]
x = "1 us"
c = "0.008067 us"
t2 = "0.7 us"
t3 = "0.81 s"
"""


def test_a_case_table_stepping_past_the_diagonal_has_no_fixed_point(write_model: Callable[..., Path]) -> None:
    # by hand: above c, x - q = x - c > 0; at and below c, q >= t3 = 810000 us > x: x - q < 0. The sign changes at
    # x = c, where x - q jumps from about -810000 us to 0+: no x equals q
    model = symgpu.load(write_model(_TEXT, name="step_fp"))
    with pytest.raises(errors.DerivationError, match="only across a jump") as caught:
        model.fixed_point("q", "x", preset="p0")
    assert not isinstance(caught.value, errors.CertificateError)


def test_a_case_table_stepping_away_from_the_diagonal_at_its_closed_edge_has_its_fixed_point_there(write_model: Callable[..., Path]) -> None:
    # by hand: at and below c, q = c, so x - q = x - c <= 0, 0 at x = c; above c, q = c/1000 < x. The sign changes at
    # x = c, where x - q jumps from 0 (attained: the case x <= c holds there) to about c: x = c is the fixed point
    text = _text('when = "x <= c", value = "c"', 'value = "c/1000"')
    model = symgpu.load(write_model(text, name="step_fp"))
    d = model.fixed_point("q", "x", preset="p0")
    assert abs(float(derive.evaluate_result(model, d, "p0").magnitude) - 0.008067) <= 1e-12


def test_a_root_findroot_gives_at_a_jump_is_told_from_a_crossing(write_model: Callable[..., Path]) -> None:
    model = symgpu.load(write_model(_text('when = "c < x", value = "c"', 'value = "2*c"'), name="step_fp"))
    job, _ = jobs.start(model, "fixed_point", "q", "x")
    x = model.symbols["x"]
    pt = fixed_point_numeric.point(job, model.expression("q"), x, sympy.Integer(0), sympy.oo, [], "p0", {})
    c = mpmath.mpf("0.008067e-6")  # base units: s
    with mpmath.workdps(40):
        # x - q jumps at c from -c (q = 2c, at and below c) to 0+ (q = c above it): no root, though findroot lands on c+
        assert fixed_point_numeric._jump_at(pt, c * (1 + mpmath.mpf(10) ** -25))
