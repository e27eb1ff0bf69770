"""``symgpu predict --kernel`` sensitivities where a ceiling/floor makes t a staircase: the value within the current
step is printed even when it is 0, with how far t stays flat (round 15a S1), and a block that fills a T4's warp
slots, whose finite difference steps past the last resident block, still gets its explanation (round 15a U1).
Expected values worked by hand from the model files' preset values."""

from __future__ import annotations

import math
import re

import pytest

from symgpu.predict import describe, explain, mapping

# kernel_row_reduction neusight_fit (equations/kernel_row_reduction.toml), kernel_streaming neusight_fit
T_LAUNCH_R, ETA_R, L_M = 18.5e-6, 0.689, 330e-9
T_LAUNCH_EW, ETA_M = 19.3e-6, 0.902
THETA_A100, THETA_T4 = 1555e9, 320e9


def _explain(kind: str, gpu: str, sizes: dict[str, str]) -> explain.Explanation:
    return explain.explain(mapping.assign(describe.kernel_row(kind, gpu, sizes)))


def _flat_end(how: str, name: str) -> float:
    found = re.search(rf"within this step \(each ceiling/floor held\): \+0\.0000, t flat up to {name} = ([0-9.e+]+)", how)
    assert found, how
    return float(found.group(1))


def test_latency_bound_layer_norm_is_flat_in_rows_up_to_the_memory_bound_switch():
    e = _explain("ln", "a100_pcie_40gb", {"B": "64", "H": "1024"})
    # one wave (64 blocks < 108 SMs x 16 blocks of 4 warps): t_latency = 1 wave x (read + re-read + write) x L_M
    t_latency = 1 * 3 * L_M
    # rows fit L2 (108 x 16 x 1 row x 4096 B < 40 MiB): no re-read misses, 2 x 4 B per element
    rows_switch = t_latency * ETA_R * THETA_A100 / (1024 * 4 * 2)
    assert e.latency_us == pytest.approx((T_LAUNCH_R + t_latency) * 1e6, rel=1e-9)
    rows = next(s for s in e.sensitivities if s.name == "rows")
    assert _flat_end(rows.how, "rows") == pytest.approx(rows_switch, rel=1e-5)      # 129.478


def test_compute_bound_gemm_is_flat_in_M_up_to_the_next_wave_and_says_which_t_the_elasticity_is_of():
    e = _explain("gemm", "h100_sxm", {"M": "4096", "N": "4096", "K": "4096", "tile": "128x128"})
    s = {x.name: x for x in e.sensitivities}
    # 1024 blocks on 132 one-block SMs: 8 waves, as long as ceiling(M/128) x 32 <= 8 x 132, so M <= 33 x 128
    assert _flat_end(s["M"].how, "M") == pytest.approx(33 * 128, rel=1e-6)
    waves = math.ceil(1024 / 132)
    t_u = 41.4 + (e.latency_us - 41.4) * (1024 / 132) / waves                     # the un-quantized wave count
    assert f"relative to the un-quantized t = {t_u:.6g} us" in s["M"].how
    assert s["M"].elasticity == pytest.approx((t_u - 41.4) / t_u, rel=1e-6)


@pytest.mark.parametrize(("kind", "sizes", "hand_us"), [
    # memory-bound: 1e6 elements, one read and one write of 4 B, at eta_M Theta_M
    ("relu", {"B": "1000", "H": "1000", "block": "1024"}, (T_LAUNCH_EW + 1e6 * 2 * 4 / (ETA_M * THETA_T4)) * 1e6),
    # cunn_SoftMaxForward: one read and one write of 4 B per element; the two re-reads hit L2 (40 resident rows of 16 kB < 4 MiB)
    ("softmax", {"B": "1000", "H": "4000", "block": "1024"}, (T_LAUNCH_R + 1000 * 4000 * 4 * 2 / (ETA_R * THETA_T4)) * 1e6),
])
def test_a_block_filling_a_t4_sm_is_explained_not_refused_as_a_pole(kind, sizes, hand_us):
    # T4: 32 warp slots, a 1024-thread block is 32 warps, one block resident; 1025 threads would leave none
    e = _explain(kind, "t4", sizes)
    assert e.latency_us == pytest.approx(hand_us, rel=1e-9)                        # 47.016 us, 163.638 us
    assert {s.name for s in e.sensitivities} >= {"threads_per_block", "max_warps_SM"}


def test_a_gemm_is_flat_in_M_only_up_to_the_grid_its_launch_gives_not_a_proportional_one():
    # outside checker q31c, question 45: on the A100's 108 one-block SMs the 1024 blocks of M = N = 4096 with
    # 128 x 128 tiles are 10 waves while ceiling(M/128) x 32 <= 10 x 108 = 1080, so M <= 33 x 128 = 4224; a
    # grid moved in proportion to M (1024 M/4096 <= 1080) said M = 4320, but at M = 4225 the launch is
    # 34 x 32 = 1088 blocks, 11 waves
    sizes = {"M": "4096", "N": "4096", "K": "4096", "tile": "128x128"}
    e = _explain("gemm", "a100_pcie_40gb", sizes)
    s = {x.name: x for x in e.sensitivities}
    assert _flat_end(s["M"].how, "M") == pytest.approx(33 * 128, rel=1e-6)
    assert _flat_end(s["K_out"].how, "K_out") == pytest.approx(33 * 128, rel=1e-6)
    assert _explain("gemm", "a100_pcie_40gb", {**sizes, "M": "4224"}).latency_us == pytest.approx(e.latency_us, rel=1e-12)
    assert _explain("gemm", "a100_pcie_40gb", {**sizes, "M": "4225"}).latency_us > e.latency_us * 1.05
