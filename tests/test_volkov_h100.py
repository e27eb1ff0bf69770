"""The refined H100 latency-hiding model (equations/volkov_2016_h100.toml, issue 29): its closed
form against an independent root finder, the shipped joint fit against every measured point,
synthetic data recovered by ``symgpu fit``, the explicit occupancy questions, and
``symgpu measured``'s per-point residuals, extrapolation marks and ``--preset-file``."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import cli, errors, units
from symgpu.cli import common
from symgpu.measure import data, fit

REPO = Path(__file__).resolve().parent.parent
H100 = REPO / "data" / "h100"
ILP1 = "data/h100/stream_read_vs_warps_model.csv"
ILP24 = "data/h100/stream_read_vs_warps_ilp2_ilp4_model.csv"
#: GB/s per (memory instruction per cycle per SM): 128 B x 132 SM x 1.98 GHz
GBS_PER_IPC = 128 * 132 * 1.98


@pytest.fixture(scope="module")
def model() -> symgpu.model.Model:
    return symgpu.load("volkov_2016_h100")


def _by_hand(n: float, alpha: float, ilp: float, p: dict[str, float]) -> float:
    """dram_throughput from the model's definitions, solved by bisection (no closed form used)."""
    unloaded = p["a"] + p["s_fork"] * math.log(ilp) + (alpha + 1) * max(4.055, ilp * 1.0)
    alu = p["alu_sat"] * ilp / (ilp + p["ilp_half"]) / (alpha + 1)
    issue = 4.0 / (1 + alpha + 1 + 1 + 3 / ilp)
    cap = min(p["c"] / GBS_PER_IPC, alu, issue)
    low, high = 0.0, cap * (1 - 1e-15)
    for _ in range(200):
        mid = (low + high) / 2
        if mid * (unloaded + p["b"] * mid / (cap - mid)) < n * ilp:
            low = mid
        else:
            high = mid
    return low * GBS_PER_IPC


FIT = {"a": 722.912, "b": 106.486, "c": 3139.56, "s_fork": 124.663, "alu_sat": 2.67127, "ilp_half": 0.349041}


@pytest.mark.parametrize("n,alpha,ilp", [(1, 0, 1), (64, 0, 1), (20, 32, 2), (64, 32, 4), (40, 128, 1), (8, 0, 8)])
def test_closed_form_equals_bisection_of_the_implicit_model(model, n, alpha, ilp):
    got = model.evaluate("dram_throughput", preset="h100_fit", n=n, alpha=alpha, ilp=ilp).to("GB/s").magnitude
    assert got == pytest.approx(_by_hand(n, alpha, ilp, FIT), rel=1e-9)


def test_h100_fit_answers_every_measured_point_within_the_stated_errors(model):
    measured = data.concat([data.read_csv(REPO / ILP1), data.read_csv(REPO / ILP24)])
    cols = {c.name: c.array() for c in measured.columns}
    got = model.evaluate("dram_throughput", preset="h100_fit", n=cols["n"], alpha=cols["alpha"], ilp=cols["ilp"]).magnitude
    rel = got / cols["dram_throughput"] - 1
    assert len(rel) == 456
    assert np.sqrt(np.mean(rel ** 2)) < 0.03 and np.abs(rel).max() < 0.10


def test_h100_fit_parameters_are_physical(model):
    values = {k: v.magnitude for k, v in model.preset("h100_fit").items()}
    with open(H100 / "latency.csv", newline="") as handle:
        dram = [float(r["cycles_per_step"]) for r in csv.DictReader(handle) if float(r["footprint_bytes"]) >= 2 ** 30]
    assert values["a"] >= min(dram)                       # no faster than the pointer chase (675 cycles)
    assert 2885 < values["c"] <= 3352                      # above every measured GB/s, at most the pin bandwidth
    assert values["alu_sat"] <= 122.1 / 32                 # at most the measured FMA peak
    assert values["s_fork"] >= 0 and values["ilp_half"] > 0


