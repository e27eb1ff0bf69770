"""The occupancy model (equations/occupancy.toml) and its wiring into other models (symgpu.kernel.occupancy).

Expected numbers come from the engine itself, from the model file's cited validation
cases, or from the cited sources named in each test (Volkov 2016 §5.7, the CUDA
Programming Guide, the CUDA Best Practices Guide).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import cli, errors
from symgpu.kernel import occupancy

ISSUE_PRESETS = ["cc_1_0", "cc_1_3", "cc_2_0", "cc_3_0", "cc_3_5", "cc_5_2", "cc_6_0", "cc_6_1", "cc_7_0", "cc_8_0", "cc_8_6", "cc_9_0"]
LIMITERS = {"warp_limit", "block_limit", "register_limit", "smem_limit", "barrier_limit"}


@pytest.fixture(scope="module")
def occ():
    return symgpu.load("occupancy")


def blocks(occ, quantity, preset, **values):
    return occ.evaluate(quantity, preset=preset, **values).magnitude


def launch(threads, regs, smem):
    return {"threads_per_block": threads, "regs_per_thread": regs, "smem_per_block": smem}


# ------------------------------------------------------------------------ the model file
def test_every_published_occupancy_number_in_the_file_is_reproduced(occ):
    results = symgpu.validate(occ)
    assert results and all(r.ok for r in results), [str(r) for r in results if not r.ok]


def test_every_compute_capability_of_the_issue_is_a_preset_with_every_limit(occ):
    hardware = ["max_threads_per_block", "max_warps_per_SM", "max_blocks_per_SM", "regs_per_SM", "max_regs_per_thread",
                "reg_alloc_unit", "reg_alloc_per_block", "subpartitions_per_SM", "warp_block_granularity",
                "smem_per_SM", "max_smem_per_block", "smem_alloc_unit", "smem_reserved_per_block",
                "reg_alloc_exception_factor", "compat_subpartitions_per_SM"]
    for preset in ISSUE_PRESETS:
        values = occ.preset(preset)
        assert all(name in values for name in hardware), (preset, sorted(set(hardware) - set(values)))


def test_unknown_compute_capability_is_an_error_not_a_guess(occ):
    with pytest.raises(errors.UsageError):
        occ.evaluate("active_blocks_per_SM", preset="cc_4_0", **launch(128, 16, 0))
    with pytest.raises(errors.UsageError):
        occupancy.compute("cc_13_0", 128, 16, 0)   # no such compute capability (yet)


def test_active_blocks_is_a_min_whose_five_arguments_are_the_named_limits(occ):
    equation = occ.equation_for("active_blocks_per_SM")
    assert isinstance(equation.rhs, sympy.Min) and len(equation.rhs.args) == 5
    assert {name for name, _ in equation.limiters} == LIMITERS
    assert {term for _, term in equation.limiters} == set(equation.rhs.args)


def test_active_warps_are_active_blocks_times_warps_per_block_symbolically(occ):
    difference = occ.expression("active_warps_per_SM") - occ.expression("active_blocks_per_SM") * occ.expression("warps_per_block")
    assert sympy.simplify(difference) == 0


def test_warp_allocation_is_the_plain_warp_count_when_the_block_granularity_is_one_warp(occ):
    s = occ.symbols
    expr = occ.expression("warps_alloc_per_block").subs(s["warp_block_granularity"], 1)
    assert sympy.simplify(expr - sympy.ceiling(s["threads_per_block"] / s["threads_per_warp"])) == 0


def test_registers_per_warp_are_a_whole_number_of_allocation_units(occ):
    s = occ.symbols
    ordinary = occ.expression("regs_per_warp").subs(s["reg_alloc_exception_factor"], 1)
    units_allocated = sympy.simplify(ordinary / s["reg_alloc_unit"])
    assert units_allocated == sympy.ceiling(s["regs_per_thread"] * s["threads_per_warp"] / s["reg_alloc_unit"])


@pytest.mark.parametrize("regs", range(1, 64))
def test_fermi_allocates_registers_in_128s_only_for_the_eight_listed_counts(occ, regs):
    # cuda_occupancy.h (CUDA 7.0), cudaOccRegAllocationGranularity case 2: 128 for these counts, 64 otherwise
    unit = 128 if regs in (21, 22, 29, 30, 37, 38, 45, 46) else 64
    expected = -(-regs * 32 // unit) * unit
    got = occ.evaluate("regs_per_warp", preset="cc_2_0", values=launch(128, regs, 0)).magnitude
    assert got == expected


def test_blocks_above_the_maximum_block_size_give_zero_blocks_by_the_warp_limit(occ):
    # CC 1.3 allows 512 threads per block: the CUDA occupancy API answers 0 blocks
    assert blocks(occ, "blocks_warp_limit", "cc_1_3", **launch(1024, 8, 0)) == 0
    assert blocks(occ, "active_blocks_per_SM", "cc_1_3", **launch(1024, 8, 0)) == 0
    assert blocks(occ, "active_blocks_per_SM", "cc_2_0", **launch(1024, 8, 0)) == 1


def test_more_registers_per_thread_than_the_maximum_give_zero_blocks_by_the_register_limit(occ):
    assert blocks(occ, "blocks_register_limit", "cc_3_0", **launch(64, 64, 0)) == 0    # 3.0: at most 63
    assert blocks(occ, "active_blocks_per_SM", "cc_3_0", **launch(64, 64, 0)) == 0
    assert blocks(occ, "blocks_register_limit", "cc_3_5", **launch(64, 64, 0)) == 16   # 3.5: up to 255


def test_a_block_whose_registers_exceed_the_register_file_gives_zero_blocks(occ):
    # 1024 threads x 65 registers on 6.1: 2304 registers per warp, 28 warps fit < 32
    assert blocks(occ, "blocks_register_limit", "cc_6_1", **launch(1024, 65, 0)) == 0
    assert blocks(occ, "active_blocks_per_SM", "cc_6_1", **launch(1024, 65, 0)) == 0


def test_a_block_that_fits_the_register_file_but_not_its_sub_partitions_gives_zero_blocks(occ):
    # issue 15: 200 registers x 320 threads = 64000 <= 65536 registers, but per warp
    # 200*32 = 6400 registers (a multiple of 256), floor(16384/6400) = 2 warps per
    # sub-partition, 4*2 = 8 warps per SM < 10 warps per block.
    assert 200 * 320 <= 65536 and (16384 // 6400) * 4 < 320 // 32
    assert blocks(occ, "regs_per_subpartition", "cc_9_0") == 16384
    assert blocks(occ, "warps_per_subpartition", "cc_9_0", **launch(320, 200, 0)) == 2
    assert blocks(occ, "blocks_register_limit", "cc_9_0", **launch(320, 200, 0)) == 0
    assert blocks(occ, "active_blocks_per_SM", "cc_9_0", **launch(320, 200, 0)) == 0
    assert blocks(occ, "active_blocks_per_SM", "cc_9_0", **launch(256, 200, 0)) == 1   # 8 warps fit


def test_zero_registers_impose_no_register_limit(occ):
    for preset in ISSUE_PRESETS:
        slots = occ.preset(preset)["max_blocks_per_SM"].magnitude
        assert blocks(occ, "blocks_register_limit", preset, **launch(64, 0, 0)) == slots
        expected = min(blocks(occ, "blocks_warp_limit", preset, **launch(64, 0, 0)), slots,
                       blocks(occ, "blocks_smem_limit", preset, **launch(64, 0, 0)))
        assert blocks(occ, "active_blocks_per_SM", preset, **launch(64, 0, 0)) == expected


def test_zero_shared_memory_imposes_no_limit_before_cc80_but_the_reserved_kilobyte_does_after(occ):
    for preset in ["cc_1_0", "cc_2_0", "cc_3_5", "cc_6_1", "cc_7_0"]:
        slots = occ.preset(preset)["max_blocks_per_SM"].magnitude
        assert blocks(occ, "blocks_smem_limit", preset, smem_per_block=0) == slots
    # CC >= 8.0: 1 KB reserved per block (Ampere Tuning Guide) -> 164, 100, 228 blocks
    assert blocks(occ, "smem_per_block_alloc", "cc_8_0", smem_per_block=0) == 1024
    assert blocks(occ, "smem_per_block_alloc", "cc_8_0", smem_per_block=1) == 1152
    assert [blocks(occ, "blocks_smem_limit", p, smem_per_block=0) for p in ["cc_8_0", "cc_8_6", "cc_9_0"]] == [164, 100, 228]


def test_the_largest_shared_memory_request_fits_exactly_one_block_on_cc80_and_later(occ):
    for preset in ["cc_8_0", "cc_8_6", "cc_9_0"]:
        largest = occ.preset(preset)["max_smem_per_block"].magnitude
        assert blocks(occ, "blocks_smem_limit", preset, smem_per_block=largest) == 1
        assert blocks(occ, "blocks_smem_limit", preset, smem_per_block=largest + 1) == 0


# --------------------------------------------------------- Volkov 2016 §5.7 (seed 001)
def test_volkov_kepler_3072_bytes_give_16_blocks_and_3073_bytes_give_14(occ):
    assert blocks(occ, "blocks_smem_limit", "cc_3_0", smem_per_block=3072) == 16
    assert blocks(occ, "smem_per_block_alloc", "cc_3_0", smem_per_block=3073) == 3328
    assert blocks(occ, "blocks_smem_limit", "cc_3_0", smem_per_block=3073) == 14


def test_volkov_kepler_shared_memory_cannot_constrain_occupancy_to_15_blocks(occ):
    smem = np.arange(0, 49153)
    reachable = set(np.unique(blocks(occ, "blocks_smem_limit", "cc_3_0", smem_per_block=smem)).astype(int))
    assert 16 in reachable and 14 in reachable and 15 not in reachable


def test_volkov_g80_and_gt200_shared_memory_cannot_constrain_occupancy_to_7_blocks(occ):
    smem = np.arange(0, 16385)
    for preset in ["cc_1_0", "cc_1_3"]:
        limit = blocks(occ, "blocks_smem_limit", preset, smem_per_block=smem)
        assert limit[2048] == 8 and limit[2049] == 6          # 512-byte rounding: 2048 -> 2560 bytes
        reachable = set(np.unique(limit).astype(int))
        assert 6 in reachable and 8 in reachable and 7 not in reachable


def test_volkov_maxwell_shared_memory_cannot_constrain_occupancy_to_one_block(occ):
    smem = np.arange(0, 49153)        # 48 KB per block at most, 96 KB per SM
    assert int(np.min(blocks(occ, "blocks_smem_limit", "cc_5_2", smem_per_block=smem))) == 2
    assert blocks(occ, "blocks_smem_limit", "cc_5_2", smem_per_block=49153) == 0   # cannot launch


# ------------------------------------------------ the derivation requests' expectations
def _derivation(occ, request_id):
    return next(r for r in occ.definition.derivations if r.id == request_id)


def _expect(occ, request_id, preset, **values):
    text = _derivation(occ, request_id).get("expect")
    expr = occ.parse(text, f"derivation {request_id}.expect")
    given = {**dict(occ.constants), **occ.preset(preset)}
    mapping = {occ.symbols[k]: sympy.Integer(int(round(float(v.magnitude)))) for k, v in given.items()}
    for name, value in values.items():
        mapping[occ.symbols[name]] = sympy.Integer(value)
    return int(expr.xreplace(mapping))


@pytest.mark.parametrize("preset, threads, k", [
    ("cc_6_1", 512, 2), ("cc_6_0", 512, 2), ("cc_7_0", 128, 12), ("cc_7_0", 320, 4), ("cc_2_0", 512, 2),
    ("cc_3_0", 256, 3), ("cc_8_6", 96, 5), ("cc_9_0", 1024, 1),
])
def test_declared_max_registers_for_k_blocks_matches_brute_force(occ, preset, threads, k):
    warps_alloc = blocks(occ, "warps_alloc_per_block", preset, threads_per_block=threads)
    closed_form = _expect(occ, "max_regs_for_k_blocks", preset, k_blocks=k, warps_alloc_per_block=int(warps_alloc))
    top = int(occ.preset(preset)["max_regs_per_thread"].magnitude)
    regs = np.arange(1, top + 1)
    limit = blocks(occ, "blocks_register_limit", preset, threads_per_block=threads, regs_per_thread=regs)
    brute = int(regs[limit >= k].max()) if np.any(limit >= k) else 0
    assert min(closed_form, top) == brute


def test_declared_max_registers_reproduce_the_guide_and_best_practices_examples(occ):
    # Programming Guide (CC 6.x): 64 registers still give 2 blocks of 512 threads, 65 do not.
    assert _expect(occ, "max_regs_for_k_blocks", "cc_6_1", k_blocks=2, warps_alloc_per_block=16) == 64
    # Best Practices (CC 7.0): 37 registers give 12 blocks of 128 threads; the bound is 40.
    assert _expect(occ, "max_regs_for_k_blocks", "cc_7_0", k_blocks=12, warps_alloc_per_block=4) == 40


@pytest.mark.parametrize("preset", ["cc_1_0", "cc_2_0", "cc_3_0", "cc_5_2", "cc_7_0", "cc_8_0", "cc_9_0"])
def test_declared_max_shared_memory_for_k_blocks_matches_brute_force(occ, preset):
    top = int(occ.preset(preset)["max_smem_per_block"].magnitude)
    smem = np.arange(0, top + 1)
    limit = blocks(occ, "blocks_smem_limit", preset, smem_per_block=smem)
    for k in [1, 2, 3, 7, 16]:
        closed_form = _expect(occ, "max_smem_for_k_blocks", preset, k_blocks=k)
        brute = int(smem[limit >= k].max())
        assert min(closed_form, top) == brute, (preset, k)
        assert blocks(occ, "smem_for_k_blocks", preset, k_blocks=k) == brute, (preset, k)


def test_volkov_3072_bytes_is_the_largest_request_for_16_and_for_15_kepler_blocks(occ):
    assert _expect(occ, "max_smem_for_k_blocks", "cc_3_0", k_blocks=16) == 3072
    assert _expect(occ, "max_smem_for_k_blocks", "cc_3_0", k_blocks=15) == 3072


def test_derivation_requests_cover_regimes_thresholds_block_size_and_boundaries(occ):
    ops = {r.id: r.op for r in occ.definition.derivations}
    assert ops["limiting_resource"] == "regimes"
    assert ops["max_regs_for_k_blocks"] == "solve" and ops["max_smem_for_k_blocks"] == "solve"
    assert ops["block_size_maximising_occupancy"] == "extremum"
    assert {"register_warp_boundary", "smem_register_boundary", "smem_block_boundary"} <= {i for i, op in ops.items() if op == "boundary"}


# --------------------------------------------------------------- wiring: symgpu.kernel.occupancy
def test_hong_kim_tiled_matmul_on_gtx280_is_limited_by_shared_memory_to_four_blocks():
    chain = occupancy.occupancy_chain("hong_kim_2009", "gtx280", 128, 18, 3960)
    assert chain.cc_preset == "cc_1_3"
    # CC 1.3: no barrier limit before CC 9.0, the block slots (8) stand in for it
    assert {k: float(v.magnitude) for k, v in chain.limits.items()} == {"warp_limit": 8, "block_limit": 8, "register_limit": 6, "smem_limit": 4,
                                                                       "barrier_limit": 8}
    assert chain.limiting == ("smem_limit",)
    assert float(chain.occupancy.magnitude) == 0.5
    assert "smem_limit" in str(chain)


def test_occupancy_values_are_keyed_and_unit_converted_for_hong_kim():
    values = occupancy.occupancy_values("hong_kim_2009", "gtx280", threads=128, regs=18, smem=3960)
    model = symgpu.load("hong_kim_2009")
    assert set(values) == {"Active_blocks_per_SM", "Active_warps_per_SM", "Threads_per_block"}
    for name, value in values.items():
        assert value.units == model.units[name]
    assert float(values["Active_blocks_per_SM"].magnitude) == 4
    assert float(values["Threads_per_block"].magnitude) == 128
    # N (Eq. 20) follows, and the values feed the model's evaluation
    assert float(model.evaluate("N", preset="gtx280", **values).magnitude) == 16
    rep = model.evaluate("Rep", preset="gtx280", Blocks=480, **values)
    assert float(rep.magnitude) == pytest.approx(480 / (4 * 30))


def test_a_compute_capability_preset_can_be_named_directly_and_gives_the_same_values():
    by_gpu = occupancy.occupancy_values("hong_kim_2009", "gtx280", 128, 18, 3960)
    by_cc = occupancy.occupancy_values("hong_kim_2009", "cc_1_3", 128, 18, 3960)
    assert {k: float(v.magnitude) for k, v in by_gpu.items()} == {k: float(v.magnitude) for k, v in by_cc.items()}


def test_every_bundled_occupancy_table_names_existing_symbols_and_compute_capabilities():
    occ = symgpu.load("occupancy")
    takers = []
    for model_id in symgpu.list_models():
        target = occupancy.mapping_of(model_id)
        if target is None:
            continue
        takers.append(model_id)
        model = symgpu.load(model_id)
        assert {name for name, _ in target.symbols} <= set(model.symbols), model_id
        assert {name for name, _ in target.presets} <= set(model.presets), model_id
        assert {cc for _, cc in target.presets} <= set(occ.presets), model_id
        assert {source for _, source in target.symbols} <= set(occ.symbols), model_id
    assert {"hong_kim_2009", "volkov_2016"} <= set(takers)


def test_an_occupancy_table_naming_an_undeclared_symbol_or_preset_is_refused_at_load(tmp_path):
    from conftest import read_fixture

    base = read_fixture("tiny")
    for table, found in (('[occupancy.symbols]\nnot_a_symbol = "active_warps_per_SM"\n[occupancy.presets]\ntoy = "cc_8_0"\n', "unknown symbol 'not_a_symbol'"),
                         ('[occupancy.symbols]\nI = "active_warps_per_SM"\n[occupancy.presets]\nno_gpu = "cc_8_0"\n', "unknown preset 'no_gpu'"),
                         ('[occupancy.symbols]\n[occupancy.presets]\ntoy = "cc_8_0"\n', r"\[occupancy\]\.symbols: no symbols given"),
                         ('[occupancy.symbols]\nI = 3\n[occupancy.presets]\ntoy = "cc_8_0"\n', r"\[occupancy\]\.symbols\.I: expected the occupancy model's name as text, found int")):
        path = tmp_path / "tiny.toml"
        path.write_text(base + '\n[occupancy]\nsource = "a test"\n' + table, encoding="utf-8")
        with pytest.raises(errors.ModelFileError, match=found):
            symgpu.load(str(path))


def test_a_gpu_without_a_known_compute_capability_is_an_error_never_a_guess():
    with pytest.raises(errors.UsageError, match="no compute capability"):
        occupancy.occupancy_values("hong_kim_2009", "table2_example", 128, 18, 3960)
    with pytest.raises(errors.UsageError, match="no compute capability"):
        occupancy.occupancy_values("hong_kim_2009", "cc_4_0", 128, 18, 3960)
    with pytest.raises(errors.UsageError, match=r"takes no occupancy \(its file .* has no \[occupancy\] table\)"):
        occupancy.occupancy_values("interval_analysis", "cc_6_1", 128, 18, 0)


def test_a_launch_that_cannot_run_feeds_no_model_and_names_the_limit():
    # occupancy itself answers 0 blocks; a model of a kernel that never runs has no prediction
    with pytest.raises(errors.DomainError, match=r"^occupancy: the launch cannot run on cc_1_3 \(0 active blocks per SM, limited by warp_limit, register_limit\)"):
        # CC 1.3: 512 threads at most; and 18*32*32 = 18432 registers per block > 16384
        occupancy.occupancy_values("hong_kim_2009", "gtx280", 1024, 18, 0)
    with pytest.raises(errors.DomainError, match=r"limited by smem_limit"):
        occupancy.occupancy_values("hong_kim_2009", "8800gtx", 128, 18, 16385)  # 16 KB per block at most


def test_ties_name_every_limiting_resource_but_not_the_limits_the_header_leaves_unbounded():
    # CC 7.0, 32 threads: 32 block slots bind. No registers, no shared memory and no barrier rule before CC 9.0 are
    # INT_MAX in cuda_occupancy.h (never a limiting factor); the model's stand-in value ties the slots but is not named
    chain = occupancy.compute("cc_7_0", 32, 0, 0)
    assert chain.limiting == ("block_limit",)
    assert (chain.cases["register_limit"], chain.cases["smem_limit"], chain.cases["barrier_limit"]) == ("no_registers", "no_shared_memory", "no_barrier_limit")
    assert all(float(chain.limits[n].magnitude) == 32 for n in ("register_limit", "smem_limit", "barrier_limit"))
    # CC 12.0 with the header's default of 1 named barrier: 24 barriers per SM / 1 = the 24 block slots (the header
    # reports OCC_LIMIT_BARRIERS with OCC_LIMIT_BLOCKS); 32 reg x 32 = 1024 reg/warp, 64 warps, 64 blocks; warps 48/1 = 48
    chain = occupancy.compute("cc_12_0", 32, 32, 0)
    assert set(chain.limiting) == {"block_limit", "barrier_limit"} and chain.cases["barrier_limit"] == "named_barriers"
    chain = occupancy.compute("cc_3_0", 256, 32, 0)  # 8 blocks by warps and by registers
    assert set(chain.limiting) == {"warp_limit", "register_limit"}


def test_named_barriers_limit_hopper_and_blackwell_but_not_earlier_compute_capabilities(occ):
    # 64 threads, 32 registers, no shared memory: warps, slots and registers all allow 32 blocks on CC 8.0-10.0
    for barriers, expected in [(0, 32), (1, 32), (2, 32), (3, 64 // 3), (5, 64 // 5), (16, 64 // 16)]:
        for preset in ("cc_9_0", "cc_10_0"):      # 2 x 32 = 64 barriers per SM
            assert blocks(occ, "active_blocks_per_SM", preset, **launch(64, 32, 0), barriers_per_block=barriers) == expected
        assert blocks(occ, "active_blocks_per_SM", "cc_8_0", **launch(64, 32, 0), barriers_per_block=barriers) == 32
    # CC 12.0: 1 x 24 = 24 barriers per SM; 3 barriers -> 8 blocks (warps 48/2 = 24, slots 24)
    assert blocks(occ, "active_blocks_per_SM", "cc_12_0", **launch(64, 32, 0), barriers_per_block=3) == 8
    result = occupancy.compute("cc_9_0", 64, 32, 0, extra={"barriers_per_block": 3})
    assert result.limiting == ("barrier_limit",) and "(the reason: named barriers)" in result.reasons["barrier_limit"]


def test_volkov_occupancy_n_comes_from_the_launch_when_the_model_loads():
    try:
        symgpu.load("volkov_2016")
    except (errors.UsageError, errors.ModelFileError) as exc:
        pytest.skip(f"volkov_2016 does not load: {exc}")
    values = occupancy.occupancy_values("volkov_2016", "kepler", 256, 32, 0)
    assert set(values) == {"n"} and float(values["n"].magnitude) == 64


def test_the_occupancy_option_text_is_parsed_strictly():
    assert occupancy.parse_spec("threads=128,regs=18,smem=3960") == {"threads": 128, "regs": 18, "smem": 3960}
    assert occupancy.parse_spec("threads=256, regs=0, smem=48 KiB")["smem"] == 49152
    for bad in ["threads=128,regs=18", "threads=128,regs=18,smem=3960,extra=1", "threads=12.5,regs=1,smem=0",
                "threads=128,regs=-1,smem=0", "threads=128,regs=18,smem=3 s", "threads128"]:
        with pytest.raises(errors.UsageError):
            occupancy.parse_spec(bad)


# ------------------------------------------------------- 0 blocks: the limiter and its reason
# Hand-computed on CC 9.0 (65536 registers in 4 sub-partitions of 16384, 256-register units, at most
# 1024 threads and 255 registers per thread, 227 KiB of shared memory per block):
CANNOT_LAUNCH_CC90 = [
    # 200 x 32 = 6400 reg/warp; floor(16384/6400) = 2 warps per sub-partition, 8 per SM < 10 warps of 320 threads
    ((320, 200, 0), "register_limit", "per_warp_allocation", "register file per sub-partition"),
    ((1056, 16, 0), "warp_limit", "block_too_large", "threads per block"),            # 1056 > 1024
    ((128, 256, 0), "register_limit", "too_many_registers_per_thread", "registers per thread"),   # 256 > 255
    ((128, 16, 227 * 1024 + 1), "smem_limit", "smem_per_block_exceeded", "shared memory per block"),
]


@pytest.mark.parametrize("launch_, limit, case, reason", CANNOT_LAUNCH_CC90, ids=[c[2] for c in CANNOT_LAUNCH_CC90])
def test_a_block_that_cannot_launch_names_its_limit_case_and_reason_in_the_api(launch_, limit, case, reason):
    result = occupancy.compute("cc_9_0", *launch_)
    assert not result.can_launch and float(result.active_blocks.magnitude) == 0
    assert result.limiting == (limit,)
    assert result.cases[limit] == case and f"(the reason: {reason})" in result.reasons[limit]


def test_one_register_step_below_the_sub_partition_limit_launches_one_block():
    # 168 x 32 = 5376 reg/warp; floor(16384/5376) = 3 warps per sub-partition, 12 per SM >= 10: floor(12/10) = 1 block
    result = occupancy.compute("cc_9_0", 320, 168, 0)
    assert result.can_launch and float(result.active_blocks.magnitude) == 1
    assert result.limiting == ("register_limit",) and result.cases["register_limit"] == "per_warp_allocation"


@pytest.mark.parametrize("launch_, limit, case, reason", CANNOT_LAUNCH_CC90, ids=[c[2] for c in CANNOT_LAUNCH_CC90])
def test_eval_prints_zero_and_names_the_limit_that_stops_the_launch(capsys, launch_, limit, case, reason):
    threads, regs, smem = launch_
    code = cli.main(["eval", "occupancy", "active_blocks_per_SM", "--preset", "cc_9_0", "--set", f"threads_per_block={threads}",
                     "--set", f"regs_per_thread={regs}", "--set", f"smem_per_block={smem}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "active_blocks_per_SM = 0 block/SM"
    assert "the block cannot launch on cc_9_0" in lines[1] and f"limited by {limit} [{case}]" in lines[1]
    assert f"(the reason: {reason})" in " ".join(l.strip() for l in lines[2:])
    assert max(len(l) for l in lines) <= 200


def test_eval_json_of_a_launch_that_cannot_run_carries_the_limit_and_case(capsys):
    code = cli.main(["eval", "occupancy", "occupancy", "--preset", "cc_9_0", "--set", "threads_per_block=320",
                     "--set", "regs_per_thread=200", "--set", "smem_per_block=0", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["value"] == 0 and record["can_launch"] is False
    assert [(l["limit"], l["case"]) for l in record["limiting"]] == [("register_limit", "per_warp_allocation")]


def test_eval_of_a_launch_that_runs_names_its_binding_limits(capsys):
    # 32 x 32 = 1024 reg/warp: 16 warps per sub-partition, 64 per SM; 256 threads = 8 warps -> 8 blocks by registers and by warp slots
    assert cli.main(["eval", "occupancy", "active_warps_per_SM", "--preset", "cc_9_0", "--set", "threads_per_block=256",
                     "--set", "regs_per_thread=32", "--set", "smem_per_block=0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["active_warps_per_SM = 64 warp/SM", "  limited by warp_limit [warp_slots], register_limit [per_warp_allocation] (8 block / SM)"]
