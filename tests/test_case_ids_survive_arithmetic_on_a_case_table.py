"""A case keeps its model id where arithmetic outside the case table changes its value.

Hong & Kim's ``arithmetic_throughput = simd_width*n*alpha/Time`` divides by ``Time``'s case table
(``latency_bound``, ``memory_bound``, ``compute_bound``); SymPy moves the division into the pieces, so a
case looked up by its value was named ``piece1``/``piece2``/``piece3`` and ``boundary --between`` with
the model's names was refused. The pieces keep their conditions: a case is named by its table's
conditions as a whole. A stored derivation that read those names is reused only where a model's case
tables give the same names (:mod:`symgpu.derive.name_reads`). Cases of equal value in two tables (occupancy's
"cannot launch" cases, each 0) are named by their own table, not by the first table with that value."""

from __future__ import annotations

from pathlib import Path

import sympy

import symgpu
from symgpu import store
from symgpu.derive import requests
from conftest import FIXTURES, assert_one_line_refusal, toy_header


def test_the_regimes_of_a_quantity_dividing_by_a_case_table_have_the_case_tables_names() -> None:
    model = symgpu.load("prior_hong_kim")
    time = model.regimes("Time").regimes
    throughput = model.regimes("arithmetic_throughput").regimes
    # the model file: Time's cases latency_bound, memory_bound (value mem_lat*n/MWP, MWP = Min(n, MWP_peak_bw) with
    # limiters occupancy and peak_bandwidth), compute_bound; arithmetic_throughput = simd_width*n*alpha/Time
    expected = ["latency_bound", "memory_bound+occupancy", "memory_bound+peak_bandwidth", "compute_bound"]
    assert [r.name for r in time] == expected
    assert [r.name for r in throughput] == expected
    s = {name: model.symbols[name] for name in ("simd_width", "n", "alpha")}
    for ours, theirs in zip(throughput, time):
        assert ours.conditions == theirs.conditions
        assert sympy.simplify(ours.expression - s["simd_width"] * s["n"] * s["alpha"] / theirs.expression) == 0


def test_a_boundary_between_the_case_tables_names_answers_for_a_quantity_dividing_by_it() -> None:
    model = symgpu.load("prior_hong_kim")
    found = model.boundary("arithmetic_throughput", ("latency_bound", "memory_bound"), for_="n")
    s = model.symbols
    # by hand from the model file: latency_bound holds while n = MWP = Min(n, MWP_peak_bw) and n = CWP = Min(n, 1 + mem_lat/Comp_p),
    # so it ends where n reaches MWP_peak_bw = pin_BW*mem_lat/(clock*bytes_per_inst*SMs) or 1 + mem_lat/((alpha + 1)*instruction_time)
    peak = s["pin_BW"] * s["mem_lat"] / (s["clock"] * s["bytes_per_inst"] * s["SMs"])
    full = 1 + s["mem_lat"] / ((s["alpha"] + 1) * s["instruction_time"])
    roots = found.result.args if isinstance(found.result, sympy.Tuple) else (found.result,)
    assert len(roots) == 2
    assert {sympy.simplify(r - peak) == 0 or sympy.simplify(r - full) == 0 for r in roots} == {True}
    assert any(sympy.simplify(r - peak) == 0 for r in roots) and any(sympy.simplify(r - full) == 0 for r in roots)


#: a quantity with an inline Piecewise (no case ids of its own) and, in a model that has it, an unreached equation whose
#: case table has the same conditions: a regime of P is named by that table's ids (the request's key does not read it;
#: the values, bare numbers, are of another lookup class than P's pieces, so only the case tables' record tells the models apart)
_MODEL = """{header}
[symbols.P]
description = "a throughput"
unit = "1"
role = "output"

[symbols.Q]
description = "a time"
unit = "1"
role = "output"

[symbols.x]
description = "an input"
unit = "1"
assumptions = ["positive"]

[[equations]]
id = "p_eq"
defines = "P"
rhs = "Piecewise((3*x, x < 2), (x + 4, True))"
source = {{ ref = "toy2026", locator = "Eq. (1)" }}
{other}
[[derivations]]
id = "split"
op = "regimes"
quantity = "P"
variable = "x"
"""

_OTHER = """
[[equations]]
id = "q_eq"
defines = "Q"
cases = [
  {{ id = "small", when = "x < 2", value = "1" }},
  {{ id = "large", when = "otherwise", value = "2" }},
]
source = {{ ref = "toy2026", locator = "Eq. (2)" }}
"""


def _model(tmp_path: Path, folder: str, other: str) -> symgpu.Model:
    (tmp_path / folder).mkdir()
    path = tmp_path / folder / "named_cases.toml"
    path.write_text(_MODEL.format(header=toy_header("named_cases", "Named cases", "An inline case table, and an unreached equation with the same conditions."),
                                  other=other.format()), encoding="utf-8")
    return symgpu.load(path)


def test_a_stored_derivation_is_not_reused_where_another_case_table_would_name_its_pieces(tmp_path: Path) -> None:
    plain, named = _model(tmp_path, "plain", ""), _model(tmp_path, "named", _OTHER)
    first = requests.request(plain, "split")  # stored (the suite's cache is on)
    store.flush()
    reused = requests.request(named, "split")
    with store.using(store.Settings(enabled=False)):
        fresh = requests.request(named, "split")
    # plain: no case table names the pieces (the values 3*x and x + 4 are no case's value): piece1, piece2;
    # named: q_eq's conditions x < 2, otherwise are P's, so its ids small, large name them
    assert [r.name for r in first.regimes] == ["piece1", "piece2"]
    assert [r.name for r in fresh.regimes] == ["small", "large"]
    assert [r.name for r in reused.regimes] == ["small", "large"]



