"""symgpu predict's explanation (--row, --kernel), inverse questions and accuracy report, checked
against numbers worked out by hand here (datasheet and neusight_fit values copied from the
model files' presets, never from symgpu's output)."""

from __future__ import annotations

import json
import math
import re

import pytest

import symgpu
from symgpu.cli.app import main
from symgpu.predict import describe, explain, mapping, predict_rows
from symgpu.predict.rows import parse_rows
from symgpu.report import predict_report

HEADER = "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H,M,N,K\n"
#: V100 add of 32768 x 1600 floats (NeuSight elementwise.csv row 0), and one GEMM row
ADD = 'add,0.7671,Tesla V100-PCIE-32GB,"vectorized_elementwise_kernel<4, add>",102400,1,1,128,1,1,32768,1600,,,\n'
GEMM = "linear,1.114,Tesla V100-PCIE-32GB,volta_sgemm_128x64_tn,20,16,1,128,1,1,1,,1024,2560,2560\n"
# neusight_fit and V100 preset values (equations/kernel_streaming.toml, kernel_gemm.toml)
ETA_M, THETA_V100, L_M, T_LAUNCH_EW = 0.902, 900e9, 330e-9, 19.3e-6
ETA_F, E_FLOP, T_LAUNCH_GEMM = 0.839, 14.2e-12, 41.4e-6


def _explained(text: str) -> explain.Explanation:
    _, rows = parse_rows(HEADER + text)
    return explain.explain(mapping.assign(rows[0]))


@pytest.fixture(scope="module")
def add_row() -> explain.Explanation:
    return _explained(ADD)


@pytest.fixture(scope="module")
def gemm_a100() -> explain.Explanation:
    row = describe.kernel_row("gemm", "a100_pcie_40gb", {"M": "4096", "N": "4096", "K": "4096", "tile": "128x128"})
    return explain.explain(mapping.assign(row))


def test_memory_bound_streaming_sensitivity_to_bandwidth_is_the_hand_derivative(add_row):
    t_memory = 32768 * 1600 * 3 * 4 / (ETA_M * THETA_V100)
    expected = -t_memory / (T_LAUNCH_EW + t_memory)          # d log(t_launch + B/(eta Theta)) / d log Theta
    s = {x.name: x for x in add_row.sensitivities}
    assert s["Theta_M"].elasticity == pytest.approx(expected, rel=1e-9)
    assert s["Theta_M"].finite_difference == pytest.approx(expected, rel=1e-6) and s["Theta_M"].agrees
    assert s["t_launch"].elasticity == pytest.approx(T_LAUNCH_EW / (T_LAUNCH_EW + t_memory), rel=1e-9)
    assert s["Theta_M"].derivative_unit == "us/(GB/s)"
    assert s["L_M"].elasticity == 0                          # latency bound does not bind


def test_latency_bound_grid_is_littles_law_and_the_regime_switches_there(add_row):
    answer = add_row.answers[0]
    expected = ETA_M * THETA_V100 * L_M / (128 * 32)         # blocks* = eta Theta L / (threads x bytes in flight)
    assert answer.value == pytest.approx(expected, rel=1e-9)
    assert answer.certificate.startswith("checked numerically")
    model = symgpu.load("kernel_streaming")
    point = dict(elements=52428800, operands=3, threads_per_block=128, inflight_per_thread=32)
    for factor, latency_binds in ((0.99, True), (1.01, False)):
        v = dict(point, blocks=expected * factor)
        lat = model.evaluate("t_latency", "v100_pcie_32gb+neusight_fit", values=v).to("us").magnitude
        mem = model.evaluate("t_memory", "v100_pcie_32gb+neusight_fit", values=v).to("us").magnitude
        assert (lat > mem) is latency_binds


def test_gemm_turns_compute_bound_at_the_hand_derived_M(gemm_a100):
    p = min(19492e9, 250 / E_FLOP)                             # power cap binds on the 250 W A100 PCIe
    n = k = 4096
    expected = 4 * n * k * ETA_F * p / (2 * n * k * ETA_M * 1555e9 - 4 * ETA_F * p * (n + k))
    answer = gemm_a100.answers[0]
    assert answer.value == pytest.approx(expected, rel=1e-9)
    assert answer.certificate.startswith("checked numerically")


def test_gemm_last_wave_grid_is_whole_waves_of_SMs(gemm_a100):
    fill = gemm_a100.answers[1]
    assert fill.current == 32 * 32                            # ceiling(4096/128)^2 tiles
    assert fill.value == math.ceil(1024 / 108) * 108


def test_binding_limiters_follow_the_power_cap_and_compute_bound(gemm_a100):
    limits = {b.quantity: b for b in gemm_a100.bindings}
    assert limits["P_sustained"].limiter == "power_bound"
    assert limits["P_sustained"].ratio == pytest.approx(19492e9 / (250 / E_FLOP), rel=1e-9)
    assert limits["t_body"].limiter == "compute_bound"


