"""Every fixed point answered lies in its variable's declared range and is the one (or the one stable) fixed point of
``x = quantity(x)`` there, or the question is refused (the differential tester's ``--ops fixed_point`` findings, seeds
300-305):

* a closed-form root outside the declared range is dropped, and with no bound left the question is refused naming the
  range (interval analysis's ``L_perthd`` over ``L_F``; Volkov's ``Latency_loaded_2term`` over ``b_2``);
* ``x = Min(g(x), k)`` is ``Min(r, k)`` only where ``x - g(x)`` increases: where ``g`` increases faster than ``x`` the
  bound is the fixed point (Volkov ILP's ``instruction_throughput`` over ``mem_thru``: 8/229, not 0); where nothing is
  proved, in symbols only where it is a fixed point at every sample (Huang's bandwidth delay over ``mem_lat``);
* at a preset that gives the variable a value, that value is no input of ``g`` (Volkov's ``Latency`` over ``mem_lat``;
  Huang GTO's ``NO_mem`` over ``mem_lat``);
* ``x = quantity(x)`` on a whole range has no single answer;
* the certificate refuses an answer outside the declared range, and an integer variable's non-whole answer with no
  change of sign of the residual between the whole values beside it.

Expected values are computed by hand in ``Fraction`` (or mpmath) from the presets' numbers, never read from the engine.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import mpmath
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.derive import certify, certify_path
from tests.conftest import assert_one_line_refusal, toy_header


def _number(model: symgpu.Model, preset: str, name: str) -> Fraction:
    return Fraction(str(model.presets[preset][name].magnitude))


# ------------------------------------------------------------------ class 1: a closed-form root outside the declared range
def test_a_linear_root_below_the_declared_range_is_refused_naming_the_range(cli):
    # L_perthd = N*L_F + L_M + 1: L_F = N*L_F + L_M + 1 has the one root -(L_M + 1)/(N - 1), at k20c (L_M = 400 cycles)
    # with N = 16 -401/15 < 0, while L_F is declared positive: no fixed point
    model = symgpu.load("interval_analysis")
    root = -(_number(model, "k20c", "L_M") + 1) / (16 - 1)
    assert root == Fraction(-401, 15) and root < 0
    code, out, err = cli("fixed-point", "interval_analysis", "L_perthd", "--var", "L_F", "--preset", "k20c", "--set", "N=16")
    assert_one_line_refusal(code, out, err, "no fixed point in the declared range (0, oo)", f"{float(root):.10g} cycle")
    with pytest.raises(errors.NoAnswerHere):
        model.fixed_point("L_perthd", "L_F", preset="k20c", values={"N": 16})


def test_a_linear_root_in_the_domain_only_for_some_inputs_is_asked_at_a_point_not_answered_in_symbols():
    # -(L_M + 1)/(N - 1) is positive where N < 1 only: in symbols no answer holds everywhere, so a point is needed
    with pytest.raises(errors.DerivationError, match="needs a point"):
        symgpu.load("interval_analysis").fixed_point("L_perthd", "L_F")


def test_a_quantity_above_the_identity_at_every_positive_value_has_no_fixed_point():
    # Volkov's two-term loaded latency is A + k*b_2 in b_2; read off the evaluate path at b_2 = 1 and 2 (exact in
    # Fraction to the digits of the floats): k >= 1 and A > 0, so b_2 - Q(b_2) = (1 - k)*b_2 - A < 0 for every b_2 > 0
    model = symgpu.load("volkov_2016")
    point = {"alpha": 4.0, "c_2": 121.0, "inst_latency": 9.0, "peak_ops_per_sched": 8.0, "x": 0.09822910432810195}
    q1, q2, q3 = (Fraction(float(model.evaluate("Latency_loaded_2term", preset="kepler", values=dict(point, b_2=b)).magnitude))
                  for b in (1.0, 2.0, 3.0))
    k = q2 - q1
    assert abs((q3 - q2) - k) <= Fraction(1, 10**9) * k  # linear in b_2
    assert k > 1 and q1 - k > 0
    with pytest.raises(errors.NoAnswerHere, match=r"no fixed point in the declared range \(0, oo\)"):
        model.fixed_point("Latency_loaded_2term", "b_2", preset="kepler", values=point)


def test_a_bound_is_the_fixed_point_where_g_rises_faster_than_the_variable():
    # Volkov ILP at gt200, alpha = 1, n = 8: mem_thru = 2*Min(mem_thru, alu_thru, issue_thru/2, n/(alu_lat + mem_lat)) =
    # Min(2*mem_thru, 2*alu_thru, issue_thru, 2*n/(alu_lat + mem_lat)); 2*mem_thru > mem_thru for every mem_thru > 0,
    # so the fixed point is the least bound, 2*8/(24 + 434) = 8/229 (not the root 0 of mem_thru = 2*mem_thru)
    model = symgpu.load("volkov_2016_ilp")
    bound = min(2 * _number(model, "gt200", "alu_thru"), _number(model, "gt200", "issue_thru"),
                2 * Fraction(8) / (_number(model, "gt200", "alu_lat") + _number(model, "gt200", "mem_lat")))
    assert bound == Fraction(8, 229)
    d = model.fixed_point("instruction_throughput", "mem_thru", preset="gt200", values={"alpha": 1, "n": 8})
    assert float(derive.evaluate_result(model, d, "gt200", alpha=1, n=8).magnitude) == pytest.approx(float(bound), rel=1e-12)


def test_the_min_rule_holds_where_g_rises_slower_than_the_variable_and_not_where_it_rises_faster(tmp_path):
    # X = Min(base + slope*x, cap): with slope = 1/2, x - g(x) = x/2 - base increases, the fixed point is Min(2*base, cap)
    # in closed form; with slope = 2 it falls (x - g = -x - base < 0): the fixed point is cap, found at a point
    for slope, expected in ((Fraction(1, 2), min(2 * Fraction(3), Fraction(10))), (Fraction(2), Fraction(10))):
        model = _affine_model(tmp_path, slope)
        d = model.fixed_point("X", "x", preset="p")
        assert float(derive.evaluate_result(model, d, "p").magnitude) == pytest.approx(float(expected), rel=1e-12)
        if slope < 1:
            assert d.method == "closed form" and any("x - g(x) increases" in s.justification for s in d.steps)
        else:
            assert d.method.startswith("numeric")
            with pytest.raises(errors.DerivationError, match="needs a point"):
                model.fixed_point("X", "x")  # no Min(r, cap) in symbols where g rises faster than x


def test_the_min_rule_is_not_given_in_symbols_where_g_falls_below_the_bound_past_a_pole():
    # Huang's bandwidth delay, Min(B/2, B**2/(2*(m - B))) in mem_lat = m, is valid only where rho = B/m < 1, i.e. m > B, and
    # there it is at most B/2 < m: there is no fixed point. Min(r, B/2), with r = B*(1 + sqrt(3))/2 the quadratic's positive
    # root, was given in symbols (the certificate caught it). Brute force on the evaluate path at kepler, n = 48: over
    # m = 1e-3 .. 1e6 cycles, wherever the model gives a value, m - Q(m) > 0
    model = symgpu.load("prior_huang_gto")
    gaps = []
    for m in (10.0 ** (k / 40) for k in range(-120, 241)):
        try:
            gaps.append(m - float(model.evaluate("Bandwidth_delay", preset="kepler", values={"n": 48.0, "mem_lat": m}).magnitude))
        except errors.DomainError:
            continue
    assert len(gaps) > 100 and min(gaps) > 0
    with pytest.raises(errors.DerivationError, match="needs a point"):
        model.fixed_point("Bandwidth_delay", "mem_lat")
    with pytest.raises(errors.DerivationError, match="no fixed point was found"):
        model.fixed_point("Bandwidth_delay", "mem_lat", preset="kepler", values={"n": 48.0})


def test_an_integer_variables_real_root_below_its_least_whole_value_is_no_answer():
    # occupancy over reg_alloc_exception_factor (a positive integer) was answered 0.625 at cc_7_0: no whole value 1, 2, ...
    # is a fixed point there, since occupancy <= 1 is the same at 1 and 2 and below both
    model = symgpu.load("occupancy")
    values = {"regs_per_thread": 37.0, "smem_per_block": 0.0, "threads_per_block": 320.0}
    at = [Fraction(float(model.evaluate("occupancy", preset="cc_7_0", values=dict(values, reg_alloc_exception_factor=r)).magnitude))
          for r in (1.0, 2.0, 3.0)]
    assert all(r - q > 0 for r, q in zip((1, 2, 3), at)) and max(at) <= 1  # x - Q(x) > 0 at every whole value (Q <= 1 < 2)
    with pytest.raises(errors.DerivationError):
        model.fixed_point("occupancy", "reg_alloc_exception_factor", preset="cc_7_0", values=values)


# ------------------------------------------------------------------ class 2: the preset's own value of the variable
def test_a_presets_value_of_the_variable_is_no_input_of_g():
    # Volkov's Latency = alpha*alu_lat + mem_lat over mem_lat at maxwell (mem_lat = 368): with alpha = 2, mem_lat = mem_lat + 12
    # has no solution (it was answered 380 = 12 + 368, g fed the preset's 368); with alpha = 0 every value is one
    model = symgpu.load("volkov_2016")
    assert 2 * _number(model, "maxwell", "alu_lat") == 12
    with pytest.raises(errors.DerivationError, match="no fixed point was found"):
        model.fixed_point("Latency", "mem_lat", preset="maxwell", values={"alpha": 2})
    with pytest.raises(errors.NoAnswerHere, match="every value of mem_lat"):
        model.fixed_point("Latency", "mem_lat", preset="maxwell", values={"alpha": 0})


def test_a_fixed_point_at_a_preset_that_gives_the_variable_a_value_is_the_one_without_it():
    # Huang GTO's NO_mem at kepler (issue_units = 4), alpha = 0, n = 48: for m > 1, NO_mem = 1 - m + 11*(m - 1)/m, so
    # m = NO_mem(m) is 2*m**2 - 12*m + 11 = 0: m = 3 -+ sqrt(14)/2; g' = -1 + 11/m**2 is -0.54 at the larger (stable) and
    # 7.6 at the smaller (unstable); below 1 NO_mem = 0. The preset's mem_lat = 301 once made the scan find none.
    model = symgpu.load("prior_huang_gto")
    assert Fraction(48) / _number(model, "kepler", "issue_units") - 1 == 11
    with mpmath.workdps(30):
        low, high = 3 - mpmath.sqrt(14) / 2, 3 + mpmath.sqrt(14) / 2
        assert abs(-1 + 11 / high**2) < 1 < abs(-1 + 11 / low**2)
    d = model.fixed_point("NO_mem", "mem_lat", preset="kepler", values={"alpha": 0, "n": 48})
    assert float(derive.evaluate_result(model, d, "kepler", alpha=0, n=48).magnitude) == pytest.approx(float(high), rel=1e-12)


def test_x_equal_to_the_quantity_on_a_whole_range_is_refused():
    # Volkov's memory_throughput_loaded = Min(mem_thru, ...) over mem_thru: g(mem_thru) = mem_thru, every value up to the
    # other bounds is a fixed point (one was answered); occupancy's active_blocks_per_SM over max_blocks_per_SM at cc_6_1
    # with 16 registers, 3 KiB and 64 threads: Min(max_blocks_per_SM, 32, ...) equals max_blocks_per_SM from 1 to 32
    with pytest.raises(errors.NoAnswerHere, match="every value of mem_thru"):
        symgpu.load("volkov_2016").fixed_point("memory_throughput_loaded", "mem_thru")
    occupancy = symgpu.load("occupancy")
    values = {"regs_per_thread": 16.0, "smem_per_block": 3072.0, "threads_per_block": 64.0}
    same = [float(occupancy.evaluate("active_blocks_per_SM", preset="cc_6_1", values=dict(values, max_blocks_per_SM=b)).magnitude)
            for b in (1.0, 2.0, 16.0, 32.0)]
    assert same == [1.0, 2.0, 16.0, 32.0]
    with pytest.raises(errors.NoAnswerHere, match="a range of fixed points"):
        occupancy.fixed_point("active_blocks_per_SM", "max_blocks_per_SM", preset="cc_6_1", values=values)


# ------------------------------------------------------------------ the certificate
def _checked(model: symgpu.Model, d: derive.Derivation, variable: str, quantity: str, preset: str, values: dict[str, float]) -> None:
    asked = certify_path.Asked("fixed_point", quantity, variable, preset=preset, values=tuple(sorted(values.items())))
    certify.certify(model, dataclasses.replace(d, certificate=None), asked)


def test_the_certificate_refuses_a_fixed_point_outside_the_declared_range():
    # L_F = -401/15 satisfies L_F = 16*L_F + 401 exactly (its residual vanishes), but L_F is declared positive
    model = symgpu.load("interval_analysis")
    wrong = _answered(sympy.Rational(-401, 15))
    with pytest.raises(errors.CertificateError, match="outside the variable's declared range"):
        _checked(model, wrong, "L_F", "L_perthd", "k20c", {"N": 16.0})


def test_the_certificate_refuses_an_integer_variables_answer_between_whole_values_where_the_residual_keeps_its_sign():
    # occupancy over reg_alloc_exception_factor at cc_7_0: 1.5 is no whole number, and the residual r - occupancy(r) is
    # positive at 1 and 2 (occupancy <= 1), so no fixed point lies between them
    model = symgpu.load("occupancy")
    values = {"regs_per_thread": 37.0, "smem_per_block": 0.0, "threads_per_block": 320.0}
    wrong = _answered(sympy.Rational(3, 2))
    with pytest.raises(errors.CertificateError, match="declared integer"):
        _checked(model, wrong, "reg_alloc_exception_factor", "occupancy", "cc_7_0", values)


def _answered(result: sympy.Expr) -> derive.Derivation:
    """A fixed-point derivation (Volkov's closed form, asked in symbols) with its result replaced by ``result``."""
    d = symgpu.load("volkov_2016").fixed_point("memory_throughput_loaded", "x")
    return dataclasses.replace(d, result=result, extra=type(d.extra)())


def _affine_model(tmp_path, slope: Fraction) -> symgpu.Model:
    """X = Min(base + slope*x, cap) with base = 3, cap = 10 (cycles) at preset p."""
    text = toy_header("affine", "Affine feedback", "A quantity affine in its own input, capped.") + f'''
[symbols.x]
description = "the input"
unit = "cycle"
assumptions = ["positive"]

[symbols.base]
description = "offset"
unit = "cycle"
assumptions = ["positive"]

[symbols.cap]
description = "cap"
unit = "cycle"
assumptions = ["positive"]

[symbols.X]
description = "the capped affine quantity"
unit = "cycle"
role = "output"

[[equations]]
id = "x"
defines = "X"
rhs = "Min(base + {slope.numerator}*x/{slope.denominator}, cap)"
source = {{ ref = "toy2026", locator = "1" }}

[presets.p]
description = "p"
source = {{ ref = "toy2026", locator = "t" }}
[presets.p.values]
base = "3 cycle"
cap = "10 cycle"
'''
    folder = tmp_path / f"slope_{slope.numerator}_{slope.denominator}"
    folder.mkdir()
    path = folder / "affine.toml"
    path.write_text(text, encoding="utf-8")
    return symgpu.Model(symgpu.model.loader.read_definition(path))


# ------------------------------------------------------------------ the derivation says what it rests on
def test_a_fixed_point_whose_g_is_not_proved_decreasing_does_not_say_it_is():
    """Volkov's loaded throughput over x: the sign reasoner does not prove g decreasing, so the derivation must not say
    the Min rule assumes it (the rule is checked at samples instead) nor that g is decreasing (the bundled reports said
    both)."""
    model = symgpu.load("volkov_2016")
    d = derive.fixed_point(model, "memory_throughput_loaded", "x")
    notes = {step.operation: step.justification for step in d.steps}
    assert "not proved symbolically" in notes["monotone"] and "assumes" not in notes["monotone"]
    assert "at every sample of the inputs (checked; g not proved decreasing)" in notes["min with bounds"]
    assert "g is decreasing" not in notes["min with bounds"]
