"""symgpu.kernel: compiler resource usage, Nsight Compute metrics, metric mappings and ``symgpu kernel``.

Expected numbers are read off the committed compiler output (data/kernels, real nvcc 13.0
output) and the synthetic Nsight Compute sample (data/ncu), with the arithmetic written out.
"""

from __future__ import annotations

import csv
import dataclasses
import shutil
from pathlib import Path

import pytest

import symgpu
from symgpu import cli, errors
from symgpu.kernel import answer, mapping, ncu, resources

DATA = Path(__file__).resolve().parent.parent / "data"
KERNELS = DATA / "kernels"
NCU = DATA / "ncu" / "scale_h100_raw_synthetic.csv"


def by_name(kernels, name):
    return next(k for k in kernels if k.name == name)


def test_ptxas_output_gives_registers_shared_memory_and_barriers_per_kernel():
    kernels = resources.read(KERNELS / "ptxas_v_kernels_sm90.txt")
    assert [k.name for k in kernels] == ["_Z10reduce_sumIdLi2EEvPKT_PS0_i", "_Z10reduce_sumIfLi1EEvPKT_PS0_i", "_Z12matmul_tiledPKfS0_Pfi", "scale"]
    matmul = by_name(kernels, "_Z12matmul_tiledPKfS0_Pfi")
    # "Used 32 registers, used 1 barriers, 2048 bytes smem" (two 16x16 float tiles = 2*16*16*4 B)
    assert (matmul.registers, matmul.shared_bytes, matmul.barriers, matmul.arch) == (32, 2 * 16 * 16 * 4, 1, "sm_90")
    assert by_name(kernels, "scale").shared_bytes == 0 and by_name(kernels, "scale").registers == 10


def test_spilling_kernel_reports_its_stack_frame_and_spill_bytes():
    (kernel,) = resources.read(KERNELS / "ptxas_v_spill_sm90.txt")
    assert (kernel.registers, kernel.local_bytes, kernel.spill_stores, kernel.spill_loads) == (32, 1040, 1160, 1356)
    assert kernel.spills


def test_cuobjdump_format_gives_the_same_fields_as_ptxas_for_the_same_compilation():
    from_ptxas = resources.read(KERNELS / "resource_usage_kernels_sm80.txt")
    from_cuobjdump = resources.read(KERNELS / "cuobjdump_resource_usage_kernels_sm80.txt")
    for a, b in zip(from_ptxas, from_cuobjdump):
        assert (a.name, a.registers, a.shared_bytes, a.constant_bytes, a.arch) == (b.name, b.registers, b.shared_bytes, b.constant_bytes, b.arch)


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt not installed")
def test_mangled_names_are_demangled_and_selectable_by_their_plain_name():
    kernels = resources.read(KERNELS / "ptxas_v_kernels_sm90.txt")
    assert by_name(kernels, "_Z12matmul_tiledPKfS0_Pfi").demangled == "matmul_tiled(float const*, float const*, float*, int)"
    assert resources.select(kernels, "matmul_tiled").name == "_Z12matmul_tiledPKfS0_Pfi"
    assert by_name(kernels, "scale").demangled == ""   # extern "C": not mangled


def test_malformed_resource_line_names_file_line_and_expected_form():
    with pytest.raises(errors.UsageError, match=r"^.*malformed_ptxas\.txt:9: cannot read 'ptxas info    : Used lots of registers, used 0 barriers'; expected 'Used N registers"):
        resources.read(KERNELS / "malformed_ptxas.txt")
    with pytest.raises(errors.UsageError, match=r"^<text>:2: cannot read 'REG:x'"):
        resources.parse(" Function k:\n  REG:x STACK:0 SHARED:0\n")
    with pytest.raises(errors.UsageError, match=r"^<text>: no kernel resource usage found"):
        resources.parse("nothing here\n")


def test_several_kernels_without_a_name_is_a_usage_error():
    with pytest.raises(errors.UsageError, match=r"^4 kernels in the compiler output"):
        resources.select(resources.read(KERNELS / "ptxas_v_kernels_sm90.txt"), None)


