"""``symgpu check`` notes a case table's bare number read in another scale than the quantity the table defines: in
``cases(100 when k = 0, lat + 50 otherwise)`` with lat in us and t in ns the 100 is 100 us (its siblings' unit,
equations/README.md), though a reader takes it for 100 ns. The value is kept (100 us = 100,000 ns, by hand); the note
names the equation, the case, the literal and the unit it is read in."""

from __future__ import annotations

import pytest

from conftest import toy_header


def model_text(*, lat_unit: str = "us", lat: str = "2 us", fixed: str = "100", other: str = "lat + 50", model_id: str = "tiny") -> str:
    return toy_header(model_id, "A case table beside a latency", "The bare number of one case.") + f"""
[symbols.lat]
description = "a latency"
unit = "{lat_unit}"
assumptions = ["positive"]

[symbols.k]
description = "a switch"
unit = "1"
assumptions = ["nonnegative"]

[symbols.t]
description = "a time"
unit = "ns"
role = "output"

[[equations]]
id = "t_cases"
defines = "t"
cases = [
  {{ id = "fixed", when = "Eq(k, 0)", value = "{fixed}" }},
  {{ id = "loaded", when = "otherwise", value = "{other}" }},
]
source = {{ ref = "toy2026", locator = "here" }}

[presets.p]
description = "a point"
values = {{ lat = "{lat}", k = "0" }}
source = {{ kind = "hand-computed", note = "by hand" }}
"""


def notes(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("note:")]


def test_a_bare_number_beside_a_latency_in_us_is_noted_and_kept_as_100_us(cli, write_model):
    path = write_model(model_text())
    code, out, err = cli("check", path)
    assert code == 0, err
    assert notes(out) == ["note: equation t_cases, case fixed: the bare 100 is read as 100 us, the unit of the other cases' values "
                          "(= 100000 ns), not as 100 ns in t's declared unit; if 100 ns is meant, give it through a constant symbol "
                          "(role = \"constant\", value = \"100 ns\")"]
    code, out, err = cli("eval", path, "t", "-p", "p")
    assert code == 0 and out.strip() == "t = 100000 ns", err  # the value as the rule reads it: 100 us


def test_a_bare_number_beside_a_latency_in_seconds_is_noted_as_read_in_seconds(cli, write_model):
    code, out, err = cli("check", write_model(model_text(lat_unit="s", lat="2e-6 s")))
    assert code == 0, err
    assert [n.split(": ", 2)[2].split(";")[0] for n in notes(out)] == [
        "the bare 100 is read as 100 s, the unit of the other cases' values (= 1e+11 ns), not as 100 ns in t's declared unit"]


@pytest.mark.parametrize("fixed, other, lat_unit", [
    ("0", "lat + 50", "us"),      # zero is zero in any scale
    ("100", "250", "us"),         # bare numbers only: each in t's own unit, ns
    ("100", "lat + 50", "ns"),    # the siblings are in t's unit
])
def test_no_note_where_the_number_reads_the_same_in_the_quantitys_unit(cli, write_model, fixed, other, lat_unit):
    code, out, err = cli("check", write_model(model_text(fixed=fixed, other=other, lat_unit=lat_unit, lat=f"2 {lat_unit}")))
    assert code == 0, err
    assert notes(out) == []