def test_gemm_sensitivities_agree_with_finite_differences_except_on_a_ceiling_step(gemm_a100):
    s = {x.name: x for x in gemm_a100.sensitivities}
    # ceiling(K_red/split_k) = ceiling(4096/1) sits on a step; 1024 blocks / 108 SMs does not
    assert {x.name for x in gemm_a100.sensitivities if not x.agrees} == {"K_red", "split_k"}
    t = gemm_a100.latency_us
    assert s["eta_F"].elasticity == pytest.approx(-(t - 41.4) / t, rel=1e-9)   # t_compute ~ 1/eta_F


def test_finite_difference_flags_a_ceiling_step():
    e = _explained(GEMM)                                       # 320 blocks = 4 waves of 80 SMs exactly
    s = {x.name: x for x in e.sensitivities}
    assert s["blocks"].elasticity == 0 and not s["blocks"].agrees


def test_kernel_description_builds_pytorch_launches():
    gemm = describe.kernel_row("gemm", "h100_sxm", {"M": "1000", "N": "300", "K": "64", "tile": "128x64", "split_k": "2"})
    assert gemm.grid == (3, 16, 2) and gemm.kernel == "sgemm_128x64_tn"
    add = describe.kernel_row("add", "t4", {"B": "1000", "H": "1000"})
    assert add.grid == (math.ceil(1e6 / 512), 1, 1) and add.block == (128, 1, 1)
    with pytest.raises(symgpu.errors.UsageError, match=r"^--set tile=12: give TMxTN"):
        describe.kernel_row("gemm", "t4", {"M": "1", "N": "1", "K": "1", "tile": "12"})


@pytest.mark.parametrize(("name", "text", "why"), [
    ("tile", "0x64", r"give TMxTN with positive whole numbers"),       # was a ZeroDivisionError (an outside tester's finding)
    ("block", "2.5", r"give a positive whole number \(block counts threads\)"),  # was 2 threads, silently
    ("M", "100.5", r"give a positive whole number \(M counts elements\)"),
    ("split_k", "0", r"give a positive whole number \(split_k counts blocks\)"),
    ("block", "2000", r"a block holds at most 1024 threads"),           # cannot launch (CUDA's limit per block)
])
def test_a_kernel_description_takes_only_launchable_whole_numbers(name, text, why):
    sizes = {"M": "1024", "N": "512", "K": "8192"}
    with pytest.raises(symgpu.errors.UsageError, match=rf"^--set {name}={re.escape(text)}: {why}"):
        describe.kernel_row("gemm", "h100_sxm", {**sizes, name: text})
    assert describe.kernel_row("gemm", "h100_sxm", {**sizes, "block": "1024", "M": "1e3"}).block == (1024, 1, 1)


def test_cli_kernel_explains_and_writes_json(tmp_path, capsys):
    out = tmp_path / "e.json"
    assert main(["predict", "--kernel", "softmax", "--gpu", "l4", "--set", "B=4096", "--set", "H=4096", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["model"] == "kernel_row_reduction" and data["preset"] == "l4+neusight_fit"
    assert "binding limiters" in capsys.readouterr().out
    assert main(["predict", "--kernel", "gemm", "--gpu", "nope"]) == 2


def test_report_counts_rows_and_lists_worst_first(tmp_path):
    text = HEADER + ADD + GEMM + ADD.replace("0.7671", "0.5") + "softmax,1,Tesla T4,unknown_kernel,1,1,1,32,1,1,4,4,,,\n"
    _, rows = parse_rows(text)
    predictions = predict_rows(rows)
    written = predict_report.write_report(str(tmp_path / "r"), rows, predictions)
    assert sorted(p.name for p in written) == ["accuracy.json", "accuracy.md", "errors_elementwise.svg", "errors_linear.svg",
                                               "scatter_elementwise.svg", "scatter_linear.svg"]
    data = json.loads((tmp_path / "r" / "accuracy.json").read_text())
    assert data["rows"] == 4 and data["predicted"] == 3
    assert {s["group"]: s["rows"] for s in data["per_operator"]} == {"elementwise": 2, "linear": 1, "softmax": 0}
    worst = [w["error_percent"] for w in data["worst"]]
    assert worst == sorted(worst, reverse=True) and len(worst) == 3
    # the 0.5 ms add row: predicted 794.3 us by hand (19.3 us + 775.0 us), so 58.9 % off
    t = (T_LAUNCH_EW + 32768 * 1600 * 12 / (ETA_M * THETA_V100)) * 1e3
    assert data["worst"][0]["error_percent"] == pytest.approx(100 * (t / 0.5 - 1), rel=1e-6)
    assert "NeuSight" in (tmp_path / "r" / "accuracy.md").read_text()
