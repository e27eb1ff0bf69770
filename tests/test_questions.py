"""The questions corpus: questions a researcher asks, each with its exact answer computed
independently (by hand from the paper's equations, at a preset), and the default output
kept readable (no line over 200 characters, a bounded size)."""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu.cli import app
from symgpu.evaluate import evaluator
from symgpu.derive import summary

HK = "gtx280+tiled_matmul"
BLOCKS = {"Active_blocks_per_SM": 2}


@pytest.fixture(scope="module")
def hk():
    return symgpu.load("hong_kim_2009")


def run(capsys, *argv):
    code = app.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def readable(out: str, max_bytes: int = 4000) -> None:
    assert max(len(line) for line in out.splitlines()) <= 200
    assert len(out) <= max_bytes


def at(model, expr, unit, preset=HK, values=BLOCKS):
    return evaluator.evaluate_expression(model, expr, unit, preset=preset, values=values).to(unit).magnitude


def value(model, name, unit, preset=HK, values=BLOCKS):
    return model.evaluate(name, preset, values=values).to(unit).magnitude


def test_mwp_equals_cwp_for_every_n_up_to_the_smallest_bound(hk):
    d = hk.solve("MWP", for_="N", target="CWP")
    assert isinstance(d.result, sympy.LessThan) and d.result.lhs == hk.symbols["N"]
    # by hand: MWP = min(A, N), CWP = min(C, N) are equal exactly when N <= min(A, C); A includes Eq. (17)'s cap
    bounds = [value(hk, q, "warp/SM") for q in ("MWP_Without_BW_full", "Active_warps_per_SM", "MWP_peak_BW", "CWP_full")]
    assert at(hk, d.result.rhs, "warp/SM") == pytest.approx(min(bounds), rel=1e-12)
    assert "N" not in d.extra.substituted


def little_bandwidth(hk):
    """N x Active_SMs x Freq x Load_bytes_per_warp / Mem_L (Eq. 6, 7 set equal to N), in B/s."""
    n = value(hk, "N", "warp/SM")
    active_sms = at(hk, hk.symbols["Active_SMs"], "SM")
    freq = at(hk, hk.symbols["Freq"], "Hz")
    load = at(hk, hk.symbols["Load_bytes_per_warp"], "B/warp")
    mem_l = value(hk, "Mem_L", "cycle")
    return n * active_sms * freq * load / mem_l


def test_mwp_turns_bandwidth_bound_between_named_regimes(hk):
    d = hk.boundary("MWP", ("warp_bound", "bandwidth_bound"), for_="Mem_Bandwidth")
    assert at(hk, d.result, "B/s") == pytest.approx(little_bandwidth(hk), rel=1e-12)


def test_peak_bandwidth_root_is_not_rejected_as_inconsistent(hk):
    d = hk.solve("MWP_peak_BW", for_="Mem_Bandwidth", target="N")
    assert d.unit == "B/s"
    n = value(hk, "N", "warp/SM")
    assert at(hk, d.result, "B/s", values={**BLOCKS, "N": n}) == pytest.approx(little_bandwidth(hk), rel=1e-12)


def test_exec_cycles_never_switches_between_eq23_and_eq24_as_the_blocks_per_sm_vary(hk):
    # by hand: MWP = Min(A, N) and CWP = Min(B, N) with A, B free of N (= 4 x Active_blocks_per_SM here).
    # N <= Min(A, B): both are N, so Eq. (22) applies; A < N < B: CWP = N > MWP = A, Eq. (23); B < N < A:
    # CWP = B < MWP = N, Eq. (24) (if Comp_cycles <= Mem_cycles); N >= Max(A, B): neither depends on N.
    # So growing N leaves Eq. (22) for (23) or for (24), never (23) for (24): there is no such boundary
    # (before issue 25 this answered where the two values are equal, a point where nothing switches).
    with pytest.raises(symgpu.DerivationError, match="do not switch"):
        hk.boundary("Exec_cycles_app", ("eq23", "eq24"), for_="Active_blocks_per_SM")


