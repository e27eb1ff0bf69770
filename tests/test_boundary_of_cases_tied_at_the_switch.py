"""Hong & Kim's Exec_cycles_app switches from eq22 (MWP = CWP = N) to eq24 (MWP > CWP) where CWP leaves N; there
CWP = MWP = N, so eq23's printed condition ``CWP >= MWP`` holds at the root itself (only beside it does it fail).
The case between the two (eq23) must be read closed at the root, part by part: an outside tester (round 15a, R1) found
``--between eq22 eq24`` at an H100 kernel's numbers refused, though the cases switch (and tie) at Comp_insts = 47/7.
The switch point here is a Fraction transcription of equations/hong_kim_2009.toml (eq5-eq24), bisected."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from fractions import Fraction as F

import pytest

H100 = {"Freq": "1.98GHz", "Mem_Bandwidth": "3352GB/s", "Active_SMs": "132", "Departure_del_coal": "4",
        "Departure_del_uncoal": "40", "Coal_Mem_insts": "4", "Uncoal_Mem_insts": "0", "Load_bytes_per_warp": "128",
        "Threads_per_block": "256", "Active_blocks_per_SM": "8", "Uncoal_per_mw": "32", "Mem_LD": "675", "Blocks": "2112"}
SETS = [a for k, v in H100.items() for a in ("--set", f"{k}={v}")]


@functools.cache
def _fixed() -> tuple[F, F, F]:
    """MWP, Mem_cycles and N at the H100 numbers (none reads Comp_insts), every quantity in exact arithmetic (cycles, warps per SM)."""
    coal, uncoal, mem_ld, del_coal, del_uncoal, uncoal_per_mw = F(4), F(0), F(675), F(4), F(40), F(32)
    weight_uncoal, weight_coal = uncoal / (uncoal + coal), coal / (coal + uncoal)
    mem_l_uncoal, mem_l_coal = mem_ld + (uncoal_per_mw - 1) * del_uncoal, mem_ld
    mem_l = mem_l_uncoal * weight_uncoal + mem_l_coal * weight_coal
    departure_delay = del_uncoal * uncoal_per_mw * weight_uncoal + del_coal * weight_coal
    n = F(8) * F(256) / 32  # Active_blocks_per_SM * warps per block
    bw_per_warp = F(198 * 10**7) * 128 / mem_l
    mwp = min(min(mem_l / departure_delay, n), F(3352 * 10**9) / (bw_per_warp * 132), n)
    mem_cycles = mem_l_uncoal * uncoal + mem_l_coal * coal
    return mwp, mem_cycles, n


def _case(comp_insts: F) -> str:
    """The case eq22_24 picks at the H100 numbers, every quantity in exact arithmetic (cycles, warps per SM)."""
    mwp, mem_cycles, n = _fixed()
    coal, uncoal = F(4), F(0)
    comp_cycles = 4 * (comp_insts + coal + uncoal)  # Issue_cycles * Total_insts
    cwp = min((mem_cycles + comp_cycles) / comp_cycles, n)
    if mwp == n and cwp == n:
        return "eq22"
    return "eq23" if cwp >= mwp or comp_cycles > mem_cycles else "eq24"


def _switch() -> F:
    lo, hi = F(0), F(100)
    assert _case(lo) == "eq22" and _case(hi) == "eq24"
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _case(mid) == "eq22" else (lo, mid)
    return (lo + hi) / 2


def test_eq22_and_eq24_switch_where_cwp_leaves_n_at_h100_numbers(cli: Callable[..., tuple[int, str, str]]) -> None:
    switch = _switch()
    assert _case(switch - F(1, 10**6)) == "eq22" and _case(switch + F(1, 10**6)) == "eq24"
    code, out, err = cli("boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Comp_insts", "--between", "eq22", "eq24", *SETS)
    assert code == 0, err
    value = re.search(r"value: ([0-9.e+-]+) winst", out)
    assert value is not None, out
    assert float(value.group(1)) == pytest.approx(float(switch), rel=1e-9)


def test_a_refused_pair_with_full_prints_the_closed_form_it_promises_then_the_refusal(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    switch = _switch()
    assert _case(switch - F(1, 10**6)) == "eq22" and _case(switch + F(1, 10**6)) == "eq24"  # eq23 binds on neither side
    code, out, err = cli("boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Comp_insts", "--between", "eq22", "eq23", *SETS, "--full")
    assert code == 1 and "--full shows the closed form" in err
    assert "result:" in out and "switch eq22|eq23" in out  # the closed form and its steps, as promised
    assert f"{float(switch):.10g}" in err  # the switch that does happen there is named


def _switches() -> list[F]:
    """Every change of case along Comp_insts in 0..10^4 (a grid of 1/4, each change bisected)."""
    found, grid = [], [F(k, 4) for k in range(40001)]
    cases = [_case(x) for x in grid]  # each grid point's case once
    for (lo, first), (hi, last) in zip(zip(grid, cases), zip(grid[1:], cases[1:])):
        if first != last:
            for _ in range(80):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if _case(mid) == first else (lo, mid)
            found.append((lo + hi) / 2)
    return found


def test_without_between_at_a_point_every_switch_of_the_cases_is_answered_not_refused(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    expected = _switches()
    assert len(expected) == 2  # eq22 -> eq24 where CWP leaves N, eq24 -> eq23 where Comp_cycles passes Mem_cycles
    code, out, err = cli("boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Comp_insts", *SETS, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["value"] == pytest.approx([float(x) for x in expected], rel=1e-9)
    assert all(c in data["regimes"][0] for c in ("eq22", "eq24")) and all(c in data["regimes"][1] for c in ("eq24", "eq23"))
