"""``predict`` reads the measured time from ``Latency`` (ms, NeuSight's header) or ``Latency [unit]`` (converted
exactly to ms), and refuses in one line a file it would otherwise misread: no latency column, a latency unit
that is no time, a column named twice, bytes that are not UTF-8; a UTF-8 byte-order mark is skipped (outside
tester, round 12b, F3: ``Latency [ms]`` was ignored, MAPE nan, exit 0; F4: a second ``Latency``/``Device``
column silently won; F14/F15: a BOM broke the header, a non-UTF-8 byte became U+FFFD in a reason)."""

from __future__ import annotations

import codecs
from fractions import Fraction

import pytest

from symgpu.measure import data as measured
from symgpu.predict import predict_rows
from symgpu.predict.rows import parse_rows, read_rows
from tests.conftest import assert_one_line_refusal

HEADER = "OPName,{latency},Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H"
ROW = 'add,{latency},Tesla V100-PCIE-32GB,"vectorized_elementwise_kernel<4, add>",102400,1,1,128,1,1,32768,1600'


def table(header: str, *latencies: str) -> str:
    return "\n".join([HEADER.format(latency=header), *(ROW.format(latency=t) for t in latencies)]) + "\n"


@pytest.mark.parametrize("header, per_ms", [("Latency", Fraction(1)), ("Latency [ms]", Fraction(1)),
                                            ("Latency [us]", Fraction(1, 1000)), ("Latency [ s ]", Fraction(1000))])
def test_a_latency_header_with_a_time_unit_is_read_and_converted_exactly_to_ms(header, per_ms):
    cells = ["0.7671167969703674", "713.7215971946716", "3e-4"]
    _, rows = parse_rows(table(header, *cells))
    # each cell's decimal times the unit's ratio, rounded once (Fraction -> float rounds correctly)
    assert [r.latency_ms for r in rows] == [float(Fraction(c) * per_ms) for c in cells]


def test_the_predictions_do_not_depend_on_the_unit_the_times_are_given_in():
    _, in_ms = parse_rows(table("Latency", "0.75"))
    _, in_us = parse_rows(table("Latency [us]", "750"))
    assert in_us[0].latency_ms == in_ms[0].latency_ms == 0.75
    assert predict_rows(in_us) == predict_rows(in_ms)


@pytest.mark.parametrize("header, words", [
    ("Latency [GB]", ("rows.csv:1: column 'Latency [GB]'", "'GB'", "not a time")),
    ("Latency [parsec]", ("rows.csv:1: column 'Latency [parsec]'", "parsec")),
    ("Latency (ms)", ("rows.csv:1: no column 'Latency'", "Latency (ms)")),
    ("Lat", ("rows.csv:1: no column 'Latency'", "'Latency [us]'")),
])
def test_a_latency_column_that_is_missing_or_no_time_is_refused_in_one_line(tmp_path, cli, header, words):
    data = tmp_path / "rows.csv"
    data.write_text(table(header, "0.75"), encoding="utf-8")
    assert_one_line_refusal(*cli("predict", data), *words)


@pytest.mark.parametrize("header, name", [
    (HEADER.format(latency="Latency") + ",Latency", "Latency"),
    (HEADER.format(latency="Latency") + ",Latency [us]", "Latency"),
    (HEADER.format(latency="Latency") + ",Device", "Device"),
])
def test_a_column_named_twice_is_refused_naming_it(tmp_path, cli, header, name):
    data = tmp_path / "rows.csv"
    data.write_text(header + "\n" + ROW.format(latency="0.75") + ",Tesla T4\n", encoding="utf-8")
    code, out, err = cli("predict", data)
    assert (code, out, err) == (2, "", f"symgpu: error: {data}:1: column {name} appears twice\n")


def test_a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte(tmp_path, cli):
    raw = table("Latency", "0.75").encode("utf-8").replace(b"V100", b"V\xff100")
    data = tmp_path / "rows.csv"
    data.write_bytes(raw)
    bad = raw.index(b"\xff")
    code, out, err = cli("predict", data)
    assert (code, out) == (2, "")
    assert err == f"symgpu: error: {data}: not UTF-8 text (invalid start byte at byte {bad}); save the file as UTF-8\n"
    data.write_bytes(codecs.BOM_UTF8 + raw)  # the offset counts the byte-order mark too: it is the file's
    assert f"at byte {bad + 3})" in cli("predict", data)[2]


def test_a_utf8_byte_order_mark_is_skipped_by_predict_and_by_measured_data(tmp_path):
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    plain.write_text(table("Latency", "0.75"), encoding="utf-8")
    marked.write_bytes(codecs.BOM_UTF8 + plain.read_bytes())
    assert read_rows(marked) == read_rows(plain)
    plain.write_text("# H100\nn [warp/SM],theta [GB/s]\n1,2\n", encoding="utf-8")
    marked.write_bytes(codecs.BOM_UTF8 + plain.read_bytes())
    first, second = measured.read_csv(plain), measured.read_csv(marked)
    assert (second.columns, second.comments) == (first.columns, first.comments) == (second.columns, ("H100",))