def test_mdm_memory_stall_tends_to_the_mshr_bound_as_read_misses_grow():
    mdm = symgpu.load("mdm_2019")
    d = mdm.limit("S_Mem", "M_Read", "oo", substitute={"M_Write": 0})
    s = mdm.symbols
    # by hand: W > 0 (declared positive), so M_Read*W > MSHRs eventually: the memory-divergent case applies,
    # Min(MSHRs, M_Read*W) = MSHRs
    expected = s["L_MinLLC"] + s["LLCMissRate"] * s["L_MinDRAM"] + (s["L_NoCService"] + s["L_DRAMService"]) * s["SMs"] * s["MSHRs"]
    assert sympy.expand(d.result - expected) == 0
    assert d.unit == "cycle"


def test_mdm_memory_stall_as_warps_grow_past_the_warps_an_sm_holds_is_the_formulas_limit_and_says_so():
    mdm = symgpu.load("mdm_2019")  # Eq. (4) holds for W <= W_max (Table 1: 64 warps per SM)
    d = mdm.limit("S_Mem", "W", "oo", substitute={"M_Write": 0})
    assert "outside the model's domain" in d.extra.elsewhere and "W <= W_max" in d.extra.elsewhere


def test_cli_keep_and_summary_are_readable(capsys):
    code, out, _ = run(capsys, "solve", "hong_kim_2009", "MWP", "--for", "N", "--target", "CWP")
    assert code == 0 and "N <= Min(" in out and "--keep NAME" in out
    readable(out)


def test_regimes_of_exec_cycles_print_a_short_table(capsys):
    code, out, _ = run(capsys, "regimes", "hong_kim_2009", "Exec_cycles_app")
    assert code == 0 and "7 regime(s)" in out
    readable(out)


@pytest.mark.parametrize("argv, message", [
    (("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "1/0"), r"limit point '1/0' is undefined"),
    (("eval", "hong_kim_2009", "Mem_L", "--set", "Departure_del_uncoal=10", "--set", "Mem_LD=420", "--set", "Uncoal_per_mw=2",
      "--set", "Coal_Mem_insts=1", "--set", "Uncoal_Mem_insts=1", "--unit", "us"), r"a time needs a clock: give --clock"),
    (("report", "occupancy", "-f", "json", "-o", "/proc/nope"), r"cannot write the report there"),
])
def test_bad_arguments_are_usage_errors(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and message in err


def test_cycle_count_in_microseconds_through_the_preset_clock(capsys, hk):
    code, out, _ = run(capsys, "eval", "hong_kim_2009", "Mem_L", "--preset", HK, "--unit", "us")
    cycles = value(hk, "Mem_L", "cycle", values={})
    freq = at(hk, hk.symbols["Freq"], "Hz", values={})
    assert code == 0
    assert math.isclose(float(out.split("=")[1].split()[0]), cycles / freq * 1e6, rel_tol=1e-9)
    code, out, _ = run(capsys, "eval", "hong_kim_2009", "Mem_L", "--preset", HK, "--unit", "us", "--clock", "1 GHz")
    assert math.isclose(float(out.split("=")[1].split()[0]), cycles / 1e9 * 1e6, rel_tol=1e-9)


def test_pure_numbers_print_without_a_trailing_one():
    assert summary.value_text(11.79740999, "1") == "11.79740999"
    assert summary.value_text(320.8, "GB/s") == "320.8 GB/s"


def test_an_expression_of_many_common_subexpressions_is_one_shortened_line_not_a_wall() -> None:
    # a sum over distinct symbol pairs, each pair's sum repeated: one common subexpression per pair
    pairs = [sympy.Symbol(f"a{i}") + sympy.Symbol(f"b{i}") for i in range(summary.MAX_FOLDED + 5)]
    expr = sympy.Add(*(p**2 + p**3 / (1 + p) for p in pairs))
    replacements, _ = sympy.cse(expr)
    assert len(replacements) > summary.MAX_FOLDED  # the premise: it would fold into more lines than that
    lines = summary.fold(expr, 120)
    assert len(lines) == 1 and len(lines[0]) <= 120
    assert f"{len(replacements)} common subexpressions; --full or --json for all" in lines[0]
    small = sympy.Add(*(p**2 + p**3 / (1 + p) for p in pairs[:3]))
    assert len(summary.fold(small, 40)) > 1  # a few still fold into named lines
