"""Measured data in, parameters fitted, model vs measurement (symgpu.measure and its CLI)."""

from __future__ import annotations

import csv
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import cli, errors
from symgpu.measure import compare, data, fit

REPO = Path(__file__).resolve().parent.parent
H100 = REPO / "data" / "h100"
MODEL_CSV = H100 / "stream_read_vs_warps_model.csv"


# ------------------------------------------------------------------------------- data
def test_csv_with_units_in_headers_reads_comments_columns_and_units():
    d = data.parse_csv("# device X\nn [warp/SM],theta [GB/s]\n1,10.5\n2,21\n", "x.csv")
    assert d.comments == ("device X",)
    assert d.names == ("n", "theta")
    assert d.column("theta").values == (10.5, 21.0)
    assert d.column("theta").quantity().to("MB/s").magnitude.tolist() == [10500.0, 21000.0]


@pytest.mark.parametrize("text, message", [
    ("n,theta [GB/s]\n1,2\n", r"^x\.csv:1: header 'n' is not 'name \[unit\]'; write e\.g\. 'n \[warp/SM\]' \('\[1\]' for pure numbers\)$"),
    ("n [furlong],theta [GB/s]\n1,2\n", r"^x\.csv:1: column 'n': unknown unit 'furlong' .*symgpu/units/units\.txt\); correct the unit in the header, e\.g\. 'n \[warp/SM\]'$"),
    ("n [warp/SM],theta [GB/s]\n1,nan\n", r"^x\.csv:2: column 'theta' holds 'nan', not a finite decimal number \(NaN and infinity are refused\); fix or drop the row$"),
    ("n [warp/SM],theta [GB/s]\n1,\n", r"^x\.csv:2: column 'theta' holds an empty cell, not a finite decimal number"),
    ("n [warp/SM],theta [GB/s]\n1\n", r"^x\.csv:2: 1 cells, but the header names 2 columns$"),
    ("n [warp/SM],n [warp/SM]\n1,2\n", r"^x\.csv:1: column n appears twice$"),
    ("n [warp/SM]\n", r"^x\.csv: no data rows below the header$"),
])
def test_bad_measured_data_is_refused_with_file_row_and_column(text, message):
    with pytest.raises(errors.UsageError, match=message):
        data.parse_csv(text, "x.csv")


def test_h100_model_csv_holds_the_original_numbers_unchanged():
    with open(H100 / "stream_read_vs_warps.csv", newline="") as handle:
        original = list(csv.DictReader(handle))
    lines = [line for line in MODEL_CSV.read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.reader(lines[1:]))
    assert len(rows) == len(original) == 228
    for row, raw in zip(rows, original):
        assert row == [raw["ilp"], raw["alpha"], raw["warps_per_SM"], raw["rep"], raw["GBps"]]


def test_where_keeps_matching_rows_and_records_the_selection():
    d = data.read_csv(MODEL_CSV).where("alpha", 128)
    assert d.rows == 57 and set(d.column("alpha").values) == {128.0}
    assert d.selection == (("alpha", 128.0),)
    with pytest.raises(errors.UsageError, match=r"^data/h100/.*: no row has alpha = 7 \(values: 0, 8, 32, 128\)$"):
        data.read_csv("data/h100/stream_read_vs_warps_model.csv").where("alpha", 7)


# ------------------------------------------------------------------------------ knee
def test_knee_is_where_ninety_percent_of_the_highest_value_is_first_reached():
    # 90 % of 100 = 90 lies between (10, 50) and (20, 100): 10 + (90 - 50) * 10/50 = 18.
    assert compare.knee([0, 10, 20, 30], [0, 50, 100, 100]) == pytest.approx(18.0)
    # repeated x are averaged first: (40 + 60)/2 = 50 at x = 10
    assert compare.knee([0, 10, 10, 20], [0, 40, 60, 100]) == pytest.approx(18.0)
    assert compare.knee([1, 2], [95, 100]) is None


