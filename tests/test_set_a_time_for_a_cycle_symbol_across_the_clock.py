"""``--set`` of a time for a symbol declared in cycles (``mem_lat=300 ns``) is converted across the model's clock, as
``--target`` is: ``--clock`` where given, else the preset's, said on stderr; where no clock is known it is refused in
one line saying what to give (an outside tester's finding, round 13a F6.1: it was refused even with a clock)."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest

from tests.conftest import REPO, assert_one_line_refusal

import symgpu

EVAL = ("eval", "volkov_2016_h100", "Latency", "--set", "mem_lat=300 ns", "--set", "alpha=0")


def _latency_at(mem_lat: Fraction) -> float:
    model = symgpu.load("volkov_2016_h100")
    return float(model.evaluate("Latency", "h100_fit", values={"alpha": 0.0, "mem_lat": float(mem_lat)}).magnitude)


def test_a_time_given_for_mem_lat_is_converted_at_the_preset_clock(cli: Callable[..., tuple[int, str, str]]) -> None:
    cycles = Fraction(300, 10**9) * Fraction(198, 100) * 10**9  # 300 ns x 1.98 GHz (h100_fit's clock) = 594 cycles
    assert cycles == 594
    code, out, err = cli(*EVAL, "--preset", "h100_fit")
    assert code == 0, err
    assert f"Latency = {_latency_at(cycles):g} cycle" in out
    assert "mem_lat = 300 ns = 594 cycle at clock 1.98 GHz (clock of preset h100_fit)" in err


def test_the_converted_value_is_the_exact_product_rounded_once(cli: Callable[..., tuple[int, str, str]]) -> None:
    # 300 ns x 1.98 GHz through pint's factors in doubles is 594.0000000000001, not the 594 cycles of the exact product
    code, out, err = cli(*EVAL, "--preset", "h100_fit", "--json")
    assert code == 0, err
    assert json.loads(out)["inputs"]["mem_lat"]["value"] == 594.0
    assert json.loads(out)["value"] == _latency_at(Fraction(594))


def test_clock_given_on_the_command_line_converts_the_set_value_and_needs_no_unit(cli: Callable[..., tuple[int, str, str]]) -> None:
    cycles = Fraction(300, 10**9) * Fraction(252, 100) * 10**9  # 300 ns x 2.52 GHz = 756 cycles
    assert cycles == 756
    code, out, err = cli(*EVAL, "--preset", "h100_fit", "--clock", "2.52 GHz")
    assert code == 0, err
    assert f"Latency = {_latency_at(cycles):g} cycle" in out
    assert "mem_lat = 300 ns = 756 cycle at clock 2.52 GHz (--clock)" in err


def test_a_solve_reads_the_converted_set_value(cli: Callable[..., tuple[int, str, str]]) -> None:
    # Latency = mem_lat + alu_lat*alpha-ish: the alpha where Latency = 1000 cycles, with mem_lat = 594 cycles, checked by evaluate
    code, out, err = cli("solve", "volkov_2016_h100", "Latency", "--for", "alpha", "--target", "1000", "--preset", "h100_fit",
                         "--set", "mem_lat=300 ns")
    assert code == 0, err
    alpha = float(out.split("value:")[1].split()[0])
    model = symgpu.load("volkov_2016_h100")
    assert abs(float(model.evaluate("Latency", "h100_fit", values={"alpha": alpha, "mem_lat": 594.0}).magnitude) - 1000) < 1e-6


def test_with_no_clock_known_the_set_value_is_refused_saying_what_to_give(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli(*EVAL)
    assert_one_line_refusal(code, out, err, "--set mem_lat=300 ns", "needs a clock", "--clock", "clock=1.3 GHz")


def test_where_the_clock_is_the_variable_solved_for_the_set_time_is_refused(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("solve", "volkov_2016_h100", "Latency", "--for", "clock", "--target", "1000", "--preset", "h100_fit",
                         "--set", "mem_lat=300 ns", "--set", "alpha=0")
    assert_one_line_refusal(code, out, err, "mem_lat", "is the variable here")


def test_where_the_clock_is_swept_the_set_time_is_refused_not_moved_at_the_presets_clock(cli: Callable[..., tuple[int, str, str]], tmp_path) -> None:
    # before: `sweep ... --grid clock=1GHz:2GHz:0.5GHz --set "mem_lat=250 ns"` wrote 316.5 cycles (250 ns at the preset's
    # 1.266 GHz) at every clock of the grid: one memory_throughput for 1, 1.5 and 2 GHz, where 250 ns is 250, 375 and
    # 500 cycles; and `compare ... --over clock=...` the same
    out_file = tmp_path / "swept.csv"
    code, out, err = cli("sweep", "volkov_2016", "memory_throughput", "--preset", "maxwell", "--grid", "clock=1GHz:2GHz:0.5GHz",
                         "--set", "mem_lat=250 ns", "--set", "alpha=1", "--set", "n=20", "-o", str(out_file))
    assert_one_line_refusal(code, out, err, "--set mem_lat=250 ns", "clock clock is swept here", "give mem_lat in cycle")
    assert not out_file.exists()
    code, out, err = cli("compare", "volkov_2016", "volkov_2016_ilp", "memory_throughput", "--preset", "maxwell",
                         "--over", "clock=1:2:0.5", "--set", "mem_lat=250 ns", "--set", "n=20", "--set", "alpha=1")
    assert_one_line_refusal(code, out, err, "--set mem_lat=250 ns", "clock clock is swept here")


def test_the_api_moves_a_sweeps_time_value_at_the_presets_clock_and_refuses_it_where_the_clock_is_swept() -> None:
    from symgpu.sweep import run

    model = symgpu.load("volkov_2016")
    cycles = Fraction(250) * Fraction(str(model.preset("maxwell")["clock"].to("GHz").magnitude))  # 250 ns at 1.266 GHz
    swept = run.sweep(model, "memory_throughput", preset="maxwell", grid=["n=20:21:1"], values={"alpha": 1, "mem_lat": "250 ns"})
    by_cycles = run.sweep(model, "memory_throughput", preset="maxwell", grid=["n=20:21:1"], values={"alpha": 1, "mem_lat": float(cycles)})
    assert list(swept.columns["memory_throughput"]) == list(by_cycles.columns["memory_throughput"])
    alu_lat = Fraction(str(model.preset("maxwell")["alu_lat"].magnitude))
    assert swept.columns["memory_throughput"][0] == float(Fraction(20) / (cycles + alu_lat))  # n/Latency, latency-bound here
    with pytest.raises(symgpu.UsageError, match=r"values mem_lat='250 ns'.*clock clock varies here \(--grid 'clock=1:2:0.5'\).*give mem_lat in cycle"):
        run.sweep(model, "memory_throughput", preset="maxwell", grid=["clock=1:2:0.5"], values={"n": 20, "alpha": 1, "mem_lat": "250 ns"})
    with pytest.raises(symgpu.UsageError, match=r"clock clock varies here \(over='clock'\)"):
        model.extremum("memory_throughput", over="clock", preset="maxwell", values={"n": 20, "alpha": 1, "mem_lat": "250 ns"})


def test_measured_moves_a_set_time_across_the_presets_clock_as_every_command_does(cli: Callable[..., tuple[int, str, str]]) -> None:
    # before: `measured ... --set "mem_lat=300 ns"` was refused ("[time], but mem_lat is [clock]"); 300 ns at
    # h100_fit_alpha0's 1.98 GHz is 594 cycles exactly, so the table is the one given 594 cycles
    asked = ("measured", "volkov_2016_ilp", "dram_throughput", "--data", str(REPO / "data" / "h100" / "stream_read_vs_warps_model.csv"),
             "--preset", "h100_fit_alpha0", "--set")
    code, in_time, err = cli(*asked, "mem_lat=300 ns")
    assert code == 0, err
    assert "mem_lat = 300 ns = 594 cycle at clock 1.98 GHz (clock of preset h100_fit_alpha0)" in err
    code, in_cycles, err = cli(*asked, "mem_lat=594")
    assert code == 0, err
    assert in_time == in_cycles and "all " in in_time
