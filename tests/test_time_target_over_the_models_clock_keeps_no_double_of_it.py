"""A ``--target`` in cycles for a quantity in seconds (or a time for one in cycles) is written over the
model's own clock symbol, its number a constant of the model, so the closed form solved against it holds at
every clock: the value converted at the preset's clock, a double, had been put in its place, and the closed
form kept the clock twice, as ``phi`` and as 3.03030303e-06 s (an outside tester's finding, round 13a, F4).
Expected values by hand from the interval-analysis notes' t_P = N_exec*L_iota/(P*phi) (latency-bound)."""

from __future__ import annotations

import json
from fractions import Fraction

import sympy

IA = ("solve", "interval_analysis", "t_P", "--for", "P", "--target", "6000 cycle", "--preset", "h100",
      "--set", "L_iota=700", "--set", "d_iota=8", "--set", "N_exec=1e6")


def _result(cli, *extra: str) -> sympy.Expr:
    code, out, err = cli(*IA, *extra, "--json")
    assert code == 0, err
    return sympy.sympify(json.loads(out)["result"])  # the program's own output, read back by the test


def test_solved_threads_do_not_depend_on_the_clock_the_target_is_counted_in(cli):
    result = _result(cli)
    assert sympy.Symbol("phi") not in result.free_symbols, result
    values = {sympy.Symbol("L_iota"): 700, sympy.Symbol("N_exec"): 10**6, sympy.Symbol("lit_6000_cy"): 6000}
    assert sympy.Rational(result.subs(values)) == sympy.Rational(Fraction(700 * 10**6, 6000))
    # the same question at a clock twice as slow gives the same thread count (the target is cycles, not seconds)
    code, out, err = cli(*IA, "--set", "phi=0.99 GHz")
    assert code == 0, err
    value = next(line for line in out.splitlines() if line.strip().startswith("value:")).split()[1]
    assert abs(float(value) - 700 * 10**6 / 6000) <= 1e-6 * 700 * 10**6 / 6000


def test_a_minimum_across_the_clock_is_the_exact_hand_value(cli):
    # t_P <= 6000 cycle: the smallest P is N_exec*L_iota/6000 = 350000/3 exactly, no double of 1/1.98 GHz in it
    result = _result(cli, "--relation", "<=", "--kind", "min")
    assert result == sympy.Rational(700 * 10**6, 6000)


def test_a_time_target_on_a_cycle_quantity_keeps_the_clock_symbolic(cli):
    # Hong & Kim Eq. 11-13 with every warp coalesced: Mem_L = Mem_LD, so Mem_LD = 2 us * Freq
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", "--set", "Freq=1.5 GHz",
                         "--set", "Departure_del_uncoal=10", "--set", "Uncoal_per_mw=2", "--set", "Coal_Mem_insts=1",
                         "--set", "Uncoal_Mem_insts=0", "--json")
    assert code == 0, err
    result = sympy.sympify(json.loads(out)["result"])
    assert sympy.Symbol("Freq") in result.free_symbols, result
    assert "3000" in json.loads(out)["target_converted"]  # 2e-6 s x 1.5e9 cycle/s, the note still says the number


def test_a_thread_target_on_a_warp_quantity_keeps_no_double_of_the_warp_size(cli):
    # Hong & Kim: Active_warps_per_SM = Active_blocks_per_SM * Threads_per_block / Threads_per_warp, so 640 thread/SM
    # is reached at Active_blocks_per_SM = 640/Threads_per_block whatever the warp size
    code, out, err = cli("solve", "hong_kim_2009", "Active_warps_per_SM", "--for", "Active_blocks_per_SM", "--target",
                         "640 thread/SM", "--preset", "gtx280+tiled_matmul", "--json")
    assert code == 0, err
    result = sympy.sympify(json.loads(out)["result"])
    assert sympy.Symbol("Threads_per_warp") not in result.free_symbols, result
    assert result.subs({sympy.Symbol("lit_640_thread_per_SM"): 640, sympy.Symbol("Threads_per_block"): 128}) == 5