def test_joint_fit_recovers_known_parameters_from_synthetic_data(model):
    truth = {"a": 700.0, "b": 80.0, "c": 3000.0, "s_fork": 90.0, "alu_sat": 3.0, "ilp_half": 0.5}
    rows = ["ilp [winst/warp],alpha [1],n [warp/SM],dram_throughput [GB/s]"]
    for ilp in (1, 2, 4):
        for alpha in (0, 32, 128):
            for n in (1, 4, 8, 16, 24, 32, 48, 64):
                rows.append(f"{ilp},{alpha},{n},{_by_hand(n, alpha, ilp, truth)!r}")
    synthetic = data.parse_csv("\n".join(rows) + "\n", "synthetic.csv")
    result = fit.fit(model, "dram_throughput", synthetic, tuple(truth), preset="h100_stream")
    for name, value in truth.items():
        assert result.value(name) == pytest.approx(value, rel=1e-5)
    assert result.rms_relative < 1e-8


def test_warps_for_a_target_throughput_invert_the_model(model):
    theta = _by_hand(20, 32, 2, FIT)
    n = model.evaluate("n_for_throughput", preset="h100_fit", alpha=32, ilp=2, theta_target=f"{theta!r} GB/s").magnitude
    assert n == pytest.approx(20, rel=1e-9)
    product = model.evaluate("loads_in_flight_needed", preset="h100_fit", alpha=32, ilp=2, theta_target=f"{theta!r} GB/s").magnitude
    assert product == pytest.approx(40, rel=1e-9)          # warps x ILP


def test_knee_is_the_occupancy_of_ninety_percent_of_the_capacity(model):
    n90 = model.evaluate("n_knee_h100", preset="h100_fit", alpha=0, ilp=1, plateau_fraction=0.9).magnitude
    cap = model.evaluate("capacity_h100", preset="h100_fit", alpha=0, ilp=1).magnitude
    assert _by_hand(n90, 0, 1, FIT) == pytest.approx(0.9 * cap * GBS_PER_IPC, rel=1e-9)


def test_closed_form_questions_match_their_expected_forms_in_seconds(capsys):
    assert cli.main(["derive", "volkov_2016_h100", "h100_warps_for_target", "h100_cusp_alpha"]) == 0
    assert "2 of 2 derivations ok" in capsys.readouterr().out


def test_cusp_alpha_is_where_memory_and_alu_capacities_meet(model):
    # alpha* = alu_sat*ilp/((ilp + ilp_half)*c_ipc) - 1, by hand: 20.1 at ILP 1
    star = FIT["alu_sat"] / (1 + FIT["ilp_half"]) / (FIT["c"] / GBS_PER_IPC) - 1
    assert star == pytest.approx(20.1, abs=0.1)
    below = model.evaluate("capacity_h100", preset="h100_fit", alpha=star - 0.01, ilp=1).magnitude
    above = model.evaluate("capacity_h100", preset="h100_fit", alpha=star + 0.01, ilp=1).magnitude
    assert below == pytest.approx(FIT["c"] / GBS_PER_IPC, rel=1e-9)
    assert above < FIT["c"] / GBS_PER_IPC


def test_data_concat_joins_rows_and_refuses_other_columns():
    one = data.parse_csv("n [warp/SM],x [GB/s]\n1,2\n", "a.csv")
    two = data.parse_csv("n [warp/SM],x [GB/s]\n3,4\n", "b.csv")
    joined = data.concat([one, two])
    assert joined.path == "a.csv + b.csv" and joined.column("n").values == (1.0, 3.0)
    with pytest.raises(errors.UsageError, match=r"^c\.csv: columns n \[warp/SM\] differ from a\.csv's"):
        data.concat([one, data.parse_csv("n [warp/SM]\n1\n", "c.csv")])


