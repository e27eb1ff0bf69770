"""An equation asked at a point whose regime holds ``ceiling`` of a linear function of the unknown (MDM's
memory-divergent regime: ``(n_batches)*(S_Mem)``, ``n_batches = ceiling(M_Read*W/MSHRs)``) is solved step by
step: over the unknown's range there the staircase takes finitely many values, and on each the equation has a
closed form. Every root is listed and checked (an outside tester's finding: the whole solve was refused, "no
closed form for regime md", even where the root lies in the other regime). Where the staircase takes infinitely
many values that may each hold a root, the refusal says so.

Expected values by hand from the model file at ``table1`` (SMs 28, MSHRs 128, L_MinLLC 120, L_MinDRAM 220) with
LLCMissRate 0.5 and both service latencies 1: L_NoContention = 120 + 0.5*220 = 230 cycles, and with M_Write 0.5:
  nmd (M_Read*W <= 128): S_Total = 230 + 2*(1/2)*28*(M_Read + 0.5)*W = 230 + 28*(M_Read + 0.5)*W,
  md, k batches:         S_Total = k*(230 + 2*28*(128 + 0.5*W)) = k*(7398 + 28*W);
or by bisection on the evaluate path (Model.evaluate) on each piece where the quantity is continuous.
"""

from __future__ import annotations

import pytest
import sympy
from scipy.optimize import brentq

import symgpu

POINT = ("-p", "table1", "-s", "M_Write=0.5", "-s", "LLCMissRate=0.5", "-s", "L_NoCService=1", "-s", "L_DRAMService=1")


@pytest.fixture(scope="module")
def mdm() -> symgpu.Model:
    return symgpu.load("mdm_2019")


def test_a_root_in_the_regime_without_a_staircase_is_not_sunk_by_the_other(cli) -> None:  # type: ignore[no-untyped-def]
    # M_Read = 3: nmd for W <= 128/3, S_Total = 230 + 98*W = 3000 at W = 2770/98; md (2 batches for 128/3 < W <= 64)
    # starts at 2*(7398 + 28*128/3) = 17181.33 > 3000: no root there
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "W", "--target", "3000", *POINT, "-s", "M_Read=3")
    assert code == 0, err
    assert f"value: {2770 / 98:.10g} warp/SM" in out
    assert "1 root satisfies the relation and a scan of W finds no other" in out


def test_a_root_on_a_step_of_the_staircase(cli) -> None:  # type: ignore[no-untyped-def]
    # M_Read = 3, md with 2 batches: 2*(7398 + 28*W) = 14796 + 56*W = 17500 at W = 2704/56 (inside 128/3 < W <= 64)
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "W", "--target", "17500", *POINT, "-s", "M_Read=3")
    assert code == 0, err
    assert f"value: {2704 / 56:.10g} (md, ceiling(M_Read*W/MSHRs) = 2) [warp/SM]" in out
    assert "1 root satisfies the relation and a scan of W finds no other" in out


@pytest.mark.parametrize("target", [16000, 25000, 16588, 36760])
def test_each_step_root_is_the_evaluate_paths_root(cli, mdm, target: int) -> None:  # type: ignore[no-untyped-def]
    # M_Read = 8: nmd for W <= 16, then 2, 3, 4 batches on (16, 32], (32, 48], (48, 64]; on each the quantity is continuous
    # and increasing: a root is where it crosses the target, found by bisection on Model.evaluate (the closed right ends
    # checked on their own)
    values = {"M_Write": 0.5, "LLCMissRate": 0.5, "L_NoCService": 1, "L_DRAMService": 1, "M_Read": 8}

    def gap(w: float) -> float:
        return mdm.evaluate("S_Total_MDM", "table1", values={**values, "W": w}).magnitude - target

    expected = []
    for low, high in [(1e-9, 16.0), (16.0 + 1e-9, 32.0), (32.0 + 1e-9, 48.0), (48.0 + 1e-9, 64.0)]:
        if gap(high) == 0:
            expected.append(high)
        elif gap(low) < 0 < gap(high):
            expected.append(brentq(gap, low, high, xtol=1e-13))
    assert len(expected) == 1  # each target chosen inside one piece's range (16588 and 36760: a closed right end)
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "W", "--target", str(target), *POINT, "-s", "M_Read=8")
    assert code == 0, err
    assert f"value: {expected[0]:.10g} (md, ceiling(M_Read*W/MSHRs) = " in out


def test_a_target_between_two_steps_has_no_root(cli) -> None:  # type: ignore[no-untyped-def]
    # M_Read = 8: 2 batches reach 2*(7398 + 28*32) = 16588 at W = 32, 3 batches start above 3*(7398 + 28*32) = 24882
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "W", "--target", "20000", *POINT, "-s", "M_Read=8")
    assert code != 0
    assert "no root for W applies" in err


