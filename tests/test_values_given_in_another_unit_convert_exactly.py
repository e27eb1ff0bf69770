"""A value given in another unit than its symbol's (a preset's "0.3 us" for L in ns, ``--set "BW=2 TB/s"``
for BW in GB/s) is the decimal written times the exact unit ratio, rounded once to a double: 300.0 ns and
2000.0 GB/s, not pint's 299.99999999999994 and 2000.0000000000002 (an outside tester's findings: a ceiling of
T/q one too many in 17 of 60 exact ratios, a floor one too few, a case at its boundary taking the other case,
a valid_when edge refused with "got L = 500 ns", a validation case failing)."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

import symgpu
from conftest import toy_header
from symgpu import units
from symgpu.evaluate import point

SOURCE = 'source = { ref = "toy2026", locator = "1" }'
MODEL = toy_header("units_exact", "Values in other units", "Ceilings, floors, cases and domains of converted values.") + f"""
[symbols.T]
description = "kernel time"
unit = "ns"
assumptions = ["positive"]
[symbols.q]
description = "time slice"
unit = "ns"
assumptions = ["positive"]
[symbols.L]
description = "latency"
unit = "ns"
assumptions = ["positive"]
[symbols.BW]
description = "bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.x]
description = "attained bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.c]
description = "saturation bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.one_ns]
description = "one nanosecond"
unit = "ns"
role = "constant"
value = "1 ns"
[symbols.slices]
description = "time slices"
unit = "1"
role = "output"
[symbols.k]
description = "whole nanoseconds of L"
unit = "1"
role = "output"
[symbols.w]
description = "latency by case"
unit = "ns"
role = "output"
[symbols.mode]
description = "bandwidth by case"
unit = "GB/s"
role = "output"
[symbols.y]
description = "latency past 500 ns"
unit = "ns"
role = "output"
[symbols.headroom]
description = "bandwidth below saturation"
unit = "GB/s"
role = "output"

[[equations]]
id = "sl"
defines = "slices"
rhs = "ceiling(T/q)"
{SOURCE}
[[equations]]
id = "ek"
defines = "k"
rhs = "floor(L/one_ns)"
{SOURCE}
[[equations]]
id = "ew"
defines = "w"
cases = [ {{ id = "low", when = "L < 300", value = "L" }}, {{ id = "high", when = "otherwise", value = "L + 1000" }} ]
{SOURCE}
[[equations]]
id = "md"
defines = "mode"
cases = [ {{ id = "slow", when = "BW <= 2000", value = "BW" }}, {{ id = "fast", when = "otherwise", value = "2*BW" }} ]
{SOURCE}
[[equations]]
id = "ey"
defines = "y"
rhs = "L - 500"
valid_when = ["L >= 500"]
{SOURCE}
[[equations]]
id = "eh"
defines = "headroom"
rhs = "c - x"
valid_when = ["x < c"]
{SOURCE}

[presets.p]
description = "values in other units"
source = {{ ref = "toy2026", locator = "p" }}
[presets.p.values]
L = "0.3 us"
BW = "2 TB/s"
c = "2 TB/s"

