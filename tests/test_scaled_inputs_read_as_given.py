"""Inputs in scaled units (ns, us) are read as the decimals given in their declared unit wherever a value is
decided exactly: ``r = 1/(a - b - c)`` with ``a`` in us and ``b``, ``c`` in ns (``tests/fixtures/pole_units.toml``)
has a pole where ``a = b + c`` as times, not as declared numbers."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import symgpu

from conftest import FIXTURES

POLE_UNITS = str(FIXTURES / "pole_units.toml")
US, NS = Fraction(1, 10**6), Fraction(1, 10**9)


def test_a_pole_in_scaled_units_is_refused_not_printed(cli) -> None:  # type: ignore[no-untyped-def]
    # a = 1 us, b = 1000 ns, c = 0: a - b - c = 0 s exactly, a pole (printed -1e+22 1/s with exit 0 before: the
    # exact check read b back from its base-unit double as 1000.0000000000001 ns)
    assert 1 * US - 1000 * NS - 0 == 0
    code, out, err = cli("eval", POLE_UNITS, "r", "-p", "q", "-s", "c=0")
    assert code != 0 and out == ""
    assert "r has no value at these inputs" in err and err.count("\n") == 1


def test_a_divisor_near_zero_in_scaled_units_gives_the_exact_value() -> None:
    # a = 1 us, b = 1000 ns, c = 1e-9 ns: 1/(1e-6 - 1e-6 - 1e-18) = -1e18 1/s (the divisor within rounding of
    # 0 relative to its terms, so decided exactly: -9.999000100e+17 before)
    by_hand = float(1 / (1 * US - 1000 * NS - Fraction("1e-9") * NS))
    assert by_hand == -1e18
    got = float(symgpu.load(POLE_UNITS).evaluate("r", "q", c=1e-9).magnitude)
    assert got == pytest.approx(by_hand, rel=1e-12)


def _value(out: str) -> str:
    found = re.search(r"^  value: (\S+)", out, re.M)
    assert found, out
    return found.group(1)


def test_a_limit_at_values_with_no_pole_in_time_keeps_its_closed_form(cli) -> None:  # type: ignore[no-untyped-def]
    # preset p: a = 1 us, b = 1 ns; as c -> 0+: 1/(a - b) = 1/(1e-6 - 1e-9) s = 1e9/999 1/s, no pole (the declared
    # numbers 1 - 1 are 0: the limit was taken again with them put in, -oo, and the check failed before)
    by_hand = 1 / (1 * US - 1 * NS)
    assert by_hand == Fraction(10**9, 999)
    code, out, err = cli("--no-cache", "limit", POLE_UNITS, "r", "--var", "c", "--to", "0", "-p", "p")
    assert code == 0, err
    assert float(_value(out)) == pytest.approx(float(by_hand), rel=1e-9)


def test_a_limit_at_values_with_a_pole_in_time_is_that_sides_infinity(cli) -> None:  # type: ignore[no-untyped-def]
    # preset q: a = 1 us, b = 1000 ns: a - b = 0 s, so 1/(a - b - c) is 1/(-c) -> -oo as c -> 0+ (the declared
    # numbers 1 - 1000 are not 0: 1/(a - b) was kept, and the check failed before)
    assert 1 * US - 1000 * NS == 0
    code, out, err = cli("--no-cache", "limit", POLE_UNITS, "r", "--var", "c", "--to", "0", "-p", "q")
    assert code == 0, err
    assert _value(out) == "-oo"


def test_a_limit_toward_a_symbolic_point_at_a_pole_in_time(cli) -> None:  # type: ignore[no-untyped-def]
    # a = 1 us, b = 500 ns, c -> b: a - 2*b = 0 s, so 1/(a - b - c) -> +oo from below (c < b: the divisor positive)
    assert 1 * US - 2 * 500 * NS == 0
    code, out, err = cli("--no-cache", "limit", POLE_UNITS, "r", "--var", "c", "--to", "b", "-s", "a=1", "-s", "b=500", "--dir=-")
    assert code == 0, err
    assert _value(out) == "oo"
