"""``symgpu predict`` on a prediction-only file in the NeuSight format, with no ``Latency`` column at all, predicts every
row and prints no accuracy statistics, where it refused the file (review leftover, round 12b: the column had to be
there with empty cells); a column that looks like the measured time but is not read as one is still refused, so a
misnamed column never turns measurements into a prediction-only file."""

from __future__ import annotations

import csv
import io
import math

import symgpu
from symgpu.predict.mapping import assign
from symgpu.predict.rows import parse_rows
from conftest import assert_one_line_refusal

HEADER = "OPName,{latency}Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H,large\n"
ROWS = ['softmax,{latency}Tesla V100-PCIE-32GB,"cunn_SoftMaxForward<4, float>",32768,1,1,256,1,1,32768,1600,True\n',
        'add,{latency}Tesla T4,"vectorized_elementwise_kernel<4, add>",102400,1,1,128,1,1,32768,1600,True\n',
        'add,{latency}Tesla T4,"vectorized_elementwise_kernel<4, add>",16,1,1,2048,1,1,64,1024,False\n']   # 2048 threads: no prediction


def _file(latencies: list[str] | None) -> str:
    if latencies is None:
        return HEADER.format(latency="") + "".join(r.format(latency="") for r in ROWS)
    return HEADER.format(latency="Latency,") + "".join(r.format(latency=t + ",") for r, t in zip(ROWS, latencies))


def test_a_file_with_no_latency_column_is_read_as_rows_not_measured() -> None:
    _, bare = parse_rows(_file(None))
    _, measured = parse_rows(_file(["0.7", "0.5", "0.1"]))
    assert all(math.isnan(r.latency_ms) for r in bare)
    assert [r.latency_ms for r in measured] == [0.7, 0.5, 0.1]
    same = ("index", "operator", "device", "kernel", "grid", "block", "sizes", "problem")
    assert [[getattr(r, f) for f in same] for r in bare] == [[getattr(r, f) for f in same] for r in measured]


def test_predict_predicts_every_row_of_a_prediction_only_file_and_prints_no_statistics(cli, tmp_path) -> None:
    data, out_csv = tmp_path / "todo.csv", tmp_path / "out.csv"
    data.write_text(_file(None), encoding="utf-8")
    code, out, err = cli("predict", data, "-o", out_csv)
    assert code == 0, err
    assert "MAPE" not in out and "2 of 3 rows predicted" in out and "no accuracy statistics" in out
    assert "1 of 3 rows not predicted" in err   # the block of 2048 threads, as with measured rows
    written = list(csv.DictReader(io.StringIO(out_csv.read_text(encoding="utf-8"))))
    _, rows = parse_rows(_file(None))
    for row, line in zip(rows[:2], written):
        a = assign(row)   # brute force: the model at the row's inputs and its GPU's preset, on the evaluate path
        expected = symgpu.load(a.model).evaluate("t_kernel", preset=f"{a.gpu}+neusight_fit", values=dict(a.inputs)).to("ms").magnitude
        assert float(line["predicted_latency [ms]"]) == float(expected)
    assert written[2]["predicted_latency [ms]"] == "" and "valid only when" in written[2]["reason"]


def test_an_accuracy_report_of_a_file_without_measured_times_is_refused(cli, tmp_path) -> None:
    data = tmp_path / "todo.csv"
    data.write_text(_file(None), encoding="utf-8")
    assert_one_line_refusal(*cli("predict", data, "--report", tmp_path / "rep"), "--report", "no measured times")
    assert not (tmp_path / "rep").exists()


def test_a_column_that_looks_like_the_measured_time_is_still_refused(cli, tmp_path) -> None:
    data = tmp_path / "rows.csv"
    data.write_text(_file(["0.7", "0.5", "0.1"]).replace("Latency,", "latency,", 1), encoding="utf-8")
    assert_one_line_refusal(*cli("predict", data), "no column 'Latency'", "'latency' looks like the measured time")
