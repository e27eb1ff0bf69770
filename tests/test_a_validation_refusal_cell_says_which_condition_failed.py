"""A validation case that expects a domain error showed "n/a domain error" in the report's "computed" cell: it says
what the model did, which condition failed at the case's inputs, briefly, in ``eval``'s words (``valid only when 0 <
ind_mem_req; got ind_mem_req = 0 req``)."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import validation
from symgpu.report import render
from tests.conftest import tiny_text

HK = "hong_kim_2009"
#: Hong & Kim's eq29 is valid only when 0 < ind_mem_req and ind_mem_req < mem_req (the model file's valid_when); the
#: cases' inputs (ind_mem_req, mem_req) = (0, 6) req fail the first, (6, 6) req the second
EXPECTED = {
    "eq29_all_dependent": "refused: valid only when 0 < ind_mem_req; got ind_mem_req = 0 req",
    "eq29_all_independent": "refused: valid only when ind_mem_req < mem_req; got ind_mem_req = 6 req, mem_req = 6 req",
}


@pytest.fixture(scope="module")
def results() -> dict[str, validation.CaseResult]:
    return {r.case.id: r for r in validation.validate(symgpu.load(HK)) if r.case.id.startswith("eq29_")}


def test_the_refusal_names_the_failing_condition_as_eval_does(results, cli) -> None:  # type: ignore[no-untyped-def]
    for case, text in EXPECTED.items():
        assert results[case].status == validation.PASS and results[case].refusal == text
    code, _, err = cli("eval", HK, "N_pw", "--preset", "table2_example", "--set", "ind_mem_req=0 req", "--set", "mem_req=6 req")
    assert code != 0 and EXPECTED["eq29_all_dependent"].removeprefix("refused: ") in err  # eval's own words


def test_a_case_expecting_a_number_has_no_refusal_text(results) -> None:  # type: ignore[no-untyped-def]
    assert results["eq29_half_independent"].status == validation.PASS and results["eq29_half_independent"].refusal == ""


def test_the_reports_cell_says_the_refusal_not_n_a_domain_error(write_model) -> None:  # type: ignore[no-untyped-def]
    # the tiny roofline, valid only up to an intensity of 50 FLOP/B, asked at 60 FLOP/B: a domain error, as its case expects
    text = tiny_text().replace('rhs = "Min(P_peak, I*B)"\n', 'rhs = "Min(P_peak, I*B)"\nvalid_when = ["I <= 50"]\n') + (
        '\n[[validation]]\nid = "beyond_the_valid_intensity"\npreset = "toy"\ninputs = { I = "60 FLOP/B" }\n'
        'expect = { P = "domain error" }\nsource = { ref = "toy2026", locator = "Eq. (1)" }\n')
    files = render.render_report(symgpu.load(write_model(text)), formats=("md", "tex"), draw_plots=False).files
    markdown, tex = files["tiny.md"].decode(), files["tiny.tex"].decode()
    assert "n/a domain error" not in markdown and "n/a domain error" not in tex
    assert "| `beyond_the_valid_intensity` | `P` | domain error | refused: valid only when I &lt;= 50; got I = 60 FLOP/B  | n/a | pass |" \
        in markdown
    assert r"refused: valid only when I \textless{}= 50; got I = 60 FLOP/B" in tex