def test_answer_for_the_tiled_matmul_on_hopper():
    kernel = resources.select(resources.read(KERNELS / "ptxas_v_kernels_sm90.txt"), "_Z12matmul_tiledPKfS0_Pfi")
    result = answer.answer(kernel, "cc_9_0", 256)
    # 32 reg x 32 = 1024 reg/warp; 16384/1024 = 16 warps per sub-partition, 64 per SM; 8 warps/block -> 8 blocks;
    # warp slots 64/8 = 8; shared memory (2048 + 1024) = 3072 B -> 233472/3072 = 76 blocks
    assert (result.active_blocks, result.active_warps, result.occupancy) == (8, 64, 1.0)
    limits = {l.name: l.blocks for l in result.limits}
    # ptxas: used 1 barriers (__syncthreads); 2 x 32 = 64 barriers per SM -> 64 blocks
    assert limits == {"warp_limit": 8, "block_limit": 32, "register_limit": 8, "smem_limit": 233472 // 3072, "barrier_limit": 64}
    # 33 registers: 33*32 = 1056 -> 1280 reg/warp, 12 warps per sub-partition, 48 per SM, 6 blocks
    assert result.register_step.keeps_up_to == 32 and result.register_step.better_at is None
    assert result.best_block_sizes == (64, 128, 256, 512, 1024)


def test_a_block_that_cannot_launch_answers_zero_and_names_the_sub_partition_register_case():
    kernel = dataclasses.replace(resources.select(resources.read(KERNELS / "ptxas_v_kernels_sm90.txt"), "scale"), registers=200)
    result = answer.answer(kernel, "cc_9_0", 320)
    assert result.active_blocks == 0 and not result.can_launch
    binding = [l for l in result.limits if l.binding]
    assert [(l.name, l.case) for l in binding] == [("register_limit", "per_warp_allocation")]
    # 168 registers: 168*32 = 5376 reg/warp, 3 warps per 16384-register sub-partition, 12 >= 10 warps
    assert (result.register_step.better_at, result.register_step.better_blocks) == (168, 1)
    too_big = answer.answer(kernel, "cc_9_0", 2048)
    assert [(l.name, l.case) for l in too_big.limits if l.binding][0] == ("warp_limit", "block_too_large")


def test_three_named_barriers_limit_a_hopper_kernel_to_21_blocks():
    kernel = resources.select(resources.read(KERNELS / "ptxas_v_named_barriers_sm90.txt"), None)
    assert kernel.barriers == 3
    result = answer.answer(kernel, "cc_9_0", 64)
    # 64 threads = 2 warps: warp slots 64/2 = 32; 32 block slots; 32 reg x 32 = 1024 reg/warp, 16384/1024 = 16 warps per
    # sub-partition, 64 per SM -> 32 blocks; shared memory 2048 + 1024 reserved = 3072 B -> 233472/3072 = 76 blocks;
    # named barriers: 2 x 32 = 64 per SM, 3 per block -> 64 // 3 = 21 blocks
    limits = {l.name: l.blocks for l in result.limits}
    assert limits == {"warp_limit": 32, "block_limit": 32, "register_limit": 32, "smem_limit": 233472 // 3072, "barrier_limit": 64 // 3}
    assert (result.active_blocks, result.active_warps) == (21, 42)
    assert [(l.name, l.case) for l in result.limits if l.binding] == [("barrier_limit", "named_barriers")]
    # before CC 9.0 the header applies no barrier limit: the block slots (32 on CC 8.0) bind
    ampere = answer.answer(kernel, "cc_8_0", 64)
    assert ampere.active_blocks == 32 and ("barrier_limit", "no_barrier_limit") in [(l.name, l.case) for l in ampere.limits]


def test_cli_kernel_names_the_barrier_limit(capsys):
    code = cli.main(["kernel", str(KERNELS / "ptxas_v_named_barriers_sm90.txt"), "--threads", "64", "--cc", "cc_9_0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "3 named barriers/block" in out and "active blocks per SM: 21" in out
    assert "barrier_limit: 21 block/SM [named_barriers]  <- binds" in out
    assert max(len(line) for line in out.splitlines()) <= 200


def test_ncu_export_values_are_numbers_with_units_and_percentages_become_fractions():
    launches = ncu.read(NCU)
    first = launches[0]
    assert first.kernel == "scale" and first.origin.endswith(":3")
    assert first.metric("smsp__inst_executed.sum").magnitude == 6291456
    assert first.metric("gpu__time_duration.sum").to("us").magnitude == pytest.approx(46.336)
    assert first.metric("sm__warps_active.avg.pct_of_peak_sustained_active").magnitude == pytest.approx(0.8531)
    with pytest.raises(errors.UsageError, match=r"no metric 'dram__bytes_write.sum'"):
        first.metric("dram__bytes_write.sum")


def test_ncu_unknown_unit_is_refused(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text('"ID","Kernel Name","m"\n"","","furlong"\n"0","k","1"\n')
    with pytest.raises(errors.UsageError, match=r"^.*x\.csv:2: metric 'm' has unit 'furlong', which symgpu does not know"):
        ncu.read(path)


def test_hong_kim_inputs_from_metrics_with_the_metrics_they_came_from():
    model = symgpu.load("hong_kim_2009")
    derived = {d.symbol: d for d in mapping.derive(mapping.load(model), model, ncu.read(NCU)[0])}
    # (6291456 - 524288 - 524288) / 524288 warps = 10 instructions per warp; 2 global memory instructions
    assert derived["Comp_insts"].value.magnitude == 10 and derived["Comp_insts"].value.to("winst").magnitude == 10
    # 2097152 sectors / 524288 requests = 4 per request: coalesced
    assert derived["Coal_Mem_insts"].value.magnitude == 2 and derived["Uncoal_Mem_insts"].value.magnitude == 0
    assert "smsp__warps_launched.sum" in dict(derived["Comp_insts"].metrics)
    assert derived["Blocks"].value.magnitude == 65536


def test_missing_metric_and_wrong_target_unit_are_clear_errors(tmp_path):
    model = symgpu.load("hong_kim_2009")
    launch = dataclasses.replace(ncu.read(NCU)[0], metrics={})
    with pytest.raises(errors.UsageError, match=r"Comp_insts = .* needs metric\(s\) .*smsp__inst_executed.sum"):
        mapping.derive(mapping.load(model), model, launch)
    bad = tmp_path / "hk.toml"
    bad.write_text(mapping.path_for("hong_kim_2009").read_text().replace('expression = "grid*one_block"', 'expression = "grid"'))
    with pytest.raises(errors.UnitMismatchError, match=r"inputs\.Blocks: 'grid' has dimension .*but hong_kim_2009\.Blocks is in block"):
        mapping.load(model, bad)
    unknown = tmp_path / "hk2.toml"
    unknown.write_text(mapping.path_for("hong_kim_2009").read_text().replace("[inputs.Blocks]", "[inputs.Nope]"))
    with pytest.raises(errors.ModelFileError, match=r"'Nope' is not an input symbol of hong_kim_2009"):
        mapping.load(model, unknown)


def test_every_bundled_mapping_loads_against_its_model():
    for path in sorted(mapping.FOLDER.glob("*.toml")):
        model = symgpu.load(path.stem)
        assert mapping.load(model).inputs


def test_cli_kernel_prints_the_answer_and_the_prediction(capsys):
    code = cli.main(["kernel", str(KERNELS / "ptxas_v_kernels_sm90.txt"), "--kernel", "scale", "--threads", "256", "--cc", "cc_1_3",
                     "--ncu", str(NCU), "--model", "hong_kim_2009", "--preset", "gtx280",
                     "--set", "Load_bytes_per_warp=128", "--set", "Uncoal_per_mw=32", "--set", "Synch_insts=0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "active blocks per SM: 4" in out and "prediction: Exec_cycles_app" in out and "measured:   sm__cycles_elapsed.avg" in out


def test_cli_kernel_bad_input_exits_2_with_one_line(capsys):
    code = cli.main(["kernel", str(KERNELS / "malformed_ptxas.txt"), "--threads", "128", "--cc", "cc_9_0"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_volkov_prediction_from_metrics_is_compared_with_the_measured_throughput_and_cycles():
    model = symgpu.load("volkov_2016")
    table = mapping.load(model)
    launch = ncu.read(NCU)[0]
    derived = {d.symbol: d.value for d in mapping.derive(table, model, launch, "cc_9_0")}
    predicted = model.evaluate(table.prediction, preset="h100", values=derived)
    # n = 85.31 % of cc_9_0's 64 warps = 54.5984 warp/SM; alpha = (6291456 - 2*524288)/(2*524288) = 5;
    # h100 preset: Latency = 675 + 5*4.055 = 695.275 cycles; n/Latency binds (mem_thru 0.08594, 4/5, 4/6 are larger)
    n, latency = 0.8531 * 64, 675 + 5 * 4.055
    assert predicted.to("winst/cycle/SM").magnitude == pytest.approx(n / latency, rel=1e-9)
    throughput, cycles = mapping.compare(table, launch, predicted, "cc_9_0")
    memory_insts, elapsed, sms = 2 * 524288, 91612.45, 132
    assert throughput.measured.magnitude == pytest.approx(memory_insts / (elapsed * sms), rel=1e-12)
    assert throughput.ratio == pytest.approx((n / latency) / (memory_insts / (elapsed * sms)), rel=1e-9)
    assert cycles.predicted.to("cycle").magnitude == pytest.approx(memory_insts / (n / latency * sms), rel=1e-9)
    assert cycles.measured.to("cycle").magnitude == elapsed and cycles.measured.dimensionality == symgpu.units.unit("cycle").dimensionality
    assert "device__attribute_multiprocessor_count" in dict(throughput.metrics)


def test_a_comparison_whose_sides_disagree_in_unit_or_lack_the_prediction_is_refused(tmp_path):
    model = symgpu.load("volkov_2016")
    text = mapping.path_for("volkov_2016").read_text()
    bad = tmp_path / "unit.toml"
    bad.write_text(text.replace('measured = "(ld + st)/(cycles*sm_count*per_SM)"', 'measured = "(ld + st)/cycles"'))
    with pytest.raises(errors.UnitMismatchError, match=r"compare\[0\]\.measured: '\(ld \+ st\)/cycles' has dimension .*winst/cycle/SM"):
        mapping.load(model, bad)
    unused = tmp_path / "unused.toml"
    unused.write_text(text.replace('predicted = "memory_throughput"', 'predicted = "(ld + st)/(cycles*sm_count*per_SM)"'))
    with pytest.raises(errors.ModelFileError, match=r"does not use the prediction 'memory_throughput'"):
        mapping.load(model, unused)


def test_a_comparison_needing_an_absent_metric_says_which_to_profile():
    model = symgpu.load("volkov_2016")
    launch = ncu.read(NCU)[0]
    metrics = {k: v for k, v in launch.metrics.items() if k != "device__attribute_multiprocessor_count"}
    predicted = symgpu.units.quantity("0.08 winst/cycle/SM")
    with pytest.raises(errors.UsageError, match=r"needs metric\(s\) device__attribute_multiprocessor_count.*--metrics device__attribute_multiprocessor_count"):
        mapping.compare(mapping.load(model), dataclasses.replace(launch, metrics=metrics), predicted, "cc_9_0")


def test_cli_kernel_volkov_prints_the_prediction_next_to_the_measured_values(capsys):
    code = cli.main(["kernel", str(KERNELS / "resource_usage_kernels_sm90.txt"), "--kernel", "scale", "--threads", "256", "--cc", "cc_9_0",
                     "--ncu", str(NCU), "--model", "volkov_2016", "--preset", "h100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    # the model's own spelling of each unit (its declared winst/cycle/SM, not pint's winst / cy / SM); a pure number none
    assert "prediction: memory_throughput = 0.0785278 winst/cycle/SM" in out
    assert "  alpha = 5  <- (inst - ld - st)/(ld + st)" in out and "gmem_insts = 2 winst/warp  <- (ld + st)/warps" in out
    assert "vs measured 0.0867105 winst/cycle/SM: ratio 0.906" in out and "vs measured 91612.4 cycle" in out
    # the achieved occupancy from the profiler stands; the theoretical one (8 blocks x 8 warps = 64) is only shown
    assert "n = 54.5984 warp/SM  <- active_pct*max_warps" in out and "(n = 64 warp/SM by occupancy" in out
    assert max(len(line) for line in out.splitlines()) <= 200


def test_a_zero_elapsed_cycle_count_is_refused_with_the_comparison_named_not_divided_by():
    model = symgpu.load("volkov_2016")
    launch = ncu.read(NCU)[0]
    zero = symgpu.units.quantity("0 cycle")
    metrics = {k: (zero if k == "sm__cycles_elapsed.avg" else v) for k, v in launch.metrics.items()}
    predicted = symgpu.units.quantity("0.08 winst/cycle/SM")
    # the measured throughput divides by the elapsed cycles: 0 there is bad data, not a ZeroDivisionError
    with pytest.raises(errors.UsageError, match=r"measured \(ld \+ st\)/\(cycles\*sm_count\*per_SM\) = .* is zoo for this launch"):
        mapping.compare(mapping.load(model), dataclasses.replace(launch, metrics=metrics), predicted, "cc_9_0")


def test_cli_kernel_prints_the_prediction_and_says_why_an_export_could_not_be_compared(tmp_path, capsys):
    rows = list(csv.reader(NCU.read_text().splitlines()))
    column = next(row for row in rows if "sm__cycles_elapsed.avg" in row).index("sm__cycles_elapsed.avg")
    export = tmp_path / "no_cycles.csv"
    with export.open("w", newline="") as out_file:   # the export without its elapsed-cycles column
        csv.writer(out_file, quoting=csv.QUOTE_ALL).writerows(row[:column] + row[column + 1:] if len(row) > column else row for row in rows)
    code = cli.main(["kernel", str(KERNELS / "resource_usage_kernels_sm90.txt"), "--kernel", "scale", "--threads", "256", "--cc", "cc_9_0",
                     "--ncu", str(export), "--model", "volkov_2016", "--preset", "h100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "prediction: memory_throughput = 0.0785278 winst/cycle/SM" in out
    assert "not compared:" in out and "sm__cycles_elapsed.avg" in out and "--metrics sm__cycles_elapsed.avg" in out
    assert max(len(line) for line in out.splitlines()) <= 200


@pytest.mark.parametrize(("arch", "cc", "runs"), [("sm_90", "cc_9_0", True), ("sm_80", "cc_8_6", True), ("sm_86", "cc_8_0", False),
                                                  ("sm_90", "cc_7_5", False), ("sm_90a", "cc_9_0", True), ("sm_75", "cc_8_0", False),
                                                  ("", "cc_9_0", True)])
def test_a_kernel_built_for_another_architecture_gets_a_note(arch, cc, runs):
    # machine code for sm_XY runs on compute capability X.Z with Z >= Y only (CUDA's binary compatibility);
    # an outside tester's finding: an sm_90 build answered for cc_7_5 without a word
    from symgpu.kernel import targets

    note = targets.note(arch, cc)
    assert (note == "") == runs
    if not runs:
        assert note.startswith(f"the kernel was compiled for {arch}, which does not run on {cc}")


def test_hong_kim_without_a_preset_takes_the_occupancy_it_has_just_computed(capsys):
    # round 15a R2: with no --preset (no H100 preset exists for Hong & Kim) the occupancy inputs were withheld
    values = ["Mem_LD=675", "Departure_del_coal=4", "Departure_del_uncoal=40", "Freq=1.98GHz", "Mem_Bandwidth=3352GB/s",
              "Active_SMs=132", "Load_bytes_per_warp=128", "Uncoal_per_mw=32"]
    code = cli.main(["kernel", str(KERNELS / "resource_usage_kernels_sm90.txt"), "--cc", "cc_9_0", "--ncu", str(NCU), "-k", "scale",
                     "-t", "256", "--model", "hong_kim_2009"] + [a for v in values for a in ("--set", v)])
    out, err = capsys.readouterr()
    assert code == 0, err
    # cc_9_0, 10 registers, 256 threads: 8 blocks (64 warp slots / 8 warps), N = 64 warps; metrics: 10 compute and
    # 2 coalesced memory instructions per warp, 65536 blocks
    blocks, warps, comp, mem = 8, 8 * 256 // 32, 10, 2
    mwp = min(675 / 4, 3352e9 / (1.98e9 * 128 / 675 * 132), warps)                  # 64: the warps bind
    mem_cycles, comp_cycles = 675 * mem, 4 * (comp + mem)
    assert (mem_cycles + comp_cycles) / comp_cycles < mwp and comp_cycles < mem_cycles  # eq24: memory-bound
    expected = (675 + comp_cycles * warps) * 65536 / (blocks * 132)
    assert f"Exec_cycles_app = {expected:.6g} cy" in out                             # 232541
    code = cli.main(["kernel", str(KERNELS / "resource_usage_kernels_sm90.txt"), "--cc", "cc_9_0", "--ncu", str(NCU), "--all-launches",
                     "--model", "hong_kim_2009"] + [a for v in values for a in ("--set", v)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f" {expected:.6g} " in next(line for line in out.splitlines() if line.split()[:2] == ["0", "scale"])
