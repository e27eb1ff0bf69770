"""A sweep's file (CSV or Parquet) is data that ``symgpu measured`` and ``symgpu fit`` read: every number column carries
its unit (``[1]`` for a pure number such as alpha), the regime column is kept as labels, and the values are the model's.
The expected values are Volkov's memory throughput written out by hand (Little's law against the three throughput
bounds, Maxwell's Table 4.1 inputs), not read from symgpu."""

from __future__ import annotations

import json

import numpy as np
import pytest

from symgpu import errors
from symgpu.cli import data_files
from symgpu.measure import data

pytest.importorskip("pyarrow")

#: Maxwell's inputs of volkov_2016 (Table 4.1): mem_lat, alu_lat in cycles, throughputs in winst/cycle/SM
MAXWELL = {"mem_lat": 368.0, "alu_lat": 6.0, "mem_thru": 0.0814, "alu_thru": 4.0, "issue_thru": 4.0}
GRID = ("-g", "n=1:64", "-g", "alpha=0,2,8")


def memory_throughput(n: float, alpha: float, mem_lat: float = MAXWELL["mem_lat"]) -> float:
    """Volkov's alpha-workload throughput by hand: Min(n/(mem_lat + alpha alu_lat), mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))."""
    bounds = [n / (mem_lat + alpha * MAXWELL["alu_lat"]), MAXWELL["mem_thru"], MAXWELL["issue_thru"] / (alpha + 1)]
    return min(bounds + ([MAXWELL["alu_thru"] / alpha] if alpha else []))


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_sweep_file_reads_back_with_every_column_in_its_unit_and_the_regimes_as_labels(cli, tmp_path, suffix):
    out = tmp_path / f"s.{suffix}"
    code, _, err = cli("sweep", "volkov_2016", "memory_throughput", "-p", "maxwell", *GRID, "-o", out)
    assert code == 0, err
    read = data_files.read(str(out))
    assert [(c.name, c.unit_text) for c in read.columns] == [("n", "warp/SM"), ("alpha", "1"), ("memory_throughput", "winst/cycle/SM")]
    assert read.label_names == ("regime",) and read.rows == 64 * 3
    expected = [memory_throughput(n, a) for n, a in zip(read.column("n").values, read.column("alpha").values)]
    assert sorted(zip(read.column("n").values, read.column("alpha").values)) == [(n, a) for n in range(1, 65) for a in (0, 2, 8)]
    assert np.allclose(read.column("memory_throughput").values, expected, rtol=1e-12, atol=0)
    # the regime of each point is the bound that is smallest there: the latency bound n/(...) or another
    latency = [n / (MAXWELL["mem_lat"] + a * MAXWELL["alu_lat"]) for n, a in zip(read.column("n").values, read.column("alpha").values)]
    assert [label == "latency_bound" for label in read.labels[0].values] == [lat <= e for lat, e in zip(latency, expected)]


def test_a_sweeps_csv_header_gives_a_pure_number_the_unit_1_and_the_regime_its_bare_name(cli, tmp_path):
    code, _, err = cli("sweep", "volkov_2016", "memory_throughput", "-p", "maxwell", *GRID, "-o", tmp_path / "s.csv")
    assert code == 0, err
    assert (tmp_path / "s.csv").read_text().splitlines()[0] == "n [warp/SM],alpha [1],memory_throughput [winst/cycle/SM],regime"


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_measured_compares_a_model_with_its_own_sweep_to_no_error_and_lists_the_regime_column_as_ignored(cli, tmp_path, suffix):
    out = tmp_path / f"s.{suffix}"
    assert cli("sweep", "volkov_2016", "memory_throughput", "-p", "maxwell", *GRID, "-o", out)[0] == 0
    code, text, err = cli("measured", "volkov_2016", "memory_throughput", "-p", "maxwell", "--data", out, "--json")
    assert code == 0, err
    found = json.loads(text)
    assert found["max_relative"] < 1e-12 and len(found["points"]) == 64 * 3
    assert found["ignored_columns"]["no_symbol"] == ["regime"]
    for point in found["points"][::17]:
        assert point["measured"] == pytest.approx(memory_throughput(point["inputs"]["n"], point["inputs"]["alpha"]), rel=1e-12)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_fit_recovers_the_memory_latency_a_sweep_was_made_with(cli, tmp_path, suffix):
    out = tmp_path / f"s.{suffix}"
    code, _, err = cli("sweep", "volkov_2016", "memory_throughput", "-p", "maxwell", "--set", "mem_lat=500", *GRID, "-o", out)
    assert code == 0, err
    # the preset's mem_lat is 368: the fit must move it to the sweep's 500
    code, text, err = cli("fit", "volkov_2016", "memory_throughput", "-p", "maxwell", "--data", out, "--params", "mem_lat", "--json")
    assert code == 0, err
    (fitted,) = json.loads(text)["parameters"]
    assert fitted["name"] == "mem_lat" and fitted["value"] == pytest.approx(500.0, rel=1e-9)


def test_a_sweeps_parquet_with_a_value_outside_the_domain_is_refused_naming_the_row_and_column():
    with pytest.raises(errors.UsageError, match=r"^s\.parquet: row 2: column 'x' holds nan, not a finite number \(1 of 2 rows; "
                                                 r"a sweep writes nan where a point is outside the model's domain\)"):
        data.from_arrays("s.parquet", [("n", "warp/SM", np.array([1.0, 2.0])), ("x", "1", np.array([1.0, np.nan]))])


def test_a_column_without_a_recorded_unit_is_refused_not_read_as_a_pure_number():
    with pytest.raises(errors.UsageError, match=r"^s\.parquet: column 'x' has no unit recorded"):
        data.from_arrays("s.parquet", [("x", "", np.array([1.0]))])


def test_a_bare_header_other_than_the_regimes_is_still_refused():
    with pytest.raises(errors.UsageError, match=r"^x\.csv:1: header 'alpha' is not 'name \[unit\]'"):
        data.parse_csv("n [warp/SM],alpha,regime\n1,2,a\n", "x.csv")
    read = data.parse_csv("n [warp/SM],alpha [1],regime\n1,2,latency_bound\n3,4,\n", "x.csv")
    assert read.names == ("n", "alpha") and read.labels == (data.LabelColumn("regime", ("latency_bound", "")),)
    kept = read.where("n", 3)
    assert kept.labels == (data.LabelColumn("regime", ("",)),) and kept.column("alpha").values == (4.0,)
