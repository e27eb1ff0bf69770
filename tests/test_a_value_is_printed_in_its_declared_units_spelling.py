"""A value is printed in the spelling of its declared unit: `op` is an alias of pint's `thread_instruction`,
whose short symbol is `tinst`, so `symgpu eval` printed an `op/cycle/SM` quantity as `tinst / cy / SM`, and
`symgpu validate` put `printed 115 op/cycle/SM, computed 111.267 tinst / cy / SM` on one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest

import symgpu
from symgpu import units, validation

Cli = Callable[..., tuple[int, str, str]]

ALPHA, N = 32, 64
# Kepler (Table 4.1): mem_lat 301, alu_lat 9 cycles; 4 winst/cycle/SM of ALU and issue, mem_thru 0.1338
MEM_LAT, ALU_LAT, MEM_THRU, ALU_THRU, ISSUE_THRU = 301, 9, Fraction("0.1338"), 4, 4
# Huang (s7_5): 32*alpha/(alpha+1) * issue_units * (n/issue_units)*(1+alpha)/(mem_lat+alpha*alu_lat) = 32*alpha*n/(mem_lat+alpha*alu_lat)
HUANG_RR = Fraction(32 * ALPHA * N, MEM_LAT + ALPHA * ALU_LAT)
# Volkov (s4_1): 32*alpha*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha+1), n/(mem_lat+alpha*alu_lat))
VOLKOV = 32 * ALPHA * min(MEM_THRU, Fraction(ALU_THRU, ALPHA), Fraction(ISSUE_THRU, ALPHA + 1), Fraction(N, MEM_LAT + ALPHA * ALU_LAT))


def test_the_hand_computed_values_are_65536_over_589() -> None:
    assert HUANG_RR == VOLKOV == Fraction(65536, 589)


@pytest.mark.parametrize(("model", "quantity", "expected"), [("prior_huang", "arithmetic_throughput_rr", HUANG_RR),
                                                             ("volkov_2016", "arithmetic_throughput", VOLKOV)])
def test_eval_prints_an_op_per_cycle_per_sm_quantity_as_op_cycle_sm(cli: Cli, model: str, quantity: str, expected: Fraction) -> None:
    code, out, err = cli("eval", model, quantity, "--preset", "kepler", "--set", f"alpha={ALPHA}", "--set", f"n={N}")
    assert code == 0, err
    assert out.strip() == f"{quantity} = {float(expected):.10g} op/cycle/SM"
    assert "tinst" not in out and " cy " not in out
    code, out, err = cli("eval", model, quantity, "--preset", "kepler", "--set", f"alpha={ALPHA}", "--set", f"n={N}", "--json")
    record = json.loads(out)
    assert code == 0 and record["unit"] == "op/cycle/SM" and record["value"] == pytest.approx(float(expected), rel=1e-13)


def test_eval_keeps_the_asked_unit_with_unit(cli: Cli) -> None:
    code, out, err = cli("eval", "volkov_2016", "arithmetic_throughput", "--preset", "kepler", "--set", f"alpha={ALPHA}",
                         "--set", f"n={N}", "--unit", "kop/cycle/SM")
    assert code == 0, err
    value, unit = out.strip().split(" = ")[1].split(" ", 1)
    assert float(value) == pytest.approx(float(VOLKOV) / 1000, rel=1e-9) and "op" in unit and "tinst" not in unit


def test_validate_words_the_computed_value_as_the_printed_one() -> None:
    model = symgpu.load("prior_huang")
    results = validation.validate(model, ("s7_5_kepler_alpha32_full_occupancy",))
    assert [r.quantity for r in results] == ["arithmetic_throughput_rr", "arithmetic_throughput_gto"]
    for result in results:
        assert result.computed == pytest.approx(float(HUANG_RR), rel=1e-12)  # GTO adds nothing here: NO_mem = NO_alu = 0
        assert f"printed 115 op/cycle/SM, computed {float(HUANG_RR):.6g} op/cycle/SM (tolerance" in result.message
        assert "tinst" not in result.message


def test_a_printed_unit_that_is_not_the_compared_one_falls_back_to_pints_words() -> None:
    cycle = units.unit("cycle")
    assert validation.printed_unit("-11 cycle", cycle) == "cycle"
    assert validation.printed_unit("1.14", units.unit("1")) == ""
    assert validation.printed_unit("3 ns", cycle) == "cy"  # the text after the number is not the compared unit
    # the model's declared spelling where the case wrote no unit or another one; pint's words only where neither is it
    assert validation.printed_unit("3", cycle, "cycle") == "cycle" and validation.printed_unit("3 ns", cycle, "ns") == "cy"
    assert validation.printed_unit("115", units.unit("op/cycle/SM"), "op/cycle/SM") == "op/cycle/SM"


def test_every_validation_result_of_a_report_names_its_unit_in_words_the_model_or_the_case_wrote() -> None:
    # the reports' JSON `unit` field of each validation case: as the case or the model spells it, never pint's
    # short symbols (`winst / cy / SM`, `tinst / cy / SM` for op/cycle/SM); a pure number has no unit
    for name in ("volkov_2016", "prior_huang", "occupancy"):
        model = symgpu.load(name)
        for result in validation.validate(model):
            if not result.unit:
                continue
            written = result.published[len(units.number_text(result.published)):].strip()
            declared = model.unit_text(result.quantity) if result.quantity in model.units else None
            assert result.unit in (written, declared), (name, result.case.id, result.unit)
            assert " / " not in result.unit and "cy" not in result.unit.replace("cycle", "")
