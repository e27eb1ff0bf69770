"""The calibration of a kernel model's efficiency parameters on measured rows (``predict.calibrate.fit_rows``, used by
``benchmarks/neusight_accuracy.py``) skips a row outside a ``valid_when`` domain of the model, as ``predict`` leaves such
a row out of its predictions (a block of 2048 threads, more than the GPU launches), and says how many it skipped (review
leftover of round 12b F1: the calibration still fitted them)."""

from __future__ import annotations

import math

import pytest

import symgpu
from symgpu.predict.calibrate import fit_rows
from symgpu.predict.mapping import assign
from symgpu.predict.rows import parse_rows

HEADER = "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H\n"
KERNEL = '"vectorized_elementwise_kernel<4, add>"'
DEVICE = "Tesla V100-PCIE-32GB"
PRESET = "v100_pcie_32gb+neusight_fit"
#: the efficiency parameters the measured times are made with (chosen here, not the preset's)
ETA_M, T_LAUNCH_US = 0.8, 6.0
#: (B, H, threads per block): rows small (launch- and latency-bound) to large (memory-bound); the last one's block of
#: 2048 threads is more than a V100 launches (valid_when threads_per_block <= max_threads_per_block)
SIZES = [(1, 1024, 128), (64, 1024, 128), (4096, 1024, 128), (65536, 1024, 128), (262144, 1024, 128), (16384, 1024, 256),
         (65536, 1024, 2048)]


def _line(b: int, h: int, threads: int, latency_ms: float) -> str:
    grid = math.ceil(b * h / (4 * threads))   # 4 elements per thread
    return f"add,{latency_ms!r},{DEVICE},{KERNEL},{grid},1,1,{threads},1,1,{b},{h}\n"


def _measured_times() -> list[float]:
    """Each row's time in ms from the model itself at ETA_M and T_LAUNCH_US (brute force over Model.evaluate); the
    row outside the domain measured ten times its formula's value, so fitting it would move both parameters."""
    model = symgpu.load("kernel_streaming")
    _, rows = parse_rows(HEADER + "".join(_line(b, h, t, 1.0) for b, h, t in SIZES))
    times = []
    for row in rows:
        inputs = dict(assign(row).inputs) | {"eta_M": ETA_M, "t_launch": T_LAUNCH_US}
        times.append(float(model.evaluate("t_kernel", preset=PRESET, values=inputs, checks=False).to("ms").magnitude))
    times[-1] *= 10
    return times


def test_a_row_outside_the_models_domain_is_left_out_of_the_fit_and_counted() -> None:
    times = _measured_times()
    _, rows = parse_rows(HEADER + "".join(_line(b, h, t, ms) for (b, h, t), ms in zip(SIZES, times)))
    result = fit_rows("kernel_streaming", rows, label="own rows")
    fitted = {p.name: p.value for p in result.parameters}
    # the six rows inside the domain lie on the model at the chosen parameters: the fit finds them again
    assert fitted["eta_M"] == pytest.approx(ETA_M, rel=1e-6)
    assert fitted["t_launch"] == pytest.approx(T_LAUNCH_US, rel=1e-6)
    assert result.points == len(SIZES) - 1
    assert "own rows (kernel_streaming, 6 rows; 1 outside a valid_when domain of the model skipped" in result.data_path
    assert not result.failed


def test_rows_all_inside_the_domain_are_fitted_with_nothing_said_skipped() -> None:
    times = _measured_times()[:-1]
    _, rows = parse_rows(HEADER + "".join(_line(b, h, t, ms) for (b, h, t), ms in zip(SIZES, times)))
    result = fit_rows("kernel_streaming", rows, label="own rows")
    assert result.points == len(SIZES) - 1 and "skipped" not in result.data_path
