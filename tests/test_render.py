"""Report rendering: Jinja2 configuration, escaping, strict fields, chains, regimes, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest

import symgpu
from symgpu import cli, errors
from symgpu.report import chains, files, latex, render, scenarios, templates
from symgpu.evaluate import record

from conftest import tiny_text


#: a derivation that fails for real: the two-sided limit at a pole has no value (SymPy's zoo)
AT_THE_POLE = """
[[derivations]]
id = "at_the_pole"
op = "limit"
quantity = "P"
variable = "I"
to = "P_peak/B"
direction = "+-"
"""


def test_tex_escape_specials_and_unicode() -> None:
    assert latex.tex_escape("a_b & 50% #1 $x$ {y} ~ ^") == r"a\_b \& 50\% \#1 \$x\$ \{y\} \textasciitilde{} \textasciicircum{}"
    assert latex.tex_escape("Note Set 5 — Interval × 2 ≈ α") == r"Note Set 5 --- Interval $\times$ 2 $\approx$ $\alpha$"
    assert latex.tex_escape("\u4e2d") == r"\texttt{U+4E2D}"
    assert latex.tex_escape("back\\slash") == r"back\textbackslash{}slash"


def test_md_escape_and_math() -> None:
    assert latex.md_escape("a | b\n c") == r"a \| b c"
    assert "|" not in latex.md_math(r"\left|x\right| + |y|")


def test_tex_environment_delimiters_strict_and_trimmed() -> None:
    env = templates.make_environment("tex")
    assert isinstance(env.undefined, type) and issubclass(env.undefined, jinja2.StrictUndefined)
    assert env.autoescape is False and env.trim_blocks and env.lstrip_blocks and env.keep_trailing_newline
    text = env.from_string("\\section{((( title | tex_escape )))}((# c #))\n((* for x in xs *))\n((( x )))\n((* endfor *))\n").render(title="a_b", xs=[1, 2])
    assert text == "\\section{a\\_b}1\n2\n"  # trim_blocks also eats the newline after a comment
    # default delimiters are plain text in LaTeX templates, so TeX groups survive
    assert env.from_string("{{{ x }}}").render() == "{{{ x }}}"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("((( missing )))").render()


def test_missing_field_in_user_template_names_template_and_field(tmp_path: Path, write_model, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "report.md.j2").write_text("# {{ model.title }}\n{{ model.no_such_field }}\n")
    out = tmp_path / "out"
    code = cli.main(["report", str(write_model()), "--format", "md", "-o", str(out), "--templates", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "report.md.j2" in err and "no_such_field" in err
    assert not out.exists() or not any(out.iterdir())


def test_user_template_overrides_bundled(tmp_path: Path, write_model) -> None:
    (tmp_path / "report.md.j2").write_text("{{ model.id }}: {{ equations | length }} equations\n")
    out = tmp_path / "out"
    assert cli.main(["report", str(write_model()), "--format", "md", "-o", str(out), "--templates", str(tmp_path)]) == 0
    assert (out / "tiny.md").read_text() == "tiny: 1 equations\n"


def test_chain_substitutes_values_with_units(ia: symgpu.Model) -> None:
    scenario = scenarios.Scenario("gtx1080", "case", (("M", symgpu.ureg.Quantity(16, "")), ("N", symgpu.ureg.Quantity(16, ""))))
    steps = {s["quantity"]: s for s in chains.chain(ia, scenario, ["P_K0"])}
    assert list(steps) == ["L_K0", "d_K0", "P_K0"]
    step = steps["P_K0"]
    assert r"320.3\,\mathrm{GB/s}" in step["substituted_latex"] and r"1.73\,\mathrm{GHz}" in step["substituted_latex"]
    assert step["value_text"] == "972.009" and step["unit"] == "thread"
    assert step["formula_latex"].startswith("P(K_0) = ")
    # the JSON holds the value as printed (6 significant digits), not its last floating-point bits
    assert step["value"] == float(step["value_text"])
    assert step["value"] == pytest.approx(ia.evaluate("P_K0", preset="gtx1080", M=16, N=16).magnitude, rel=1e-6)


def test_piecewise_regime_and_margin(ia: symgpu.Model) -> None:
    values = {ia.symbols[k]: v for k, v in {"L_iota": 672.0, "phi": 1.73, "P": 100.0, "d_iota": 128.0, "Theta_M": 320.3, "N_exec": 1000.0}.items()}
    state = chains.regime(ia, ia.equations["t_P"], record.regime_of(ia, ia.equations["t_P"], values))
    assert state["active"] == "latency_bound" and state["next"] == "bandwidth_bound"
    # L/phi over P*d/Theta: 388.4 ns / 39.96 ns
    # the ratio as the text prints it (4 significant digits: "a factor 9.72")
    assert state["ratio"] == pytest.approx((672 / 1.73) / (100 * 128 / 320.3), rel=1e-4)
    assert "a factor 9.72 " in state["text"]


def test_min_regime_names_binding_argument_and_ratio(write_model) -> None:
    model = symgpu.load(write_model(rhs="Min(P_peak, I*B)"))
    equation = next(iter(model.equations.values()))
    # declared units: P_peak FLOP/s, B B/s, I FLOP/B -> I*B = 2e11 FLOP/s binds, 5x below the peak
    values = {model.symbols["P_peak"]: 1e12, model.symbols["B"]: 1e11, model.symbols["I"]: 2.0}
    state = chains.regime(model, equation, record.regime_of(model, equation, values))
    assert state["kind"] == "min"
    assert state["ratio"] == pytest.approx(5.0)
    assert state["arguments"][0]["value"] in (1e12, 2e11)


def test_write_files_is_atomic(tmp_path: Path) -> None:
    contents = {"a.md": b"ok", "b.md": object()}  # the second cannot be written
    with pytest.raises(TypeError):
        files.write_files(tmp_path, contents)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
    written = files.write_files(tmp_path, {"a.md": b"1", "b.json": b"2"})
    assert [p.name for p in written] == ["a.md", "b.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.json"]


def test_report_json_content(tmp_path: Path, ia: symgpu.Model) -> None:
    report = render.render_report(ia, presets=["gtx1080"], formats=["json", "md"])
    data = json.loads(report.files["interval_analysis.json"])
    assert [p["id"] for p in data["presets"]] == ["gtx1080"]
    eq = next(e for e in data["equations"] if e["id"] == "n_IF_K0")
    assert eq["counts"] == ["instruction"] and eq["unit_check"] == "pass" and eq["rhs"] == "M*N"
    assert data["derivations"] and all(d["available"] and d["reason"] == "" for d in data["derivations"])
    statuses = {r["case"]: r["status"] for r in data["validation"]}
    assert statuses["mxv_lcs_threads_gtx1080"] == "erratum"
    plots = {p["id"]: p for p in data["plots"]}
    assert plots["P_K0_vs_N"]["marks"][0]["value"] == pytest.approx(20.0)
    assert plots["regimes_t_P_P_d_iota"]["available"]
    assert "interval_analysis_P_K0_vs_N.svg" in report.files
    md = report.files["interval_analysis.md"].decode()
    assert "$$\n" in md and "derivation not available" not in md and "](interval_analysis_P_K0_vs_N.svg)" in md


def test_a_derivation_that_fails_is_reported_not_available_with_its_reason(write_model) -> None:
    model = symgpu.load(str(write_model(tiny_text(rhs="I*B*I/(I - P_peak/B)") + AT_THE_POLE)))
    report = render.render_report(model, formats=["json", "md"], draw_plots=False)
    (entry,) = json.loads(report.files["tiny.json"])["derivations"]
    assert entry["id"] == "at_the_pole" and not entry["available"]
    assert entry["reason"].startswith("DerivationError: tiny: the limit of P as I -> P_peak/B came out as zoo")
    assert "derivation not available" in report.files["tiny.md"].decode()


def test_plots_are_byte_reproducible(ia: symgpu.Model) -> None:
    from symgpu.report import plot_specs, plots

    spec = next(s for s in plot_specs.plan(ia) if s.id == "P_K0_vs_N")
    first = plots.draw(ia, spec, ["svg", "pdf"])
    second = plots.draw(ia, spec, ["svg", "pdf"])
    assert first == second
    assert b"<dc:date>" not in first["svg"] and b"CreationDate" not in first["pdf"]


def test_report_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report"]) == 2
    assert cli.main(["report", "interval_analysis", "--preset", "nope"]) == 2
    assert "unknown preset" in capsys.readouterr().err
    with pytest.raises(errors.UsageError):
        templates.render_template(templates.make_environment("md"), "no_such.j2", {})


# ------------------------------------------------------------------ [[tables]]
TINY_TABLE = """
[presets.toy_fast]
description = "more bandwidth, an intensity"
source = { ref = "toy2026", locator = "Table 1" }
[presets.toy_fast.values]
P_peak = "100 TFLOP/s"
B = "8 TB/s"
I = "5 FLOP/B"