def test_zero_valued_cases_of_two_tables_are_named_by_their_own_table() -> None:
    found = symgpu.load(FIXTURES / "zero_cases.toml").regimes("blocks").regimes
    names = [r.name.split("#")[0] for r in found]
    # by hand from the model file: where t > 1024 and m <= 48, by_threads = 0 < by_memory = 96/m, so the threads
    # limiter binds in its case too_many_threads (the value 0 alone would name it by the first table with a 0 case)
    assert "too_many_threads+threads" in names
    own = {"threads": {"too_many_threads", "thread_slots"}, "memory": {"too_much_memory", "memory_slots"}}
    for name in names:  # each regime's case is one of its limiter's table
        case, limiter = name.split("+")
        assert case in own[limiter], name


_SMEM_BOUNDARY = ("boundary", "occupancy", "active_blocks_per_SM", "--for", "smem_per_block", "-p", "cc_3_5",
                  "-s", "threads_per_block=128", "-s", "regs_per_thread=40", "--between", "shared_memory+smem_limit")


def test_the_occupancy_boundary_named_with_the_model_case_ids_answers_the_brute_force_value(cli) -> None:  # type: ignore[no-untyped-def]
    # per_warp_allocation's value reads reg_alloc_unit_warp's case table (fermi_listed_counts, ordinary_counts), moved into
    # arithmetic; 40 registers are no listed Fermi count, so the regime is per_warp_allocation+ordinary_counts+register_limit
    code, out, err = cli(*_SMEM_BOUNDARY, "per_warp_allocation+ordinary_counts+register_limit")
    assert code == 0, err
    # by hand (cc_3_5: 64K registers in 4 sub-partitions, unit 256, 48 KiB shared memory, unit 256): 40*32 = 1280 registers a
    # warp, floor(16384/1280) = 12 warps per sub-partition, 48 warps, 4 a block: 12 blocks; shared memory 49152/4096 -> 12
    # blocks at 4096 B (a tie with the registers from 3585 B on), at 4097 B (4352 allocated) 11: registers bind, alone or
    # tied, up to and including 4096 B, shared memory alone from 4097 B on: the boundary is 4096 B/block
    assert "value: 4096 B/block" in out
    model = symgpu.load("occupancy")
    at = {"threads_per_block": 128, "regs_per_thread": 40}
    registers = model.evaluate("blocks_register_limit", "cc_3_5", values=at).magnitude
    assert registers == 12
    assert model.evaluate("blocks_smem_limit", "cc_3_5", values={**at, "smem_per_block": 4096}).magnitude == 12
    assert model.evaluate("blocks_smem_limit", "cc_3_5", values={**at, "smem_per_block": 4097}).magnitude == 11


def test_a_boundary_between_a_name_no_regime_has_is_refused_in_a_short_message_offering_the_names_with_its_parts(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli(*_SMEM_BOUNDARY, "per_warp_allocation+register_limit")
    assert_one_line_refusal(code, out, err, "has no regime per_warp_allocation+register_limit",
                            "per_warp_allocation+ordinary_counts+register_limit", "symgpu regimes occupancy active_blocks_per_SM")
    assert len(err) < 450  # 228 regimes: the message was 4016 characters, every name listed


def test_a_block_that_cannot_launch_is_named_by_its_own_reason_at_a_point(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand from NVIDIA's rules (and the occupancy model's cases, each of value 0): 2048 threads > 1024 a block (cc_9_0):
    # block_too_large, a warp_limit case; 200000 B > the 163 KiB a block may have on cc_8_0: smem_per_block_exceeded; cc_6_0,
    # 672 threads (21 warps), 88 registers (2816 a warp): 4 GP10x sub-partitions of 16384 hold 5 warps each, 20 < 21:
    # pascal_gp10x_compatibility. Each was named too_many_registers_per_thread (the first case of value 0).
    for preset, threads, regs, smem, expected in (("cc_9_0", 2048, 32, 0, "block_too_large+warp_limit"),
                                                  ("cc_8_0", 128, 16, 200000, "smem_per_block_exceeded+smem_limit"),
                                                  ("cc_6_0", 672, 88, 0, "pascal_gp10x_compatibility+register_limit")):
        code, out, err = cli("regimes", "occupancy", "active_blocks_per_SM", "-p", preset, "-s", f"threads_per_block={threads}",
                             "-s", f"regs_per_thread={regs}", "-s", f"smem_per_block={smem}")
        assert code == 0, err
        active = next(line for line in out.splitlines() if line.strip().startswith("active:"))
        assert active.split()[1].split("#")[0] == expected, active


def test_a_piece_whose_value_is_a_case_value_of_two_tables_is_named_by_neither() -> None:
    found = symgpu.load(FIXTURES / "zero_cases.toml").regimes("capped").regimes
    # capped = Piecewise((0, t > 2000), (t, True)): no table has its conditions, and its value 0 is the value of
    # too_many_threads and of too_much_memory, so it is the first piece, piece1 (it was named too_many_threads)
    assert [r.name for r in found] == ["piece1", "piece2"]
