"""Volkov's alpha-workload at alpha = 0 (the memory-only workload of §4.2), in the base model.

alpha is declared nonnegative: the ALU bound alu_thru/alpha -> +oo drops out of each Min, so the
value at 0 is the alpha -> 0+ limit, compiled (IEEE +inf) and exact (one-sided limit) alike.
Expected values are worked by hand from the Maxwell preset of Table 4.1 (mem_lat = 368 cycles,
mem_thru = 0.0814, issue_thru = 4 IPC/SM) and the Table 6.5 fit (a = 372, b = 22, c = 221 GB/s).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.evaluate import evaluator, one_sided


@pytest.fixture(scope="module")
def volkov():
    return symgpu.load("volkov_2016")


@pytest.mark.parametrize("n", [1, 16, 29, 30, 64])
def test_memory_only_throughput_is_min_of_latency_bound_and_memory_peak(volkov, n):
    # alpha = 0: Latency = mem_lat, the issue bound is issue_thru/1 = 4, the ALU bound is absent
    expected = min(Fraction(n, 368), Fraction("0.0814"), Fraction(4))
    compiled = volkov.evaluate("memory_throughput", preset="maxwell", n=n, alpha=0).magnitude
    exact = evaluator.exact(volkov, "memory_throughput", preset="maxwell", values={"n": n, "alpha": 0})
    assert compiled == pytest.approx(float(expected), rel=1e-15)
    assert sympy.Rational(expected.numerator, expected.denominator) == exact


def test_memory_only_needed_occupancy_is_latency_times_memory_peak(volkov):
    # §4.2: warps needed at alpha = 0 = mem_lat x mem_thru = 368 x 0.0814 = 29.9552
    assert evaluator.exact(volkov, "n_needed", preset="maxwell", values={"alpha": 0}) == sympy.Rational(299552, 10000)
    assert volkov.evaluate("n_needed", preset="maxwell", alpha=0).magnitude == pytest.approx(29.9552, rel=1e-15)


def test_memory_only_workload_does_no_arithmetic(volkov):
    assert volkov.evaluate("arithmetic_throughput", preset="maxwell", n=64, alpha=0).magnitude == 0
    assert evaluator.exact(volkov, "arithmetic_throughput", preset="maxwell", values={"n": 64, "alpha": 0}) == 0


def test_value_at_zero_is_the_limit_from_above(volkov):
    at_zero = volkov.evaluate("n_needed", preset="maxwell", alpha=0).magnitude
    near_zero = volkov.evaluate("n_needed", preset="maxwell", alpha=1e-12).magnitude
    assert near_zero == pytest.approx(at_zero, rel=1e-9)


def test_refined_model_at_alpha_zero_matches_bisection_of_the_fixed_point(volkov):
    # x (372 + 22 x/(C - x)) = n with C = 221 GB/s / (128 B x 16 SM x 1.266 GHz), by bisection
    n, a, b = 40.0, 372.0, 22.0
    c_ipc = 221e9 / (128 * 16 * 1.266e9)
    lo, hi = 0.0, c_ipc * (1 - 1e-15)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid * (a + b * mid / (c_ipc - mid)) < n else (lo, mid)
    expected = min((lo + hi) / 2, 0.0814, 4.0)
    assert volkov.evaluate("memory_throughput_refined", preset="maxwell", n=n, alpha=0).magnitude == pytest.approx(expected, rel=1e-12)
    exact = evaluator.exact(volkov, "memory_throughput_refined", preset="maxwell", values={"n": n, "alpha": 0})
    assert float(exact) == pytest.approx(expected, rel=1e-12)


def test_quantities_infinite_at_alpha_zero_stay_out_of_domain(volkov):
    # memory instructions in flight at the ALU peak, mem_lat*alu_thru/alpha, has no finite value at 0
    with pytest.raises(errors.DomainError, match="alpha > 0"):
        volkov.evaluate("mem_in_exec", preset="maxwell", alpha=0)


def test_one_sided_limit_goes_through_min_and_refuses_undefined_limits():
    alpha = sympy.Symbol("alpha", nonnegative=True, real=True)
    assert one_sided.limit_from_above(sympy.Min(3, 5 / alpha, 4 / (alpha + 1)), alpha) == 3
    assert one_sided.limit_from_above(32 * alpha * sympy.Min(3, 5 / alpha), alpha) == 0
    assert one_sided.substitute(sympy.Min(3, 5 / alpha), {alpha: sympy.Integer(0)}) == 3
    assert one_sided.limit_from_above(sympy.Min(3, 1 / alpha - 1 / alpha**2), alpha) == -sympy.oo
    with pytest.raises(errors.EvaluationError, match="no limit found"):
        one_sided.limit_from_above(sympy.Min(3, sympy.sin(1 / alpha)), alpha)
    with pytest.raises(errors.EvaluationError, match="no limit found"):  # 0 x oo: not decided argument by argument
        one_sided.limit_from_above(sympy.Min(2, alpha) / alpha, alpha)
    signless = sympy.Symbol("p", real=True)  # no declared side to take the limit from
    with pytest.raises(errors.EvaluationError, match="undefined"):
        one_sided.substitute(sympy.Min(3, 5 / signless), {signless: sympy.Integer(0)})
