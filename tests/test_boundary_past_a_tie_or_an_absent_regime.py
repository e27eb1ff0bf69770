"""A boundary asked at a point is checked only between regimes that differ there (round-10 finding 5): Baghsorkhi's
``alu = Max(1/alu_thru, alu_lat/n)`` ties for every alpha at n = alu_lat*alu_thru = 5 on the G80, so its two arms' regime
pair meets "at alpha = 0" without any switch; Zhang & Owens' latency-bound arithmetic regimes need
``n < alu_lat*alu_thru`` and hold nowhere at n = 32. The check refused the whole answer ("the regime is the same just
below and just above"); each such boundary is now left aside, saying why. Expected values by hand (Fractions) and by
bisection of Model.evaluate."""

from __future__ import annotations

import re
from fractions import Fraction

from conftest import bisect_sign_change
import symgpu


def _values(out: str) -> list[float]:
    return [float(v) for v in re.findall(r"^  value: ([0-9.e+-]+)", out, re.M)]


def test_baghsorkhi_warp_latency_at_the_alu_tie_switches_where_exposed_latency_meets_compute(cli):
    code, out, err = cli("--no-cache", "boundary", "prior_baghsorkhi", "Warp_latency_simplified", "--for", "alpha",
                         "-p", "g80", "-s", "n=5")
    assert code == 0, err
    # G80: alu = Max(4, 20/5) = 4, x = 4*alpha + 4; Max(37, x, 444 - 4 - 3*x): 440 - 3x = x at x = 110 (> 37)
    expected = (Fraction(440, 4) - 4) / 4
    assert _values(out) == [float(expected)]
    # the tie of the two alu regimes at alpha = 0 is no switch: the regime scan that checks the answer finds only the one
    assert f"it switches at alpha = {float(expected):g}, the regime differing on the two sides" in out and "alpha = 0" not in out


def test_zhang_owens_overlap_time_switches_only_where_its_binding_regimes_meet(cli):
    code, out, err = cli("--no-cache", "boundary", "prior_zhang_owens", "Time_overlap", "--for", "alpha", "-p", "g80", "-s", "n=32")
    assert code == 0, err
    model = symgpu.load("prior_zhang_owens")

    def excess(alpha: float) -> float:  # alpha*arithmetic_time - memory_time, in memory_time's unit
        memory = model.evaluate("memory_time", preset="g80", n=32)
        return alpha * model.evaluate("arithmetic_time", preset="g80", n=32).to(memory.units).magnitude - memory.magnitude

    expected = bisect_sign_change(excess, 0.001, 1000)  # (1/0.0268)/4 = 9.3284 by hand
    assert abs(expected - 1 / 0.0268 / 4) < 1e-9
    values = _values(out)
    assert values and all(abs(v - expected) < 1e-8 * expected for v in values)


def test_zhang_owens_overlap_time_boundaries_without_a_point_pass_their_check():
    derivation = symgpu.load("prior_zhang_owens").boundary("Time_overlap", for_="alpha")
    assert isinstance(derivation.result, dict) and len(derivation.result) == 8
