"""A derivation asked through the API at a point shows its value there in the notebook, as the command line's
``value:`` line does, and its LaTeX names the symbols as the model file declares them (an outside tester's findings,
round 14a, F7 and F8)."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu

VOLKOV_FILE = Path(__file__).resolve().parent.parent / "equations" / "volkov_2016.toml"


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _maxwell(volkov: symgpu.Model, name: str) -> Fraction:
    return Fraction(str(volkov.preset("maxwell")[name].magnitude))


def test_a_boundary_at_a_point_shows_its_value_in_markdown_latex_and_to_dict(volkov):
    # before: only the symbolic n = Latency*mem_thru; the number was in none of them
    answer = volkov.boundary("memory_throughput", ("latency_bound", "memory_bound"), for_="n", preset="maxwell",
                             values={"alpha": 1})
    hand = (_maxwell(volkov, "mem_lat") + 1 * _maxwell(volkov, "alu_lat")) * _maxwell(volkov, "mem_thru")  # (368 + 6)*0.0814
    line = f"value: {float(hand):.10g} warp/SM (at the point asked)"
    assert line in answer._repr_markdown_()
    assert line.replace("_", "\\_") in answer._repr_latex_()
    assert answer.to_dict()["extra"]["value_at"] == pytest.approx(float(hand), rel=1e-12)


def test_an_extremum_at_a_point_shows_its_value_and_location(volkov):
    answer = volkov.extremum("n_needed", over="alpha", kind="max", preset="maxwell")
    issue, mem_thru = _maxwell(volkov, "issue_thru"), _maxwell(volkov, "mem_thru")
    # issue_thru < alu_thru + mem_thru at maxwell: the cusp where the issue and memory limits meet, by hand
    location = (issue - mem_thru) / mem_thru
    value = _maxwell(volkov, "alu_lat") * (issue - mem_thru) + _maxwell(volkov, "mem_lat") * mem_thru
    assert f"value: {float(value):.10g} warp/SM at alpha = {float(location):.10g} (at the point asked)" in answer._repr_markdown_()


def test_a_derivation_without_a_point_shows_no_value(volkov):
    answer = volkov.boundary("memory_throughput", ("latency_bound", "memory_bound"), for_="n")
    assert "value:" not in answer._repr_markdown_() and answer.extra.value_at is None


def test_the_notebook_latex_names_symbols_as_the_model_file_declares_them(volkov):
    # before: mem_{thru}, alu_{lat} and "clock" in SymPy's italics, unlike the report's \mathrm{mem\_thru}
    declared = {name: entry["latex"] for name, entry in tomllib.loads(VOLKOV_FILE.read_text())["symbols"].items()
                if "latex" in entry}
    boundary = volkov.boundary("memory_throughput", ("latency_bound", "memory_bound"), for_="n")._repr_latex_()
    assert declared["mem_thru"] in boundary and "mem_{thru}" not in boundary
    point = volkov.fixed_point("memory_throughput_loaded", "x", preset="kepler", values={"n": 32, "alpha": 8})
    shown = point._repr_latex_()
    for name in ("clock", "SMs", "mem_thru", "alu_thru", "alu_lat"):
        assert declared[name] in shown, name
    assert declared["mem_thru"] in point.to_dict()["result_latex"]
