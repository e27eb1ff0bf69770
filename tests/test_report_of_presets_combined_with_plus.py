"""``symgpu report MODEL --preset A+B`` reports the combination as ``eval`` reads it (a GPU's values, then a
workload's, later ones winning), each value with the note of the preset that gave it; it was an internal error
(StopIteration: the report looked the combined id up among the file's presets; outside tester round 14c, F1)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import read_fixture

#: the tiny roofline with a second preset, ``work``, that overrides B and gives I, each value noted
PRESETS = """
[presets.toy.notes]
B = "the toy's own bandwidth"
P_peak = "the toy's peak"

[presets.work]
description = "a workload on a faster memory"
source = { ref = "toy2026", locator = "Table 2" }
[presets.work.values]
B = "3 TB/s"
I = "20 FLOP/B"
[presets.work.notes]
I = "the workload's intensity"
"""


def test_a_report_of_two_presets_combined_lists_the_later_value_with_its_own_note(
        tmp_path: Path, cli: Callable[..., tuple[int, str, str]]) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(read_fixture("tiny") + PRESETS, encoding="utf-8")
    code, out, err = cli("report", str(path), "--preset", "toy+work", "--format", "json", "-o", str(tmp_path / "out"))
    assert code == 0, err
    report = json.loads(next((tmp_path / "out").glob("*.json")).read_text(encoding="utf-8"))
    (section,) = report["presets"]
    assert section["id"] == "toy+work"
    shown = {v["name"]: (v["value"], v["unit"], v["note"]) for v in section["values"]}
    # by hand: P_peak from toy (100 TFLOP/s), B from work (3 TB/s = 3e12 B/s), I from work
    assert shown["P_peak"][2] == "the toy's peak"
    assert shown["B"][2] == "" and shown["I"][2] == "the workload's intensity"  # toy's note on B is not work's value's
    code, out, err = cli("eval", str(path), "P", "--preset", "toy+work", "--unit", "TFLOP/s")
    assert code == 0, err
    assert "60" in out  # Min(100 TFLOP/s, 20 FLOP/B x 3 TB/s) = 60 TFLOP/s
    headline = [s for scenario in section["scenarios"] for s in scenario["headline"] if s["quantity"] == "P"]
    assert headline and abs(headline[0]["value"] * {"FLOP/s": 1e-12, "TFLOP/s": 1}[headline[0]["unit"]] - 60) < 1e-9
