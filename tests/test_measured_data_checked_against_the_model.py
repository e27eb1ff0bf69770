"""Measured data checked against the model where it is read, alike for ``symgpu measured`` and
``symgpu fit`` (outside round 12b F5-F8, F10, F11): every refusal names file and row, a column
naming a defined quantity never replaces its equation, labels carry units, ``--where`` takes one."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from symgpu import cli
from symgpu.evaluate import evaluator
from symgpu.measure import compare, data

#: Little's law with a named intermediate: thr = Min(lat_thr, peak), lat_thr = n*SMs*bpw/lat
TOY = """schema_version = 1
[model]
id = "toy_little"
title = "Little's law toy"
summary = "Throughput = min(n*SMs*bpw/lat, peak)."
references = ["me"]
[references.me]
authors = ["tester"]
title = "toy"
venue = "none"
year = 2026
[symbols.n]
description = "warps per SM"
unit = "warp/SM"
assumptions = ["positive"]
[symbols.lat]
description = "latency"
unit = "ns"
assumptions = ["positive"]
[symbols.bpw]
description = "bytes per warp"
unit = "B/warp"
assumptions = ["positive"]
[symbols.SMs]
description = "SMs"
unit = "SM"
assumptions = ["positive"]
[symbols.peak]
description = "peak"
unit = "GB/s"
assumptions = ["positive"]
[symbols.lat_thr]
description = "latency-bound throughput"
unit = "GB/s"
role = "intermediate"
[symbols.thr]
description = "throughput"
unit = "GB/s"
role = "output"
[[equations]]
id = "latency_bound"
defines = "lat_thr"
rhs = "n*SMs*bpw/lat"
source = { ref = "me", locator = "toy" }
[[equations]]
id = "little"
defines = "thr"
rhs = "Min(lat_thr, peak)"
source = { ref = "me", locator = "toy" }
[presets.gpu]
description = "toy gpu"
source = { ref = "me", locator = "toy" }
[presets.gpu.values]
bpw = "128 B/warp"
SMs = "100 SM"
lat = "400 ns"
peak = "1500 GB/s"
"""
HEADER = "n [warp/SM],lat [us],rep [1],thr [GB/s]\n"


@pytest.fixture()
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toy_little.toml").write_text(TOY)
    return tmp_path


def _both(csv_name: str, extra: tuple[str, ...] = ()) -> list[list[str]]:
    """The measured and the fit command lines on one data file."""
    common = ["toy_little.toml", "thr", "--data", csv_name, "--preset", "gpu", *extra]
    return [["measured", *common], ["fit", *common, "--params", "bpw"]]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err, list(caught)


@pytest.mark.parametrize("cell, shown", [("0", "0"), ("-50", "-50")])
def test_a_measurement_that_is_not_positive_is_refused_alike_by_measured_and_fit_naming_file_and_row(toy, capsys, cell, shown):
    # row 3 of the file (line 4 after a comment and the header) holds the bad value
    (toy / "m.csv").write_text("# provenance\n" + HEADER + "1,0.5,0,25\n2,0.5,0,52\n4,0.5,0," + cell + "\n8,0.5,0,200\n")
    for argv in _both("m.csv"):
        code, out, err, caught = _run(argv, capsys)
        assert (code, out) == (2, "")
        assert err == f"symgpu: error: m.csv:5: thr must be positive for relative errors; found {shown}\n"
        assert not caught


def test_an_input_that_breaks_its_declared_sign_is_refused_naming_file_row_and_column(toy, capsys):
    (toy / "a.csv").write_text(HEADER + "1,0.5,0,25\n2,0.5,0,52\n")
    (toy / "b.csv").write_text(HEADER + "4,0.5,0,100\n0,0.5,0,1\n")
    # the second file's third line: row numbers survive joining files and selecting rows
    for argv in _both("a.csv", ("--data", "b.csv", "--where", "lat=0.5")):
        code, out, err, _ = _run(argv, capsys)
        assert (code, out) == (2, "")
        assert err == "symgpu: error: b.csv:3: column 'n' holds 0, but n is declared positive; fix or drop the row\n"


def test_a_value_that_overflows_in_the_models_units_is_refused_with_no_runtime_warning(toy, capsys):
    # 1e308 GB/s is a double, but not in base units (B/s): 1e317
    (toy / "big.csv").write_text(HEADER + "1,0.5,0,25\n2,0.5,0,1e308\n4,0.5,0,100\n")
    for argv in _both("big.csv"):
        code, out, err, caught = _run(argv, capsys)
        assert (code, out) == (2, "")
        assert err.startswith("symgpu: error: big.csv:3: column 'thr' holds 1e+308 GB/s, which is not a finite number "
                              "once converted to toy_little's units (GB/s, then base units)")
        assert err.count("\n") == 1 and not caught


def test_an_evaluation_whose_input_overflows_in_base_units_warns_nothing():
    model = symgpu.load("volkov_2016_ilp")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluator.evaluate(model, "dram_throughput", preset="h100_fit_alpha0", values={"c": [1e308, 1e308], "n": [1.0, 2.0], "alpha": 0, "ilp": 1})
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []


def test_a_column_naming_a_defined_quantity_is_ignored_and_named_never_used_in_place_of_its_equation(toy, capsys):
    # lat_thr = 7 GB/s logged beside thr must not replace lat_thr = n*SMs*bpw/lat
    (toy / "d.csv").write_text("n [warp/SM],lat [us],lat_thr [GB/s],thr [GB/s]\n1,0.5,7,25\n2,0.5,7,52\n4,0.5,7,100\n")
    model = symgpu.load(str(toy / "toy_little.toml"))
    result = compare.compare(model, "thr", data.read_csv("d.csv"), preset="gpu")
    # by hand: n * 100 SM * 128 B/warp / 500 ns = n * 25.6 GB/s, under the 1500 GB/s peak
    expected = [float(Fraction(n) * 100 * 128 / Fraction(500, 10**9) / 10**9) for n in (1, 2, 4)]
    assert list(result.series[0].model) == pytest.approx(expected, rel=1e-12)
    assert [s.fixed for s in result.series] == [(("lat", 500.0),)]   # 0.5 us exactly, as a preset's would be
    note = "  columns naming a quantity the model defines (ignored; its equation is used): lat_thr (equation latency_bound)"
    assert result.defined == (("lat_thr", "latency_bound"),)
    for argv in _both("d.csv"):
        code, out, _, _ = _run(argv, capsys)
        assert code == 0 and note in out.splitlines()


def test_a_series_label_shows_its_unit_and_where_takes_a_quantity_converted_exactly(toy, capsys):
    (toy / "t.csv").write_text(HEADER + "1,0.5,0,25\n2,0.5,0,52\n4,0.3,0,150\n8,0.3,0,300\n")
    code, out, _, _ = _run(["measured", "toy_little.toml", "thr", "--data", "t.csv", "--preset", "gpu"], capsys)
    assert code == 0
    labels = [line.split("  ")[1] for line in out.splitlines()[2:4]]
    assert labels == ["lat = 300 ns", "lat = 500 ns"]     # the column's 0.3 and 0.5 us in lat's declared ns
    by_number = _run(["measured", "toy_little.toml", "thr", "--data", "t.csv", "--preset", "gpu", "--where", "lat=0.3"], capsys)
    # 300 ns is 0.3 us exactly (0.3 us read as a double times 1000 would be 299.99999999999994 ns)
    by_quantity = _run(["measured", "toy_little.toml", "thr", "--data", "t.csv", "--preset", "gpu", "--where", "lat=300 ns"], capsys)
    assert by_number[0] == by_quantity[0] == 0
    assert by_quantity[1] == by_number[1] and "lat = 300 ns" in by_quantity[1] and "lat = 500 ns" not in by_quantity[1]
    code, _, err, _ = _run(["measured", "toy_little.toml", "thr", "--data", "t.csv", "--preset", "gpu", "--where", "lat=500"], capsys)
    assert (code, err) == (2, "symgpu: error: t.csv: no row has lat = 500 us (values: 0.3, 0.5 us)\n")
    for hostile in ("lat=500 GB", "lat=__import__('os')"):
        code, out, err, _ = _run(["measured", "toy_little.toml", "thr", "--data", "t.csv", "--preset", "gpu", "--where", hostile], capsys)
        assert (code, out) == (2, "") and err.startswith(f"symgpu: error: --where {hostile!r}: ") and err.count("\n") == 1


def test_the_json_of_measured_and_fit_lists_the_columns_it_ignored_and_why(toy, capsys):
    # rep names no symbol; lat_thr names a quantity the model defines (equation latency_bound): both left out, and said
    (toy / "j.csv").write_text("n [warp/SM],lat [us],rep [1],lat_thr [GB/s],thr [GB/s]\n1,0.5,1,7,25.6\n2,0.5,2,7,51.2\n4,0.5,3,7,102.4\n")
    expected = {"no_symbol": ["rep"], "defined_quantity": [{"column": "lat_thr", "equation": "latency_bound"}]}
    for argv in _both("j.csv", ("--json",)):
        code, out, err, _ = _run(argv, capsys)
        assert code == 0, err
        assert json.loads(out)["ignored_columns"] == expected
    (toy / "k.csv").write_text("n [warp/SM],lat [us],thr [GB/s]\n1,0.5,25.6\n2,0.5,51.2\n4,0.5,102.4\n")
    for argv in _both("k.csv", ("--json",)):   # nothing ignored: the key is there, its lists empty
        code, out, err, _ = _run(argv, capsys)
        assert code == 0 and json.loads(out)["ignored_columns"] == {"no_symbol": [], "defined_quantity": []}
