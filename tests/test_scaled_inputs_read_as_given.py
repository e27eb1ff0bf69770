"""Inputs in scaled units (ns, us) are read as the decimals given in their declared unit wherever a value is
decided exactly: ``r = 1/(a - b - c)`` with ``a`` in us and ``b``, ``c`` in ns (``tests/fixtures/pole_units.toml``)
has a pole where ``a = b + c`` as times, not as declared numbers."""

from __future__ import annotations

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
