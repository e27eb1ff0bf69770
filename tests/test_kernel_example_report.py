"""The kernel worked example report (symgpu.report.kernel_example): rendered from the committed samples
in data/, with its numbers recomputed here by hand."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from symgpu import errors
from symgpu.cli import report_commands
from symgpu.report import kernel_example

PDFLATEX = shutil.which("pdflatex")


@pytest.fixture(scope="module")
def context():
    return kernel_example.build_context()


@pytest.fixture(scope="module")
def files():
    return kernel_example.render()


def test_the_example_kernel_source_is_the_scale_kernel_of_the_sample_file(context):
    assert context["source"].startswith('extern "C" __global__ void scale(') and context["source"].endswith("}")
    assert "a[i] = b[i] * s;" in context["source"]
    with pytest.raises(errors.UsageError, match="no __global__ function 'nope'"):
        kernel_example.kernel_source(context["source"], "nope")


def test_the_occupancy_of_the_example_is_computed_from_its_resource_usage(context):
    # ptxas: 10 registers, no shared memory. CC 9.0, 256 threads = 8 warps per block:
    # 10 x 32 = 320 -> 512 reg/warp; 16384/512 = 32 warps per sub-partition, 128 per SM -> 16 blocks;
    # warp slots 64/8 = 8; shared memory: the 1 KiB reserved per block, 233472/1024 = 228 blocks; 32 block slots.
    assert context["resources"]["registers"] == 10 and context["resources"]["shared_bytes"] == 0
    limits = {l["name"]: l["blocks"] for l in context["occupancy"]["limits"]}
    # ptxas: used 0 barriers, so no barrier limit: the block slots (32) stand in for it.
    warps_per_block, reserved = 256 // 32, 1024
    assert limits == {"warp_limit": 64 // warps_per_block, "block_limit": 32, "register_limit": 4 * (16384 // 512) // warps_per_block,
                      "smem_limit": 233472 // reserved, "barrier_limit": 32}
    assert [l["name"] for l in context["occupancy"]["limits"] if l["binding"]] == ["warp_limit"]
    assert (context["occupancy"]["active_blocks"], context["occupancy"]["active_warps"]) == (8, 64)


def test_the_prediction_of_the_example_is_volkovs_latency_bound_at_the_profiled_occupancy(context):
    # n = 0.8531 x 64 warps; alpha = 5; h100 preset: Latency = 675 + 5 x 4.055 cycles
    n_over_latency = 0.8531 * 64 / (675 + 5 * 4.055)
    assert context["prediction"]["quantity"] == "memory_throughput"
    assert float(context["prediction"]["value"]) == pytest.approx(n_over_latency, rel=1e-5)
    measured = 2 * 524288 / (91612.45 * 132)
    throughput = context["comparisons"][0]
    assert float(throughput["measured"]) == pytest.approx(measured, rel=1e-5)
    assert float(throughput["ratio"]) == pytest.approx(n_over_latency / measured, rel=1e-2)


def test_markdown_and_latex_carry_the_summary_first_and_the_synthetic_caveat(files):
    md = files["kernel_example.md"].decode()
    tex = files["kernel_example.tex"].decode()
    assert md.splitlines()[2].startswith("Kernel `scale` launched with 256 threads per block on `cc_9_0`")
    assert "**8 active blocks, 64 of 64 warps per SM (100.0 %)**" in md
    assert "sample is synthetic" in md and "sample is synthetic" in tex
    outside_verbatim = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", tex, flags=re.S)
    assert not re.search(r"(?<!\\)[_#]", outside_verbatim), "unescaped underscore or hash outside verbatim"


def test_report_all_renders_the_example_in_the_requested_formats():
    rendered, failed = report_commands.kernel_example_files(("md", "tex", "json"))
    assert failed == 0 and sorted(rendered) == ["kernel_example.md", "kernel_example.tex"]


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed")
def test_the_latex_example_compiles(files, tmp_path: Path):
    (tmp_path / "kernel_example.tex").write_bytes(files["kernel_example.tex"])
    result = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "kernel_example.tex"],
                            cwd=tmp_path, capture_output=True, text=True, errors="replace", timeout=120, check=False)
    assert result.returncode == 0 and (tmp_path / "kernel_example.pdf").stat().st_size > 0, result.stdout[-2000:]
