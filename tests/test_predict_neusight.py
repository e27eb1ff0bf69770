"""symgpu predict: the kernel models check, rows predicted as the equations give by hand, the CLI
end to end, and rows that cannot be predicted get no number."""

from __future__ import annotations

import csv
import math

import pytest

from symgpu import api
from symgpu.cli.app import main
from symgpu.predict import predict_rows
from symgpu.predict.rows import parse_rows

HEADER = ("OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,"
          "Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,B,H,M,N,K")
ADD = ('add,0.7671167969703674,Tesla V100-PCIE-32GB,p2.1.0,8902,"void at::native::vectorized_elementwise_kernel<4, '
       'at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int)",5120.0,1280.0,102400,1,1,128,1,1,cu121,32768,1600,,,')
LINEAR = "linear,1.1143167972564698,Tesla V100-PCIE-32GB,p2.1.0,8902,volta_sgemm_128x64_tn,16.0,4.0,20,16,1,128,1,1,cu121,1,,1024,2560,2560"


@pytest.mark.parametrize("model_id", ["kernel_streaming", "kernel_row_reduction", "kernel_gemm"])
def test_kernel_model_files_load_and_are_dimensionally_consistent(model_id):
    model = api.load(model_id)  # building a model checks every equation's units
    assert "t_kernel" in model.defining
    assert {"v100_pcie_32gb", "h100_sxm", "t4", "l4", "p4", "neusight_fit"} <= set(model.presets)


def test_an_elementwise_add_row_is_predicted_as_computed_by_hand():
    # bytes = 32768*1600 elements * 3 tensors * 4 B = 629,145,600 B
    # t_memory = 629,145,600 B / (0.902 * 900e9 B/s) = 775.00 us
    # Little's law: resident = min(32, floor(64/4)) = 16 blocks/SM; 80*16*128 threads * 32 B / 330 ns
    #   = 1.5888e13 B/s -> t_latency = 39.6 us < t_memory: memory-bound
    # t_kernel = 19.3 us + 775.00 us = 794.30 us
    _, rows = parse_rows(HEADER + "\n" + ADD)
    (p,) = predict_rows(rows)
    assert p.model == "kernel_streaming" and p.regime == "memory-bound"
    assert p.latency_ms == pytest.approx((19.3e-6 + 629_145_600 / (0.902 * 900e9)) * 1e3, rel=1e-9)
    assert p.latency_ms == pytest.approx(0.79430, abs=1e-5)


def test_a_cublas_sgemm_row_is_predicted_as_computed_by_hand():
    # volta_sgemm_128x64, grid 20x16x1 = 320 blocks on 80 SMs: 4 waves
    # sustained rate = min(14029 GFLOP/s, 250 W / 14.2 pJ/flop = 17605.6 GFLOP/s) = 14029 GFLOP/s
    # one tile = 2*128*64*2560 = 41,943,040 flop; t_compute = 4 * 41,943,040 * 80 / (0.839 * 14029e9) = 1140.3 us
    # t_dram = 4 B * (1024*2560 + 2560*2560 + 1024*2560) / (0.902 * 900e9) = 58.1 us: compute-bound
    # t_kernel = 41.4 us + 1140.3 us = 1181.7 us
    _, rows = parse_rows(HEADER + "\n" + LINEAR)
    (p,) = predict_rows(rows)
    assert p.model == "kernel_gemm" and p.regime == "compute-bound"
    expected = 41.4e-6 + 4 * (2 * 128 * 64 * 2560) * 80 / (0.839 * 14029e9)
    assert p.latency_ms == pytest.approx(expected * 1e3, rel=1e-9)
    assert p.latency_ms == pytest.approx(1.1817, abs=1e-4)


