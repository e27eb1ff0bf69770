"""A closed-form fixed point carries its variable's declared range where the declared signs leave it open, as a solve's
root does (:func:`symgpu.derive.solve_domain.declared`): ``c0 = c1 - 2*r*c0`` (c0 positive, c1 nonnegative) has the one
root ``c1/(2*r + 1)``, which is 0, outside ``c0 > 0``, at ``c1 = 0``: no fixed point there. The differential tester's
generated models found it answered with no condition. Values by hand."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import mpmath
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.evaluate import active
from conftest import toy_header


def _model(write_model: Callable[..., Path], c1_sign: str) -> symgpu.Model:
    text = toy_header("fp_zero", "A fixed point at 0 where c1 is 0", "c1 less 2 r c0") + f"""
[symbols.c0]
description = "cycles"
unit = "cycle"
assumptions = ["positive"]
[symbols.c1]
description = "more cycles"
unit = "cycle"
assumptions = ["{c1_sign}"]
[symbols.r]
description = "a ratio"
unit = "1"
assumptions = ["positive"]
[symbols.q]
description = "c1 less 2 r c0"
unit = "cycle"
role = "output"
[[equations]]
id = "eq_q"
defines = "q"
rhs = "c1 - 2*r*c0"
source = {{ ref = "toy2026", locator = "1" }}
[presets.p0]
description = "values"
source = {{ ref = "toy2026", locator = "p0" }}
[presets.p0.values]
c0 = "10 cycle"
c1 = "30 cycle"
r = "1"
"""
    return symgpu.load(write_model(text, name="fp_zero"))


def test_a_fixed_point_the_signs_leave_outside_the_range_says_where_it_holds(write_model: Callable[..., Path]) -> None:
    model = _model(write_model, "nonnegative")
    d = model.fixed_point("q", "c0")
    c1, r = model.symbols["c1"], model.symbols["r"]
    assert sympy.simplify(d.result - c1 / (2 * r + 1)) == 0  # by hand: c0 (1 + 2 r) = c1
    assert d.extra.valid_when is not None and len(d.extra.valid_when) == 1
    (condition,) = d.extra.valid_when
    assert active.condition_true(model, condition, "p0", {}) is True  # c1 = 30: c0 = 10 > 0
    assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), 10.0)
    assert active.condition_true(model, condition, "p0", {"c1": 0}) is False  # c1 = 0: c0 = 0, outside c0 > 0
    assert "valid when" in str(d)


def test_at_a_point_where_the_root_is_outside_the_range_there_is_no_fixed_point(write_model: Callable[..., Path]) -> None:
    model = _model(write_model, "nonnegative")
    with pytest.raises(errors.NoAnswerHere):
        model.fixed_point("q", "c0", preset="p0", values={"c1": 0})


def test_a_fixed_point_the_signs_prove_in_range_states_no_condition(write_model: Callable[..., Path]) -> None:
    model = _model(write_model, "positive")  # c1 > 0: c1/(2 r + 1) > 0, proved
    d = model.fixed_point("q", "c0")
    assert d.extra.valid_when is None
    assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), 10.0)


def test_a_quadratic_fixed_point_whose_formula_adds_is_kept_as_it_is(write_model: Callable[..., Path]) -> None:
    # x = a/x + b: x**2 - b*x - a = 0, the + root (b + sqrt(b**2 + 4*a))/2 adds two positive numbers; its conjugate form
    # -2*a/(b - sqrt(b**2 + 4*a)) subtracts two nearly equal ones (gen_11_78, seed 11: 78634.67 for 71065.90 cycles)
    text = toy_header("fp_quad", "x = a/x + b", "a quadratic fixed point") + """
[symbols.x]
description = "cycles"
unit = "cycle"
assumptions = ["positive"]
[symbols.a]
description = "squared cycles"
unit = "cycle**2"
assumptions = ["positive"]
[symbols.b]
description = "cycles"
unit = "cycle"
assumptions = ["positive"]
[symbols.q]
description = "a/x + b"
unit = "cycle"
role = "output"
[[equations]]
id = "eq_q"
defines = "q"
rhs = "a/x + b"
source = { ref = "toy2026", locator = "1" }
[presets.p0]
description = "values"
source = { ref = "toy2026", locator = "p0" }
[presets.p0.values]
x = "1 cycle"
a = "3 cycle**2"
b = "100000000 cycle"
"""
    model = symgpu.load(write_model(text, name="fp_quad"))
    d = model.fixed_point("q", "x")
    with mpmath.workdps(40):
        expected = float((mpmath.mpf(10) ** 8 + mpmath.sqrt(mpmath.mpf(10) ** 16 + 12)) / 2)  # by hand: 1e8 + 3e-8
    assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), expected, rel_tol=1e-15)
