"""``eval`` says which ``--set`` values the quantity does not read: Volkov's ``a100`` preset types its memory bound
``mem_thru`` in as a number (its pin bandwidth converted once), so ``--set BW=2039 GB/s`` left ``n_needed`` at the
40 GB part's 39.75 warp/SM without a word (an outside tester's finding). By hand: n_needed = (mem_lat + alpha*alu_lat)
* mem_thru at the memory bound: (466.3 + 8*4) * 0.0797770 = 39.7529; with mem_thru = 2039/(1.41*108*128) = 0.1046079,
(466.3 + 32) * 0.1046079 = 52.126."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

Cli = Callable[..., tuple[int, str, str]]


def test_a_value_the_quantity_does_not_read_is_named_on_stderr_and_in_json(cli: Cli) -> None:
    code, out, err = cli("eval", "volkov_2016", "n_needed", "--preset", "a100", "--set", "alpha=8", "--set", "BW=2039 GB/s")
    assert code == 0 and float(out.split("=")[1].split()[0]) == pytest.approx((466.3 + 8 * 4) * 0.0797770, rel=1e-6)
    assert "--set BW changes nothing: n_needed does not read it" in err and "mem_thru" in err
    code, out, _ = cli("eval", "volkov_2016", "n_needed", "--preset", "a100", "--set", "alpha=8", "--set", "BW=2039 GB/s", "--json")
    assert code == 0 and json.loads(out)["unread_inputs"] == ["BW"]
    code, out, _ = cli("eval", "volkov_2016", "n_needed", "--preset", "a100", "--set", "alpha=8",
                       "--set", f"mem_thru={2039 / (1.41 * 108 * 128)} winst/cycle/SM")
    assert float(out.split("=")[1].split()[0]) == pytest.approx((466.3 + 32) * 2039 / (1.41 * 108 * 128), rel=1e-9)


def test_values_read_on_the_way_by_a_domain_or_a_clock_or_below_a_given_quantity_get_no_note(cli: Cli) -> None:
    # Mem_LD is read by Mem_L, which CWP reads beside the MWP given; Freq converts cycles to us
    code, out, err = cli("eval", "hong_kim_2009", "Exec_cycles_app", "--preset", "table2_example", "--set", "MWP=2.28",
                         "--set", "Mem_LD=400")
    assert code == 0 and "changes nothing" not in err
    code, out, err = cli("eval", "hong_kim_2009", "Mem_L", "--preset", "gtx280+tiled_matmul", "--unit", "us", "--set", "Freq=1 GHz")
    assert code == 0 and "changes nothing" not in err and out.startswith("Mem_L = 1.69 us")
    # below a quantity given a value its own inputs are not read: Mem_L, the weighted sum of Mem_L_Coal and Mem_L_Uncoal, reads no Mem_LD
    code, out, err = cli("eval", "hong_kim_2009", "Mem_L", "--preset", "gtx280+tiled_matmul", "--set", "Mem_L_Coal=500",
                         "--set", "Mem_L_Uncoal=500", "--set", "Mem_LD=1")
    assert code == 0 and "--set Mem_LD changes nothing" in err


def test_the_note_lists_what_is_read_with_a_given_intermediate_so_no_name_is_both_unread_and_read(cli: Cli) -> None:
    # memory_throughput_loaded_ilp given: dram_throughput = x*SMs*bytes_per_inst*clock reads nothing of the latency model
    # (alpha, n, ilp included); by hand 0.01 winst/cycle/SM * 132 SM * 128 B/winst * 1.98 GHz = 334.5408 GB/s
    code, out, err = cli("eval", "volkov_2016_ilp", "dram_throughput", "--preset", "h100_fit_alpha0", "--set", "n=4",
                         "--set", "alpha=0", "--set", "ilp=1", "--set", "memory_throughput_loaded_ilp=0.01")
    assert code == 0 and float(out.split("=")[1].split()[0]) == pytest.approx(0.01 * 132 * 128 * 1.98, rel=1e-9)
    assert "--set n, alpha, ilp changes nothing" in err
    read = err.split("(it reads ")[1].split(")")[0].split(", ")
    assert read == ["SMs", "bytes_per_inst", "clock", "memory_throughput_loaded_ilp"]


def test_a_clock_that_moved_a_given_time_into_cycles_was_read(cli: Cli) -> None:
    # outside checker q31c, question 53: Mem_LD = 420 ns at --set Freq = 1 GHz is 420 cycles, so by hand
    # Mem_L = 420 + (32 - 1)*40 = 1660 cycles on the gtx280 preset (1786 at its own 1.3 GHz): Freq changed the answer
    # and the note said it changed nothing
    code, out, err = cli("eval", "hong_kim_2009", "Mem_L", "--preset", "gtx280+tiled_matmul", "--set", "Mem_LD=420 ns",
                         "--set", "Freq=1 GHz")
    assert code == 0 and out.startswith("Mem_L = 1660 cycle") and "changes nothing" not in err
    # with --clock converting the time, the given Freq is read by nothing: 420 ns at 2 GHz = 840 cycles, 840 + 1240 = 2080
    code, out, err = cli("eval", "hong_kim_2009", "Mem_L", "--preset", "gtx280+tiled_matmul", "--set", "Mem_LD=420 ns",
                         "--set", "Freq=1 GHz", "--clock", "2 GHz")
    assert code == 0 and out.startswith("Mem_L = 2080 cycle") and "--set Freq changes nothing" in err
