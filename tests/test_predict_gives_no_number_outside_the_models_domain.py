"""``predict`` gives a row no number where its model gives none: a block of more threads than the GPU launches
(outside a ``valid_when`` domain) and sizes whose time overflows IEEE doubles get only a reason, and stay out of
the accuracy figures (outside tester, round 12b, F1: a 2048-thread block was predicted from the formula outside
its domain and counted in the MAPE; F2: B = 1e308 was written as ``inf``, latency-bound, with no reason).
The oracle is the scalar path, ``Model.evaluate`` with its checks, one row at a time."""

from __future__ import annotations

import csv
import math
import re

import numpy as np
import pytest

from symgpu import api, errors
from symgpu.predict import accuracy, predict_rows
from symgpu.predict.mapping import assign
from symgpu.predict.rows import parse_rows

HEADER = "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H,M,N,K"
V100 = "Tesla V100-PCIE-32GB"
SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"
LAYER_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int)"
GEMM = "volta_sgemm_128x64_tn"
#: (operator, kernel, grid, block, B, H, M, N, K) of NeuSight rows (softmax.csv, layernorm.csv, elementwise.csv, linear.csv)
KERNELS = {
    "softmax": ("softmax", SOFTMAX, (32768, 1, 1), (256, 1, 1), "32768", "1600", "", "", ""),
    "ln": ("ln", LAYER_NORM, (32768, 1, 1), (32, 4, 1), "32768", "1600", "", "", ""),
    "add": ("add", ADD, (102400, 1, 1), (128, 1, 1), "32768", "1600", "", "", ""),
    "linear": ("linear", GEMM, (20, 16, 1), (128, 1, 1), "1", "", "1024", "2560", "2560"),
}


def line(kind: str, latency: str, *, block: tuple[int, int, int] | None = None, B: str | None = None) -> str:
    op, kernel, grid, own_block, b, h, m, n, k = KERNELS[kind]
    cells = [op, latency, V100, kernel, *map(str, grid), *map(str, block or own_block), B or b, h, m, n, k]
    return ",".join(f'"{c}"' if "," in c else c for c in cells)


def scalar_oracle(row) -> float:
    """The row's t_kernel in ms by the scalar path with every check (raises where the model gives no value)."""
    a = assign(row)
    model = api.load(a.model)
    return float(model.evaluate("t_kernel", f"{a.gpu}+neusight_fit", values=dict(a.inputs)).to("ms").magnitude)


@pytest.mark.parametrize("kind, block", [("softmax", (2048, 1, 1)), ("ln", (32, 64, 1)), ("add", (2048, 1, 1))])
def test_a_block_that_cannot_launch_gets_no_number_and_stays_out_of_the_statistics(kind, block):
    # 2048 threads per block: over the 1024 every preset's max_threads_per_block allows, so the model's equation
    # residency (valid_when threads_per_block <= max_threads_per_block) gives no value; the scalar path refuses it
    text = "\n".join([HEADER, line(kind, "0.8"), line(kind, "5.0", block=block), line(kind, "0.9")])
    _, rows = parse_rows(text)
    with pytest.raises(errors.DomainError, match="threads_per_block <= max_threads_per_block"):
        scalar_oracle(rows[1])
    predictions = predict_rows(rows)
    refused = predictions[1]
    assert math.isnan(refused.latency_ms) and refused.regime == ""
    assert "equation residency is valid only when threads_per_block <= max_threads_per_block" in refused.reason
    assert f"threads_per_block = {block[0] * block[1] * block[2]} thread/block" in refused.reason
    assert "max_threads_per_block = 1024 thread/block" in refused.reason
    for row, p in zip([rows[0], rows[2]], [predictions[0], predictions[2]]):
        assert p.reason == "" and p.latency_ms == pytest.approx(scalar_oracle(row), rel=1e-12)
    # the MAPE over the two predicted rows alone, by hand
    by_hand = 100 * np.mean([abs(scalar_oracle(rows[0]) / 0.8 - 1), abs(scalar_oracle(rows[2]) / 0.9 - 1)])
    (stats,), _ = accuracy.table(rows, predictions)
    assert stats.rows == 2 and stats.mape == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_every_kernel_model_predicts_a_launchable_row_as_the_checked_scalar_path_does(kind):
    # every valid_when of the four kernel paths honoured row by row: inside the domain the array path and the checked
    # scalar path agree (GEMM declares no domain, so nothing of it is refused)
    _, rows = parse_rows("\n".join([HEADER, line(kind, "1.0"), line(kind, "1.0", block=(1024, 1, 1))]))
    for row, p in zip(rows, predict_rows(rows)):
        assert p.reason == "" and p.latency_ms == pytest.approx(scalar_oracle(row), rel=1e-12)


def test_a_size_whose_time_overflows_gets_no_number_but_a_reason(tmp_path, cli):
    # B = 1e308 rows of 1600 floats: bytes_moved = 1e308 * 1600 * 4 B * (...) is beyond 1.8e308 B; the scalar path refuses
    text = "\n".join([HEADER, line("softmax", "0.8"), line("softmax", "5.0", B="1e308")])
    _, rows = parse_rows(text)
    with pytest.raises(errors.EvaluationError, match="overflows IEEE doubles"):
        scalar_oracle(rows[1])
    first, second = predict_rows(rows)
    assert first.reason == "" and first.latency_ms == pytest.approx(scalar_oracle(rows[0]), rel=1e-12)
    assert math.isnan(second.latency_ms) and second.regime == "" and "no finite number" in second.reason
    data, out = tmp_path / "rows.csv", tmp_path / "out.csv"
    data.write_text(text + "\n", encoding="utf-8")
    code, printed, err = cli("predict", data, "-o", out)
    assert code == 0 and "softmax          1 " in printed and "1 of 2 rows not predicted; first: row 1: " in err
    written = list(csv.reader(out.read_text(encoding="utf-8").splitlines()))
    assert written[2][-4:-1] == ["", "", "kernel_row_reduction"] and "overflow" in written[2][-1] and "inf" not in written[2][-4]


def test_a_refused_row_quotes_values_that_fail_the_condition_as_printed():
    # 1048577 threads against a given max_threads_per_block of 1048576.5: both were quoted with six digits, 1.04858e+06 <=
    # 1.04858e+06, a pair that meets the condition the reason says they break; eval quotes digits enough that they fail it
    # (evaluate.refusal_digits), and predict now does the same. The oracle: the numbers quoted, read back and compared by hand
    _, rows = parse_rows("\n".join([HEADER, line("add", "1.0", block=(1048577, 1, 1))]))
    given = {"max_threads_per_block": 1048576.5}
    a = assign(rows[0])
    with pytest.raises(errors.DomainError, match="threads_per_block <= max_threads_per_block"):
        api.load(a.model).evaluate("t_kernel", f"{a.gpu}+neusight_fit", values={**dict(a.inputs), **given})
    (refused,) = predict_rows(rows, values={"kernel_streaming": given})
    assert math.isnan(refused.latency_ms) and "valid only when threads_per_block <= max_threads_per_block" in refused.reason
    quoted = dict(re.findall(r"(\w+) = ([0-9.e+]+) thread/block", refused.reason))
    threads, most = float(quoted["threads_per_block"]), float(quoted["max_threads_per_block"])
    assert not threads <= most  # as printed, they break the condition
    assert threads == pytest.approx(1048577, rel=1e-6) and most == pytest.approx(1048576.5, rel=1e-6)
