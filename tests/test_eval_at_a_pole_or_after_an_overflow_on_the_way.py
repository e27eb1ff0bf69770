"""A finite value whose IEEE arithmetic divided by zero or overflowed on the way is not taken on trust
(outside tester, finding F13: Huang's printed bandwidth delay at its pole rho = 1 printed as 150 cycles;
finding F18: Volkov's memory throughput printed as 0 where an overflow inside a denominator made n/inf)."""

from __future__ import annotations

import textwrap

import pytest

import symgpu
from symgpu import errors


def test_a_value_at_a_pole_of_the_formula_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand, prior_huang at the synthetic preset (cores 16, mem_lat 300 cycles, clock*128 B/pin_BW = 128/192):
    # rho = (28.125*16/300)*(128/192) = 1.5*2/3 = 1 exactly, so lambda*s**2/(2*(1 - rho)) divides by 0: no value
    for quantity in ("Bandwidth_delay_printed", "CPI_final_printed"):
        code, out, err = cli("eval", "prior_huang", quantity, "-p", "synthetic", "-s", "n=28.125", "-s", "alpha=0")
        assert code != 0 and out == "", (quantity, out)
        assert f"{quantity} has no value at these inputs: its formula divides by zero there" in err
        assert err.count("\n") == 1


def test_beside_the_pole_the_formula_still_has_its_value() -> None:
    # n = 28: rho = (28*16/300)*(2/3) = 448/450; lambda = 28*16/300, s = 2/3 cycle per request (reqs_per_inst 1 at
    # alpha = 0: core_reqs = n): lambda*s**2/(2*(1 - rho)) = (448/300)*(4/9)/(2*2/450) = 74.666..., below s*n*cores/2 = 149.33
    model = symgpu.load("prior_huang")
    lam, s = 28 * 16 / 300, 128 / 192
    by_hand = min(lam * s**2 / (2 * (1 - lam * s)), s * 28 * 16 / 2)
    got = float(model.evaluate("Bandwidth_delay_printed", "synthetic", n=28, alpha=0).magnitude)
    assert got == pytest.approx(by_hand, rel=1e-9)


def test_an_overflow_inside_a_denominator_gives_the_exact_value(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand, volkov_2016 at kepler (mem_lat 301, alu_lat 9, mem_thru 0.1338, alu_thru = issue_thru = 4), n = alpha = 1e308:
    # min(n/(301 + 9*alpha), 0.1338, 4/alpha, 4/(alpha + 1)) = min(1/9, 0.1338, 4e-308, 4e-308) = 4e-308
    # (Latency = 301 + 9e308 overflows IEEE doubles, and n/inf = 0 was printed)
    model = symgpu.load("volkov_2016")
    got = float(model.evaluate("memory_throughput", "kepler", n=1e308, alpha=1e308).magnitude)
    assert got == pytest.approx(4e-308, rel=1e-12)
    code, out, err = cli("eval", "volkov_2016", "memory_throughput", "-p", "kepler", "-s", "n=1e308", "-s", "alpha=1e308")
    assert code == 0, err
    assert out.strip().startswith("memory_throughput = 4e-308 ")


def test_a_division_by_a_nonnegative_input_at_zero_keeps_its_limit_from_above() -> None:
    # volkov_2016 at kepler, alpha = 0 (memory-only): alu_thru/alpha is +inf and the Min is min(n/301, 0.1338, 4/1);
    # n = 10: 10/301 = 0.0332
    model = symgpu.load("volkov_2016")
    got = float(model.evaluate("memory_throughput", "kepler", n=10, alpha=0).magnitude)
    assert got == pytest.approx(10 / 301, rel=1e-12)


def test_the_refusal_is_an_evaluation_error_in_the_api() -> None:
    model = symgpu.load("prior_huang")
    with pytest.raises(errors.EvaluationError, match="divides by zero"):
        model.evaluate("Bandwidth_delay_printed", "synthetic", n=28.125, alpha=0)


def test_a_division_by_a_zero_input_minus_another_zero_is_a_pole_not_a_limit_from_above(write_model) -> None:  # type: ignore[no-untyped-def]
    # P = Min(P_peak, P_peak/(g - a)) with a nonnegative and g of no declared sign, both 0: IEEE gives
    # Min(P_peak, inf) = P_peak, but P_peak/(g - a) is a pole there (at a = 1e-9 it is -1e23, so the value
    # from above tends to -oo, not P_peak): refused (a review's finding: the division flag was taken as
    # "by a nonnegative input at 0" because a tiny a flags nothing, without comparing the values)
    extra = """
    [symbols.a]
    description = "a nonnegative input"
    unit = "1"
    assumptions = ["nonnegative"]

    [symbols.g]
    description = "an input of no declared sign"
    unit = "1"
    """
    text = write_model(rhs="Min(P_peak, P_peak/(g - a))").read_text().replace("\n[[equations]]\n", textwrap.dedent(extra) + "\n[[equations]]\n", 1)
    model = symgpu.load(write_model(text))
    with pytest.raises(errors.EvaluationError, match="no value at these inputs"):
        model.evaluate("P", values={"P_peak": 1e14, "a": 0, "g": 0})
    assert float(model.evaluate("P", values={"P_peak": 1e14, "a": 1e-9, "g": 0}).magnitude) == pytest.approx(-1e23)
