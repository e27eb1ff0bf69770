"""An extremum whose regime has the variable under a root (of more than ``extrema.MAX_RADICAL_OPS`` operations) is
refused at once, saying what to ask instead: Volkov's refined arithmetic throughput over alpha (§6.5's closed-form
loaded latency, a square root in alpha) ran past 400 s at Kepler with n = 32 (a hang, to a user), tidying the
conditions of critical points and cusps that are nested roots."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import symgpu

ASK = ("extremum", "volkov_2016", "arithmetic_throughput_refined", "--over", "alpha", "--max")
KEPLER = ("--preset", "kepler", "--set", "n=32")


def test_an_extremum_with_the_variable_under_a_root_is_refused_at_once_saying_to_ask_over_a_grid(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    for point in (KEPLER, ()):
        code, out, err = cli(*ASK, *point)
        assert code == 2 and "value:" not in out
        assert "latency_bound" in err and "under a root" in err and "--grid" in err


def test_the_grid_it_points_to_answers_with_the_best_value_of_a_brute_force_scan(cli: Callable[..., tuple[int, str, str]]) -> None:
    # the quantity rises with alpha at Kepler, n = 32 (towards simd_width*n/alu_lat = 32*32/9 = 113.78 op/cycle/SM as
    # alpha -> oo): over the grid 1..400 its maximum is at the grid's end
    code, out, err = cli(*ASK, *KEPLER, "--grid", "1:400:1")
    assert code == 0, err
    volkov = symgpu.load("volkov_2016")
    scan = [volkov.evaluate("arithmetic_throughput_refined", "kepler", values={"n": 32.0, "alpha": float(a)}).magnitude
            for a in range(1, 401)]
    assert int(np.argmax(scan)) == 399 and max(scan) < 32 * 32 / 9
    assert f"value: {max(scan):.7f}" in out or f"value: {max(scan):.10g}" in out
