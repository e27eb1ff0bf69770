"""A report's value table says, as ``symgpu eval`` does, where a value's ``assumes`` condition fails at the preset:
Volkov's cusp (``alpha_cusp_alu = alu_thru/mem_thru``, ``n_cusp_alu``) assumes ``alu_thru + mem_thru <= issue_thru``,
which fails at maxwell (4 + 0.0814 > 4 winst/cycle/SM) and holds at g80 (0.25 + 0.0268 <= 0.5). Rows with no failing
assumption are as before (every other report byte-identical: tests/test_reports_uptodate.py)."""

from __future__ import annotations

from fractions import Fraction

import symgpu
from symgpu.report import chains

#: equations/volkov_2016.toml, [presets.*.values]: (alu_thru, mem_thru, issue_thru) in winst/cycle/SM
THROUGHPUTS = {"maxwell": ("4", "0.0814", "4"), "g80": ("0.25", "0.0268", "0.5")}


def _row_notes(model: symgpu.Model, preset: str) -> dict[str, list[str]]:
    section = chains.preset_section(model, preset)
    return {h["quantity"]: h.get("assumptions", []) for sc in section["scenarios"] for h in sc["headline"]}


def test_the_cusp_rows_say_the_assumption_fails_where_alu_plus_memory_throughput_exceeds_issue(cli) -> None:
    model = symgpu.load("volkov_2016")
    for preset, (alu, mem, issue) in THROUGHPUTS.items():
        fails = Fraction(alu) + Fraction(mem) > Fraction(issue)  # by hand from the file's decimals
        notes = _row_notes(model, preset)
        assert bool(notes["alpha_cusp_alu"]) is fails and bool(notes["n_cusp_alu"]) is fails, (preset, notes)
        assert all(not n for q, n in notes.items() if q not in ("alpha_cusp_alu", "n_cusp_alu")), (preset, notes)
        if fails:
            inputs = f"alu_thru = {alu} winst/cycle/SM, issue_thru = {issue} winst/cycle/SM, mem_thru = {mem} winst/cycle/SM"
            (said,) = notes["alpha_cusp_alu"]
            assert said.startswith("alpha_cusp_alu (equation s4_5_cusp_alpha_alu) assumes alu_thru + mem_thru <= issue_thru, which "
                                   f"does not hold here ({inputs}): the value is the formula's, not what alpha_cusp_alu is described as (")
            code, out, err = cli("eval", "volkov_2016", "alpha_cusp_alu", "-p", preset)  # eval says the same sentence
            assert code == 0 and f"  note: {said}\n" in out, (out, err)
