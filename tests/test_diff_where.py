"""``symgpu diff`` says WHERE two models differ first: the differing equation (and which case),
then the inputs at which the quantity's values differ, before any expression; lines folded."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import compare
from symgpu.cli import app


@pytest.fixture(scope="module")
def output():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = app.main(["diff", "hong_kim_2009", "hong_kim_2009_intended", "Exec_cycles_app"])
    assert code == 0
    return buffer.getvalue()


def test_default_diff_is_short_with_no_line_over_200_characters(output):
    assert len(output.encode("utf-8")) < 5000
    assert max(len(line) for line in output.splitlines()) <= 200


def test_diff_names_the_differing_equation_and_case_before_any_expression(output):
    lines = output.splitlines()
    assert lines[1] == "equations that differ:"
    assert lines[2] == "  eq22_24 (Exec_cycles_app): case eq23 (condition)"
    first_expression = next(i for i, line in enumerate(lines) if "Piecewise" in line)
    assert first_expression > lines.index("  eq22_24 (Exec_cycles_app): case eq23 (condition)")


def test_diff_says_at_which_validation_case_the_values_differ(output):
    # by hand (hong_kim_2009.toml, case case5_compute_heavy): the printed condition picks Eq. (23),
    # 4380 x 20 / 2.28125 + 8024 / 6 x 1.28125 cycles; the intended reading gives Eq. (24), 161210 cycles
    printed = 4380 * 20 / 2.28125 + 8024 / 6 * 1.28125
    line = next(line for line in output.splitlines() if "case5_compute_heavy" in line)
    a_text, _, rest = line.split(": ", 1)[1].partition(" vs ")
    assert float(a_text) == pytest.approx(printed, rel=1e-5)
    assert float(rest.split()[0]) == pytest.approx(161210, rel=1e-5)
    assert "differ by" in line and "B/A = " in line
    # the Table 2 example itself is unaffected (Comp_cycles 132 < Mem_cycles 4380)
    assert "  preset table2_example: " in output and output.split("  preset table2_example: ")[1].split("\n")[0].endswith("same")


def test_diff_lists_where_it_could_not_evaluate(output):
    assert "not evaluated (inputs missing" in output and "preset gtx280" in output


def test_full_diff_prints_whole_expressions(capsys):
    assert app.main(["diff", "hong_kim_2009", "hong_kim_2009_intended", "--full"]) == 0
    out = capsys.readouterr().out
    a = symgpu.load("hong_kim_2009")
    # whole, its literal constant printed as its number and unit (by hand: the 1 of MWP - 1 is 1 warp/SM, never beside '*')
    assert "lit_1_warp_per_SM" in str(a.equations["eq22_24"].rhs)
    assert f"    hong_kim_2009: {str(a.equations['eq22_24'].rhs).replace('lit_1_warp_per_SM', '1 warp/SM')}" in out


def test_identical_models_report_no_differing_equation():
    a = symgpu.load("interval_analysis")
    text = compare.format_diff(compare.diff(a, a))
    assert text.splitlines() == [f"interval_analysis vs interval_analysis: {len(a.equations)} equations identical, 0 differ, "
                                 "0 only in interval_analysis, 0 only in interval_analysis"]
