"""Questions at a point whose closed forms ran for minutes (round-8 findings 11, 12 and 4) answer with the
numbers put in first: a cubic with three real roots (Cardano's radicals through I) is solved as CRootOf
numbers, a radical equation in many symbols and the meeting points of two regimes with the point's numbers in,
and a plateau regime whose condition the point's numbers settle gives no edge to solve. Each answer agrees
with a bisection or a scan of the evaluate path (Model.evaluate), not with the derivation."""

from __future__ import annotations

import re

import sympy

from conftest import bisect_sign_change
import symgpu
from symgpu import memo
from symgpu.derive import point_roots, roots


def _value(printed: str) -> float:
    return float(re.search(r"^  value: ([0-9.e+-]+)", printed, re.M).group(1))


def test_a_cubic_of_numbers_with_three_real_roots_gives_them_as_exact_numbers_at_once_not_radicals_through_i():
    # prior_sim's latency-bound regime at maxwell, alpha = 8, target 15: 256 n**2 (n - 1) = 15 (368 n**2 + 54 n - 54);
    # its cubic 256 n**3 - 5776 n**2 - 810 n + 810 has three real roots (discriminant > 0), whose radicals hold I
    n = sympy.Symbol("n", positive=True)
    numbers = -256 * n ** 2 * (n - 1) / (368 * n ** 2 + 54 * n - 54) + 15
    memo.clear_all()
    found = roots.real_roots(numbers, n)
    assert found is not None and len(found) == 3 and not any(r.has(sympy.I) for r in found)
    assert memo.tallies()["derive.roots.solve"] == 0  # the exact real roots at once, no symbolic solve first
    cubic = [256, -5776, -810, 810]
    for root in found:
        x = float(root.evalf(30))
        assert abs(((cubic[0] * x + cubic[1]) * x + cubic[2]) * x + cubic[3]) < 1e-6 * 256 * max(1.0, abs(x)) ** 3


def test_prior_sim_throughput_solved_for_warps_at_maxwell_agrees_with_a_bisection_of_the_model(cli):
    # finding 11: ran past 200 s in a symbolic solve of the cubic above; the quantity rises through 15 between 20 and 24 warps
    code, out, err = cli("--no-cache", "solve", "prior_sim", "arithmetic_throughput", "--for", "n", "--target", "15",
                         "-p", "maxwell", "-s", "alpha=8")
    assert code == 0, err
    model = symgpu.load("prior_sim")

    def excess(n: float) -> float:
        return model.evaluate("arithmetic_throughput", preset="maxwell", alpha=8, n=n).magnitude - 15

    scan = [excess(k / 10) for k in range(1, 641)]  # n in (0, 64] by 0.1: one crossing of 15
    assert sum((a < 0) != (b < 0) for a, b in zip(scan, scan[1:])) == 1
    expected = bisect_sign_change(excess, 20, 24)  # 22.69577 (the round-8 tester's brentq: 22.69577)
    assert abs(_value(out) - expected) < 1e-8 * expected


def test_h100_dram_throughput_solved_for_alpha_agrees_with_a_bisection_of_the_model(cli):
    # finding 12: the radical equation in alpha, squared, took minutes in sympy.solve's simplification of its
    # coefficients (30-digit rationals beside log(2)); the throughput falls through 1.5 TB/s between alpha 1 and 200
    code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "alpha", "--target", "1.5 TB/s",
                         "-p", "h100_fit", "-s", "ilp=2", "-s", "n=64")
    assert code == 0, err
    model = symgpu.load("volkov_2016_h100")

    def excess(alpha: float) -> float:
        return model.evaluate("dram_throughput", preset="h100_fit", ilp=2, n=64, alpha=alpha).to("TB/s").magnitude - 1.5

    expected = bisect_sign_change(excess, 1, 200)  # 46.96472 (the round-8 tester's brentq)
    assert abs(_value(out) - expected) < 1e-8 * expected


