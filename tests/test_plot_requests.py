"""[[plots]] entries: each read into its kind's record when the model loads, every field error naming
the file and ``plot <id>.<field>``; data-driven plots draw."""

from __future__ import annotations

from pathlib import Path

import pytest

import symgpu
from symgpu import cli, errors
from symgpu.model import plot_kinds
from symgpu.report import content, render, templates

PLOT = '''
[[plots]]
id = "p"
kind = "{kind}"
{fields}
'''


def _path(write_model, fields: str, kind: str = "curve", rhs: str = "Min(P_peak, I*B)") -> Path:
    """The tiny model with one plot entry, in a folder of its own (models are cached by path)."""
    tiny: Path = write_model(rhs=rhs)
    folder = tiny.parent / f"plot{len(list(tiny.parent.glob('plot*')))}"
    folder.mkdir()
    path = folder / tiny.name
    path.write_text(tiny.read_text() + PLOT.format(kind=kind, fields=fields))
    return path


def _model(write_model, fields: str, kind: str = "curve", rhs: str = "Min(P_peak, I*B)") -> symgpu.Model:
    return symgpu.load(_path(write_model, fields, kind, rhs))


def _refused(write_model, fields: str, kind: str = "curve", rhs: str = "Min(P_peak, I*B)") -> errors.ModelFileError:
    path = _path(write_model, fields, kind, rhs)
    with pytest.raises(errors.ModelFileError) as info:
        symgpu.load(path, cache=False)
    assert str(info.value).startswith(f"{path}: {info.value.where}: ")
    assert "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize(("fields", "kind", "where", "message"), [
    ('quantity = "P"\nvariables = ["I"]\ncolour = "red"', "curve", "plot p.colour", "unknown field 'colour'"),
    ('variables = ["I"]', "curve", "plot p.quantity", "missing required field 'quantity'"),
    ('quantity = "I"\nvariables = ["B"]', "curve", "plot p.quantity", "'I' is not a quantity of the model"),
    ('quantity = "P"\nvariables = ["I", "B"]', "curve", "plot p.variables", "a curve plot takes 1 variable, found 2"),
    ('quantity = "P"\nvariables = ["I"]', "regime_map", "plot p.variables", "a regime_map plot takes 2 variables, found 1"),
    ('quantity = "P"\nvariables = ["Z"]', "curve", "plot p.variables", "unknown symbol 'Z'"),
    ('quantity = "P"\nvariables = ["I"]\nranges = { I = "5:1" }', "curve", "plot p.ranges.I", "start 5 is not below stop 1"),
    ('quantity = "P"\nvariables = ["I"]\nranges = { I = "a:b" }', "curve", "plot p.ranges.I", "'a:b' is not start:stop or start:stop:step"),
    ('quantity = "P"\nvariables = ["I"]\nranges = { B = "1:2" }', "curve", "plot p.ranges.B", "'B' is not a variable of this plot"),
    ('quantity = "P"\nvariables = ["I"]\npresets = ["toy+gpu9"]', "curve", "plot p.presets", "unknown preset 'gpu9' in 'toy+gpu9'"),
    ('quantity = "P"\nvariables = ["I"]\ninputs = { B = "3 cycle" }', "curve", "plot p.inputs.B", "has the wrong dimension"),
    ('quantity = "P"\nvariables = ["I"]\nbind = { B = "P_peak" }', "curve", "plot p.bind.B", "'P_peak' is an input, not a quantity"),
    ('quantity = "P"\nvariables = ["I"]\nseries = { I = [1, 2] }', "curve", "plot p.series.I", "'I' is the plotted variable"),
    ('quantity = "P"\nvariables = ["I"]\nseries = { B = [] }', "curve", "plot p.series.B", "expected a non-empty list of values"),
    ('quantity = "P"\nvariables = ["I"]\nmarks = [{ axis = "z", expression = "B" }]', "curve", "plot p.marks[0].axis", 'axis must be "x" or "y"'),
    ('quantity = "P"\nvariables = ["I"]\nmarks = [{ axis = "x", expression = "B +" }]', "curve", "plot p.marks[0].expression", "cannot parse"),
    ('quantity = "P"\nvariables = ["I"]\nshow_regimes = "yes"', "curve", "plot p.show_regimes", "expected true or false"),
    ('quantity = "P"\nvariables = ["I"]\nregime_of = "P"', "curve", "plot p.regime_of", "given without show_regimes = true"),
    ('quantity = "P"\nvariables = ["I"]\nxscale = "cubic"', "curve", "plot p.xscale", "unknown scale 'cubic'"),
    ('quantity = "P"\nvariables = 3', "curve", "plot p.variables", "expected a non-empty list of symbols, found int 3"),
    ('quantity = "P"\nvariables = ["I"]\nranges = { I = "1:100000:1" }', "curve", "plot p.ranges.I", "100000 steps; at most 2001"),
    ('quantity = "P"\nvariables = ["I"]\nseries = { B = [1, 2], P_peak = [1] }', "asymptotes", "plot p.series", "one series parameter per plot, found 2"),
    ('quantity = "P"\nvariables = ["I"]\nxscale = "log"\nranges = { I = "0:10" }', "asymptotes", "plot p.ranges.I", "a log axis needs a range above 0"),
    ('quantity = "P"\nvariables = ["I"]\ncase = "nope"', "asymptotes", "plot p.case", "unknown validation case 'nope'"),
    ('quantity = "P"\nvariables = ["I"]\nbind = { B = "Q" }', "asymptotes", "plot p.bind.B", "'Q' is not a quantity of the model"),
    ('quantity = "P"\nvariables = ["I", "I"]', "regime_map", "plot p.variables", "the same variable is given twice"),
    ('quantity = "P"\nvariables = ["I", "B"]\nranges = { P_peak = "1:2" }', "regime_map", "plot p.ranges.P_peak", "'P_peak' is not a variable of this plot"),
    ('quantity = "P"\nvariables = ["I", "B"]\ncenters = { I = "B +" }', "regime_map", "plot p.centers.I", "cannot parse 'B +'"),
    ('quantity = "P"\nvariables = ["I", "B"]\nmarks = [{ axis = "x", colour = "red", expression = "B" }]', "regime_map", "plot p.marks[0].colour", "unknown mark field 'colour'"),
    ('quantity = "P"\nvariables = ["I", "B"]\npresets = "gpu9"', "regime_map", "plot p.presets", "unknown preset 'gpu9'"),
])
def test_plot_field_errors_name_file_plot_and_field_when_the_model_loads(write_model, fields: str, kind: str, where: str, message: str) -> None:
    error = _refused(write_model, fields, kind)
    assert error.where == where
    assert message in error.problem