@pytest.mark.parametrize("grid_x, grid_y, label", [(32, 16, "compute-bound"), (36, 16, "wave-quantized")])
def test_a_gemm_is_wave_quantized_where_its_last_wave_adds_a_tenth_to_its_compute_time(grid_x, grid_y, label):
    # volta_sgemm_128x64 on the V100's 80 SMs, one block per SM: 512 blocks are 6.4 waves of work run in 7 (7/6.4 - 1 =
    # 9.4% more compute time): compute-bound; 576 blocks are 7.2 waves run in 8 (8/7.2 - 1 = 11.1%): wave-quantized
    # (outside round 11a, F7: the label was given by last-wave fill and fewer than 8 waves, a rule written nowhere)
    blocks = grid_x * grid_y
    assert (math.ceil(blocks / 80) * 80 / blocks - 1 >= 0.10) == (label == "wave-quantized")
    row = LINEAR.replace(",20,16,1,128,", f",{grid_x},{grid_y},1,128,").replace(",1024,2560,2560", f",{grid_y * 64},{grid_x * 128},2048")
    _, rows = parse_rows(HEADER + "\n" + row)
    (p,) = predict_rows(rows)
    assert p.model == "kernel_gemm" and p.regime == label


def test_rows_without_a_model_or_a_gpu_preset_get_no_number_but_a_reason():
    unknown_gpu = ADD.replace("Tesla V100-PCIE-32GB", "Imaginary GPU 9000")
    unknown_op = LINEAR.replace("linear,", "conv2d,", 1).replace("volta_sgemm_128x64_tn", "implicit_convolve_sgemm")
    _, rows = parse_rows("\n".join([HEADER, unknown_gpu, unknown_op]))
    first, second = predict_rows(rows)
    assert math.isnan(first.latency_ms) and "no GPU preset for device 'Imaginary GPU 9000'" in first.reason
    assert math.isnan(second.latency_ms) and "no tile size" not in second.reason and "conv2d" in second.reason


def test_predict_cli_writes_every_input_column_plus_prediction_regime_model(tmp_path, capsys):
    data = tmp_path / "rows.csv"
    data.write_text("\n".join([HEADER, ADD, LINEAR, ADD.replace("Tesla V100-PCIE-32GB", "Imaginary GPU")]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["predict", str(data), "-o", str(out), "--row", "1"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == HEADER + ",predicted_latency [ms],regime,model,reason"
    assert lines[2].startswith(LINEAR) and ",compute-bound,kernel_gemm," in lines[2]
    last = next(csv.reader([lines[3]]))
    assert last[-4:-1] == ["", "", ""] and last[-1].startswith("no GPU preset for device 'Imaginary GPU' (known: ")
    shown = capsys.readouterr()
    assert "linear" in shown.out and "NeuSight 13.9" in shown.out and "kernel_gemm" in shown.out
    assert "1 of 3 rows not predicted" in shown.err


def test_predict_cli_refuses_a_file_without_the_neusight_columns(tmp_path, capsys):
    data = tmp_path / "bad.csv"
    data.write_text("a,b\n1,2\n")
    assert main(["predict", str(data)]) == 2
    assert "no column 'OPName'" in capsys.readouterr().err


@pytest.mark.parametrize("model_id", ["kernel_streaming", "kernel_row_reduction"])
@pytest.mark.parametrize("threads", [32, 33, 80, 100, 128, 200, 1000, 1024])
def test_a_block_that_is_not_a_whole_number_of_warps_takes_its_last_warp_slot_too(model_id, threads):
    # CUDA allocates warps whole: an 80-thread block holds 3 warp slots, so 64/3 -> 21 blocks on an H100 SM,
    # not 25 (an outside tester's finding); max_warps_SM = 64, max_blocks_SM = 32 (CUDA guide, CC 9.0)
    by_hand = min(32, 64 // math.ceil(threads / 32))
    got = api.load(model_id).evaluate("resident_blocks", "h100_sxm", values={"threads_per_block": threads})
    assert got.to("block/SM").magnitude == by_hand
