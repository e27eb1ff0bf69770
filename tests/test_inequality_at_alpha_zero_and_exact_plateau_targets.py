"""Inequalities at a point (outside tester round 12a, S1, R2, R1): 0 of a nonnegative variable is in the answer exactly where
the relation holds there as evaluate decides it (Volkov's ``alu_thru/alpha`` is +oo inside the Min at alpha = 0, the
memory-only workload); a target written exactly (``1/33``) that equals a plateau ties it exactly and is answered; an input
at 0 whose term is ``zoo`` inside a Min is read as evaluate reads it.

Expected values by hand in Fraction arithmetic from the preset's inputs (Volkov 2016 §4.1: memory throughput
``Min(mem_thru, n/(mem_lat + alpha*alu_lat), alu_thru/alpha, issue_thru/(alpha + 1))``), or by bisection on the evaluate
path, never taken from the answer.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from typing import Any

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify, checked
from symgpu.derive.certify_path import Asked

# preset maxwell of volkov_2016 (Table 4.1 of the dissertation): mem_lat 368 cycle, alu_lat 6 cycle, mem_thru 0.0814,
# alu_thru = issue_thru = 4 winst/cycle/SM
MEM_LAT, ALU_LAT, MEM_THRU, ISSUE = Fraction(368), Fraction(6), Fraction("0.0814"), Fraction(4)


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    model = symgpu.load("volkov_2016")
    preset = model.preset("maxwell")
    assert [Fraction(repr(float(preset[n].magnitude))) for n in ("mem_lat", "alu_lat", "mem_thru", "alu_thru", "issue_thru")] == \
        [MEM_LAT, ALU_LAT, MEM_THRU, ISSUE, ISSUE]
    return model


def _holds_at(found: Any, model: symgpu.Model, value: Fraction) -> bool:
    """Does the answer (a bound ``alpha REL b``, or a set where no one bound states it) hold at ``alpha = value``?"""
    answer = found.extra.holds_for if found.extra.holds_for is not None else found.extra.relation
    return bool(answer.subs(model.symbols["alpha"], sympy.Rational(value)))


def test_thirty_two_warps_reach_the_memory_peak_at_alpha_zero(volkov: symgpu.Model) -> None:
    # S1: the answer was (alpha <= 1704/407) & (0 < alpha); at alpha = 0 evaluate gives mem_thru, the target itself
    assert float(volkov.evaluate("memory_throughput", "maxwell", values={"alpha": 0, "n": 32}).magnitude) == float(MEM_THRU)
    # every argument >= mem_thru: 32/(368 + 6 alpha) >= mem_thru is the one that binds (4/(alpha + 1) >= mem_thru up to 48)
    bound = (32 / MEM_THRU - MEM_LAT) / ALU_LAT
    assert bound < ISSUE / MEM_THRU - 1
    found = volkov.solve("memory_throughput", "alpha", target="0.0814 winst/cycle/SM", relation=">=", preset="maxwell", values={"n": 32})
    assert (found.result, found.extra.relation) == (sympy.Rational(bound), sympy.LessThan(volkov.symbols["alpha"], sympy.Rational(bound)))
    assert _holds_at(found, volkov, Fraction(0))


def test_needed_occupancy_below_the_memory_only_need_holds_from_alpha_zero(volkov: symgpu.Model) -> None:
    # S1: n_needed = (368 + 6 alpha) * Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)) <= T where an argument times the
    # latency is (issue_thru/(alpha + 1) < alu_thru/alpha always): [0, 4667/407] U [3591111/28889, oo), 0 included
    target = Fraction("35.5556")
    low_end = (target / MEM_THRU - MEM_LAT) / ALU_LAT
    high_start = (ISSUE * MEM_LAT - target) / (target - ISSUE * ALU_LAT)  # 4 (368 + 6a) <= T (a + 1)
    found = volkov.solve("n_needed", "alpha", target="35.5556 warp/SM", relation="<=", preset="maxwell")
    for value, holds in ((Fraction(0), True), (low_end, True), (low_end + Fraction(1, 10**6), False), (high_start - Fraction(1, 10**6), False),
                         (high_start, True), (10 * high_start, True)):
        assert _holds_at(found, volkov, value) is holds, value
    assert float(volkov.evaluate("n_needed", "maxwell", values={"alpha": 0}).magnitude) <= float(target)


def test_smallest_alpha_of_the_needed_occupancy_is_zero_attained(volkov: symgpu.Model) -> None:
    # S1: --kind min said "alpha just above 0 (approached)"; alpha = 0 is admissible and n_needed(0) = 368 x 0.0814 <= T
    assert MEM_LAT * MEM_THRU <= Fraction("35.5556")
    found = volkov.solve("n_needed", "alpha", target="35.5556 warp/SM", relation="<=", kind="min", preset="maxwell")
    assert found.result == 0
    assert not found.extra.supremum


def test_a_set_that_leaves_out_an_admissible_alpha_zero_where_it_holds_fails_the_check(volkov: symgpu.Model) -> None:
    # the check scanned alpha = 0 but let a set's end decide nothing: the old answer, (0, 4667/407] U [3591111/28889, oo), passed it
    right = volkov.solve("n_needed", "alpha", target="35.5556 warp/SM", relation="<=", preset="maxwell")
    alpha = volkov.symbols["alpha"]
    target = Fraction("35.5556")
    low_end = sympy.Rational((target / MEM_THRU - MEM_LAT) / ALU_LAT)
    high_start = sympy.Rational((ISSUE * MEM_LAT - target) / (target - ISSUE * ALU_LAT))
    wrong_set = (alpha >= high_start) | ((alpha <= low_end) & (alpha > 0))
    wrong = dataclasses.replace(right, result=wrong_set, extra=right.extra.with_(holds_for=wrong_set), certificate=None)
    asked = Asked("solve", "n_needed", "alpha", preset="maxwell", target="35.5556 warp/SM", relation="<=")
    with pytest.raises(errors.CertificateError, match=r"at alpha = 0 the relation n_needed <= target holds, but the answer's set"):
        certify.certify(volkov, wrong, asked)


def test_an_infimum_zero_said_approached_where_it_is_attained_fails_the_check(volkov: symgpu.Model) -> None:
    right = volkov.solve("n_needed", "alpha", target="35.5556 warp/SM", relation="<=", kind="min", preset="maxwell")
    alpha = volkov.symbols["alpha"]
    wrong = dataclasses.replace(right, extra=right.extra.with_(supremum=True, relation=sympy.StrictGreaterThan(alpha, 0)), certificate=None)
    asked = Asked("solve", "n_needed", "alpha", preset="maxwell", target="35.5556 warp/SM", relation="<=", kind="min")
    with pytest.raises(errors.CertificateError, match="attained at 0, not only approached"):
        certify.certify(volkov, wrong, asked)


@pytest.mark.parametrize("model_id, quantity, preset, values, target, expected", [
    # Fermi at alpha = 32 is issue-bound: peak issue_thru/(alpha + 1) = 1/33; n/(513 + 18*32) >= 1/33 <=> n >= 1089/33
    ("volkov_2016", "memory_throughput", "fermi", {"alpha": 32}, "1/33 winst/cycle/SM", Fraction(513 + 18 * 32, 33)),
    # Baghsorkhi on G80 at alpha = 0: 1/Max(448 - 4n, 37) >= 1/37 <=> 448 - 4n <= 37 (Volkov §7.2: "over 100 warps")
    ("prior_baghsorkhi", "instruction_throughput", "g80", {"alpha": 0}, "1/37 winst/cycle/SM", Fraction(448 - 37, 4)),
])
def test_a_target_equal_to_the_plateau_written_exactly_is_answered(model_id: str, quantity: str, preset: str, values: dict[str, Any],
                                                                    target: str, expected: Fraction) -> None:
    # R2: refused as "two numbers equal to within 1e-12": the target 1/33 had become the double 0.030303030303030304
    model = symgpu.load(model_id)
    found = model.solve(quantity, "n", target=target, relation=">=", preset=preset, values=values)
    assert found.result == sympy.Rational(expected)
    peak = float(model.evaluate(quantity, preset, values={**values, "n": 10 * float(expected)}).magnitude)
    assert peak == pytest.approx(float(Fraction(target.split()[0])), rel=1e-15)  # the target is the plateau


def test_cli_exact_target_is_read_as_written(cli: Any) -> None:
    # R2: --for cyc_mem printed cyc_mem <= 100000000000000000/2702702702702703 for 37 (1/Max(cyc_mem, ...) >= 1/37 at n = 110)
    code, out, err = cli("solve", "prior_baghsorkhi", "instruction_throughput", "--preset", "g80", "--set", "alpha=0", "--set", "n=110",
                         "--for", "cyc_mem", "--target", "1/37 winst/cycle/SM", "--relation", ">=")
    assert code == 0, out + err
    assert "result: cyc_mem <= 37  [cycle]" in out


def test_the_notes_limit_of_parallelism_is_answered_for_an_exact_time_target(cli: Any) -> None:
    # R2: t_P = Piecewise((L N/(P phi), L/phi > P d/Theta_M), (N d/Theta_M, True)) <= N d/Theta_M (the memory-bound time itself)
    # holds from P = L Theta_M/(d phi) (the notes' "Limit P ... = 4320"): L = 408 cycle, phi = 1.04 GHz and Theta_M = 88.1 GB/s
    # (preset m2200), d = 8 B/thread
    preset = symgpu.load("interval_analysis").preset("m2200")
    assert (Fraction(repr(float(preset["phi"].magnitude))), Fraction(repr(float(preset["Theta_M"].magnitude)))) == (Fraction("1.04"), Fraction("88.1"))
    expected = Fraction(408) * Fraction("88.1") / (8 * Fraction("1.04"))
    code, out, err = cli("solve", "interval_analysis", "t_P", "--preset", "m2200", "--set", "L_iota=408", "--set", "d_iota=8",
                         "--set", "N_exec=1000000", "--for", "P", "--target", "1000000*8 B/(88.1 GB/s)", "--relation", "<=", "--json")
    assert code == 0, out + err
    answer = json.loads(out)
    assert (answer["result"], answer["extra"]["relation"]) == (f"{expected.numerator}/{expected.denominator}",
                                                               f"P >= {expected.numerator}/{expected.denominator}")


def test_volkov_refined_occupancy_for_ninety_percent_at_alpha_zero(volkov: symgpu.Model) -> None:
    # R1: refused with "SymPy could not decide a step (... 'zoo' ...)": alu_thru/alpha is zoo at alpha = 0 inside the Min.
    # The latency-bound root x of x (a + b x/(C - x)) = n on Kepler (§6.5) solved for n at x = 0.9 x 0.1338: n = x (a + b x/(C - x))
    preset = volkov.preset("kepler")
    exact = {name: Fraction(repr(float(preset[name].magnitude))) for name in ("a", "b", "c", "clock", "SMs", "bytes_per_inst")}
    big_c = exact["c"] / (exact["SMs"] * exact["bytes_per_inst"] * exact["clock"])  # GB/s over (SM B/winst GHz): winst/cycle/SM
    x = Fraction("0.12042")
    expected = x * (exact["a"] + exact["b"] * x / (big_c - x))
    for values, substitute in (({"alpha": 0}, None), ({}, {"alpha": 0})):
        found = volkov.solve("memory_throughput_refined", "n", target="0.12042 winst/cycle/SM", relation=">=", preset="kepler",
                             values=values, substitute=substitute)
        assert found.result == sympy.Rational(expected)


def test_a_sympy_failure_with_every_input_given_does_not_ask_for_a_value() -> None:
    # R1: "Put a deciding value in first (--substitute NAME=VALUE)" where every input already had one
    model = symgpu.load("volkov_2016")

    def fails() -> Any:
        raise ValueError("The argument 'zoo' is not comparable.")

    with pytest.raises(errors.DerivationError) as given:
        checked._guarded(model, "solve of memory_throughput_refined for n", fails, True)
    assert "deciding value" not in str(given.value) and "every input but the variable has a value here" in str(given.value)
    with pytest.raises(errors.DerivationError, match="Put a deciding value in first"):
        checked._guarded(model, "solve of memory_throughput_refined for n", fails)
