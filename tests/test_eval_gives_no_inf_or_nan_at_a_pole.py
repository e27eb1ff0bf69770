"""``eval`` never prints ``inf``, ``nan`` or a rounding artefact at a pole or a 0/0 of the formula
(outside tester, round 6, finding F3): a value that is not finite is decided in exact arithmetic, and a
divisor within rounding of 0 is decided with the inputs as the decimals given."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import symgpu

from conftest import FIXTURES

POLE = str(FIXTURES / "pole.toml")  # r = 1/(x*y - z); preset p: x = 0.1, y = 3
POLE2 = FIXTURES / "pole2.toml"  # the same, the divisor a quantity of its own: d = x*y - z, r = 1/d
POLE_SCALED = str(FIXTURES / "pole_scaled.toml")  # r = w/(x*y - z)


def test_a_division_by_an_exact_zero_is_refused_not_printed_as_inf(cli) -> None:  # type: ignore[no-untyped-def]
    # 1/(1*1 - 1) = 1/0: no value (IEEE: inf, printed with exit 0 before)
    code, out, err = cli("eval", POLE, "r", "-s", "x=1", "-s", "y=1", "-s", "z=1")
    assert code != 0 and out == ""
    assert "r has no value at these inputs" in err and err.count("\n") == 1


def test_a_divisor_zero_in_the_decimals_given_but_not_in_ieee_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    # 0.1*3 - 0.3 = 0 exactly as the decimals say; IEEE: 0.30000000000000004 - 0.3 = 5.6e-17, printed 1.8e16 before
    assert Fraction("0.1") * 3 - Fraction("0.3") == 0
    code, out, err = cli("eval", POLE, "r", "-p", "p", "-s", "z=0.3")
    assert code != 0 and out == ""
    assert "r has no value at these inputs" in err and err.count("\n") == 1


def test_a_divisor_zero_only_in_ieee_gives_the_exact_value() -> None:
    # 0.1*3 - 0.30000000000000004 = -4e-17 exactly: r = -2.5e16 (IEEE divides by 0: inf before)
    by_hand = float(1 / (Fraction("0.1") * 3 - Fraction("0.30000000000000004")))
    assert by_hand == pytest.approx(-2.5e16)
    got = float(symgpu.load(POLE).evaluate("r", "p", z=0.30000000000000004).magnitude)
    assert got == pytest.approx(by_hand, rel=1e-12)


def test_beside_the_pole_the_value_is_the_formulas() -> None:
    # 1/(0.3 - 0.2) = 10
    assert float(symgpu.load(POLE).evaluate("r", "p", z=0.2).magnitude) == pytest.approx(10, rel=1e-12)


def test_zero_over_zero_is_refused_not_printed_as_nan(cli) -> None:  # type: ignore[no-untyped-def]
    # volkov_2016 traffic_increase = (c*b + d*T)/((c + d)*b) with c = d = 0 accesses: 0/0, no value
    # (nan with exit 0 before; the limits as c or d tends to 0 differ: 1 and T/b = 0.25). Model.evaluate
    # gives NaN, its "no value"; eval refuses it
    point = {"bytes_per_inst": 128, "coalesced_accesses": 0, "diverged_accesses": 0, "txn_bytes_diverged": 32, "txns_per_diverged": 1}
    assert math.isnan(float(symgpu.load("volkov_2016").evaluate("traffic_increase", values=point).magnitude))
    code, out, err = cli("eval", "volkov_2016", "traffic_increase", *[f"--set={k}={v}" for k, v in point.items()])
    assert code != 0 and out == ""
    assert "traffic_increase has no value at these inputs: its formula is 0/0 there" in err and err.count("\n") == 1



def test_a_divisor_zero_in_the_decimals_given_is_refused_where_it_is_a_quantity_of_its_own(cli) -> None:  # type: ignore[no-untyped-def]
    # d = 0.1*3 - 0.3 = 0 exactly as the decimals say: r = 1/d has no value (printed 1.801439851e+16 before: the
    # divisor d is a symbol in r's equation, its sum in d's)
    assert Fraction("0.1") * 3 - Fraction("0.3") == 0
    code, out, err = cli("eval", str(POLE2), "r", "-p", "p", "-s", "z=0.3")
    assert code != 0 and out == ""
    assert "r has no value at these inputs: its formula divides by zero" in err and err.count("\n") == 1


@pytest.mark.parametrize("rhs", ["2*(x*y - z)**2", "Max(x*y - z, 0)"])
def test_a_divisor_quantity_that_is_a_product_or_max_of_a_sum_zero_in_the_decimals_given_is_refused(write_model, rhs: str) -> None:  # type: ignore[no-untyped-def]
    # d = 2*(0.1*3 - 0.3)**2 = 0 and Max(0.1*3 - 0.3, 0) = 0 exactly; IEEE: 2*(5.6e-17)**2 = 6.2e-33 and 5.6e-17
    text = POLE2.read_text(encoding="utf-8")
    assert 'rhs = "x*y - z"' in text
    model = symgpu.load(str(write_model(text.replace('rhs = "x*y - z"', f'rhs = "{rhs}"'), name="pole2")))
    with pytest.raises(symgpu.errors.EvaluationError, match="r has no value at these inputs: its formula divides by zero"):
        model.evaluate("r", "p", z=0.3)


def test_an_exact_value_beyond_doubles_beside_a_pole_is_refused_as_an_overflow_not_as_a_pole(cli) -> None:  # type: ignore[no-untyped-def]
    # 1.36*0.14 - 0.19039999999999999 = 1e-17 exactly (IEEE: 5.55e-17, a rounding residue): r = 5e291/1e-17 = 5e308,
    # beyond the largest double 1.798e308 (IEEE 9.0e307); refused before as a division by zero, which it is not
    divisor = Fraction("1.36") * Fraction("0.14") - Fraction("0.19039999999999999")
    assert divisor == Fraction(1, 10**17) and Fraction(5 * 10**291) / divisor > Fraction(1.7976931348623157e308)
    assert 1.36 * 0.14 - 0.19039999999999999 == pytest.approx(5.55e-17, rel=1e-3)
    code, out, err = cli("eval", POLE_SCALED, "r", "-s", "x=1.36", "-s", "y=0.14", "-s", "z=0.19039999999999999", "-s", "w=5e291")
    assert code != 0 and out == ""
    assert "r overflows IEEE doubles at these inputs" in err and "divides by zero" not in err and err.count("\n") == 1