# --------------------------------------------------------------------- ILP variant
def _with_alu_bound(model, quantity, case_id):
    """``quantity`` with the ALU bound taken from its ``case_id`` case (Latency expanded)."""
    case = next(c.value for c in model.equations["ilp_alu_bound"].cases if c.id == case_id)
    return model.expression(quantity, stop_at=("alu_bound_ilp", "ipc_per_SM")).xreplace({model.symbols["alu_bound_ilp"]: case})


def test_ilp_variant_reduces_to_the_base_model_at_ilp_one():
    base, ilp = symgpu.load("volkov_2016"), symgpu.load("volkov_2016_ilp")
    s = ilp.symbols
    swap = {s["ilp"]: 1, s["ipc_per_SM"]: s["mem_thru"]}
    for quantity, base_quantity in (("memory_throughput_ilp", "memory_throughput"), ("n_needed_ilp", "n_needed")):
        reduced = _with_alu_bound(ilp, quantity, "alpha_workload").xreplace(swap)
        # compare under the base's symbols (same names, possibly other assumption sets)
        reduced = reduced.xreplace({sym: base.symbols[sym.name] for sym in reduced.free_symbols})
        assert sympy.simplify(reduced - base.expression(base_quantity)) == 0


def test_alpha_zero_case_is_the_limit_of_the_alpha_workload_case():
    ilp = symgpu.load("volkov_2016_ilp")
    alpha = ilp.symbols["alpha"]
    for quantity in ("memory_throughput_ilp", "n_needed_ilp"):
        general = _with_alu_bound(ilp, quantity, "alpha_workload")
        zero = _with_alu_bound(ilp, quantity, "memory_only").subs(alpha, 0)
        # limit of a Min = Min of the limits of its arguments; infinite ones drop out
        factor, inner = general.as_independent(sympy.Min) if not isinstance(general, sympy.Min) else (sympy.Integer(1), general)
        limits = {sympy.simplify(sympy.limit(factor * arg, alpha, 0, "+")) for arg in inner.args}
        zero_factor, zero_min = zero.as_independent(sympy.Min) if not isinstance(zero, sympy.Min) else (sympy.Integer(1), zero)
        expected = {sympy.simplify(zero_factor * arg) for arg in zero_min.args}
        assert limits - {sympy.oo} == expected and sympy.oo in limits


def test_alpha_zero_evaluates_exactly_and_ilp_divides_the_warps_needed():
    ilp = symgpu.load("volkov_2016_ilp")
    # Maxwell: 368 cycles x 211 GB/s / (1.266 GHz x 16 SM x 128 B/winst) warps
    by_hand = 368 * 211e9 / (1.266e9 * 16 * 128)
    one = ilp.evaluate("n_needed_ilp", "maxwell", values={"alpha": 0, "ilp": 1}).magnitude
    four = ilp.evaluate("n_needed_ilp", "maxwell", values={"alpha": 0, "ilp": 4}).magnitude
    assert one == pytest.approx(by_hand, rel=1e-12)
    assert four == pytest.approx(by_hand / 4, rel=1e-12)


def test_closed_form_loaded_throughput_is_the_fixed_point_found_by_bisection():
    base, ilp = symgpu.load("volkov_2016"), symgpu.load("volkov_2016_ilp")
    for n, alpha in ((4, 1), (16, 8), (64, 32), (40, 0.5)):
        def step(x: float) -> float:
            return base.evaluate("memory_throughput_loaded", "kepler",
                                 values={"n": n, "alpha": alpha, "x": x}).magnitude - x
        low, high = 0.0, 0.1477 * (1 - 1e-12)
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (mid, high) if step(mid) > 0 else (low, mid)
        closed = ilp.evaluate("memory_throughput_loaded_ilp", "kepler", values={"n": n, "alpha": alpha, "ilp": 1}).magnitude
        assert closed == pytest.approx((low + high) / 2, rel=1e-9)


