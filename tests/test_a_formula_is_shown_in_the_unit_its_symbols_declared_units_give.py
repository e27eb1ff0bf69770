"""A symbolic result is shown in the unit its formula gives with each symbol read in its declared unit, where that is
not the unit of its value, and says so; the value keeps the quantity's unit (an audit's finding: ``limit interval_analysis
t_P --var P --to oo`` printed ``N_exec*d_iota/Theta_M [s]``, though with d_iota in B/thread and Theta_M in GB/s the
formula gives nanoseconds, a factor 1e9 for anyone putting the declared numbers in)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import symgpu


def test_the_off_chip_time_limit_is_written_in_nanoseconds(cli: Callable[..., tuple[int, str, str]]) -> None:
    model = symgpu.load("interval_analysis")
    d = model.limit("t_P", "P", "oo")
    assert {s.name for s in d.result.free_symbols} == {"N_exec", "d_iota", "Theta_M"}
    assert d.extra.written_in == "ns" and d.unit == "s"
    # by hand: the formula with the declared numbers put in (threads, B/thread, GB/s) against the engine's value in s
    theta = model.preset("gtx1080")["Theta_M"].to("GB/s").magnitude
    by_hand = 1000 * 8 / theta  # N_exec = 1000 thread, d_iota = 8 B/thread
    value = symgpu.derive.evaluate_result(model, d, "gtx1080", N_exec=1000, d_iota=8)
    assert value.units == symgpu.units.unit("s")
    assert value.magnitude == pytest.approx(by_hand * 1e-9, rel=1e-12)  # so by_hand is in ns, as shown
    code, out, _ = cli("limit", "interval_analysis", "t_P", "--var", "P", "--to", "oo")
    assert code == 0
    assert "  result: N_exec*d_iota/Theta_M  [ns]\n" in out
    assert "(the formula gives ns with each symbol in its declared unit, 1 ns = 1e-09 s; its value is given in s)" in out


def test_the_roofline_ridge_point_is_written_in_kflop_per_byte_and_valued_in_flop_per_byte(cli, tmp_path) -> None:
    code, out, _ = cli("boundary", "tests/fixtures/roofline.toml", "perf", "--for", "intensity", "--preset", "h100")
    assert code == 0
    assert "  result: peak/bandwidth  [kFLOP/B]\n" in out  # 67 TFLOP/s / 3350 GB/s: 67/3350 = 0.02 kFLOP/B
    assert "1 kFLOP/B = 1000 FLOP/B" in out
    assert "  value: 20 FLOP/B  (preset h100)" in out  # by hand: 67e12/3350e9 = 20


def test_a_formula_whose_scales_cancel_keeps_the_unit_of_its_value() -> None:
    # L_iota = P*d_iota*phi/Theta_M: GHz over GB/s cancels to B^-1 s^0 scale 1, cycles as declared
    d = symgpu.load("interval_analysis").solve("P_sat", for_="L_iota")
    assert d.extra.written_in is None and d.unit == "cycle"