def test_hong_kim_time_minimised_over_bandwidth_at_a_point_is_the_departure_bound_plateau(cli):
    # finding 4: a cusp pair ran for minutes, then plateau regimes with Eq/Ne conditions had no edge in closed form.
    # By hand: MWP = Min(Mem_L/Departure_delay = 1690/1280, N = 8, BW*Mem_L/(Freq*128*30)); for BW >= 3.9 GB/s the
    # departure bound binds and Exec_cycles_app = (10140*8/(169/128) + 22*(41/128))*4/3 = 81929.3958 cycles, the minimum
    code, out, err = cli("--no-cache", "extremum", "hong_kim_2009", "Exec_cycles_app", "--over", "Mem_Bandwidth", "--min",
                         "-p", "gtx280+tiled_matmul", "-s", "Active_blocks_per_SM=2")
    assert code == 0, err
    by_hand = (10140 * 8 / (1690 / 1280) + 22 * (1690 / 1280 - 1)) * 4 / 3
    model = symgpu.load("hong_kim_2009")
    scan = [model.evaluate("Exec_cycles_app", preset="gtx280+tiled_matmul", Active_blocks_per_SM=2,
                           Mem_Bandwidth=b * 5e8).to("cycle").magnitude for b in range(1, 201)]  # 0.5 .. 100 GB/s
    assert abs(min(scan) - by_hand) < 1e-6 * by_hand
    assert abs(_value(out) - by_hand) < 1e-6 * by_hand


def test_a_relation_of_a_number_and_a_min_is_settled_by_the_numbers_among_its_arguments():
    # Min(169/128, 13 x) <= 169/128 < 8 whatever x is: = 8 never holds, != 8 and <= 8 always; 1 against it is open
    x = sympy.Symbol("x", positive=True)
    low = sympy.Min(sympy.Rational(169, 128), 13 * x)
    high = sympy.Max(sympy.Rational(169, 128), 13 * x)
    assert point_roots._decided(sympy.Eq(8, low)) is False
    assert point_roots._decided(sympy.Ne(8, low)) is True
    assert point_roots._decided(sympy.StrictGreaterThan(low - 8, 0)) is False
    assert point_roots._decided(sympy.Or(sympy.GreaterThan(8, low), x > 1)) is True
    assert point_roots._decided(sympy.GreaterThan(1, low)) is None
    assert point_roots._decided(sympy.StrictLessThan(1 - high, 0)) is True  # Max(...) >= 169/128 > 1
    assert point_roots._decided(sympy.GreaterThan(2, high)) is None


def test_a_root_of_a_factor_the_numerator_shares_with_the_denominator_is_no_root():
    # (n**2 - 1)/(n - 1) = 2 has no value at n = 1 (0/0) and is n + 1 = 2 elsewhere: no root; (n**3 - 1)/(n - 1) = 3
    # is n**2 + n + 1 = 3 where n != 1: n = -2 only (n = 1 solves the cancelled form but the equation has no value there)
    n = sympy.Symbol("n", real=True)
    assert roots.real_roots((n**2 - 1) / (n - 1) - 2, n) == []
    assert roots.real_roots((n**3 - 1) / (n - 1) - 3, n) == [-2]


def test_a_regime_equal_to_the_target_throughout_is_a_range_beside_another_regimes_root(cli):
    # MDM Eq. (8): S_MSHR = (ceiling(M_Read*W/MSHRs) - 1)*S_Mem where M_Read*W > MSHRs, else 0. At table1 (MSHRs = 128)
    # with M_Read = 2, W = 64: M_Read*W = 128 <= 128, so S_MSHR = 0 for every LLCMissRate (0 <= LLCMissRate <= 1): the
    # relation S_MSHR = 0 holds on that whole range; the md regime's root does not apply here. It was refused by its
    # check ("holds on a range ... that neither the answer's roots nor its ranges give"): the nmd identity was dropped
    # because the md regime had a root.
    model = symgpu.load("mdm_2019")
    point = {"L_DRAMService": 0.3733333, "L_NoCService": 1.0, "M_Read": 2, "M_Write": 0, "W": 64}
    for rate in (0.0, 0.25, 1.0):
        assert model.evaluate("S_MSHR", preset="table1", values={**point, "LLCMissRate": rate}).magnitude == 0
    code, out, err = cli("solve", "mdm_2019", "S_MSHR", "--for", "LLCMissRate", "--target", "0", "-p", "table1",
                         *[f"-s{k}={v}" for k, v in point.items()])
    assert code == 0, err
    assert "holds for every LLCMissRate where (LLCMissRate <= 1) & (MSHRs >= M_Read*W) (regime nmd" in out
