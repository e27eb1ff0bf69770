"""A ``floor``/``ceiling`` takes the whole part of its argument's base-unit value (F10/F7 of the seventh
outside test). A derived closed form's ``floor(t_latency/(L_M*(reads + rereads + writes)))``, t_latency in us
and L_M in ns, was floored in us/ns (1 ms / 990 ns read as 1000/990: floor 1, times the factor 1000), so
kernel_row_reduction's and kernel_gemm's largest grids were off by the scale (exit 0) or "no admissible
blocks" (exit 1). A staircase equation's target, put in as a bare number beside ``L_M*waves`` in ns, was
read as 1.98 ns. A floor of a value in a scaled unit of a dimension (``floor(L)``, L in ns), where whole ns
and whole s would differ, is refused by the model check.

Expected values by hand from the model files:
kernel_row_reduction at h100_sxm+neusight_fit, rereads = 1, 256 threads per block, block_limit omitted:
  warps per block ceiling(256/32) = 8, resident blocks floor(64/8) = 8, so a wave is 132*8 = 1056 blocks;
  t_latency = ceiling(blocks/1056)*(1 + 1 + 1)*330 ns = waves*990 ns.
  <= 1 ms:  waves <= floor(1e6/990) = floor(1010.1) = 1010, blocks <= 1010*1056 = 1066560
            (1066560 blocks: 1010*990 ns = 999.9 us; 1066561: 1011 waves, 1000.89 us)
  <= 10 us: waves <= floor(10000/990) = 10, blocks <= 10560 (9.9 us; 10561: 10.89 us)
  >= 1 ms:  waves >= 1011, blocks > 1066560: the least is approached, 1066560
  = 1.98 us: waves = 2, every blocks in (1056, 2112]
kernel_gemm at l4+neusight_fit, K_red = 2048, 128x128 tiles, split_k = 1 (clock_bound omitted):
  P_sustained = min(31334 GFLOP/s, 72 W/14.2 pJ) = 72/14.2e-12 flop/s; one wave of 60 blocks takes
  2*128*128*2048*60/(0.839*P_sustained) = 946.5 us (Fraction arithmetic below), so <= T allows
  60*floor(T/one_wave) blocks: 60 at 1 ms, 63390780 at 1000 s.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import symgpu
from symgpu import errors, units
from symgpu.evaluate import evaluator

from conftest import read_fixture

ROW = ("kernel_row_reduction", "h100_sxm+neusight_fit", {"rereads": 1, "threads_per_block": 256})
GEMM = ("kernel_gemm", "l4+neusight_fit", {"K_red": 2048, "tile_m": 128, "tile_n": 128, "split_k": 1})
WAVE = 132 * 8  # blocks per wave of kernel_row_reduction at the point
ONE_WAVE_GEMM = Fraction(2 * 128 * 128 * 2048 * 60) / (Fraction("0.839") * Fraction(72) / Fraction("14.2e-12"))  # seconds


def gemm_blocks(seconds: Fraction) -> int:
    return 60 * math.floor(seconds / ONE_WAVE_GEMM)


def test_the_hand_arithmetic_of_the_expected_values() -> None:
    assert math.floor(Fraction(10**6, 990)) == 1010 and 1010 * WAVE == 1066560
    assert math.floor(Fraction(10**4, 990)) * WAVE == 10560
    assert float(ONE_WAVE_GEMM) == pytest.approx(946.5096e-6, rel=1e-6)
    assert gemm_blocks(Fraction(1, 1000)) == 60 and gemm_blocks(Fraction(1000)) == 63390780


def solved(model_id: str, preset: str, values: dict[str, int], quantity: str, relation: str, target: str, kind: str,
           omit: str) -> tuple[symgpu.Model, object]:
    model = symgpu.load(model_id)
    return model, model.solve(quantity, for_="blocks", relation=relation, target=target, kind=kind, omit=[omit], preset=preset,
                              values=values)


@pytest.mark.parametrize("target, largest", [("1 ms", 1066560), ("10 us", 10560)])
def test_row_reduction_largest_grid_within_a_latency_counts_whole_waves(cli, target: str, largest: int) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = ROW
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("solve", model_id, "t_latency", "--for", "blocks", "--relation", "<=", "--target", target, "--kind", "max",
                         "--preset", preset, *sets, "--omit", "block_limit")
    assert code == 0, err
    assert f"value: {largest} block" in out
    model = symgpu.load(model_id)
    limit = units.quantity(target).to("us").magnitude
    assert model.evaluate("t_latency", preset, values={**values, "blocks": largest}).to("us").magnitude <= limit
    assert model.evaluate("t_latency", preset, values={**values, "blocks": largest + 1}).to("us").magnitude > limit


def test_row_reduction_through_the_api_evaluates_the_closed_form_in_base_units() -> None:
    model_id, preset, values = ROW
    model, derivation = solved(model_id, preset, values, "t_latency", "<=", "1 ms", "max", "block_limit")
    assert "floor(t_latency/(L_M*(reads + rereads + writes)))" in str(derivation.result)  # type: ignore[attr-defined]
    for target in ("1 ms", 1000):
        value = symgpu.derive.evaluate_result(model, derivation, preset, **values, t_latency=target)  # type: ignore[arg-type]
        assert value.magnitude == pytest.approx(1066560, rel=1e-12)


def test_row_reduction_least_grid_above_a_latency_is_approached_at_the_last_whole_wave(cli) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = ROW
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("solve", model_id, "t_latency", "--for", "blocks", "--relation", ">=", "--target", "1 ms", "--kind", "min",
                         "--preset", preset, *sets, "--omit", "block_limit")
    assert code == 0, err
    assert "value: 1066560 block" in out and "approached" in out
    model = symgpu.load(model_id)
    assert model.evaluate("t_latency", preset, values={**values, "blocks": 1066561}).to("us").magnitude >= 1000


def test_row_reduction_equation_on_a_step_is_the_steps_range_of_grids(cli) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = ROW
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("solve", model_id, "t_latency", "--for", "blocks", "--target", "1.98 us", "--preset", preset, *sets,
                         "--omit", "block_limit", "--json")
    assert code == 0, err  # before: "has no admissible solution for blocks" (1.98 read as ns)
    ranges = json.loads(out)["extra"]["ranges"]
    assert [r["regime"] for r in ranges] == ["ceiling(blocks/(n_SM*floor(max_warps_SM/ceiling(threads_per_block/warp_size)))) = 2"]
    model = symgpu.load(model_id)
    at = [model.evaluate("t_latency", preset, values={**values, "blocks": b}).to("ns").magnitude for b in (1056, 1057, 2112, 2113)]
    assert at == pytest.approx([990, 1980, 1980, 2970])


@pytest.mark.parametrize("target, seconds", [("1 ms", Fraction(1, 1000)), ("1000 s", Fraction(1000))])
def test_gemm_largest_grid_within_a_compute_time_counts_whole_waves(cli, target: str, seconds: Fraction) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = GEMM
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("solve", model_id, "t_compute", "--for", "blocks", "--relation", "<=", "--target", target, "--kind", "max",
                         "--preset", preset, *sets, "--omit", "clock_bound")
    assert code == 0, err
    largest = gemm_blocks(seconds)
    assert f"value: {largest} block" in out
    model = symgpu.load(model_id)
    assert model.evaluate("t_compute", preset, values={**values, "blocks": largest}).to("s").magnitude <= float(seconds)
    assert model.evaluate("t_compute", preset, values={**values, "blocks": largest + 1}).to("s").magnitude > float(seconds)


def test_gemm_with_p_sustained_kept_passes_its_certificate(cli) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = GEMM
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("solve", model_id, "t_compute", "--for", "blocks", "--relation", "<=", "--target", "1 ms", "--kind", "max",
                         "--preset", preset, *sets, "--keep", "P_sustained", "--assume", "P_sustained > 0")
    assert code == 0, err  # before: "the maximum blocks = 0 is outside its declared range ... please report it"
    assert f"value: {gemm_blocks(Fraction(1, 1000))} block" in out


def test_an_unproved_sign_at_a_point_names_the_kept_quantity_not_ask_at_a_point(cli) -> None:  # type: ignore[no-untyped-def]
    model_id, preset, values = GEMM
    sets = [a for k, v in values.items() for a in ("--set", f"{k}={v}")]
    code, _, err = cli("solve", model_id, "t_compute", "--for", "blocks", "--relation", "<=", "--target", "1 ms", "--kind", "max",
                       "--preset", preset, *sets, "--keep", "P_sustained")
    assert code == 2
    assert "ask at a point" not in err
    assert "P_sustained has no value" in err and "--assume 'P_sustained > 0'" in err
    code, _, err = cli("solve", model_id, "t_compute", "--for", "blocks", "--relation", "<=", "--target", "1 ms", "--kind", "max",
                       "--keep", "P_sustained")
    assert code == 2 and "ask at a point (--preset, --set)" in err


def test_a_floor_of_a_ratio_of_prefixed_units_is_the_whole_part_of_the_pure_number(write_model) -> None:  # type: ignore[no-untyped-def]
    text = read_fixture("scales") + '\n[symbols.cycles_of_L]\ndescription = "whole L in T"\nunit = "1"\nrole = "output"\n' \
        '[symbols.T]\ndescription = "a time"\nunit = "us"\n' \
        '[[equations]]\nid = "cycles_of_L"\ndefines = "cycles_of_L"\nrhs = "floor(T/L)"\nsource = "test"\n'
    model = symgpu.load(write_model(text, name="scales"))
    # 1 us / 330 ns = 3.03: floor 3 (before: floor(1/330) in us/ns, times 1000: 0)
    assert model.evaluate("cycles_of_L", T=1, L=330).magnitude == 3
    assert evaluator.exact(model, "cycles_of_L", values={"T": 1, "L": 330}) == 3


def test_a_floor_of_a_value_in_a_scaled_unit_is_refused_by_the_model_check(write_model, refused_whole) -> None:  # type: ignore[no-untyped-def]
    text = read_fixture("scales").replace('rhs = "L + 1"', 'rhs = "floor(L) + 1"')
    path = write_model(text, name="scales")
    refused = refused_whole(path, errors.UnitMismatchError, r"equation L_plus: 'floor\(L\)' takes the whole part of a value in ns")
    with pytest.raises(errors.UnitMismatchError) as read:  # and by a question that reads the equation
        symgpu.load(path).expression("L_plus")
    assert str(read.value) == str(refused)


def _blocks_per_sm(smem_sm_unit: str) -> str:
    """Resident blocks per SM by shared memory: ``floor(smem_SM/smem_block)``, smem_block in B/block."""
    return f'''schema_version = 1
[model]
id = "blocks"
title = "Blocks per SM by shared memory"
summary = "The whole number of blocks whose shared memory fits an SM's."
references = ["r"]
[references.r]
authors = ["T"]
title = "T"
venue = "notes"
year = 2026
[symbols.smem_SM]
description = "shared memory per SM"
unit = "{smem_sm_unit}"
assumptions = ["positive"]
[symbols.smem_block]
description = "shared memory per block"
unit = "B/block"
assumptions = ["positive"]
[symbols.res]
description = "resident blocks"
unit = "block/SM"
role = "output"
[[equations]]
id = "r"
defines = "res"
rhs = "floor(smem_SM/smem_block)"
source = {{ ref = "r", locator = "1" }}
'''


def test_a_floor_of_a_count_in_kib_over_b_says_to_declare_both_in_one_unit_not_a_constant_of_1024_blocks(  # type: ignore[no-untyped-def]
        write_model, refused_whole) -> None:
    # round 13, F8: the hint was a constant one_unit = "1 block*KiB/B/SM", whose whole parts count groups of 1024 blocks
    # (0 blocks at 100 KiB and 20000 B); declaring both in B gives floor(102400 B / 20000 B) = 5, as meant
    path = write_model(_blocks_per_sm("KiB/SM"), name="blocks")
    message = str(refused_whole(path, errors.UnitMismatchError))
    with pytest.raises(errors.UnitMismatchError) as read:  # and by a question that reads the equation
        symgpu.load(path).evaluate("res", smem_SM=100 * 1024, smem_block=20000)
    assert str(read.value) == message
    assert "declare the symbols in KiB and in B in one unit (all in B, say)" in message and "one_unit" not in message
    followed = symgpu.load(write_model(_blocks_per_sm("B/SM"), name="blocks"))
    assert followed.evaluate("res", smem_SM=100 * 1024, smem_block=20000).magnitude == 102400 // 20000 == 5