# ------------------------------------------------------------------------------ fit
def _synthetic(a: float, b: float, c_gbs: float) -> data.MeasuredData:
    """H100-sized GB/s at alpha = 0 from the implicit §6.5 equation, solved by bisection."""
    clock, sms, per_load = 1.98e9, 132, 128
    rows = []
    for n in (1, 2, 4, 8, 16, 24, 32, 48, 64):
        low, high = 0.0, c_gbs * (1 - 1e-12)
        for _ in range(200):
            theta = (low + high) / 2
            latency = a + b * theta / (c_gbs - theta)
            implied = n / latency * per_load * sms * clock / 1e9
            low, high = (theta, high) if implied > theta else (low, theta)
        rows.append((n, (low + high) / 2))
    return data.MeasuredData("synthetic.csv", (
        data.Column("n", "warp/SM", tuple(float(r[0]) for r in rows)),
        data.Column("alpha", "1", (0.0,) * len(rows)),
        data.Column("ilp", "winst/warp", (1.0,) * len(rows)),
        data.Column("dram_throughput", "GB/s", tuple(r[1] for r in rows)),
    ))


def test_fit_recovers_the_parameters_that_generated_the_data():
    model = symgpu.load("volkov_2016_ilp")
    result = fit.fit(model, "dram_throughput", _synthetic(700.0, 80.0, 3000.0), ["a", "b", "c"], preset="h100",
                     start={"a": 600, "b": 50, "c": "3300 GB/s"})
    assert result.value("a") == pytest.approx(700.0, rel=1e-5)
    assert result.value("b") == pytest.approx(80.0, rel=1e-4)
    assert result.value("c") == pytest.approx(3000.0, rel=1e-5)
    assert result.rms_relative < 1e-7
    for p in result.parameters:
        assert p.low <= p.value <= p.high


def test_fit_on_the_h100_alpha0_series_matches_the_committed_preset():
    model = symgpu.load("volkov_2016_ilp")
    measured = data.read_csv(MODEL_CSV).where("alpha", 0)
    result = fit.fit(model, "dram_throughput", measured, ["a", "b", "c"], preset="h100", start={"a": 675, "b": 100, "c": "3352 GB/s"})
    preset = model.preset("h100_fit_alpha0")
    for name in ("a", "b", "c"):
        assert result.value(name) == pytest.approx(preset[name].magnitude, rel=1e-5)
    assert result.rms_relative < 0.01


def test_fit_refuses_too_few_points_unknown_parameters_and_wrong_units():
    model = symgpu.load("volkov_2016_ilp")
    few = data.parse_csv("n [warp/SM],alpha [1],ilp [winst/warp],dram_throughput [GB/s]\n1,0,1,40\n2,0,1,80\n", "few.csv")
    with pytest.raises(errors.UsageError, match=r"^few\.csv: 2 points cannot determine 3 parameters; measure more points than parameters$"):
        fit.fit(model, "dram_throughput", few, ["a", "b", "c"], preset="h100_fit_alpha0")
    with pytest.raises(errors.UsageError, match=r"^volkov_2016_ilp: dram_throughput does not depend on 'mem_lat'"):
        fit.fit(model, "dram_throughput", few, ["mem_lat"], preset="h100_fit_alpha0")
    wrong = data.parse_csv("n [cycle],alpha [1],ilp [winst/warp],dram_throughput [GB/s]\n1,0,1,40\n2,0,1,80\n", "w.csv")
    with pytest.raises(errors.UsageError, match=r"^w\.csv: column 'n \[cycle\]' has dimension \[clock\], but volkov_2016_ilp\.n is"):
        fit.fit(model, "dram_throughput", wrong, ["a"], preset="h100_fit_alpha0")
    missing = data.parse_csv("n [warp/SM],dram_throughput [GB/s]\n1,40\n2,80\n", "m.csv")
    with pytest.raises(errors.UsageError, match=r"^volkov_2016_ilp\.dram_throughput needs alpha, ilp, found in no column of m\.csv"):
        fit.fit(model, "dram_throughput", missing, ["a"], preset="h100_fit_alpha0")


