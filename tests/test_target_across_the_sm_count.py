"""A solve target per SM for a whole-chip quantity (thread/SM for P_sat in thread; B/cycle/SM for a throughput in
GB/s, across the clock too) is converted at the model's SM count, as ``eval --unit thread/SM`` converts the answer,
and the target's line says so; it is refused where the SM count is the unknown (an outside tester's finding, round
13a F6.2: '757.6 thread/SM ... cannot be converted').

Expected values are computed here from the model files' equations and presets, by hand or by bisection over
Model.evaluate."""

from __future__ import annotations

from fractions import Fraction

import pytest

import symgpu
from conftest import assert_one_line_refusal


def _value(out: str) -> float:
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    return float(line.split()[1])


def test_a_per_sm_thread_target_solves_as_the_chips_threads(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "interval_analysis", "P_sat", "--for", "L_iota", "--target", "757.6 thread/SM",
                         "--preset", "h100", "--set", "d_iota=8")
    assert code == 0, err
    # P_sat = Theta_M*L_iota/(d_iota*phi) (equation P_sat); preset h100: Theta_M = 2875 GB/s, phi = 1.980 GHz, SMs = 132 SM
    threads = Fraction("757.6") * 132  # 100003.2 thread
    l_iota = threads * 8 * Fraction("1.980e9") / Fraction("2875e9")
    assert float(l_iota) == pytest.approx(550.97415, abs=1e-5)  # the finding's 550.97 cycle
    assert _value(out) == pytest.approx(float(l_iota), rel=1e-9)
    assert "target: 757.6 thread/SM = 100003.2 thread at SM count SMs = 132 SM" in out


def test_a_bytes_per_cycle_per_sm_target_solves_as_the_chips_bandwidth(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "volkov_2016_h100", "dram_throughput", "--for", "n", "--target", "2 B/cycle/SM",
                         "--preset", "h100_fit", "--set", "alpha=0", "--set", "ilp=1")
    assert code == 0, err
    assert "2 B/cycle/SM = 522.72 GB/s at SM count SMs = 132 SM and clock 1.98 GHz" in out
    model = symgpu.load("volkov_2016_h100")
    chip = 2 * 132 * 1.98  # GB/s: 2 B/cycle/SM x 132 SM x 1.98 GHz (preset h100)

    def gbs(n: float) -> float:
        return float(model.evaluate("dram_throughput", "h100_fit", values={"n": n, "alpha": 0, "ilp": 1}).to("GB/s").magnitude)

    low, high = 0.01, 64.0  # dram_throughput rises with n (the root of Volkov's quadratic towards the capacity)
    assert gbs(low) < chip < gbs(high)
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if gbs(middle) < chip else (low, middle)
    assert _value(out) == pytest.approx(low, rel=1e-9)


def test_a_per_sm_target_is_refused_when_the_sm_count_is_the_unknown(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "volkov_2016_h100", "dram_throughput", "--for", "SMs", "--target", "2 B/cycle/SM",
                         "--preset", "h100_fit", "--set", "alpha=0", "--set", "ilp=1", "--set", "n=32")
    assert_one_line_refusal(code, out, err, "'2 B/cycle/SM'", "SM count SMs, which is the unknown", "give the target in GB/s")
