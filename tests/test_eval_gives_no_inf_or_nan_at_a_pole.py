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