def test_measured_json_gives_every_point_residual_and_no_extrapolation_inside_the_fit(capsys):
    assert cli.main(["measured", "volkov_2016_h100", "dram_throughput", "--data", ILP1, "--preset", "h100_fit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["points"]) == 228 and out["fitted_data"]["label"].endswith("ilp2_ilp4_model.csv")
    for p in out["points"]:
        assert p["relative"] == pytest.approx(p["model"] / p["measured"] - 1, rel=1e-12)
        assert not p["extrapolated"]


def test_measured_marks_points_beyond_the_fitted_data_as_extrapolated(capsys):
    code = cli.main(["measured", "volkov_2016_h100", "dram_throughput", "--data", ILP24, "--preset", "h100_fit",
                     "--residuals", "--fitted-on", ILP1])
    out = capsys.readouterr().out
    assert code == 0
    assert "228 of 228 points lie outside" in out
    assert "EXTRAPOLATED: ilp = 4 outside the fitted 1 to 1" in out


def test_preset_file_block_from_fit_is_usable_directly(tmp_path, capsys, model):
    block = tmp_path / "mine.toml"
    block.write_text('[presets.mine]\ndescription = "test"\nsource = { kind = "measured", note = "by hand" }\n'
                     'based_on = "h100_stream"\n[presets.mine.values]\n'
                     + "".join(f'{k} = "{v}"\n' for k, v in FIT.items()), encoding="utf-8")
    assert cli.main(["measured", "volkov_2016_h100", "dram_throughput", "--data", ILP24, "--preset-file", str(block),
                     "--preset", "mine", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = out["points"][0]
    assert first["model"] == pytest.approx(_by_hand(first["inputs"]["n"], first["inputs"]["alpha"], first["inputs"]["ilp"], FIT), rel=1e-9)
    assert out["fitted_data"] is None                     # 'by hand' is not a symgpu fit: nothing marked


def _block(preset_id: str, based_on: str, value: str) -> str:
    """A ``[presets.ID]`` block as ``symgpu fit --preset-id`` writes one, with one value."""
    return (f'[presets.{preset_id}]\ndescription = "x"\nsource = {{ kind = "measured", note = "x" }}\nbased_on = "{based_on}"\n'
            f'[presets.{preset_id}.values]\n{value}\n')


def _refused(capsys, path: Path, text: str, preset: str) -> str:
    """``measured`` with ``--preset-file path`` (holding ``text``) and ``--preset preset``: exit 2, its one-line message."""
    path.write_text(text, encoding="utf-8")
    assert cli.main(["measured", "volkov_2016_h100", "dram_throughput", "--data", ILP1, "--preset-file", str(path),
                     "--preset", preset]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


def test_preset_file_that_is_not_a_preset_block_is_refused_in_one_line(tmp_path, capsys):
    err = _refused(capsys, tmp_path / "bad.toml", '[model]\nid = "x"\n', "h100_fit")
    assert "expected only [presets.ID] tables, found model" in err


def test_preset_file_error_names_the_users_file_not_the_temporary_variant(tmp_path, capsys):
    err = _refused(capsys, tmp_path / "wrong_unit.toml", _block("bad", "h100_fit", 'a = "3 GB/s"'), "bad")
    assert f"--preset-file {tmp_path / 'wrong_unit.toml'}: [presets.bad].values.a" in err
    assert "symgpu-presets-" not in err and "_with_presets.toml" not in err


def test_preset_file_with_an_unknown_symbol_lists_a_few_declared_names_not_all(tmp_path, capsys, model):
    err = _refused(capsys, tmp_path / "unknown.toml", _block("bad", "h100_fit", 'zzz = "3 cycle"'), "bad")
    listed = err.split("declared symbols: ", 1)[1].split(", and ")[0].split(", ")
    assert "unknown symbol 'zzz'" in err and len(listed) == 5
    assert f"and {len(model.symbols) - 5} more" in err


def test_preset_file_block_with_a_bundled_preset_id_is_refused_not_swapped_in(tmp_path, capsys, model):
    assert "h100_fit" in model.presets
    err = _refused(capsys, tmp_path / "clash.toml", _block("h100_fit", "h100_stream", 'a = "900 cycle"'), "h100_fit")
    assert "'h100_fit' is already a preset of volkov_2016_h100" in err and "--preset-id" in err


def test_a100_n_needed_answers_from_the_converted_pin_bandwidth_and_v100_names_the_missing_latency():
    v = symgpu.load("volkov_2016")
    # by hand: (466.3 + 8 x 4) x min(1555/(1.41 x 108 x 128), 2/8, 4/9)
    expected = (466.3 + 8 * 4) * 1555 / (1.41 * 108 * 128)
    assert v.evaluate("n_needed", preset="a100", alpha=8).magnitude == pytest.approx(expected, rel=1e-6)
    with pytest.raises(errors.SymgpuError, match="mem_lat"):
        v.evaluate("n_needed", preset="v100", alpha=8)


def test_ilp2_ilp4_model_csv_holds_the_original_numbers_unchanged():
    with open(H100 / "stream_read_vs_warps_ilp2_ilp4.csv", newline="") as handle:
        original = list(csv.DictReader(handle))
    lines = [line for line in (REPO / ILP24).read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.reader(lines[1:]))
    assert len(rows) == len(original) == 228
    for row, raw in zip(rows, original):
        assert row == [raw["ilp"], raw["alpha"], raw["warps_per_SM"], raw["rep"], raw["GBps"]]


def test_a_fitted_preset_block_reads_back_as_the_very_values_fitted(tmp_path, capsys):
    """``fit --preset-id ID -o FILE`` writes each value's shortest round-trip repr: the preset read back with
    ``--preset-file`` holds the fitted floats exactly (the fit's JSON, whose floats round-trip, is the second path)."""
    block = tmp_path / "x.toml"
    assert cli.main(["fit", "volkov_2016_ilp", "dram_throughput", "--data", str(REPO / "data" / "h100" / "stream_read_vs_warps_model.csv"),
                     "--where", "alpha=0", "--params", "a,b,c", "--preset", "h100_fit_alpha0", "--preset-id", "x",
                     "-o", str(block), "--json"]) == 0
    fitted = {p["name"]: (p["value"], p["unit"]) for p in json.loads(capsys.readouterr().out)["parameters"]}
    preset = common.load_model_with_presets("volkov_2016_ilp", str(block)).preset("x")
    assert {k: (preset[k].magnitude, preset[k].units) for k in fitted} == {k: (v, units.unit(u)) for k, (v, u) in fitted.items()}
    assert any(float(f"{v:.6g}") != v for v, _ in fitted.values())  # six significant digits would not have read back


def test_fit_json_with_a_preset_id_is_one_json_document_holding_the_block(tmp_path, capsys):
    """``--json`` keeps stdout one JSON document: the block (no ``-o``) is its ``preset_block``, the same text
    ``-o`` writes; with ``-o`` the 'written to' line goes to stderr."""
    argv = ["fit", "volkov_2016_ilp", "dram_throughput", "--data", str(REPO / "data" / "h100" / "stream_read_vs_warps_model.csv"),
            "--where", "alpha=0", "--params", "a,b,c", "--preset", "h100_fit_alpha0", "--preset-id", "x", "--json"]
    assert cli.main(argv) == 0
    inline = json.loads(capsys.readouterr().out)["preset_block"]
    assert cli.main([*argv, "-o", str(tmp_path / "x.toml")]) == 0
    out, err = capsys.readouterr()
    assert "preset_block" not in json.loads(out) and err == f"preset block written to {tmp_path / 'x.toml'}\n"
    assert inline == (tmp_path / "x.toml").read_text(encoding="utf-8")
