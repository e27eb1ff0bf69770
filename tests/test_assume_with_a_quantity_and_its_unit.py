"""``--assume`` with a quantity and its unit on one side (``L_M <= 1 us``): read by the unit grammar and converted exactly
to the declared unit of the symbol beside it, in which a bare number is read (L_M in ns: ``L_M <= 1000``); anything else
with a unit refused in one line saying how a bare number is read. It was a parse error ("invalid syntax at column 8") that
did not say so (an outside tester's finding, round 10, F8). Expected values by hand."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors
from symgpu.cli import assume_units
from tests.conftest import assert_one_line_refusal


@pytest.fixture(scope="module")
def streaming() -> symgpu.Model:
    return symgpu.load("kernel_streaming")  # L_M in ns


@pytest.mark.parametrize(("given", "read"), [
    ("L_M <= 1 us", "L_M <= 1000"),             # 1 us = 1000 ns
    ("L_M >= 0.3 us", "L_M >= 300"),            # the decimal given, exactly: not 299.99999999999994
    ("2.5e-7 s > L_M", "250 > L_M"),            # 2.5e-7 s = 250 ns, either side
    ("L_M < 1 ps", "L_M < (1/1000)"),           # 1 ps = 1/1000 ns
    ("L_M <= 200", "L_M <= 200"),               # a bare number: as it was
    ("L_M <= t_kernel", "L_M <= t_kernel"),     # no quantity: as it was
])
def test_a_quantity_beside_one_symbol_is_its_exact_number_in_the_declared_unit(streaming, given: str, read: str) -> None:
    assert assume_units.in_declared_units(streaming, [given]) == [read]


@pytest.mark.parametrize(("given", "words"), [
    ("L_M <= 1 GB/s", ("L_M", "ns", "[time]", "bare number")),
    ("2*L_M <= 1 us", ("one symbol", "bare number", "declared unit")),
    ("1 us <= 2 us", ("both sides",)),
])
def test_a_quantity_elsewhere_is_refused_saying_how_a_bare_number_is_read(streaming, given: str, words: tuple[str, ...]) -> None:
    with pytest.raises(errors.UsageError) as caught:
        assume_units.in_declared_units(streaming, [given])
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_the_command_line_answers_an_extremum_under_an_assumption_with_a_unit(cli) -> None:
    # Volkov's memory_latency at kepler (a = 300 cy, b = 32 cy, c = 170 GB/s), theta <= 0.15 TB/s = 150 GB/s:
    # increasing below the pole at c, so the maximum is 300 + 32*150/20 = 540 cy at 150 GB/s
    code, out, err = cli("--no-cache", "extremum", "volkov_2016", "memory_latency", "--over", "theta", "--max", "--preset", "kepler",
                         "--assume", "theta <= 0.15 TB/s")
    assert code == 0, err
    assert "value: 540 cycle at theta = 150 GB/s" in out


def test_the_command_line_refuses_a_quantity_of_another_dimension_in_one_line(cli) -> None:
    code, out, err = cli("--no-cache", "extremum", "volkov_2016", "memory_latency", "--over", "theta", "--max", "--preset", "kepler",
                         "--assume", "theta <= 1 us")
    assert_one_line_refusal(code, out, err, "theta", "GB/s", "bare number")