[[tables]]
id = "roofline"
title = "Attainable vs peak"
presets = ["toy", "toy_fast"]
columns = ["P_peak", "B", "P"]
source = { ref = "toy2026", locator = "Table 1" }
"""


def test_table_rows_are_presets_and_cells_are_engine_values(write_model) -> None:
    model = symgpu.load(str(write_model(tiny_text() + TINY_TABLE)))
    report = render.render_report(model, formats=["json", "md", "tex"], draw_plots=False)
    table = json.loads(report.files["tiny.json"])["tables"][0]
    assert [r["preset"] for r in table["rows"]] == ["toy", "toy_fast"]
    toy, fast = ([c["value"] for c in r["cells"]] for r in table["rows"])
    assert toy == [1e14, 2e12, None]          # the toy preset has no intensity: P is n/a there, with the reason
    assert table["unavailable"] == [f"toy: {table['rows'][0]['cells'][2]['reason']}"] and "I" in table["unavailable"][0]
    assert fast == pytest.approx([1e14, 8e12, 4e13])   # P = Min(100 TFLOP/s, 5 FLOP/B x 8 TB/s) = 40 TFLOP/s
    md = report.files["tiny.md"].decode()
    assert "- [Tables](#tables)" in md and "| preset | `P_peak` [FLOP/s] | `B` [B/s] | `P` [FLOP/s] |" in md
    assert "| `toy_fast` | 100000000000000 | 8000000000000 | 40000000000000 |" in md
    assert "| `toy` | 100000000000000 | 2000000000000 | n/a |" in md
    tex = report.files["tiny.tex"].decode()
    assert "\\section{Tables}" in tex and "\\texttt{toy\\_fast} & 100000000000000 & 8000000000000 & 40000000000000 \\\\" in tex


def test_a_report_without_tables_has_no_tables_section(write_model) -> None:
    report = render.render_report(symgpu.load(str(write_model())), formats=["md", "tex"], draw_plots=False)
    assert "## Tables" not in report.files["tiny.md"].decode()
    assert "\\section{Tables}" not in report.files["tiny.tex"].decode()


@pytest.mark.parametrize("old, new, message", [
    ('columns = ["P_peak", "B", "P"]', 'columns = ["P", "Q"]', r"table roofline\.columns: unknown symbol 'Q'; declared symbols: B, I, P, P_peak$"),
    ('presets = ["toy", "toy_fast"]', 'presets = ["toy+nope"]', r"table roofline\.presets: unknown preset 'nope'; presets: toy, toy_fast$"),
    ('presets = ["toy", "toy_fast"]', "presets = []", r"table roofline\.presets: no presets given"),
    ('title = "Attainable vs peak"', 'title = "x"\ncolour = "red"', r"table roofline: unknown key 'colour'; allowed keys: caption, columns, id, presets, source, title$"),
])
def test_a_table_naming_an_unknown_symbol_or_preset_is_refused_where_it_is(write_model, old: str, new: str, message: str) -> None:
    with pytest.raises(errors.ModelFileError, match=message):
        symgpu.load(str(write_model(tiny_text() + TINY_TABLE.replace(old, new))))


def test_latex_kept_per_model_gives_what_sympy_prints_and_honours_extra_names(ia: symgpu.Model) -> None:
    import sympy

    expr = ia.equations[next(iter(ia.equations))].rhs
    names = latex.symbol_names(ia)
    printed = sympy.latex(expr, symbol_names=names, mul_symbol="dot")
    assert latex.latex(ia, expr) == printed and latex.latex(ia, expr) == printed  # the second from the kept text
    first = sorted(expr.free_symbols, key=str)[0]
    renamed = latex.latex(ia, expr, symbol_names={first: r"\mathrm{RENAMED}"})
    assert r"\mathrm{RENAMED}" in renamed and r"\mathrm{RENAMED}" not in latex.latex(ia, expr)
    assert latex.latex(ia, sympy.Integer(2)) == "2" and latex.latex(ia, 2.5) == "2.5"
    names[first] = "changed"  # a caller's copy: the model's names stay
    assert latex.symbol_names(ia)[first] != "changed"


@pytest.mark.parametrize(("rhs", "active", "shown"), [
    # -3 binds the Min; 5 is 8 higher (not '-1.667x higher')
    ("Min(P_peak, I*B - P_peak)", "-3", "is 8 FLOP/s higher"),
    # 0 binds the Max; -3 is 3 lower (not '0x lower')
    ("Max(0, I*B - P_peak)", "0", "is 3 FLOP/s lower"),
    # 3 binds the Max over 0 (not 'n/ax lower')
    ("Max(0, P_peak - I*B)", "3", "is 3 FLOP/s lower"),
])
def test_regime_text_gives_the_difference_where_a_bound_is_zero_or_the_signs_differ(write_model, rhs: str, active: str,
                                                                                    shown: str) -> None:
    model = symgpu.load(write_model(rhs=rhs))
    equation = next(iter(model.equations.values()))
    values = {model.symbols["P_peak"]: 5.0, model.symbols["B"]: 1.0, model.symbols["I"]: 2.0}
    state = chains.regime(model, equation, record.regime_of(model, equation, values))
    assert f"binds ({active} FLOP/s)" in state["text"] and state["text"].endswith(shown)
    assert state["ratio"] is None