[[validation]]
id = "v"
preset = "p"
expect = {{ k = "300", w = "1300 ns", mode = "2000 GB/s" }}
{SOURCE.replace('"1"', '"v"')}
"""


@pytest.fixture
def path(write_model: Callable[..., Path]) -> Path:
    return write_model(MODEL, name="units_exact")


def test_a_ceiling_of_times_given_in_ms_and_us_counts_the_exact_slices(path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # T = k*v ms and q = v us: T/q is 1000*k exactly, so the ceiling is 1000*k (the tester's 60 pairs, 17 were 1000*k + 1)
    model = symgpu.load(path)
    for k in (1, 2, 3, 5, 7):
        for v in ("0.1", "0.3", "0.7", "1.1", "1.3", "1.9", "2.2", "3.3", "3.35", "0.35", "1.555", "0.9"):
            exact = Fraction(Decimal(v) * k) * 10**6 / (Fraction(v) * 10**3)
            got = model.evaluate("slices", values={"T": f"{Decimal(v) * k} ms", "q": f"{v} us"}).magnitude
            assert got == math.ceil(exact) == 1000 * k, (k, v)
    code, out, err = cli("eval", path, "slices", "--set", "T=0.6 ms", "--set", "q=0.3 us")
    assert code == 0 and out.strip() == "slices = 2000", err


def test_a_floor_and_a_case_of_a_preset_in_us_count_whole_ns_and_the_validation_case_passes(path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # L = 0.3 us = 300 ns exactly: floor(300 ns / 1 ns) = 300, and L < 300 is false, so w = L + 1000 = 1300 ns
    L = Fraction("0.3") * 1000
    model = symgpu.load(path)
    assert model.evaluate("k", "p").magnitude == math.floor(L / 1) == 300
    assert model.evaluate("w", "p").magnitude == (L + 1000 if not L < 300 else L) == 1300
    assert model.evaluate("k", values={"L": "0.7 us"}).magnitude == math.floor(Fraction("0.7") * 1000) == 700
    code, out, err = cli("validate", path)
    assert code == 0 and "3 passed, 0 failed" in err, out + err


@pytest.mark.parametrize("given", ["2 TB/s", "2e12 B/s", "2000 GB/s", "0.002 PB/s"])
def test_a_case_at_its_boundary_given_in_another_unit_takes_the_boundary_case(path: Path, given: str) -> None:
    # each is 2000 GB/s exactly, and BW <= 2000 holds: the slow case, mode = BW = 2000 GB/s (2*BW = 4000 was taken)
    assert all(bw == 2000 for bw in (Fraction(2) * 1000, Fraction(2 * 10**12, 10**9), Fraction("0.002") * 10**6))
    model = symgpu.load(path)
    assert model.evaluate("mode", values={"BW": given}).magnitude == 2000.0
    assert model.evaluate("mode", "p").magnitude == 2000.0


def test_valid_when_edges_given_in_another_unit_hold_as_written_and_refusals_speak_the_files_terms(path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # L = 0.5 us = 500 ns meets L >= 500: y = 0 ns
    assert Fraction("0.5") * 1000 == 500
    assert symgpu.load(path).evaluate("y", values={"L": "0.5 us"}).magnitude == 0.0
    code, out, err = cli("eval", path, "y", "--set", "L=0.4 us")
    assert code == 2 and "is valid only when L >= 500 ns; got L = 400 ns." in err and "lit_" not in err, err
    # c = 2 TB/s = 2000 GB/s exactly: x = 2000 breaks x < c (it printed headroom = 2.3e-13 GB/s)
    code, out, err = cli("eval", path, "headroom", "-p", "p", "--set", "x=2000")
    assert code == 2 and out == "" and "is valid only when x < c; got c = 2000 GB/s, x = 2000 GB/s" in err, out + err


@pytest.mark.parametrize(("text", "unit", "exact"), [
    ("0.3 us", "ns", Fraction(3, 10) * 1000),
    ("0.7 us", "ns", Fraction(7, 10) * 1000),
    ("0.6 ms", "ns", Fraction(6, 10) * 10**6),
    ("1.555 us", "ns", Fraction(1555, 1000) * 1000),
    ("2 TB/s", "GB/s", Fraction(2) * 1000),
    ("300 ns", "us", Fraction(300, 1000)),
    ("3 KiB", "B", Fraction(3 * 1024)),
    ("12 bit", "B", Fraction(12, 8)),
    ("0.35 GHz", "cycle/ns", Fraction(35, 100)),
    ("1.1 MiB/ms", "GB/s", Fraction(11, 10) * 2**20 * 1000 / 10**9),
])
def test_a_quantity_is_its_decimal_times_the_unit_ratio_rounded_once(text: str, unit: str, exact: Fraction) -> None:
    assert units.exact_convert(units.quantity(text), unit).magnitude == float(exact)
    # an array the same, element by element
    array = units.registry().Quantity(np.array([units.quantity(text).magnitude] * 2), units.quantity(text).units)
    assert units.exact_convert(array, unit).magnitude.tolist() == [float(exact)] * 2


def test_a_points_exact_values_are_the_decimals_given_in_another_unit(path: Path) -> None:
    # what the derivation commands read at a point: L = 0.3 us is 3/10**7 s exactly (not 299.99999999999994 ns)
    model = symgpu.load(path)
    L = model.symbol("L")
    assert point.exact_base_values(model, [L], "p", {}) == {L: sympy.Rational(3, 10) / 10**6}
    assert point.exact_base_values(model, [L], None, {"L": "0.7 us"}) == {L: sympy.Rational(7, 10) / 10**6}
