"""Questions asked of a user's own model file and the command-line details around them:
the roofline ridge point, combined presets in validation cases, where a report says its
model came from, raw HTML kept out of Markdown reports, and --unit/--clock on derived values."""

from __future__ import annotations

import json
import math

import pytest

import symgpu
from symgpu import errors
from symgpu.report import content, render

from conftest import FIXTURES, assert_readable, read_fixture

HK = "gtx280+tiled_matmul"

ROOFLINE = read_fixture("roofline")


def test_roofline_ridge_point_of_a_users_own_model_file(cli, write_model):
    path = write_model(ROOFLINE, name="roofline")
    code, out, err = cli("boundary", path, "perf", "--for", "intensity", "--preset", "h100")
    assert code == 0, err
    ridge = 67e12 / 3350e9  # peak / bandwidth, FLOP/B
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    assert math.isclose(float(line.split()[1]), ridge, rel_tol=1e-9) and "FLOP/B" in line
    assert "peak/bandwidth" in out.replace(" ", "")
    assert_readable(out)


def test_validation_case_on_a_combined_preset_is_checked_like_eval(cli, write_model):
    ridge_half_bw = 67e12 / 1675e9
    case = f"""
[[validation]]
id = "ridge_slow_memory"
preset = "h100+slow_memory"
inputs = {{ intensity = "{ridge_half_bw / 2!r} FLOP/B" }}
expect = {{ perf = "{67e12 / 2 / 1e12!r} TFLOP/s" }}
rel_tol = 1e-9
source = {{ ref = "williams2009", locator = "illustrative" }}
"""
    path = write_model(ROOFLINE + case, name="roofline")
    model = symgpu.load(path)
    # by hand: half the ridge intensity on half the bandwidth reaches half the peak
    assert model.evaluate("perf", "h100+slow_memory", intensity=ridge_half_bw / 2).to("TFLOP/s").magnitude == pytest.approx(33.5)
    code, out, err = cli("validate", path)
    assert code == 0 and "1 values, 1 reproduced" in out, out + err


def test_validation_case_on_an_unknown_part_of_a_combined_preset_names_the_part(write_model, refused_whole):
    case = """
[[validation]]
id = "bad"
preset = "h100+nope"
expect = { perf = "1 TFLOP/s" }
source = { ref = "williams2009", locator = "illustrative" }
"""
    path = write_model(ROOFLINE + case, name="roofline")
    refused = refused_whole(path, errors.ModelFileError, r"unknown preset 'nope' in 'h100\+nope'")
    with pytest.raises(errors.ModelFileError) as read:  # a question's load reads the validation cases when asked
        symgpu.load(path).validation_inputs
    assert str(read.value) == str(refused)


def test_report_of_a_users_own_model_says_which_file_it_came_from(write_model):
    path = write_model(ROOFLINE, name="roofline")
    files = render.render_report(symgpu.load(path), formats=("md", "tex", "json"), draw_plots=False).files
    md, tex = files["roofline.md"].decode(), files["roofline.tex"].decode()
    data = json.loads(files["roofline.json"])
    assert data["model"]["bundled"] is False and data["model"]["file"].endswith("roofline.toml")
    for text in (md, tex):
        assert "equations/roofline.toml" not in text and "report --all" not in text and "report -{}-all" not in text
        assert "roofline.toml" in text


def test_a_bundled_model_still_comes_from_equations():
    assert content.origin(symgpu.load("occupancy")) == {"file": "equations/occupancy.toml", "bundled": True}


def test_raw_html_in_model_prose_never_reaches_the_markdown_report():
    model = symgpu.load(FIXTURES / "html_prose.toml")
    md = render.render_report(model, formats=("md",), draw_plots=False).files["html_prose.md"].decode()
    raw = read_fixture("html_prose")
    for tag in ("<script", "<img", "<iframe", "<style", "<a href", "<b>"):
        assert tag in raw and tag not in md
    assert "&lt;script&gt;alert('description')&lt;/script&gt;" in md       # shown as text, not dropped
    assert "peak &amp; bandwidth" in md


