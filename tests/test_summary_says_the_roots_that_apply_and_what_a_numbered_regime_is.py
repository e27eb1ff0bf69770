"""A derivation's default summary stays short where an answer has many parts (round 34g): at a point, the roots that
apply come first and the others are counted with a hint to ``--full``; a tuple of roots that folds into many lines is
said in one (each root is listed); a regime numbered ``#2``/``#3`` is said to be the regime met again under that
name; a regimes table whose cells are cut says where to read them whole. Every number printed stays the same, and
``--json`` holds no new key."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import sympy

from symgpu.derive import summary
from symgpu.derive.extra_records import RegimeRow, RootRecord

STREAMING = ("-p", "h100_sxm+neusight_fit", "-s", "threads_per_block=256", "-s", "operands=3",
             "-s", "inflight_per_thread=32 B/thread")
SOLVE = ("solve", "kernel_streaming", "t_kernel", "--for", "elements", "--target", "100 us", *STREAMING, "-s", "blocks=100000")


def _records(n: int) -> list[RootRecord]:
    x = sympy.Symbol("x")
    return [RootRecord(f"r{i}", x + i, sympy.Gt(x, i)) for i in range(1, n + 1)]


def test_without_a_point_every_root_is_listed_with_its_conditions() -> None:
    records = _records(3)
    for applying in (None, (), [(r.regime, r.root) for r in records]):  # none known, none apply, all apply
        lines = summary.root_lines(records, applying=applying)
        assert lines[0] == "  3 roots, each inside its own regime (several can hold at once):"
        assert [line for line in lines if line.startswith("  root ")] == [f"  root {i} (r{i}): x + {i}" for i in (1, 2, 3)]


def test_at_a_point_the_roots_that_apply_come_first_and_the_others_are_counted() -> None:
    records = _records(4)
    lines = summary.root_lines(records, applying=[("r3", records[2].root)])
    assert lines == ["  4 roots, each inside its own regime; at the point asked 1 applies:",
                     "  root 3 (r3): x + 3", "    when: x > 3",
                     "  the other 3 (roots 1, 2, 4) do not apply there; --full shows each with its conditions"]


def test_a_root_applies_only_with_its_own_regime_and_value() -> None:
    records = _records(2)
    lines = summary.root_lines(records, applying=[("r1", records[1].root)])  # r1's name, r2's root: neither applies
    assert lines[0].endswith("(several can hold at once):")


def test_the_streaming_solve_at_a_point_shows_the_root_whose_value_it_gives(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli(*SOLVE)
    assert code == 0, err
    # by hand: elements = (100 us - t_launch) Theta_M eta_M / (elem_size operands), t_launch 19.3 us, 3430 GB/s, 0.902, 4 B x 3
    elements = (Fraction(100) - Fraction("19.3")) / 10**6 * 3430 * 10**9 * Fraction("0.902") / 12
    assert elements == Fraction("20806208.5")
    assert "  value: 20806208.5 (memory_bound#3)  (preset h100_sxm+neusight_fit)" in out
    lines = out.splitlines()
    assert "  result: 4 expressions, each root below with its regime (--full or --json for the whole tuple)" in lines
    assert "  6 roots, each inside its own regime; at the point asked 1 applies:" in lines
    assert [line for line in lines if line.startswith("  root ")] == [
        "  root 5 (memory_bound#3): Theta_M*eta_M*(t_kernel - t_launch)/(elem_size*operands)"]
    assert "  the other 5 (roots 1, 2, 3, 4, 6) do not apply there; --full shows each with its conditions" in lines
    assert len(lines) <= 15  # it was 31
    code, full, err = cli(*SOLVE, "--full")
    assert code == 0, err
    for regime in ("memory_bound", "block_limit+latency_bound", "memory_bound#2", "partial_wave+latency_bound", "memory_bound#3",
                   "warp_limit+latency_bound"):  # every root still there, with its conditions
        assert f". solve regime {regime}: Eq(elements, " in full, regime
    code, raw, err = cli(*SOLVE, "--json")
    assert code == 0, err
    answer = json.loads(raw)
    assert "applying" not in answer and answer["regimes"] == ["memory_bound#3"]


def test_a_numbered_regime_is_said_to_be_the_regime_met_again_under_its_name() -> None:
    lines = ["boundary of t_body over blocks (m)", "  boundary 1: between memory_bound#2 / partial_wave+latency_bound",
             "    at a", "  boundary 2: between memory_bound#2 / memory_bound#3", "    at b", "  method: closed form"]
    assert summary.numbered_note(lines) == lines[:5] + [
        "  (memory_bound#2, memory_bound#3: the 2nd and 3rd regimes named memory_bound, the same term binding under other "
        "conditions; symgpu regimes lists each with its conditions)"] + lines[5:]
    assert summary.numbered_note(lines[:1] + lines[-1:]) == lines[:1] + lines[-1:]  # none numbered: nothing said


def test_the_streaming_boundary_explains_its_numbered_regimes(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("boundary", "kernel_streaming", "t_body", "--for", "blocks", *STREAMING, "-s", "elements=1e8")
    assert code == 0, err
    assert "  value: 124.6305908 block  (preset h100_sxm+neusight_fit)" in out
    assert "(memory_bound#2, memory_bound#3: the 2nd and 3rd regimes named memory_bound" in out


def test_a_regimes_table_with_a_cut_cell_says_where_to_read_it_whole() -> None:
    short = RegimeRow("a", ("x > 1",), "x", ("a",), True)
    long = RegimeRow("b", ("x > 1",) * 200, "x", ("b",), True)
    hint = "  (a cell cut short: --json gives each regime's conditions and expression whole, --full the steps)"
    assert hint not in summary.regimes_table([short])
    table = summary.regimes_table([short, long])
    assert table[-1] == hint and "characters; cut)" in table[2]


def test_many_numbered_regimes_are_said_in_one_short_line() -> None:
    lines = [f"  a+b#{n} | x > {n} | 0" for n in range(2, 9)] + ["  method: closed form"]
    noted = summary.numbered_note(lines)
    assert noted[-2] == ("  (a+b#2 and the like: NAME#N is the Nth regime named NAME, the same term binding under other "
                         "conditions; symgpu regimes lists each with its conditions)")
    assert len(noted[-2]) <= summary.MAX_LINE