def test_preset_block_carries_the_command_and_the_fit_quality():
    model = symgpu.load("volkov_2016_ilp")
    result = fit.fit(model, "dram_throughput", _synthetic(700.0, 80.0, 3000.0), ["a"], preset="h100_fit_alpha0")
    block = fit.preset_toml(result, "mine")
    assert block.startswith("[presets.mine]\n")
    assert "symgpu fit volkov_2016_ilp dram_throughput --data synthetic.csv --params a --preset h100_fit_alpha0" in block
    assert 'based_on = "h100_fit_alpha0"' in block


# -------------------------------------------------------------------- comparison
def test_h100_comparison_shows_where_the_alpha0_fit_fails():
    model = symgpu.load("volkov_2016_ilp")
    result = compare.compare(model, "dram_throughput", data.read_csv(MODEL_CSV), preset="h100_fit_alpha0")
    by_alpha = {dict(s.fixed)["alpha"]: s for s in result.series}
    assert by_alpha[0].rms_relative < 0.01 and by_alpha[8].rms_relative < 0.02
    assert by_alpha[128].max_relative > 1.0          # more than 2x too high at alpha = 128
    assert abs(by_alpha[0].knee_model - by_alpha[0].knee_measured) < 1.5


def test_measurement_section_svg_is_deterministic():
    from symgpu.report import measurements

    model = symgpu.load("volkov_2016_ilp")
    first, second = measurements.sections(model), measurements.sections(model)
    assert [s.svg for s in first] == [s.svg for s in second]
    assert first[0].svg.startswith(b"<?xml") and b"Date" not in first[0].svg
    assert first[0].as_dict()["series"][0]["label"] == "ilp = 1 winst/warp, alpha = 0"   # ilp declared in winst/warp


# --------------------------------------------------------------------------- CLI
def test_cli_fit_prints_values_with_units_and_intervals(capsys):
    code = cli.main(["fit", "volkov_2016_ilp", "dram_throughput", "--data", str(MODEL_CSV), "--where", "alpha=0",
                     "--params", "a,b,c", "--preset", "h100_fit_alpha0", "--preset-id", "x"])
    out = capsys.readouterr().out
    assert code == 0
    assert "  a = 747.73" in out and "cycle  (95% CI [" in out and "RMS relative error 0.65%" in out
    assert "[presets.x.values]" in out


