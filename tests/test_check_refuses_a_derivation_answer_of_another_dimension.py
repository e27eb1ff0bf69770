"""``symgpu check`` reads a derivation's own numbers in their dimensions at load, as it reads an ordinary validation case's
(an outside tester's round-13 findings F2, F3): a validation case's expected ``result`` of a derivation in another dimension
(a minimum in cycles expected as a time in us, a root in warp/SM as thread/SM), a solve's ``target`` of another dimension
than its quantity, and a fixed point's variable of another dimension than its quantity are each refused with one line naming
the file, the case or derivation and key, and both dimensions; before, check passed them and validate or derive failed
later with pint's message or the derived solution's. A value in another dimension is refused, not converted at the
preset's clock. The fixture itself (tests/fixtures/derivation_units.toml) passes: its expectations are in the answers'
dimensions (the minimum 2*sqrt(600 cycle * 6 cycle) + 100 cycle = 220 cycle, by hand)."""

from __future__ import annotations

import pytest

from conftest import read_fixture
import symgpu
from symgpu import errors

CASE = '\n[[validation]]\nid = "{id}"\npreset = "g"\nderivation = "{derivation}"\nexpect = {{ result = "{value}" }}\n' \
       'source = {{ ref = "me2026", locator = "x", kind = "derived" }}\n'
REQUEST = '\n[[derivations]]\nid = "{id}"\nop = "{op}"\nquantity = "thr"\nvariable = "n"\n{extra}\n'


def test_the_fixture_with_answers_in_their_dimensions_passes_and_its_minimum_validates(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(read_fixture("derivation_units"), name="derivation_units"))
    assert model.validation_inputs["d1"].expect[0][1].to("cycle").magnitude == 220
    minimum = model.extremum("T", over="N", kind="min", preset="g")
    assert abs(minimum.extra.value_at - (2 * (600 * 6) ** 0.5 + 100)) < 1e-9 and minimum.unit == "cycle"


@pytest.mark.parametrize(("case", "derivation", "value", "said"), [
    ("d3", "nmin", "0.1467 us", "result = '0.1467 us' has dimension [time], but the result of derivation nmin (extremum of T) is "
                                "T's, [clock] (unit cycle)"),
    ("d5", "ninety", "589.5 thread/SM", "result = '589.5 thread/SM' has dimension [thread]/[SM], but the result of derivation "
                                        "ninety (solve of thr) is n's, [warp]/[SM] (unit warp/SM)"),
])
def test_an_expected_result_of_a_derivation_in_another_dimension_is_refused_by_check_and_when_read(  # type: ignore[no-untyped-def]
        write_model, refused_whole, case, derivation, value, said) -> None:
    text = read_fixture("derivation_units") + CASE.format(id=case, derivation=derivation, value=value)
    path = write_model(text, name="derivation_units")
    message = str(refused_whole(path, errors.UnitMismatchError))
    assert f"validation {case}.expect.result" in message and said in message and "\n" not in message
    with pytest.raises(errors.UnitMismatchError) as read:  # a question's load reads the validation cases when asked
        symgpu.load(path).validation_inputs
    assert str(read.value) == message


def test_a_solve_target_of_another_dimension_than_its_quantity_is_refused_at_load(write_model) -> None:  # type: ignore[no-untyped-def]
    text = read_fixture("derivation_units") + REQUEST.format(id="at_warps", op="solve", extra='target = "9*n0/10"')
    with pytest.raises(errors.UnitMismatchError, match=r"derivation at_warps\.target: target '9\*n0/10' has dimension "
                       r"\[warp\]/\[SM\], but thr is \[information\]/\[time\] \(unit GB/s\)"):
        symgpu.load(write_model(text, name="derivation_units"))


def test_a_fixed_point_over_a_variable_of_another_dimension_is_refused_at_load(write_model) -> None:  # type: ignore[no-untyped-def]
    text = read_fixture("derivation_units") + REQUEST.format(id="fp", op="fixed_point", extra="")
    with pytest.raises(errors.UnitMismatchError, match=r"derivation fp\.variable: the fixed point's variable n is \[warp\]/\[SM\], "
                       r"but thr is \[information\]/\[time\]"):
        symgpu.load(write_model(text, name="derivation_units"))


def test_a_substitute_of_another_dimension_than_its_symbol_is_refused_by_check(write_model, refused_whole) -> None:  # type: ignore[no-untyped-def]
    # peak is TB/s and n0 warp/SM: check passed it and derive refused it later ("substitute peak=n0: the value has dimension ...")
    text = read_fixture("derivation_units") + REQUEST.format(id="sub", op="solve", extra='target = "9*peak/10"\n'
                                                             'substitute = { peak = "n0" }')
    message = str(refused_whole(write_model(text, name="derivation_units"), errors.UnitMismatchError))
    assert "derivation_units.toml" in message and "derivation sub.substitute.peak" in message and "\n" not in message
    assert "substitute peak = 'n0' has dimension [warp]/[SM], but peak is [information]/[time] (unit TB/s)" in message


@pytest.mark.parametrize("value", ["2*peak", "3", "peak*n/n0", "3 TB/s"])
def test_a_substitute_of_its_symbols_dimension_passes_check(write_model, cli, value: str) -> None:  # type: ignore[no-untyped-def]
    text = read_fixture("derivation_units") + REQUEST.format(id="sub", op="solve", extra='target = "9*peak/10"\n'
                                                             f'substitute = {{ peak = "{value}" }}')
    code, out, _ = cli("--no-cache", "check", write_model(text, name="derivation_units"))
    assert code == 0, out
