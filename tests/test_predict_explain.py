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


def _t_kernel(model: str, preset: str, values: dict[str, float]) -> float:
    """t_kernel in us from Model.evaluate (the brute force the sensitivities are checked against)."""
    return symgpu.load(model).evaluate("t_kernel", preset, values=values).to("us").magnitude


def _gemm_point(e: explain.Explanation) -> dict[str, float]:
    return {n: v for n, v, _ in e.inputs}


def test_gemm_reduction_length_sensitivity_is_the_secant_over_one_step_not_zero(gemm_a100):
    # outside tester 10b F2: d log t / d log K_red was printed +0.0000 (the ceiling's derivative) | +12.15 (a central
    # difference straddling the ceiling's step). K_red is a whole count: the secant over one step, K -> K + 1, of
    # Model.evaluate is the sensitivity a reader asks for (t_compute is linear in ceiling(K_red/1)).
    point = _gemm_point(gemm_a100)
    t0 = _t_kernel("kernel_gemm", gemm_a100.preset, point)
    t1 = _t_kernel("kernel_gemm", gemm_a100.preset, {**point, "K_red": 4097.0})
    secant = (t1 / t0 - 1) * 4096
    assert secant == pytest.approx((t0 - 41.4) / t0, rel=1e-6)                # = t_compute / t, by hand
    s = {x.name: x for x in gemm_a100.sensitivities}
    assert s["K_red"].elasticity == pytest.approx(secant, rel=1e-6) and s["K_red"].agrees
    assert "un-quantized" in s["K_red"].how and "ceiling(K_red/split_k)" in s["K_red"].how
    assert all(x.agrees for x in gemm_a100.sensitivities)                      # nothing left to print as two answers
    t = gemm_a100.latency_us
    assert s["eta_F"].elasticity == pytest.approx(-(t - 41.4) / t, rel=1e-9)   # t_compute ~ 1/eta_F


def test_gemm_M_moves_the_grid_with_it(gemm_a100):
    # blocks = ceiling(4096/128)^2 = 1024 is launched from M: moving M moves the grid. Un-quantized, waves =
    # blocks/108 = 9.48 (not 10) and t_compute is proportional to it, so d log t / d log M = t_compute_u / t_u.
    point = _gemm_point(gemm_a100)
    t = _t_kernel("kernel_gemm", gemm_a100.preset, point)
    per_wave = (t - 41.4) / 10                                                  # 10 waves of 108 SMs, 1 CTA each
    t_u = 41.4 + per_wave * 1024 / 108
    s = {x.name: x for x in gemm_a100.sensitivities}
    assert s["M"].elasticity == pytest.approx((t_u - 41.4) / t_u, rel=1e-6)
    assert s["M"].elasticity > 0.99 and "blocks = ceiling(K_out/tile_m)*ceiling(M/tile_n)*split_k moved along" in s["M"].how
    # a bigger tile: fewer blocks (un-quantized, no change) but within this step of waves +t_compute/t
    assert s["tile_m"].elasticity == pytest.approx(0, abs=1e-9)
    assert f"within this step (each ceiling/floor held): {(t - 41.4) / t:+.4f}" in s["tile_m"].how


def test_a_grid_that_is_not_the_launch_rule_is_said_to_be_held_fixed():
    row = describe.kernel_row("gemm", "a100_pcie_40gb", {"M": "4096", "N": "4096", "K": "4096", "grid": "100"})
    s = {x.name: x for x in explain.explain(mapping.assign(row)).sensitivities}
    # compute-bound: M enters only t_dram (not binding) with the grid held, so 0 by hand
    assert s["M"].elasticity == pytest.approx(0, abs=1e-12)
    assert "blocks held fixed at 100 (the launch's grid is not ceiling(K_out/tile_m)*ceiling(M/tile_n)*split_k)" in s["M"].how


def test_a_grid_of_whole_waves_gets_the_unquantized_sensitivity_not_zero():
    e = _explained(GEMM)                                       # 320 blocks = 4 waves of 80 SMs exactly: on a riser
    s = {x.name: x for x in e.sensitivities}
    # un-quantized waves = 320/80 = 4 = the quantized count, so d log t / d log blocks = t_compute / t
    point = _gemm_point(e)
    t = _t_kernel("kernel_gemm", e.preset, point)
    assert s["blocks"].elasticity == pytest.approx((t - T_LAUNCH_GEMM * 1e6) / t, rel=1e-9) and s["blocks"].agrees
    assert "un-quantized (ceiling/floor dropped): waves" in s["blocks"].how


def test_a_regime_switch_at_the_point_gives_one_sided_values_not_a_derivative():
    # a streaming kernel with its grid exactly at Little's-law point: blocks x threads x bytes in flight / L_M = eta_M Theta_M
    blocks = ETA_M * THETA_V100 * L_M / (128 * 32)
    inputs = (("elements", 52428800.0), ("operands", 3.0), ("blocks", blocks), ("threads_per_block", 128.0), ("inflight_per_thread", 32.0))
    e = explain.explain(mapping.Assignment(0, "kernel_streaming", "v100_pcie_32gb", inputs))
    s = {x.name: x for x in e.sensitivities}
    t_memory = 52428800 * 3 * 4 / (ETA_M * THETA_V100)
    theta = s["Theta_M"]
    assert math.isnan(theta.elasticity) and not theta.agrees
    # below: more bandwidth-starved, memory-bound: -t_memory/t; above: latency-bound, Theta_M unread: 0
    assert theta.below == pytest.approx(-t_memory / (T_LAUNCH_EW + t_memory), rel=1e-3)
    assert theta.above == pytest.approx(0, abs=1e-3)
    shown = "\n".join(explain.lines(e))
    assert re.search(r"Theta_M +-0\.\d{4} below \| [+-]0\.0000 above .*no derivative: a regime switch", shown)
    assert "blocks held fixed" in next(x.how for x in e.sensitivities if x.name == "elements")


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
    assert describe.kernel_row("gemm", "h100_sxm", {**sizes, "M": "1e3"}).grid == (4, 8, 1)
    assert describe.kernel_row("relu", "h100_sxm", {"B": "1", "H": "1e3", "block": "1024"}).block == (1024, 1, 1)


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
