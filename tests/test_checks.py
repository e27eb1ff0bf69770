"""The unit checker walks every expression; errors name the equation, the term and both dimensions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import symgpu
from symgpu import errors

from conftest import read_fixture

REPO = Path(__file__).resolve().parent.parent


def load(path):
    return symgpu.Model(symgpu.model.loader.read_definition(path))


@pytest.mark.parametrize("rhs, problem", [
    # terms are quoted in the order written (the check reads the text unevaluated)
    ("P_peak + B", "terms of 'P_peak + B' disagree: 'P_peak' is [operation]/[time], but 'B' is [information]/[time]"),
    ("Min(P_peak, B)", "arguments of 'Min(B, P_peak)' disagree: 'B' is [information]/[time], but 'P_peak' is [operation]/[time]"),  # Min keeps its arguments sorted
    ("Piecewise((I*B, I > 1), (B, True))", "branches of 'Piecewise((I*B, I > 1), (B, True))' disagree: 'I*B' is [operation]/[time], but 'B' is [information]/[time]"),
    ("Piecewise((I*B, I > B), (P_peak, True))", "sides of 'I > B' disagree: 'I' is [operation]/[information], but 'B' is [information]/[time]"),
    ("P_peak*exp(I)", "the argument of exp must be a pure number, but 'I' is [operation]/[information]"),
    ("P_peak*2**I", "the exponent of '2**I' must be a pure number, but 'I' is [operation]/[information]"),
])
def test_inconsistent_sub_expressions_are_located(write_model, rhs, problem):
    with pytest.raises(errors.UnitMismatchError) as info:
        load(write_model(rhs=rhs))
    assert ": equation attainable" in str(info.value)
    assert problem in str(info.value)


@pytest.mark.parametrize("rhs, problem", [
    # each of these is P_peak after SymPy's automatic simplification (all symbols positive), so
    # only the text as written shows that B ([information]/[time]) is added to a throughput
    ("Min(P_peak, P_peak + B)", "terms of 'P_peak + B' disagree"),            # a dominated Min argument dropped
    ("P_peak*(I + B)/(I + B)", "terms of 'I + B' disagree"),                  # a ratio cancelled
    ("P_peak + 0*B", "terms of 'P_peak + 0*B' disagree"),                     # a zero term folded
    ("P_peak + B - B", "terms of 'P_peak + B - B' disagree"),                   # a term and its negation
    ("P_peak*(I + B)**0", "terms of 'I + B' disagree"),                       # a power 0
])
def test_a_term_sympy_would_simplify_away_is_checked_as_written(write_model, rhs, problem):
    with pytest.raises(errors.UnitMismatchError) as info:
        load(write_model(rhs=rhs))
    assert ": equation attainable" in str(info.value)
    assert problem in str(info.value)
    assert "[information]/[time]" in str(info.value)


def test_a_domain_condition_sympy_decides_true_is_checked_as_written(write_model):
    """``P_peak + B > 0`` is True for positive symbols before any check could see its terms."""
    text = read_fixture("tiny").replace('locator = "Eq. (1)" }', 'locator = "Eq. (1)" }\nvalid_when = ["P_peak + B > 0"]')
    with pytest.raises(errors.UnitMismatchError, match=re.escape(
            "equation attainable.valid_when: terms of 'P_peak + B' disagree: 'P_peak' is [operation]/[time], but 'B' is [information]/[time]")):
        load(write_model(text))


def test_right_side_must_have_the_dimension_of_the_defined_symbol(write_model, tmp_path):
    with pytest.raises(errors.UnitMismatchError, match=re.escape(
        f"{tmp_path}/tiny.toml: equation attainable: 'B' has dimension [information]/[time], but P is [operation]/[time]; "
        "check the units of the symbols involved (B: B/s)")):
        load(write_model(rhs="B"))


def test_bare_literal_in_a_sum_takes_its_siblings_dimension(write_model):
    model = load(write_model(rhs="Min(P_peak, I*B) - 1"))
    assert model.evaluate("P", preset="toy", I=10).to("FLOP/s").magnitude == pytest.approx(20e12 - 1)


def test_counts_declaration_treats_a_dimension_as_a_pure_number(tmp_path):
    text = (REPO / "equations" / "interval_analysis.toml").read_text()
    stripped = text.replace('rhs = "M*N"\ncounts = ["instruction"]', 'rhs = "M*N"')
    path = tmp_path / "interval_analysis.toml"
    path.write_text(stripped)
    with pytest.raises(errors.UnitMismatchError, match=re.escape(
        "equation n_IF_K0: 'M*N' has dimension 1, but n_IF_K0 is [instruction]; the two sides differ by [instruction]**-1")):
        load(path)


def test_interval_notes_P_formula_as_printed_is_rejected_for_a_missing_clock(tmp_path):
    """The notes print P = Theta_M (L_M + MN + M) cyc / 4(M + N) B, with no clock conversion."""
    text = (REPO / "equations" / "interval_analysis.toml").read_text()
    as_printed = text.replace('rhs = "Theta_M*L_K0/(d_K0*phi)"', 'rhs = "Theta_M*L_K0/d_K0"')
    assert as_printed != text
    folder = tmp_path / "equations"
    folder.mkdir()
    (folder / "interval_analysis.toml").write_text(as_printed)
    with pytest.raises(errors.UnitMismatchError) as info:
        load(folder / "interval_analysis.toml")
    assert str(info.value).endswith(
        "interval_analysis.toml: equation P_K0: 'Theta_M*L_K0/d_K0' has dimension [clock]*[thread]/[time], "
        "but P_K0 is [thread]; a clock conversion (phi) may be missing")


def test_bundled_interval_analysis_passes_the_checker(ia):
    for equation in ia.equations.values():
        assert ia.dimension_of(equation.lhs) is not None


def test_a_domain_condition_the_declared_signs_make_false_is_refused_naming_it(write_model):
    """``P_peak <= 0`` with P_peak declared positive: before, check said ok and eval then said
    "valid only when False; got ."."""
    text = read_fixture("tiny").replace('locator = "Eq. (1)" }', 'locator = "Eq. (1)" }\nvalid_when = ["B > 0", "P_peak <= 0"]')
    with pytest.raises(errors.ModelFileError, match=re.escape(
            "equation attainable.valid_when: 'P_peak <= 0' never holds: the declared assumptions rule it out (P_peak is positive), "
            "so no value of the equation is valid")):
        load(write_model(text))


def test_a_case_the_declared_signs_make_false_is_refused_naming_it(write_model):
    text = read_fixture("tiny").replace('rhs = "Min(P_peak, I*B)"', 'cases = [{ id = "never", when = "I < 0", value = "I*B" }, '
                                        '{ id = "rest", when = "otherwise", value = "P_peak" }]')
    with pytest.raises(errors.ModelFileError, match=re.escape(
            "equation attainable case never.when: 'I < 0' never holds: the declared assumptions rule it out (I is positive), so the case never applies")):
        load(write_model(text))
