"""A boundary asked without ``--between`` lists every pair of arguments that meet; at a point, the
certificate says which of them are regime switches there (an outside tester's finding: it said "the
regime switches at each of 3 boundaries" for Volkov's memory throughput over ``mem_lat`` at the H100
with alpha = 1, n = 32, where two of the three are crossings of arguments that do not bind)."""

from __future__ import annotations

import re

import pytest

# Volkov's memory_throughput = Min(n/(mem_lat + alpha*alu_lat), mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)),
# preset h100 (equations/volkov_2016.toml): alu_lat 4.055 cycle, mem_thru 0.08594, alu_thru = issue_thru = 4
N, ALPHA, ALU_LAT, MEM_THRU, ALU_THRU, ISSUE_THRU = 32.0, 1.0, 4.055, 0.08594, 4.0, 4.0


def _binding(mem_lat: float) -> str:
    arms = {"latency": N / (mem_lat + ALPHA * ALU_LAT), "memory": MEM_THRU, "alu": ALU_THRU / ALPHA, "issue": ISSUE_THRU / (ALPHA + 1)}
    return min(arms, key=arms.__getitem__)


def test_only_the_switch_of_the_binding_argument_is_called_a_regime_switch(cli) -> None:
    switch = N / MEM_THRU - ALPHA * ALU_LAT             # latency arm = mem_thru: 368.298
    alu_cross = N * ALPHA / ALU_THRU - ALPHA * ALU_LAT    # latency arm = alu_thru/alpha: 3.945
    issue_cross = N * (ALPHA + 1) / ISSUE_THRU - ALPHA * ALU_LAT  # latency arm = issue_thru/(alpha + 1): 11.945
    assert _binding(switch * 0.999) == "memory" and _binding(switch * 1.001) == "latency"
    assert {_binding(alu_cross * 0.99), _binding(alu_cross * 1.01), _binding(issue_cross * 0.99), _binding(issue_cross * 1.01)} == {"memory"}
    code, out, err = cli("boundary", "volkov_2016", "memory_throughput", "--for", "mem_lat", "--preset", "h100",
                         "--set", "alpha=1", "--set", "n=32", "--full")
    assert code == 0, err
    checked = next(line for line in out.splitlines() if "checked numerically" in line)
    assert float(re.search(r"it switches at mem_lat = ([0-9.]+), the regime differing on the two sides", checked).group(1)) == \
        pytest.approx(switch, rel=1e-5)  # the one switch the scan finds, checked on its two sides
    crossed = [float(x) for x in re.search(r"the closed form's ([0-9., ]+) are no switches here", checked).group(1).split(",")]
    assert sorted(crossed) == pytest.approx(sorted([alu_cross, issue_cross]), rel=1e-5)
    assert float(out.split("value: ")[1].split()[0]) == pytest.approx(switch, rel=1e-9)
