"""Bare numbers in equations whose symbols are declared in scaled units (ns, us, GB/s, KiB) mean one unit or
are refused, never a silent other one (outside tester 11b, F14, F6, F2, F16).

F14: a right side of bare numbers only (``lat = 200``, a case table of numbers, ``Max(5, 7)``) was read in SI
base units (200 s for a latency in ns) and ``check`` passed it: it is in the defined quantity's declared unit
(equations/README.md, "Units"). F6: a literal beside a Min/Max or product whose own terms differ in scale was
given one of their units silently: it is refused as the flat sum is. F2: a decimal literal beside a scaled
symbol crashed every command. F16: a refusal of an expansion named neither the file nor the equation.
Every expected value is worked by hand from the inline model files.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

import symgpu
from conftest import assert_one_line_refusal, toy_header

Cli = Callable[..., tuple[int, str, str]]
SRC = 'source = { ref = "toy2026", locator = "1" }'


def symbol(name: str, unit: str, role: str = "input") -> str:
    extra = '\nassumptions = ["positive"]' if role == "input" else ""
    return f'\n[symbols.{name}]\ndescription = "{name}"\nunit = "{unit}"\nrole = "{role}"{extra}\n'


def equation(eq_id: str, defines: str, body: str) -> str:
    return f'\n[[equations]]\nid = "{eq_id}"\ndefines = "{defines}"\n{body}\n{SRC}\n'


def value_line(out: str) -> str:
    return next(line.strip() for line in out.splitlines() if line.strip().startswith("value:"))


#: the tester's m10_levels: a load latency stepping with the working set, and Little's law
LEVELS = (toy_header("levels", "t", "t") + symbol("ws", "KiB") + symbol("inflight", "KiB") + symbol("lat", "ns", "intermediate")
          + symbol("bw", "GB/s", "output")
          + equation("lat_eq", "lat", 'cases = [\n { id = "l1", when = "ws <= 192", value = "30" },\n'
                     ' { id = "l2", when = "ws <= 40960", value = "200" },\n { id = "dram", when = "otherwise", value = "450" },\n]')
          + equation("bw_eq", "bw", 'rhs = "inflight/lat"')
          + '\n[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\n'
          + '[presets.p.values]\ninflight = "64 KiB"\nws = "1 MiB"\n')


def test_a_case_table_of_numbers_is_in_the_defined_latency_s_unit(cli: Cli, write_model: Callable[..., Path]) -> None:
    path = write_model(LEVELS, name="levels")
    code, out, err = cli("eval", path, "lat", "-p", "p")  # ws = 1 MiB = 1024 KiB: case l2, 200 ns (it said 2e+11 ns)
    assert code == 0, err
    assert out.strip() == "lat = 200 ns"
    bw = Fraction(64 * 1024) / Fraction(200, 10**9) / 10**9  # 65536 B / 200 ns, in GB/s
    assert bw == Fraction(32768, 100)
    code, out, err = cli("eval", path, "bw", "-p", "p")
    assert code == 0, err
    assert out.strip() == "bw = 327.68 GB/s"
    inflight = Fraction(100 * 10**9) * Fraction(200, 10**9) / 1024  # 100 GB/s x 200 ns, in KiB
    code, out, err = cli("solve", path, "bw", "--for", "inflight", "--target", "100 GB/s", "-p", "p")
    assert code == 0, err
    assert value_line(out) == f"value: {float(inflight)} (l2) [KiB]  (preset p)"
    code, out, err = cli("regimes", path, "lat", "-p", "p", "--set", "ws=100")  # 100 KiB <= 192 KiB: l1, 30 ns
    assert code == 0, err
    assert "active: l1" in out and "has dimension 1" not in out + err


@pytest.mark.parametrize(("unit", "body", "n", "expected"), [
    ("us", 'rhs = "5"', 40, Fraction(5)),                                       # was 5000000 us
    ("us", 'cases = [ { id = "a", when = "n > 32", value = "5" }, { id = "b", when = "otherwise", value = "7" } ]', 4, Fraction(7)),
    ("us", 'rhs = "Piecewise((5, n > 32), (7, True))"', 40, Fraction(5)),
    ("GB/s", 'rhs = "Max(5, 7)"', 40, Fraction(7)),                             # was 7e-09 GB/s
    ("ns", 'rhs = "1/4 + Min(3, 2)"', 40, Fraction(9, 4)),
    ("cycle", 'rhs = "Piecewise((5, n > 32), (7, True))"', 4, Fraction(7)),    # a unit of scale 1: as before
])
def test_a_right_side_of_numbers_only_is_in_the_defined_unit(write_model: Callable[..., Path], unit: str, body: str,
                                                             n: int, expected: Fraction) -> None:
    model = symgpu.load(write_model(toy_header("only", "t", "t") + symbol("n", "warp") + symbol("y", unit, "output")
                                    + equation("e", "y", body), name="only"))
    y = model.evaluate("y", n=n)
    assert y.units == symgpu.units.unit(unit)
    assert Fraction(y.magnitude).limit_denominator(10**6) == expected


@pytest.mark.parametrize(("rhs", "literal", "sibling"), [
    ("(c + L)*2 - 5", "5", "'(c + L)*2' in us and ns"),   # it took 5 us silently
    ("Max(c, L) - 100", "100", "in "),                     # it took 100 ns silently
    ("Min(c, L) + 1", "1", "in "),
    ("c + L - 300", "300", "'c' in us, 'L' in ns"),        # refused before too
])
def test_a_literal_beside_terms_of_two_scales_is_refused_naming_the_equation(cli: Cli, write_model: Callable[..., Path],
                                                                              rhs: str, literal: str, sibling: str) -> None:
    path = write_model(toy_header("mixed", "t", "t") + symbol("c", "us") + symbol("L", "ns") + symbol("y", "ns", "output")
                       + equation("e_mixed", "y", f'rhs = "{rhs}"'), name="mixed")
    code, out, err = cli("eval", path, "y", "--set", "c=1", "--set", "L=500")
    assert_one_line_refusal(code, out, err, str(path), "equation e_mixed", f"the bare literal {literal} in", "different scale",
                            sibling, f'k = "{literal} us"', f'k = "{literal} ns"')


def test_a_literal_beside_a_min_of_one_scale_keeps_that_scale(write_model: Callable[..., Path]) -> None:
    # Min(c, d) + 1 with c and d in us: 1 us; at c = 1 us, d = 3 us: 2 us (determined: no refusal)
    model = symgpu.load(write_model(toy_header("one", "t", "t") + symbol("c", "us") + symbol("d", "us") + symbol("y", "us", "output")
                                    + equation("e", "y", 'rhs = "Min(c, d) + 1"'), name="one"))
    assert model.evaluate("y", c=1, d=3).magnitude == pytest.approx(2.0, rel=1e-15)


@pytest.mark.parametrize(("unit", "rhs", "x", "expected", "constant"), [
    ("us", "x + 0.5", 2, Fraction(5, 2), "lit_0p5_us"),
    ("us", "Min(x, 0.5)", 2, Fraction(1, 2), "lit_0p5_us"),
    ("us", "x + 1.5", 2, Fraction(7, 2), "lit_1p5_us"),
    ("ns", "x + 0.25", 2, Fraction(9, 4), "lit_0p25_ns"),
])
def test_a_decimal_literal_beside_a_scaled_symbol_is_a_constant_of_that_unit(cli: Cli, write_model: Callable[..., Path], unit: str,
                                                                             rhs: str, x: int, expected: Fraction, constant: str) -> None:
    path = write_model(toy_header("dec", "t", "t") + symbol("x", unit) + symbol("y", unit, "output") + equation("e", "y", f'rhs = "{rhs}"'), name="dec")
    code, out, err = cli("check", path)  # it crashed: TypeError: cannot determine truth value of Relational
    assert code == 0, err
    model = symgpu.load(path)
    assert constant in model.symbols
    y = model.evaluate("y", x=x)
    assert y.units == symgpu.units.unit(unit) and Fraction(y.magnitude).limit_denominator(10**6) == expected


#: the tester's m7_kc: X = A + B with A in kcycle and B in cycle, Y = X + 1, Z = Max(Y, 2000)
KILO = (toy_header("kc", "t", "t") + symbol("A", "kcycle") + symbol("B", "cycle") + symbol("X", "cycle", "intermediate")
        + symbol("Y", "cycle", "intermediate") + symbol("Z", "cycle", "output")
        + equation("ex", "X", 'rhs = "A + B"') + equation("ey", "Y", 'rhs = "X + 1"') + equation("ez", "Z", 'rhs = "Max(Y, 2000)"')
        + '\n[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\n[presets.p.values]\nA = "2 kcycle"\nB = "5 cycle"\n')


def test_a_literal_an_expansion_puts_beside_kilocycles_keeps_the_cycle_its_equation_writes(cli: Cli, write_model: Callable[..., Path]) -> None:
    """Y = X + 1 writes the 1 beside X in cycle; expanded, Y is A + B + 1 with A in kcycle. It was refused there (which
    of the two scales?); the 1 is now a constant of the model in cycle (the model's units give cycles two scales), so the
    expansion, a solve and an array evaluation read it as its equation does."""
    path = write_model(KILO, name="kc")
    code, out, err = cli("solve", path, "Z", "--for", "B", "--target", "2500", "-p", "p")
    assert code == 0, err
    assert value_line(out) == f"value: {2500 - 2000 - 1} cycle  (preset p)"  # by hand: Z = Max(A + B + 1, 2000) = 2500, A = 2 kcycle
    assert list(symgpu.load(path).evaluate("Z", "p", values={"A": [1, 2]}).magnitude) == [2000, 2006]  # Max(1000 + 5 + 1, 2000), 2006
    # one equation at a time the 1 is one cycle, beside X: Y = 2000 + 5 + 1 cycles
    assert symgpu.load(path).evaluate("Y", "p").magnitude == 2006


def test_a_solve_s_formula_is_printed_in_the_unit_its_bare_numbers_are_in(cli: Cli, write_model: Callable[..., Path]) -> None:
    """F16: solving Y = A + B + 1 = 2500 cycles for A (declared in kcycle) gives 2499 - B, whose 2499 sits beside B: 2499
    cycles. It was printed ``2499 - B [kcycle]`` (a formula 1000 times too large read so); it is printed in cycle, and its
    value given in cycle too. Checked by brute force: the printed formula read in the printed unit, put back into the model
    (A in its declared kcycle), gives the target at every B tried."""
    path = write_model(KILO, name="kc")
    code, out, err = cli("solve", path, "Y", "--for", "A", "--target", "2500", "-p", "p")
    assert code == 0, err
    # the 1 its equation writes in cycle, a constant of the model (lit_1_cy, below), printed as its number and unit
    assert "result: -B - 1 cy + 2500  [cycle]" in out, out
    assert value_line(out) == f"value: {2500 - 5 - 1} cycle  (preset p)"  # 2500 - B - 1 cycles at B = 5 cycles
    model = symgpu.load(path)
    derivation = model.solve("Y", "A", target=2500)
    assert derivation.unit == "cycle" and str(derivation.result) == "-B - lit_1_cy + 2500"
    assert model.constants["lit_1_cy"] == symgpu.units.quantity("1 cycle")
    per_kcycle = 1000  # cycles in one kcycle
    for b in (1, 5, 40, 999, 2000):
        formula = 2500 - Fraction(b) - 1  # the printed formula at B = b, in the printed unit (lit_1_cy: 1 cycle)
        a_in_kcycle = formula / Fraction(per_kcycle)
        assert model.evaluate("Y", values={"A": float(a_in_kcycle), "B": b}).magnitude == pytest.approx(2500, rel=1e-12)
    code, out, err = cli("solve", path, "Y", "--for", "A", "--target", "2500", "-p", "p", "--unit", "kcycle")
    assert code == 0, err
    assert value_line(out) == "value: 2.494 kcy  (preset p)"
