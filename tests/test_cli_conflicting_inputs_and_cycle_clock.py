"""Inputs given twice on the command line are refused, and cycles become time with the clock that
counts the model's cycles (never a memory clock picked because it has a value)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from conftest import assert_one_line_refusal

Cli = Callable[..., tuple[int, str, str]]

HK_OCCUPANCY = ("eval", "hong_kim_2009", "Exec_cycles_app", "--preset", "gtx280+tiled_matmul",
                "--occupancy", "threads=128,regs=18,smem=3960")


@pytest.mark.parametrize("name, value", [("Active_blocks_per_SM", "2"), ("Active_warps_per_SM", "8"),
                                         ("Threads_per_block", "256"), ("N", "3")])
def test_set_of_a_name_occupancy_determines_is_refused(cli: Cli, name: str, value: str) -> None:
    code, out, err = cli(*HK_OCCUPANCY, "--set", f"{name}={value}")
    assert_one_line_refusal(code, out, err, f"--set {name}", "--occupancy", "drop one")


def test_volkov_n_set_beside_occupancy_is_refused(cli: Cli) -> None:
    code, out, err = cli("eval", "volkov_2016", "Latency", "--preset", "kepler", "--occupancy", "threads=128,regs=18,smem=3960",
                         "--set", "n=10")
    assert_one_line_refusal(code, out, err, "--set n", "--occupancy")


def test_set_of_a_name_occupancy_leaves_alone_is_still_taken(cli: Cli) -> None:
    # Mem_LD (a memory latency) is no occupancy name: --set Mem_LD stays allowed.
    code, _, err = cli(*HK_OCCUPANCY, "--set", "Mem_LD=450")
    assert code == 0, err


def test_name_both_substituted_and_set_is_refused(cli: Cli) -> None:
    code, out, err = cli("solve", "interval_analysis", "P_K0", "--for", "N", "--target", "1000", "--preset", "gtx1080",
                         "--substitute", "M=N", "--set", "M=16")
    assert_one_line_refusal(code, out, err, "M:", "--substitute", "--set")


VOLKOV_LATENCY = ("eval", "volkov_2016", "Latency", "--set", "mem_lat=400", "--set", "alpha=0", "--set", "alu_lat=6",
                  "--set", "mem_clock=3.5 GHz", "--unit", "ns")


def test_cycles_become_time_with_the_processor_clock_not_the_memory_clock(cli: Cli) -> None:
    code, out, err = cli(*VOLKOV_LATENCY, "--set", "clock=1.266 GHz")
    assert code == 0, err
    # Latency = mem_lat + alpha*alu_lat = 400 cycles of the processor clock; 400 / 1.266 GHz in ns
    expected = (400 + 0 * 6) / 1.266
    match = re.fullmatch(r"Latency = ([0-9.]+) ns", out.strip())
    assert match, out
    assert float(match.group(1)) == pytest.approx(expected, rel=1e-9)
    assert "cycles converted at clock = 1.266 GHz" in err


def test_memory_clock_alone_does_not_convert_processor_cycles(cli: Cli) -> None:
    code, out, err = cli(*VOLKOV_LATENCY)
    assert_one_line_refusal(code, out, err, "--clock", "clock")
    assert "mem_clock" not in err


def test_two_clocks_without_a_cycle_clock_are_refused_naming_both(cli: Cli) -> None:
    code, out, err = cli("eval", "perez_piccoli", "B_theo", "--preset", "gtx260", "--unit", "B/cycle")
    assert_one_line_refusal(code, out, err, "shader_clock", "mem_clock", "--clock")


def test_given_clock_converts_and_is_named(cli: Cli) -> None:
    code, out, err = cli("eval", "perez_piccoli", "B_theo", "--preset", "gtx260", "--unit", "B/cycle", "--clock", "1150 MHz")
    assert code == 0, err
    # B_theo = mem_clock*bus_width*transfers_per_cycle = 1.15 GHz * 448 bit * 2/cycle; per cycle of 1.15 GHz: 448*2/8 B
    match = re.fullmatch(r"B_theo = ([0-9.]+) B/cycle", out.strip())  # the --unit as written
    assert match, out
    assert float(match.group(1)) == pytest.approx(448 * 2 / 8, rel=1e-12)
    assert "cycles converted at 1.15 GHz (--clock)" in err


def test_json_names_the_clock_that_converted_the_cycles(cli: Cli) -> None:
    code, out, err = cli(*VOLKOV_LATENCY, "--set", "clock=1.266 GHz", "--json")
    assert code == 0, err
    record = json.loads(out)
    # 400 cycles of the processor clock (mem_lat + 0 * alu_lat), at 1.266 GHz, in ns
    assert record["value"] == pytest.approx(400 / 1.266, rel=1e-9)
    assert record["clock"] == {"value": pytest.approx(1.266, rel=1e-12), "unit": "GHz", "source": "clock given by --set"}


def test_json_of_a_derivation_names_the_clock_of_the_preset(cli: Cli) -> None:
    code, out, err = cli("limit", "hong_kim_2009", "Mem_L", "--var", "Departure_del_uncoal", "--to", "0",
                         "--preset", "gtx280+tiled_matmul", "--unit", "us", "--json")
    assert code == 0, err
    record = json.loads(out)
    cycles_code, cycles_out, cycles_err = cli("limit", "hong_kim_2009", "Mem_L", "--var", "Departure_del_uncoal", "--to", "0",
                                              "--preset", "gtx280+tiled_matmul", "--json")
    assert cycles_code == 0, cycles_err
    cycles = json.loads(cycles_out)
    assert "clock" not in cycles  # nothing converted: no clock
    # the same limit in cycles, divided by the preset's 1.3 GHz, in us
    assert record["clock"] == {"value": pytest.approx(1.3, rel=1e-12), "unit": "GHz", "source": "Freq of preset gtx280+tiled_matmul"}
    assert record["value"] == pytest.approx(cycles["value"] / 1.3e9 * 1e6, rel=1e-12)


@pytest.mark.parametrize("clock", ["-1 GHz", "0 GHz", "-2 GHz"])
@pytest.mark.parametrize("command", [("eval", "volkov_2016", "Latency", "--preset", "h100", "--set", "alpha=2"),
                                     ("boundary", "volkov_2016", "memory_throughput", "--for", "mem_lat", "--preset", "h100",
                                      "--set", "alpha=0", "--set", "n=32")])
def test_a_clock_that_is_not_positive_is_refused_in_one_line(cli: Cli, command: tuple[str, ...], clock: str) -> None:
    # an outside tester's finding: --clock '-1 GHz' gave Latency = -0.68311 us (exit 0), '0 GHz' a ZeroDivisionError;
    # --set clock=-1GHz was already refused by the declared sign
    code, out, err = cli(*command, "--unit", "us", "--clock", clock)
    assert code == 2 and out == ""
    assert err == f"symgpu: error: --clock '{clock}': a clock is a positive, finite frequency such as '1.3 GHz'\n"


def test_a_value_set_twice_is_refused_not_the_last_one_taken(cli: Cli) -> None:
    # an outside tester's finding: -s alpha=8 -s alpha=9 answered for alpha = 9 without a word (sweep's --grid refuses it)
    code, out, err = cli("eval", "volkov_2016", "memory_throughput", "--preset", "maxwell", "--set", "alpha=8", "--set", "alpha=9",
                         "--set", "n=10")
    assert code == 2 and out == ""
    assert err == "symgpu: error: --set 'alpha=9': alpha is given more than once; give it once\n"


def test_an_inequality_over_a_min_says_what_can_be_asked_and_that_works(cli: Cli) -> None:
    # the advice was "pick one case (case = ...)", and Volkov's memory_throughput has no cases (an outside tester's finding);
    # without a point the advice names what works: a point, or omitting the other limiters
    asked = ("solve", "volkov_2016", "memory_throughput", "--for", "n", "--target", "0.05", "--relation", ">=")
    code, out, err = cli(*asked)
    assert code == 2 and "ask it at a point (--preset, --set)" in err
    assert "omit the other limiters (latency_bound, memory_bound, alu_bound, issue_bound)" in err
    # at preset h100 with alpha = 0, by hand: the latency arm n/(mem_lat + alpha*alu_lat) >= 0.05 with mem_lat = 675
    # cycles is n >= 33.75; the other arms hold everywhere there (the smaller of mem_thru and issue_thru is 0.08594, the
    # Min at n = 1000; alu_thru/alpha is infinite), so the Min is the latency arm's answer, and omitting them gives the same
    point = ("--preset", "h100", "--set", "alpha=0")
    code, out, err = cli(*asked, *point)
    assert code == 0, err
    assert "value: n >= 33.75 warp/SM" in out
    code, out, err = cli(*asked, *point, "--omit", "memory_bound", "--omit", "alu_bound", "--omit", "issue_bound")
    assert code == 0, err
    assert "value: n >= 33.75 warp/SM" in out


def test_warps_convert_to_threads_with_the_models_warp_size(cli: Cli) -> None:
    # --unit's help gives 'thread/SM' as its example, and a warp count was refused in it (an outside tester's finding)
    base = ("eval", "occupancy", "active_warps_per_SM", "--preset", "cc_9_0", "--set", "threads_per_block=256",
            "--set", "regs_per_thread=32", "--set", "smem_per_block=0")
    code, out, err = cli(*base)
    assert code == 0, err
    warps = float(out.split("=")[1].split()[0])
    code, out, err = cli(*base, "--unit", "thread/SM")
    assert code == 0, err
    assert float(out.split("=")[1].split()[0]) == warps * 32  # 32 threads per warp (preset cc_9_0's threads_per_warp)
    assert "warps converted at threads_per_warp = 32 thread / warp" in err
