"""A closed-form root is a root only where the unknown has its declared sign: the evaluate path
refuses a negative value of a nonnegative symbol, so a solve that printed one (exit 0, "checked
numerically") answered a question the model cannot (an outside tester's finding).

Volkov's §6.4 latency ``a + b*theta/(c - theta)`` at Kepler (``a = 300`` cycles, ``c = 170 GB/s``)
is at least ``a`` for every admissible ``b >= 0``: no ``b`` gives 250 cycles (the formula's root is
``b = (250 - a)*(c - theta)/theta = -35`` at ``theta = 100 GB/s``), and 500 cycles needs
``b = 200*70/100 = 140``."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu

KEPLER_AT_100 = ("--preset", "kepler", "--set", "theta=100 GB/s")


def _latency_over_b(bs: np.ndarray) -> np.ndarray:
    model = symgpu.load("volkov_2016")
    return np.asarray(model.evaluate("memory_latency", "kepler", values={"theta": "100 GB/s", "b": bs}).to("cycle").magnitude)


def test_no_admissible_b_gives_a_latency_below_a(cli) -> None:
    bs = np.linspace(0.0, 10_000.0, 100_001)
    assert _latency_over_b(bs).min() >= 300.0  # brute force: every admissible b gives at least a = 300 cycles
    code, out, err = cli("solve", "volkov_2016", "memory_latency", "--for", "b", "--target", "250", *KEPLER_AT_100)
    assert code == 1 and out == ""
    # the one root, (250 - 300)*(170 - 100)/100 = -35, and the declared sign it breaks
    assert "the root b = -35 cycle breaks its declared sign (b is declared nonnegative" in err and "Traceback" not in err


def test_an_admissible_root_is_still_given(cli) -> None:
    code, out, err = cli("solve", "volkov_2016", "memory_latency", "--for", "b", "--target", "500", *KEPLER_AT_100)
    assert code == 0, err
    assert "value: 140 cycle" in out  # (500 - 300)*(170 - 100)/100
    assert _latency_over_b(np.array([140.0]))[0] == pytest.approx(500.0)
    # symbolically the root carries the sign it needs
    assert "a root only where the model gives a value there: -a*c/theta + a + 500*c/theta - 500 >= 0" in out


def test_the_api_answer_at_the_point_has_no_root_and_says_so() -> None:
    model = symgpu.load("volkov_2016")
    d = model.solve("memory_latency", "b", target=250, preset="kepler", values={"theta": "100 GB/s"})
    (record,) = d.extra.roots
    assert record.domain == sympy.GreaterThan(record.root, 0)  # b is declared nonnegative
    assert d.certificate is not None and d.certificate.checks == ("no root here, and a scan of b finds none",)


@pytest.mark.parametrize("target, expected", [("-5", None), ("5", 1.25)])
def test_a_positive_latency_has_no_negative_root(cli, target: str, expected: float | None) -> None:
    # needed_concurrency = inst_latency*inst_peak_thru, inst_latency declared positive: the root is target/4
    code, out, err = cli("solve", "volkov_2016", "needed_concurrency", "--for", "inst_latency", "--target", target,
                         "--set", "inst_peak_thru=4")
    if expected is None:
        # the root -5/4 and the declared sign it breaks
        assert code == 1 and "the root inst_latency = -1.25 cycle breaks its declared sign (inst_latency is declared positive" in err
    else:
        assert code == 0, err
        assert f"value: {expected:g} cycle" in out


def test_a_root_whose_sign_the_inputs_decide_says_where_it_is_one(cli) -> None:
    # Hong & Kim's fixed ratio (mem_lat + alu_lat*alpha)/(mem_lat + (alpha + 1)*instruction_time) = 2, solved by hand:
    # alpha*(alu_lat - 2*instruction_time) = mem_lat + 2*instruction_time; alpha is declared positive, so the root is
    # one only where it is positive
    code, out, err = cli("solve", "prior_hong_kim_fixed", "hk_fix_ratio", "--for", "alpha", "--target", "2", "--preset", "gt200")
    assert code == 0, err
    assert "a root only where the model gives a value there: (2*instruction_time + mem_lat)/(alu_lat - 2*instruction_time) > 0" in out


def test_a_substituted_symbol_keeps_its_declared_sign(cli) -> None:
    # --substitute M=N-20: M is declared positive, so only N > 20 is admissible; there L_K0 = L_M + M*N + M never
    # falls to 300 cycles (brute force below); the formula's roots 6.30 and 12.70 give M < 0
    model = symgpu.load("interval_analysis")
    n = np.linspace(20.0 + 1e-6, 800.0, 200_001)
    assert model.evaluate("L_K0", "gtx1080", values={"N": n, "M": n - 20}, checks=False).to("cycle").magnitude.min() > 300.0
    code, out, err = cli("solve", "interval_analysis", "L_K0", "--for", "N", "--target", "300", "--preset", "gtx1080",
                         "--substitute", "M=N-20")
    assert code == 1 and out == "", out
    assert "declared signs of N and of what it replaced" in err


def test_an_upper_bound_below_the_declared_sign_has_no_admissible_value(cli) -> None:
    # inst_latency*4 <= -5 needs inst_latency <= -1.25: no positive latency; decided symbolically (the target is negative)
    code, out, err = cli("solve", "volkov_2016", "needed_concurrency", "--for", "inst_latency", "--relation", "<=",
                         "--target", "-5", "--set", "inst_peak_thru=4")
    assert code != 0 and out == "" and "no admissible inst_latency" in err


def test_an_upper_bound_below_the_declared_sign_at_a_point_has_no_admissible_value(cli) -> None:
    # L_K0_time <= 100 ns at GTX 1080, M = 16: by brute force over admissible N the time never falls below 240 ns
    model = symgpu.load("interval_analysis")
    n = np.linspace(1e-3, 800.0, 200_001)
    assert model.evaluate("L_K0_time", "gtx1080", values={"N": n, "M": 16}, checks=False).to("ns").magnitude.min() > 100.0
    code, out, err = cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", "<=", "--target", "100 ns",
                         "--preset", "gtx1080", "--set", "M=16")
    assert code == 1 and out == "" and "no admissible N satisfies L_K0_time <= 100 ns" in err and "declared to take (positive)" in err


def test_an_extremum_keeps_a_substituted_symbols_declared_sign(cli) -> None:
    # P_K0's minimum over N with M = N - 20 (M positive: N > 20), by brute force on the evaluate path
    model = symgpu.load("interval_analysis")
    n = np.linspace(20.0 + 1e-6, 800.0, 400_001)
    values = model.evaluate("P_K0", "gtx1080", values={"N": n, "M": n - 20}, checks=False).magnitude
    code, out, err = cli("extremum", "interval_analysis", "P_K0", "--over", "N", "--min", "--preset", "gtx1080",
                         "--substitute", "M=N-20")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.strip().startswith("value:"))
    value, location = float(line.split()[1]), float(line.split("N = ")[1].split()[0])
    assert value == pytest.approx(values.min(), rel=1e-9)
    assert location == pytest.approx(n[values.argmin()], abs=2e-3)


def test_a_lower_bound_below_the_declared_sign_is_met_by_every_value_and_says_so(cli) -> None:
    # L_K0_time >= 100 ns at GTX 1080, M = 16: the time never falls below 240 ns (brute force in the test above),
    # so every admissible N meets it; the bound itself (-15.19) is below N's declared range, and the model's domain
    # L_F/t_issue <= N <= 2*L_M/t_issue (6 <= N <= 800 at GTX 1080) is the answer, stated with its ends
    model = symgpu.load("interval_analysis")
    preset, t = model.preset("gtx1080"), model.constants["t_issue"].to("cycle").magnitude
    low, high = preset["L_F"].to("cycle").magnitude / t, 2 * preset["L_M"].to("cycle").magnitude / t
    code, out, err = cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", ">=", "--target", "100 ns",
                         "--preset", "gtx1080", "--set", "M=16")
    assert code == 0, err
    assert f"result: ({low:g} <= N) & (N <= {high:g})" in out
    assert f"every admissible N ({low:g} <= N <= {high:g}, where L_K0_time has a value" in out and "excludes none" in out
    code, out, err = cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", ">=", "--target", "1 us",
                         "--preset", "gtx1080", "--set", "M=16")
    assert code == 0 and "every N meets it" not in out  # a bound of 82.125 inside the range: not every N


def test_a_substituted_symbols_sign_is_not_taken_for_the_unknowns(cli) -> None:
    # Q = 2*x + M with M = 20 - x: Q = x + 20 <= 15 needs x <= -5; x has no declared sign, and M = 20 - x > 0 there
    # (x = -10 gives M = 30 and Q = 10 <= 15, on the evaluate path below)
    model = symgpu.load("tests/fixtures/signless_sum.toml")
    assert model.evaluate("Q", None, values={"x": -10.0, "M": 30.0}).magnitude == pytest.approx(10.0)
    code, out, err = cli("solve", "tests/fixtures/signless_sum.toml", "Q", "--for", "x", "--relation", "<=", "--target", "15",
                         "--substitute", "M=20-x")
    assert code == 0, err
    assert "result: x <= -5" in out
