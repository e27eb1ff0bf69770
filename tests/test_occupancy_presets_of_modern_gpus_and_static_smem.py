"""--occupancy on volkov_2016's v100/a100/h100 presets (CC 7.0, 8.0, 9.0, as their descriptions say) and on
presets based on a mapped one; the advice for an unmapped preset is one a user can follow; `symgpu kernel`
answers a kernel whose static shared memory is over the per-block limit (0 blocks, shared memory per block)."""

from __future__ import annotations

import json

import pytest

import symgpu
from conftest import assert_one_line_refusal
from symgpu.kernel import occupancy


@pytest.mark.parametrize(("preset", "cc"), [("v100", "cc_7_0"), ("a100", "cc_8_0"), ("h100", "cc_9_0"),
                                            ("h100_fit_all", "cc_9_0"), ("a100_abdelkhalik2022", "cc_8_0"), ("kepler_sfu", "cc_3_0")])
def test_volkov_gpu_presets_and_presets_based_on_them_have_their_compute_capability(preset, cc):
    # v100: "Tesla V100 SXM2 (GV100, CC 7.0)", a100: "A100 SXM4 40 GB (GA100, CC 8.0)", h100: "H100 80GB HBM3 SXM (GH100, CC 9.0)";
    # h100_fit_all is based_on h100, a100_abdelkhalik2022 on a100, kepler_sfu on kepler (GTX680, cc_3_0)
    assert occupancy.resolve_cc_preset(symgpu.load("volkov_2016"), preset) == cc


def test_eval_with_occupancy_on_the_h100_preset_takes_32_warps(cli):
    # cc_9_0: 256 threads = 8 warps; 64 reg x 32 = 2048 reg/warp, 16384 reg per sub-partition / 2048 = 8 warps, x 4 = 32 warps
    # per SM = 4 blocks (warp slots 64/8 = 8, block slots 32): n = 32 warps/SM
    code, out, err = cli("eval", "volkov_2016", "memory_throughput", "--preset", "h100", "--occupancy", "threads=256,regs=64,smem=0",
                         "-s", "alpha=8", "--json")
    assert code == 0, err
    by_hand = symgpu.load("volkov_2016").evaluate("memory_throughput", "h100", values={"n": 32, "alpha": 8}).magnitude
    assert json.loads(out)["value"] == pytest.approx(float(by_hand), rel=1e-15)


def test_a_preset_without_a_compute_capability_is_refused_with_advice_that_can_be_followed(cli):
    code, out, err = cli("eval", "volkov_2016", "memory_throughput", "--preset", "sample_kernel", "--occupancy",
                         "threads=256,regs=64,smem=0", "-s", "alpha=8")
    assert_one_line_refusal(code, out, err, "no compute capability known for 'sample_kernel'", "[occupancy.presets]",
                            'sample_kernel = "cc_X_Y"', "symgpu eval occupancy active_warps_per_SM -p cc_X_Y",
                            "give n (active_warps_per_SM) with --set instead of --occupancy")
    assert "name a cc_X_Y preset explicitly" not in err


def test_static_shared_memory_over_the_per_block_limit_answers_zero_blocks(cli, tmp_path):
    ptxas = tmp_path / "b.txt"
    ptxas.write_text("ptxas info    : Compiling entry function 'b' for 'sm_13'\n"
                     "ptxas info    : Used 48 registers, used 1 barriers, 20000 bytes smem\n", encoding="utf-8")
    code, out, err = cli("kernel", str(ptxas), "-k", "b", "--threads", "128", "--cc", "cc_1_3")
    assert code == 0, err
    # CC 1.3: at most 16 KiB = 16384 B of shared memory per block < 20000 B: the block cannot launch
    assert "active blocks per SM: 0;" in out and "the block cannot launch" in out
    assert "smem_limit: 0 block/SM [smem_per_block_exceeded]  <- binds" in out
    assert "shared memory per block: 20000 B/block" in out


@pytest.mark.parametrize("preset", ["cc_9_0", "gtx280+cc_9_0"])
def test_a_compute_capability_named_as_preset_gives_hong_kim_its_occupancy(cli, preset):
    # round 15a U2: the refusal's own advice (a cc_X_Y compute capability) was then "unknown preset", and
    # gtx280+cc_9_0 took the GTX280's CC 1.3. On CC 9.0, 72 regs x 256 threads: 72 x 32 = 2304 -> 2304 reg/warp (256-register
    # granules), 16384 // 2304 = 7 warps per sub-partition, 28 per SM -> 3 blocks of 8 warps; N = 24 warps
    h100 = ["Freq=1.98GHz", "Mem_Bandwidth=3352GB/s", "Active_SMs=132", "Departure_del_coal=4", "Departure_del_uncoal=40",
            "Coal_Mem_insts=4", "Uncoal_Mem_insts=0", "Load_bytes_per_warp=128", "Uncoal_per_mw=32", "Mem_LD=675",
            "Comp_insts=100", "Blocks=2112", "Synch_insts=0"]
    code, out, err = cli("eval", "hong_kim_2009", "Exec_cycles_app", "--preset", preset, "--occupancy", "threads=256,regs=72,smem=2048",
                         *[a for v in h100 for a in ("-s", v)])
    assert code == 0, err
    blocks, n = 3, 24
    mwp = min(675 / 4, 3352e9 / (1.98e9 * 128 / 675 * 132), n)                      # 24: the warps bind
    comp_cycles, mem_cycles = 4 * (100 + 4), 675 * 4
    assert (mem_cycles + comp_cycles) / comp_cycles < mwp                              # CWP 7.49 < MWP: eq24
    value, used = out.strip().split("\n")                                               # the value, then what --occupancy used
    assert value == f"Exec_cycles_app = {(675 + comp_cycles * n) * 2112 / (blocks * 132):.6g} cycle"   # 56848
    assert used.startswith("  occupancy on cc_9_0 (") and f": {blocks} block/SM, {n} warp/SM of 64 " in used, used
