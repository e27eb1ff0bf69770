"""A report marks a boundary at the derivation of the model it reports, and says where that derivation
misses the file's ``expect`` (outside tester, round 6, finding F4: a variant's report drew the base file's
expected boundary, 2 units of alpha off, labelled as the variant's derivation, and "At a glance" said nothing)."""

from __future__ import annotations

from pathlib import Path

import symgpu
from symgpu.report import render

from conftest import read_fixture

BASE = read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', 'rhs = "Min(P_peak, I*B)"\nlimiters = { peak = "P_peak", bandwidth = "I*B" }') + '''
[[derivations]]
id = "ridge"
op = "boundary"
quantity = "P"
variable = "I"
kind = "regime"
between = ["peak", "bandwidth"]
expect = "P_peak/B"
source = { ref = "toy2026", locator = "derived" }
'''

# the variant halves the bandwidth bound: its ridge is at I = 2*P_peak/B, while the base file's expect stays P_peak/B
VARIANT = '''schema_version = 1
[model]
id = "halved"
extends = "tiny"
title = "Tiny roofline at half bandwidth"
summary = "s"
references = ["toy2026"]

[[equations]]
id = "attainable"
defines = "P"
rhs = "Min(P_peak, I*B/2)"
limiters = { peak = "P_peak", bandwidth = "I*B/2" }
source = { ref = "toy2026", locator = "Eq. (1)" }
'''


def _report(tmp_path: Path, name: str) -> str:
    (tmp_path / "tiny.toml").write_text(BASE, encoding="utf-8")
    (tmp_path / "halved.toml").write_text(VARIANT, encoding="utf-8")
    report = render.render_report(symgpu.load(tmp_path / f"{name}.toml"), formats=("md",), draw_plots=False)
    return report.files[f"{name}.md"].decode("utf-8")


def test_a_variants_report_marks_its_own_derived_boundary_not_the_base_files_expect(tmp_path):
    text = _report(tmp_path, "halved")
    # by hand, preset toy: P_peak = 100 TFLOP/s, B = 2 TB/s; peak = I*B/2 at I = 2*100/2 = 100 FLOP/B (the base's: 50)
    assert "Marked: ridge: I = 2*P_peak/B (derived; the file expects P_peak/B) = 100" in text
    assert "= 50 " not in text and "Marked: ridge: I = P_peak/B" not in text
    glance = next(line for line in text.splitlines() if line.startswith("**At a glance.**"))
    assert "1 of them not the form the file expects (ridge)" in glance


def test_a_report_whose_derivation_gives_its_expect_marks_it_as_before(tmp_path):
    text = _report(tmp_path, "tiny")
    assert "Marked: ridge: I = P_peak/B = 50" in text  # 100 TFLOP/s / 2 TB/s
    assert "not the form the file expects" not in text
