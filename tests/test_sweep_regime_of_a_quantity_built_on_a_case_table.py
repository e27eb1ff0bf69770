"""``sweep --regime-of Q`` where Q has no Min/Max or cases of its own reports the regime of the one quantity
nearest in Q's equations that has (Hong & Kim's ``arithmetic_throughput = simd_width*n*alpha/Time``: Time's
cases, the names ``regimes arithmetic_throughput`` gives), and says so; where no quantity is, it is refused
in one line."""

from __future__ import annotations

import csv
from pathlib import Path

from conftest import FIXTURES, assert_one_line_refusal


def _time_case(alpha: float, n: float) -> str:
    """Time's case by hand from prior_hong_kim.toml and the g80 preset (mem_lat 444 cycle, instruction_time 4,
    pin_BW 86.4 GB/s, clock 1.35 GHz, 16 SMs, 128 B/winst)."""
    mwp = min(n, 86.4e9 * 444 / (1.35e9 * 128 * 16))  # MWP = Min(n, MWP_peak_bw), MWP_peak_bw = 13.875
    cwp = min(n, 1 + 444 / ((alpha + 1) * 4))  # CWP = Min(n, 1 + mem_lat/Comp_p)
    if mwp == n and cwp == n:
        return "latency_bound"
    return "memory_bound" if cwp >= mwp else "compute_bound"


def _column(row: dict[str, str], name: str) -> str:
    """The value of ``name``'s column (headed ``name [unit]``)."""
    return row[next(k for k in row if k.split(" ")[0] == name)]


def test_the_regime_of_a_quantity_dividing_by_a_case_table_is_the_case_tables(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    output = tmp_path / "r.csv"
    code, out, err = cli("sweep", "prior_hong_kim", "arithmetic_throughput", "-p", "g80", "-g", "alpha=1,8", "-g", "n=1,13,14,16",
                         "--regime-of", "arithmetic_throughput", "-o", output)
    assert code == 0, err
    assert "regimes of Time:" in out  # whose regimes they are
    with output.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 8
    found = [(float(_column(r, "alpha")), float(_column(r, "n")), r["regime"]) for r in rows]
    assert [label for _, _, label in found] == [_time_case(alpha, n) for alpha, n, _ in found]
    assert {label for _, _, label in found} == {"latency_bound", "memory_bound", "compute_bound"}


def test_the_regime_of_a_quantity_built_on_no_min_max_or_cases_is_refused_in_one_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("sweep", "prior_hong_kim", "MWP_peak_bw", "-p", "g80", "-s", "alpha=8", "-g", "n=1,2",
                         "--regime-of", "MWP_peak_bw", "-o", tmp_path / "r.csv")
    assert_one_line_refusal(code, out, err, "MWP_peak_bw is neither a Min/Max nor defined by cases", "leave --regime-of out")


def test_the_regime_of_a_quantity_built_on_two_case_tables_is_refused_naming_both(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # tests/fixtures/zero_cases.toml: total = by_threads + by_memory, each defined by cases
    code, out, err = cli("sweep", FIXTURES / "zero_cases.toml", "total", "-s", "t=100", "-g", "m=10,20",
                         "--regime-of", "total", "-o", tmp_path / "r.csv")
    assert_one_line_refusal(code, out, err, "total is neither a Min/Max nor defined by cases",
                            "follows the regimes of by_memory, by_threads", "with --regime-of by_memory or --regime-of by_threads")


def test_the_regime_of_a_quantity_with_its_min_inside_a_product_is_refused_pointing_to_the_regimes_command(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # volkov_2016's n_needed = Latency*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)): no top-level Min, no quantity
    # with regimes of its own beneath it, yet `symgpu regimes` names three (a fresh-question audit found the refusal silent
    # about them)
    code, out, err = cli("sweep", "volkov_2016", "n_needed", "-p", "maxwell", "-g", "alpha=0,1", "--regime-of", "n_needed",
                         "-o", tmp_path / "r.csv")
    assert_one_line_refusal(code, out, err, "n_needed is neither a Min/Max nor defined by cases", "its Min/Max is inside its formula",
                            "`symgpu regimes volkov_2016 n_needed`")
    code, out, err = cli("regimes", "volkov_2016", "n_needed", "-p", "maxwell", "-s", "alpha=1")
    assert code == 0 and "3 regime(s)" in out and "active: " in out
