"""``predict`` refuses a measured ``Latency`` of 0, a negative one, NaN, inf or text, in one line naming the
file, the row and the column, and writes nothing (outside tester, round 6, finding F9: 0 ended in
"internal error: ZeroDivisionError" after the -o file was written; -1 and nan were used as data)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("latency", ["0", "-1", "nan", "inf", "-0.0", "fast"])
def test_a_measured_time_that_is_no_positive_number_is_refused_and_nothing_written(tmp_path, cli, latency):
    with open(REPO / "data" / "neusight" / "elementwise.csv", newline="", encoding="utf-8") as stream:
        header, first = list(csv.reader(stream))[:2]
    first[header.index("Latency")] = latency
    data, out = tmp_path / "rows.csv", tmp_path / "out.csv"
    with open(data, "w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows([header, first])
    code, printed, err = cli("predict", data, "-o", out)
    assert code == 2 and printed == "" and not out.exists()
    assert err == f"symgpu: error: {data}: row 0, column Latency: {latency!r} is not a measured time (expected a positive number " \
                  "of milliseconds); correct that cell, leave it empty (not measured) or remove the row\n"
