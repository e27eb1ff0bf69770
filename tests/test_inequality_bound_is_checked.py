"""An inequality's bound (``solve ... --relation REL`` without ``--kind``) is shown as the relation it
bounds, and checked at the point: the relation on the quantity holds exactly on the bound's side of
a scan of the variable; a bound on the wrong side of the true one fails the check (exit 1)."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify, checked
from symgpu.derive.certify_path import Asked


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_the_bound_is_printed_as_its_relation_and_checked_at_the_point(cli, volkov) -> None:  # type: ignore[no-untyped-def]
    # by hand: Latency = alpha*alu_lat + mem_lat <= 300 cycles  <=>  mem_lat <= 300 - alpha*alu_lat
    alu_lat = volkov.preset("maxwell")["alu_lat"].to("cycle").magnitude
    bound = 300 - 2 * alu_lat
    code, out, _ = cli("solve", "volkov_2016", "Latency", "--for", "mem_lat", "--target", "300", "--relation", "<=", "-p", "maxwell",
              "-s", "alpha=2")
    assert code == 0
    assert "result: mem_lat <= -alpha*alu_lat + 300" in out
    assert f"value: mem_lat <= {bound:g} cycle" in out
    assert f"checked numerically at preset maxwell with alpha: Latency <= 300 holds at exactly the admissible scanned values with mem_lat <= {bound:g}" in out


@pytest.mark.parametrize("shift", [-10, 10])
def test_a_bound_moved_off_the_true_one_fails_the_check(volkov, shift: int) -> None:
    right = checked.solve(volkov, "Latency", "mem_lat", target=300, relation="<=", preset="maxwell", values={"alpha": 2})
    wrong = dataclasses.replace(right, result=right.result + shift, certificate=None)
    asked = Asked("solve", "Latency", "mem_lat", preset="maxwell", values=(("alpha", 2),), target=300, relation="<=")
    with pytest.raises(errors.CertificateError, match=r"at mem_lat = [0-9.]+ the relation Latency <= target (holds|fails), but the answer"):
        certify.certify(volkov, wrong, asked)


def test_a_bound_beyond_the_models_domain_answers_the_whole_domain_and_says_so(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("interval_analysis")
    preset = model.preset("gtx1080")
    lm, phi, t = preset["L_M"].to("cycle").magnitude, preset["phi"].to("Hz").magnitude, model.constants["t_issue"].to("cycle").magnitude
    lf = preset["L_F"].to("cycle").magnitude
    # by hand: L_K0_time = (L_M + t_issue*(M*N + M))/phi <= 1 ms at M = 16  <=>  N <= (1e-3*phi - L_M - 16*t_issue)/(16*t_issue)
    bound = (1e-3 * phi - lm - 16 * t) / (16 * t)
    assert 2 * lm / t < bound  # the domain L_F/t_issue <= N <= 2*L_M/t_issue ends at N = 800, far below the bound
    low, high = lf / t, 2 * lm / t
    code, out, err = cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", "<=", "--target", "1 ms",
                         "--preset", "gtx1080", "--set", "M=16")
    assert code == 0, err
    assert f"result: ({low:g} <= N) & (N <= {high:g})" in out  # the answer is the whole domain, not the bound beyond it
    assert f"every admissible N ({low:g} <= N <= {high:g}, where L_K0_time has a value: valid_when N >= L_F/t_issue, N <= 2*L_M/t_issue) " \
           f"satisfies it; the bound N <= {bound:.10g} excludes none" in out
    assert "L_K0_time <= target holds at exactly the admissible scanned values of N inside the answer's set" in out


@pytest.mark.parametrize("shift", [-1, 1])
def test_an_integer_variables_bound_off_by_one_fails_the_check(shift: int) -> None:
    # by hand: ceiling(threads_per_block/32) <= 8 warps  <=>  threads_per_block <= 256 (an integer)
    occupancy = symgpu.load("occupancy")
    right = checked.solve(occupancy, "warps_per_block", "threads_per_block", target=8, relation="<=", preset="cc_9_0")
    assert right.extra.relation.rel_op == "<=" and float(right.result.subs(occupancy.symbols["threads_per_warp"], 32)) == 256
    wrong = dataclasses.replace(right, result=right.result + shift, certificate=None)
    asked = Asked("solve", "warps_per_block", "threads_per_block", preset="cc_9_0", target=8, relation="<=")
    with pytest.raises(errors.CertificateError, match=rf"at threads_per_block = {256 + (1 if shift == 1 else 0)} the relation"):
        certify.certify(occupancy, wrong, asked)


def test_the_smallest_value_at_the_declared_signs_open_end_is_approached_and_passes_its_check(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand: Latency = 2*6 + mem_lat <= 300 holds for 0 < mem_lat <= 288 (mem_lat declared positive): no smallest value,
    # the infimum 0 is approached; the check refused it as outside the declared range (the differential tester's finding)
    code, out, err = cli("solve", "volkov_2016", "Latency", "--for", "mem_lat", "--target", "300", "--relation", "<=", "--kind", "min",
                         "-p", "maxwell", "-s", "alpha=2")
    assert code == 0, err
    assert "this value is approached, not attained" in out
    assert "mem_lat just above 0 (approached) is admissible" in out
    assert "value: 0 cycle" in out


def test_a_smallest_value_asked_without_a_point_is_claimed_only_where_it_is_attained(volkov) -> None:
    # by hand: Latency = alpha*alu_lat + mem_lat >= 300 with mem_lat > 0 (declared positive): the smallest mem_lat is
    # 300 - alpha*alu_lat where that is positive; where alpha*alu_lat >= 300 the end mem_lat > 0 binds, approached only
    # (before: Max(0, 300 - alpha*alu_lat) was claimed attained everywhere, and its certificate refused it)
    alpha, alu_lat = volkov.symbols["alpha"], volkov.symbols["alu_lat"]
    found = checked.solve(volkov, "Latency", "mem_lat", target=300, relation=">=", kind="min")
    assert sympy.simplify(found.result - (300 - alpha * alu_lat)) == 0
    assert found.extra.supremum is None
    (condition,) = found.extra.valid_when
    assert condition.subs({alpha: 2, alu_lat: 6}) is sympy.true and condition.subs({alpha: 50, alu_lat: 6}) is sympy.false
    assert "no smallest mem_lat" in found.extra.elsewhere
    # at a point, the numbers decide: attained at alpha = 2 (288), approached at alpha = 60 (0, the open end)
    at_two = checked.solve(volkov, "Latency", "mem_lat", target=300, relation=">=", kind="min", preset="maxwell", values={"alpha": 2})
    assert float(at_two.result.subs({alpha: 2, alu_lat: 6})) == 288 and at_two.extra.supremum is None
    at_sixty = checked.solve(volkov, "Latency", "mem_lat", target=300, relation=">=", kind="min", preset="maxwell", values={"alpha": 60})
    assert at_sixty.result.subs({alpha: 60, alu_lat: 6}) == 0 and at_sixty.extra.supremum is True
