"""Volkov §6.4-6.5: the memory-contention fixed point, closed form (Table 6.5 fit) and numeric (G80 two-term fit)."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import derive


@pytest.fixture(scope="module")
def volkov():
    return symgpu.load("volkov_2016")


def bisect_fixed_point(model, quantity, preset, n, alpha, upper):
    """x = g(x) by plain bisection on x - g(x), evaluating g through the model (checks off near the pole)."""
    lo, hi = 0.0, upper
    for _ in range(200):
        mid = (lo + hi) / 2
        g = model.evaluate(quantity, preset=preset, checks=False, n=n, alpha=alpha, x=mid).magnitude
        lo, hi = (mid, hi) if mid - g < 0 else (lo, mid)
    return (lo + hi) / 2


def pole(model, preset, c_name):
    values = model.preset(preset)
    theta = values[c_name]
    return float((theta / (values["bytes_per_inst"] * values["SMs"] * values["clock"])).to("winst/cycle/SM").magnitude)


def test_g80_two_term_fixed_point_is_numeric_and_agrees_with_bisection(volkov):
    request = next(r for r in volkov.definition.derivations if r.id == "g80_two_term_fixed_point")
    d = derive.run_request(volkov, request)
    assert d.method.startswith("numeric")
    upper = min(pole(volkov, "g80_two_term", "c"), pole(volkov, "g80_two_term", "c_2")) * (1 - 1e-12)
    expected = bisect_fixed_point(volkov, "memory_throughput_loaded_2term", "g80_two_term", 24, 1, upper)
    assert float(d.result) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n", [1, 8, 32, 64])
@pytest.mark.parametrize("alpha", [1, 8, 64, 512])
def test_kepler_closed_form_fixed_point_agrees_with_bisection(volkov, n, alpha):
    d = derive.fixed_point(volkov, "memory_throughput_loaded", "x", preset="kepler", values={"n": n, "alpha": alpha},
                           assume=["a + alpha*alu_lat > b"])
    assert d.method == "closed form"
    value = derive.evaluate_result(volkov, d, "kepler", n=n, alpha=alpha).magnitude
    expected = bisect_fixed_point(volkov, "memory_throughput_loaded", "kepler", n, alpha, pole(volkov, "kepler", "c") * (1 - 1e-12))
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("b", [300, 400, 1000])
def test_latency_root_holds_where_the_contention_slope_b_reaches_the_unloaded_latency(volkov, b):
    # kepler, alpha = 0: A = a = 300 cycles; b >= A was refused by a valid_when A > b (outside round 11a, F1), though
    # x*(A + b*x/(C - x)) = n has one root in (0, C) for every b >= 0: found here by plain bisection of that equation
    n, a = 32, 300.0
    assert volkov.preset("kepler")["a"].to("cycle").magnitude == a
    c_ipc = pole(volkov, "kepler", "c")
    lo, hi = 0.0, c_ipc
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid * (a + b * mid / (c_ipc - mid)) < n else (lo, mid)
    got = volkov.evaluate("x_latency_root", preset="kepler", n=n, alpha=0, b=b).to("winst/cycle/SM").magnitude
    assert got == pytest.approx(lo, rel=1e-12)