@pytest.fixture(scope="module")
def hk():
    return symgpu.load("hong_kim_2009")


def value_of(out: str) -> tuple[float, str]:
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    parts = line.split()
    return float(parts[1]), parts[2]


def test_derived_cycle_count_in_microseconds_through_the_preset_clock_or_clock(cli, hk):
    # limit of Mem_L as the uncoalesced departure delay vanishes: the coalesced latency, weighted
    argv = ("limit", "hong_kim_2009", "Mem_L", "--var", "Departure_del_uncoal", "--to", "0", "--preset", HK)
    code, out, _ = cli(*argv)
    cycles, unit = value_of(out)
    assert code == 0 and unit == "cycle"
    code, out, _ = cli(*argv, "--unit", "us")
    freq = hk.preset(HK)["Freq"].to("Hz").magnitude
    shown, unit = value_of(out)
    assert code == 0 and unit == "us" and math.isclose(shown, cycles / freq * 1e6, rel_tol=1e-9)
    code, out, _ = cli(*argv, "--unit", "ns", "--clock", "2 GHz")
    shown, unit = value_of(out)
    assert unit == "ns" and math.isclose(shown, cycles / 2e9 * 1e9, rel_tol=1e-9)
    code, out, _ = cli(*argv, "--unit", "us", "--json")
    data = json.loads(out)
    assert data["unit"] == "µs" or data["unit"] == "us"
    assert math.isclose(data["value"], cycles / freq * 1e6, rel_tol=1e-9)
    assert_readable(cli(*argv, "--unit", "us")[1])


@pytest.mark.parametrize("extra, message", [
    (("--unit", "us"), "a time needs a clock"),
    (("--clock", "1 GHz"), "give --unit too"),
    (("--unit", "us", "--clock", "3 GB"), "a clock is a frequency"),
    (("--unit", "GB/s"), "cannot be expressed in GB/s"),
])
def test_unit_and_clock_mistakes_on_derived_values_are_usage_errors(cli, extra, message):
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD",
                         "--target", "2600", "--set", "Departure_del_uncoal=10", "--set", "Uncoal_per_mw=2",
                         "--set", "Coal_Mem_insts=1", "--set", "Uncoal_Mem_insts=1", *extra)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err


def test_unit_without_a_preset_or_values_is_a_usage_error(cli):
    code, _, err = cli("limit", "hong_kim_2009", "Mem_L", "--var", "Departure_del_uncoal", "--to", "0", "--unit", "us")
    assert code == 2 and "give --preset or --set" in err


def substituted_line(out: str) -> set[str]:
    """The names on the summary's ``substituted:`` line (empty when there is none)."""
    lines = [line for line in out.splitlines() if line.strip().startswith("substituted:")]
    return {name.strip() for name in lines[0].split(":", 1)[1].split(",")} if lines else set()


@pytest.mark.parametrize("argv", [
    ("boundary", "mdm_2019", "S_NoC", "--for", "W", "--between", "md", "nmd", "--preset", "table1", "--set", "M_Read=4"),
    ("boundary", "prior_zhang_owens", "arithmetic_time", "--for", "n", "--preset", "kepler"),
])
def test_substituted_line_omits_quantities_only_used_to_name_regimes(cli, argv):
    code, out, err = cli(*argv)
    assert code == 0, err
    model = symgpu.load(argv[1])
    # by hand: S_NoC's own equation (M kept as the regimes' symbol) and arithmetic_time =
    # Max(1/alu_thru, alu_lat/n) use no other quantity; S_Mem, S_DRAM, alu_n, mem_n were listed
    # because other equations' limiter terms were expanded to name the regimes
    assert model.equation_for(argv[2]).rhs.free_symbols.isdisjoint({model.symbols[n] for n in ("S_Mem", "S_DRAM", "alu_n", "mem_n")
                                                                      if n in model.symbols})
    assert substituted_line(out) == set(), out