@pytest.mark.parametrize(("kind", "field", "value"), [
    ("regime_map", "x", '"B"'),
    ("regime_map", "series", '{ B = [1, 2] }'),
    ("regime_map", "show_regimes", "true"),
    ("regime_map", "regime_of", '"P"'),
    ("curve", "colour", '"red"'),
    ("asymptotes", "colour", '"red"'),
])
def test_a_field_the_kind_does_not_read_is_refused_naming_the_kind_and_its_fields(write_model, kind: str, field: str, value: str) -> None:
    variables = '["I", "B"]' if kind == "regime_map" else '["I"]'
    error = _refused(write_model, f'quantity = "P"\nvariables = {variables}\n{field} = {value}', kind)
    assert error.where == f"plot p.{field}"
    assert error.problem == f"unknown field '{field}' for kind = \"{kind}\""
    assert error.hint.startswith(f'fields of kind = "{kind}": id, kind, quantity, variables, ')


@pytest.mark.parametrize(("kind", "problem"), [
    ("asymptotes", "'P' has no bounds to draw (not piecewise, not a Min/Max)"),
    ("regime_map", "'P' has no regimes to map (not piecewise, not a Min/Max)"),
])
def test_a_kind_that_draws_regimes_refuses_a_quantity_without_any(write_model, refused_whole, kind: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    # a check that builds the plotted equation: run where the model is built whole (check, report), which draw the plots
    variables = '["I", "B"]' if kind == "regime_map" else '["I"]'
    path = _path(write_model, f'quantity = "P"\nvariables = {variables}', kind, rhs="I*B")
    error = refused_whole(path)
    assert (error.where, error.problem) == ("plot p.kind", problem)
    assert str(error).startswith(f"{path}: {error.where}: ") and "\n" not in str(error)


@pytest.mark.parametrize("kind", list(plot_kinds.KINDS))
def test_every_kind_needs_a_quantity_and_its_number_of_variables(write_model, kind: str) -> None:
    assert _refused(write_model, 'variables = ["I"]', kind).problem == "missing required field 'quantity'"
    assert _refused(write_model, 'quantity = "P"', kind).problem == "missing required field 'variables'"
    wrong = '["I"]' if kind == "regime_map" else '["I", "B"]'
    want = 2 if kind == "regime_map" else 1
    found = 1 if kind == "regime_map" else 2
    error = _refused(write_model, f'quantity = "P"\nvariables = {wrong}', kind)
    assert error.problem == f"a {kind} plot takes {want} variable{'s' if want > 1 else ''}, found {found}"


def test_each_kind_is_read_into_its_own_record(write_model) -> None:
    curve = _model(write_model, 'quantity = "P"\nvariables = ["I"]\nx = "B"').plots
    assert curve == (plot_kinds.CurvePlot(id="p", quantity="P", variables=("I",), x="B"),)
    (asymptotes,) = _model(write_model, 'quantity = "P"\nvariables = "I"\nshow_regimes = true', "asymptotes").plots
    assert type(asymptotes) is plot_kinds.AsymptotesPlot and asymptotes.regime_of == "P"
    (regimes,) = _model(write_model, 'quantity = "P"\nvariables = ["I", "B"]\nmarks = [{ axis = "x", variable = "B", expression = "P_peak/I" }]', "regime_map").plots
    assert type(regimes) is plot_kinds.RegimeMapPlot and regimes.kind == "regime_map"
    (mark,) = regimes.marks
    assert (mark.axis, mark.label, mark.expression, mark.variable, mark.problem) == ("x", "P_peak/I", "P_peak/I", "B", "")
    assert not hasattr(regimes, "series")


def test_show_regimes_needs_a_bounded_quantity(write_model, refused_whole) -> None:  # type: ignore[no-untyped-def]
    refused_whole(_path(write_model, 'quantity = "P"\nvariables = ["I"]\nshow_regimes = true', rhs="I*B"),
                  match=r"plot p\.show_regimes: 'P' has no regimes")


def test_check_command_reports_bad_plot(write_model, capsys: pytest.CaptureFixture[str]) -> None:
    path = _path(write_model, 'quantity = "P"\nvariables = ["I"]\ncolour = "red"')
    assert cli.main(["check", str(path)]) == 1
    assert "plot p.colour: unknown field 'colour' for kind = \"curve\"" in capsys.readouterr().out


def test_a_marks_expression_is_parsed_once_when_the_model_loads_and_the_report_uses_that_parse(write_model) -> None:
    from symgpu.report import plot_specs, plots

    model = _model(write_model, 'quantity = "P"\nvariables = ["I"]\npresets = ["toy"]\n'
                                'marks = [{ axis = "x", label = "ridge", expression = "P_peak/B" }]')
    (mark,) = model.plots[0].marks
    peak, bandwidth = model.symbols["P_peak"], model.symbols["B"]
    assert mark.parsed == peak / bandwidth
    (spec,) = [s for s in plot_specs.plan(model) if s.id == "p"]
    assert spec.marks[0].parsed is mark.parsed  # planned from the record, not parsed again
    plots.draw(model, spec, [])
    # the toy preset: 100 TFLOP/s peak over 2 TB/s is 50 FLOP/B
    assert [(m.label, m.value, m.reason) for m in spec.resolved_marks] == [("ridge", pytest.approx(50.0), "")]


def test_a_centre_is_parsed_when_the_model_loads_and_centres_the_range_there(write_model) -> None:
    from symgpu.report import plot_specs, plot_values

    model = _model(write_model, 'quantity = "P"\nvariables = ["I", "B"]\npresets = ["toy"]\ncenters = { I = "P_peak/B" }', "regime_map")
    (center,) = model.plots[0].centers
    assert (center.variable, center.expression, center.parsed) == ("I", "P_peak/B", model.symbols["P_peak"] / model.symbols["B"])
    (spec,) = [s for s in plot_specs.plan(model) if s.id == "p"]
    # I's range centred on P_peak/B at B's own centre, the toy preset's 2 TB/s: 100 TFLOP/s / 2 TB/s = 50 FLOP/B
    centers = plot_values.PlotValues(model, spec).centers()
    assert centers["I"] == pytest.approx(50.0) and centers["B"] == pytest.approx(2e12)


def test_check_command_reports_a_bad_mark_expression(write_model, capsys: pytest.CaptureFixture[str]) -> None:
    path = _path(write_model, 'quantity = "P"\nvariables = ["I"]\nmarks = [{ axis = "y", expression = "P_peak *" }]')
    assert cli.main(["check", str(path)]) == 1
    assert "plot p.marks[0].expression: cannot parse 'P_peak *'" in capsys.readouterr().out


def test_series_and_stepped_range_with_regimes(write_model) -> None:
    from symgpu.report import plot_specs, plots

    model = _model(write_model, '''quantity = "P"
variables = ["I"]
ranges = { I = "10:90:20" }
presets = ["toy"]
series = { B = ["1 TB/s", "2 TB/s"] }
marks = [{ axis = "x", label = "ridge", expression = "P_peak/B" }]
show_regimes = true
caption = "two bandwidths"''')
    (spec,) = [s for s in plot_specs.plan(model) if s.id == "p"]
    files = plots.draw(model, spec, ["svg"])
    assert files["svg"].startswith(b"<?xml")
    # 100 TFLOP/s peak: the ridge is at 100 FLOP/B for 1 TB/s and 50 FLOP/B for 2 TB/s
    assert [m.value for m in spec.resolved_marks] == [pytest.approx(100.0), pytest.approx(50.0)]
    assert [m.label for m in spec.resolved_marks] == ["ridge (B = 1 TB/s)", "ridge (B = 2 TB/s)"]
    regimes = {(p.series, p.variable): p.regime for p in spec.points}
    assert len(spec.points) == 10
    assert regimes[("1 TB/s", 90.0)] != regimes[("2 TB/s", 90.0)]
    entry = spec.describe("tiny")
    assert entry["caption"] == "two bandwidths" and entry["series"] == {"parameter": "B", "values": ["1 TB/s", "2 TB/s"]}


def test_bundled_plot_entries_are_read_when_the_models_load() -> None:
    for model_id in ("interval_analysis", "hong_kim_2009", "mdm_2019"):
        assert symgpu.load(model_id).plots


def test_hong_kim_exec_cycles_plot_per_preset_with_regimes() -> None:
    from symgpu.report import plot_specs, plots

    model = symgpu.load("hong_kim_2009")
    specs = {s.id: s for s in plot_specs.plan(model) if s.origin == ("plots.exec_cycles_vs_warps",)}
    assert set(specs) == {f"exec_cycles_vs_warps_{p}" for p in ("8800gtx_tiled_matmul", "fx5600_tiled_matmul", "8800gt_tiled_matmul", "gtx280_tiled_matmul", "table2_example")}
    spec = specs["exec_cycles_vs_warps_table2_example"]
    plots.draw(model, spec, [])
    by_warps = {p.x: p for p in spec.points}
    assert sorted(by_warps) == [4.0, 8.0, 12.0, 16.0, 20.0, 24.0, 28.0, 32.0]
    # 5 blocks = 20 warps is Table 2's point: Eq. (23), 38428.19 cycles exactly
    assert by_warps[20.0].regime == "eq23"
    assert by_warps[20.0].value == pytest.approx(38428.1875)


def test_errata_section_in_every_format() -> None:
    model = symgpu.load("hong_kim_2009")
    context = content.build_context(model, ["table2_example"])
    ids = [e["id"] for e in context["errata"]["entries"]]
    assert "table3_peak_gflops" in ids and "eq23_condition_vs_s3_2_2" in ids
    peak = next(e for e in context["errata"]["entries"] if e["id"] == "table3_peak_gflops")
    assert {c["case"]: c["engine_text"] for c in peak["cases"]}["table3_peak_gtx280"] == "936"
    for fmt in ("md", "tex"):
        text = templates.render_template(templates.make_environment(fmt), render.FORMATS[fmt], context)
        assert "Errata in the source" in text and "table5" in text.replace("\\_", "_")


def test_unlinked_erratum_cases_are_listed(write_model) -> None:
    path = write_model()
    path.write_text(path.read_text() + '''
[[validation]]
id = "wrong"
preset = "toy"
inputs = { I = 1 }
expect = { P = "3 TFLOP/s" }
source = { ref = "toy2026", locator = "p. 1" }
erratum = "the paper multiplies wrongly"
''')
    model = symgpu.load(path)
    context = content.build_context(model)
    assert context["errata"]["entries"] == []
    assert [c["case"] for c in context["errata"]["unlinked"]] == ["wrong"]
    assert context["summary"]["errata_unlinked_cases"] == 1


def test_a_requested_regime_map_replaces_the_one_boundary_requests_imply() -> None:
    """mdm_2019's two md_boundary requests (M_Read and W) imply a regime map that no preset can
    centre; the file's own [[plots]] entry of the same quantity and variables is drawn instead."""
    from symgpu.report import plot_specs, plot_values

    model = symgpu.load("mdm_2019")
    maps = [s for s in plot_specs.plan(model) if s.kind == "regime_map" and s.quantity == "M_ReadConcurrent"]
    assert len(maps) == 1
    spec = maps[0]
    assert spec.origin == ("plots.regimes_M_ReadConcurrent_M_Read_W",)
    assert set(dict(spec.ranges)) == {"M_Read", "W"}
    # drawn over the entry's ranges: the md share is where M_Read x W exceeds Table 1's 128 MSHRs
    import matplotlib.pyplot as plt
    import numpy as np

    from symgpu.report import plots

    figure, ax = plt.subplots()
    try:
        shares = plots.regime_map(model, spec, ax, plot_values.PlotValues(model, spec))
    finally:
        plt.close(figure)
    x, y = np.meshgrid(np.linspace(0.25, 8, plots.GRID), np.linspace(1, 64, plots.GRID))
    assert shares["md"] == pytest.approx(np.mean(x * y > 128), abs=2 / plots.GRID)
    assert shares["nmd"] == pytest.approx(1 - shares["md"], abs=1e-3)