def test_a_step_free_of_the_unknown_is_a_range_of_roots(mdm) -> None:
    # n_batches = ceiling(5*W/128) = 3 exactly where 2 < 5*W/128 <= 3: 51.2 < W <= 76.8
    found = mdm.solve("n_batches", "W", target=3, preset="table1", values={"M_Read": 5})
    at = {mdm.symbol("n_batches"): 3, mdm.symbol("M_Read"): 5, mdm.symbol("MSHRs"): 128}
    holds = found.result.xreplace(at)
    w = mdm.symbol("W")
    inside = [sympy.Rational(512, 10) + sympy.Rational(1, 10**9), 60, sympy.Rational(768, 10)]
    outside = [sympy.Rational(512, 10), sympy.Rational(768, 10) + sympy.Rational(1, 10**9), 20, 100]
    assert all(holds.xreplace({w: v}) is sympy.true for v in inside)
    assert all(holds.xreplace({w: v}) is sympy.false for v in outside)


def test_a_flat_step_of_the_md_regime_is_a_range_of_roots(mdm) -> None:
    # M_Write = 0, M_Read = 3: md (128/3 < W <= 64, ceiling(3*W/128) = 2 there) gives 2*(230 + 2*28*128) = 14796 whatever W
    values = {"M_Write": 0, "LLCMissRate": 0.5, "L_NoCService": 1, "L_DRAMService": 1, "M_Read": 3}
    found = mdm.solve("S_Total_MDM", "W", target=14796, preset="table1", values=values)
    at = {mdm.symbol(k): sympy.nsimplify(v) for k, v in {**values, "MSHRs": 128, "W_max": 64, "SMs": 28, "L_MinLLC": 120,
                                                           "L_MinDRAM": 220, "S_Total_MDM": 14796}.items()}
    here = [f for f in found.extra.ranges or () if f.equal.xreplace(at) is sympy.true]  # the nmd root lies past 128/3: none
    assert [f.regime for f in here] == ["md, ceiling(M_Read*W/MSHRs) = 2"]
    holds = here[0].when.xreplace(at)
    w = mdm.symbol("W")
    assert all(holds.xreplace({w: v}) is sympy.true for v in [sympy.Rational(128, 3) + sympy.Rational(1, 10**9), 50, 64])
    assert all(holds.xreplace({w: v}) is sympy.false for v in [sympy.Rational(128, 3), 30, sympy.Rational(64) + sympy.Rational(1, 10**9)])


def test_steps_confined_by_the_equation_need_no_bound(cli) -> None:  # type: ignore[no-untyped-def]
    # W*ceiling(5*W/128) = 5*64 = 320: on step k, W = 320/k must meet k - 1 < 5*320/(128*k) <= k, i.e. k*(k - 1) < 12.5 <= k**2:
    # k = 4 only (12 < 12.5 <= 16), W = 80 (ceiling(5*80/128) = ceiling(3.125) = 4)
    code, out, err = cli("solve", "mdm_2019", "Eq(n_batches*W, 5*W_max)", "--for", "W", "-p", "table1", "-s", "M_Read=5")
    assert code == 0, err
    assert "value: 80 warp/SM" in out


def test_infinitely_many_steps_that_may_hold_a_root_are_refused_saying_so(cli) -> None:  # type: ignore[no-untyped-def]
    # ceiling(5*W/128) = 5*W/128 wherever 5*W/128 is a whole number: W = 25.6*k for every k >= 1, no bound on W
    code, out, err = cli("solve", "mdm_2019", "Eq(n_batches, M_Read*W/MSHRs)", "--for", "W", "-p", "table1", "-s", "M_Read=5")
    assert code == 2
    assert "takes infinitely many values" in err and "bound W (--assume 'W <= ...')" in err
    code, out, err = cli("solve", "mdm_2019", "Eq(n_batches, M_Read*W/MSHRs)", "--for", "W", "-p", "table1", "-s", "M_Read=5",
                         "--assume", "W <= 100")
    assert code == 0, err
    assert "value: 25.6 (ceiling(M_Read*W/MSHRs) = 1), 51.2 (ceiling(M_Read*W/MSHRs) = 2), 76.8 (ceiling(M_Read*W/MSHRs) = 3)" in out


def test_a_step_that_the_regime_never_reaches_gives_no_range(mdm) -> None:
    # S_MSHR = (ceiling(8*W/128) - 1)*S_Mem in md (W > 16), 0 in nmd (W <= 16): it is 0 for 0 < W <= 16 only. The md step
    # ceiling = 1 (where S_MSHR would be 0 too) needs 8*W/128 <= 1, i.e. W <= 16: outside md, no range of its own
    values = {"M_Write": 0.5, "LLCMissRate": 0.5, "L_NoCService": 1, "L_DRAMService": 1, "M_Read": 8}
    found = mdm.solve("S_MSHR", "W", target=0, preset="table1", values=values)
    assert [f.regime for f in found.extra.ranges or ()] == ["nmd"]


def test_a_regime_whose_equation_holds_for_no_step_at_the_point_gives_way(cli) -> None:  # type: ignore[no-untyped-def]
    # M_Write = 0 (put in first, as every 0 input is), M_Read = 3: md is 7398*ceiling(3*W/128), a whole multiple of 7398, never
    # 2862.46; nmd is 230 + 2*(1/2)*28*3*W = 230 + 84*W = 2862.46 at W = 2632.46/84 (inside W <= 128/3)
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "W", "--target", "2862.46", "-p", "table1", "-s", "M_Write=0",
                         "-s", "LLCMissRate=0.5", "-s", "L_NoCService=1", "-s", "L_DRAMService=1", "-s", "M_Read=3")
    assert code == 0, err
    assert f"value: {2632.46 / 84:.10g} warp/SM" in out