def test_substituted_line_lists_exactly_the_equations_the_quantity_depends_on(cli, hk):
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "500")
    assert code == 0, err
    # Mem_L = Mem_L_Uncoal*Weight_uncoal + Mem_L_Coal*Weight_coal (Eq. 11-13): its four parts, nothing else
    used = {e.definition.defines for e in hk.dependencies("Mem_L")} - {"Mem_L"}
    assert substituted_line(out) == used == {"Mem_L_Coal", "Mem_L_Uncoal", "Weight_coal", "Weight_uncoal"}


MEM_L_SETS = ("--set", "Departure_del_uncoal=10", "--set", "Uncoal_per_mw=2", "--set", "Coal_Mem_insts=1", "--set", "Uncoal_Mem_insts=3")


def test_time_target_on_a_cycle_quantity_is_converted_with_the_preset_clock(cli, hk):
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", "--preset", HK)
    assert code == 0, err
    assert_readable(out)
    cycles = 2e-6 * hk.preset(HK)["Freq"].to("Hz").magnitude  # 2 us at the preset's clock
    assert f"target: 2 us = {cycles:.10g} cycle at clock" in out and "Freq of preset" in out
    mem_ld, unit = value_of(out)
    # brute force: the root put back gives a memory latency of 2 us
    back = hk.evaluate("Mem_L", HK, values={"Mem_LD": mem_ld}).to("cycle").magnitude
    assert unit == "cycle" and math.isclose(back, cycles, rel_tol=1e-9)


def test_time_target_with_clock_needs_no_preset(cli):
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", "--clock", "1.4 GHz", *MEM_L_SETS)
    assert code == 0, err
    assert "target: 2 us = 2800 cycle at clock 1.4 GHz (--clock)" in out  # 2e-6 s x 1.4e9 cycle/s
    mem_ld, unit = value_of(out)
    assert unit == "cycle" and math.isclose(mem_ld, (2800 * 4 - (2 - 1) * 10 * 3) / 4, rel_tol=1e-12)  # Eq. 11-13 by hand


def test_time_target_without_a_clock_names_the_clock_it_needs(cli):
    code, out, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 us", *MEM_L_SETS)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--target '2 us'" in err and "needs a clock" in err and "--clock" in err and "Freq" in err


def test_target_in_a_unit_no_clock_can_convert_is_still_refused(cli):
    code, _, err = cli("solve", "hong_kim_2009", "Mem_L", "--for", "Mem_LD", "--target", "2 GB", "--preset", HK)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Mem_L is in cycle" in err and "cannot be converted to it" in err


def test_report_of_a_users_own_model_goes_to_reports_in_the_current_folder(cli, write_model, tmp_path, monkeypatch):
    path = write_model(ROOFLINE, name="roofline")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, err = cli("report", path, "--format", "json")
    assert code == 0, err
    assert (work / "reports" / "roofline" / "roofline.json").is_file() and out.strip() == "reports/roofline/roofline.json"
    assert not (render.REPORTS / "roofline").exists()


def test_a_users_model_with_a_bundled_id_never_overwrites_the_bundled_report(cli, write_model, tmp_path, monkeypatch):
    path = write_model(ROOFLINE.replace('id = "roofline"', 'id = "occupancy"'), name="occupancy")
    committed = render.REPORTS / "occupancy" / "occupancy.json"
    before = committed.read_bytes() if committed.exists() else None
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("report", path, "--format", "json")
    assert code == 0, err
    data = json.loads((tmp_path / "reports" / "occupancy" / "occupancy.json").read_text(encoding="utf-8"))
    assert data["model"]["bundled"] is False and "peak arithmetic throughput" in json.dumps(data)
    monkeypatch.chdir(render.REPORTS.parent)  # the checkout: ./reports/occupancy/ is the bundled model's report
    code, out, err = cli("report", path, "--format", "json")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "give a folder with -o" in err, err
    assert (committed.read_bytes() if committed.exists() else None) == before


def test_report_of_a_bundled_model_still_defaults_to_the_checkout_reports(monkeypatch, tmp_path):
    from symgpu.cli import report_commands
    monkeypatch.chdir(tmp_path)
    assert report_commands.default_folder(symgpu.load("occupancy")) == render.REPORTS / "occupancy"