def test_cli_bad_data_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("n,dram_throughput [GB/s]\n1,2\n")
    code = cli.main(["measured", "volkov_2016_ilp", "dram_throughput", "--data", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("symgpu: error: ")


def test_cli_measure_without_cupy_is_a_clear_usage_error(capsys):
    try:
        import cupy  # noqa: F401
    except ImportError:
        code = cli.main(["measure", "-o", "unused"])
        assert code == 2
        assert capsys.readouterr().err == "symgpu: error: symgpu measure needs CuPy and an NVIDIA GPU: pip install 'symgpu[cuda]'\n"
    else:
        pytest.skip("CuPy is installed: the refusal path cannot be shown here")


def test_measure_on_a_gpu_writes_csvs_the_reader_accepts(tmp_path):
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no NVIDIA GPU")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no NVIDIA GPU")
    from symgpu.measure import microbench

    for path in microbench.run_all(tmp_path, quick=True):
        measured = data.read_csv(path)
        assert measured.rows > 0 and all(math.isfinite(v) for c in measured.columns for v in c.values)
    stream = data.read_csv(tmp_path / "stream.csv")
    assert np.all(stream.column("dram_throughput").array() > 0)


def test_a_missing_or_oversized_data_file_is_refused_with_what_to_do(tmp_path):
    from symgpu.measure import data as measured_data

    with pytest.raises(symgpu.UsageError, match=r"^.*nope\.csv: cannot read measured data \(No such file or directory\)$"):
        measured_data.read_csv(tmp_path / "nope.csv")
    big = tmp_path / "big.csv"
    big.write_text("n [warp/SM]\n" + "1\n" * 10)
    size = measured_data.MAX_BYTES + 1
    os.truncate(big, size)  # really over the limit (a sparse file: no disk used for it)
    with pytest.raises(symgpu.UsageError, match=rf"^.*big\.csv: {size} bytes of measured data \(limit {size - 1}\); split the file$"):
        measured_data.read_csv(big)


def test_a_plot_that_cannot_be_written_is_a_usage_error_naming_the_option(capsys):
    code = cli.main(["measured", "volkov_2016_ilp", "dram_throughput", "--data", "data/h100/stream_read_vs_warps_model.csv",
                     "--preset", "h100_fit_alpha0", "--plot", "/proc/nope/x.svg"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().endswith("--plot '/proc/nope/x.svg': folder '/proc/nope' does not exist; create it first or give another path")


def _reads_by_brute_force(size: int, grid: int, threads: int, ilp: int) -> int:
    """The stream kernel's loop, thread by thread (the CUDA source's bounds, in Python)."""
    count = 0
    for block in range(grid):
        for thread in range(threads):
            i = block * threads * ilp + thread
            while i + (ilp - 1) * threads < size:
                count += ilp
                i += grid * threads * ilp
    return count


@pytest.mark.parametrize(("size", "grid", "threads", "ilp"), [(100, 2, 8, 2), (1000, 3, 32, 4), (4096, 4, 64, 1), (37, 5, 3, 4), (5, 2, 8, 1)])
def test_stream_bandwidth_counts_exactly_the_floats_the_kernel_reads(size, grid, threads, ilp):
    from symgpu.measure import microbench

    assert microbench.elements_read(size, grid, threads, ilp) == _reads_by_brute_force(size, grid, threads, ilp)


def test_warps_above_32_per_sm_are_pinned_as_two_blocks_that_alone_fit():
    from symgpu.measure import microbench

    measured = json.loads((REPO / "data" / "h100" / "device_attributes.json").read_text())
    h100 = microbench.DeviceAttributes(clock_khz=measured["clockRate_kHz"], sms=measured["multiProcessorCount"],
                                       max_threads_per_sm=measured["maxThreadsPerMultiProcessor"],
                                       major=measured["computeCapabilityMajor"], minor=measured["computeCapabilityMinor"],
                                       smem_per_sm=measured["maxSharedMemoryPerMultiprocessor"],
                                       smem_per_block_optin=measured["maxSharedMemoryPerBlockOptin"])
    reserved = measured["reservedSharedMemoryPerBlock"]
    for warps in (1, 17, 32, 40, 64):
        blocks, threads, smem = microbench.pinning(h100, warps)
        assert blocks * threads == 32 * warps and threads <= 1024
        assert blocks * (smem + reserved) <= h100.smem_per_sm < (blocks + 1) * (smem + reserved)
    assert microbench.pinning(h100, 65) is None and microbench.pinning(h100, 33) is None


def test_a_set_value_that_is_a_column_of_the_data_is_refused_not_ignored(capsys):
    # an outside tester's finding: --set ilp=4 with the data's ilp column was dropped without a word, the table unchanged
    code = cli.main(["measured", "volkov_2016_h100", "dram_throughput", "--data", "data/h200/run4/stream.csv",
                     "--where", "ilp=1", "--preset", "h200_transfer", "--set", "ilp=4"])
    assert code == 2
    assert capsys.readouterr().err == ("symgpu: error: --set ilp=4: ilp is a column of the measured data, which gives it at "
                                       "every point; drop the --set, or select rows with --where ilp=VALUE\n")
