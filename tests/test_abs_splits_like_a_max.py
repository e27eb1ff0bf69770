"""``Abs(u)`` of the variable is split as ``Max(u, -u)``: by the sign of ``u`` (an outside tester's finding F15:
``dev = Abs(L - 300) + Max(0, 100 - L)`` was refused for ``dev <= 100 ns`` with "no inversion rule for
Abs(L/1000000000 - 3/10000000) <= 1/10000000", internal SI numbers, and its minimum, a cusp, had "no closed form")."""

from __future__ import annotations

import sympy

import symgpu
from tests.conftest import toy_header

_MODEL = toy_header("absm", "abs", "deviation from 300 ns") + '''
[symbols.L]
description = "latency"
unit = "ns"
assumptions = ["positive"]
[symbols.c]
description = "centre"
unit = "us"
assumptions = ["positive"]
[symbols.dev]
description = "deviation from 300 ns"
unit = "ns"
role = "output"
[symbols.pure]
description = "twice the distance from c"
unit = "ns"
role = "output"
[symbols.odd]
description = "a distance and an exponential"
unit = "ns"
role = "output"
[[equations]]
id = "d"
defines = "dev"
rhs = "Abs(L - 300) + Max(0, 100 - L)"
source = { ref = "toy2026", locator = "1" }
[[equations]]
id = "p"
defines = "pure"
rhs = "2*Abs(L - c)"
source = { ref = "toy2026", locator = "2" }
[[equations]]
id = "o"
defines = "odd"
rhs = "Abs(L - 300) + c*exp(L/c)"
source = { ref = "toy2026", locator = "3" }
[presets.p]
description = "p"
source = { ref = "toy2026", locator = "p" }
[presets.p.values]
c = "0.3 us"
'''

L = sympy.Symbol("L", real=True)


def _dev(x: int) -> int:
    """dev by hand, in ns, at an integer L in ns."""
    return abs(x - 300) + max(0, 100 - x)


def _set_of(derivation: symgpu.Derivation) -> sympy.Basic:
    where = derivation.extra.holds_for
    assert where is not None
    return where.xreplace({s: L for s in where.free_symbols if s.name == "L"})


def test_an_abs_inequality_at_a_point_gives_the_set_where_it_holds(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    path = write_model(_MODEL, name="absm")
    model = symgpu.load(path)
    # by hand: for L >= 100, |L - 300| <= 100 is 200 <= L <= 400; below 100, 400 - 2L <= 100 needs L >= 150: none
    within = _set_of(model.solve("dev", "L", target="100 ns", relation="<=", preset="p"))
    assert within.as_set() == sympy.Interval(200, 400)
    # by hand: |L - 300| >= 250 is L <= 50 or L >= 550; below 100, 400 - 2L >= 250 is L <= 75
    beyond = _set_of(model.solve("dev", "L", target="250 ns", relation=">=", preset="p"))
    for x in range(1, 1000):  # the hand sets against Model.evaluate at every whole ns, and the answer against both
        value = model.evaluate("dev", "p", values={"L": x}).to("ns").magnitude
        assert abs(value - _dev(x)) <= 1e-12 * _dev(x)  # the hand formula is the model's (to rounding)
        assert bool(within.xreplace({L: x})) == (_dev(x) <= 100) == (200 <= x <= 400)
        assert bool(beyond.xreplace({L: x})) == (_dev(x) >= 250) == (x <= 75 or x >= 550)
    code, out, err = cli("solve", path, "dev", "--for", "L", "--target", "100 ns", "--relation", "<=", "-p", "p")
    assert code == 0 and "checked numerically" in out, err


def test_an_abs_of_the_variable_and_an_input_is_split_at_the_inputs_value(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(_MODEL, name="absm"))
    # by hand: 2|L - 300| < 100 (c = 0.3 us = 300 ns) is 250 < L < 350
    assert _set_of(model.solve("pure", "L", target="100 ns", relation="<", preset="p")).as_set() == sympy.Interval.open(250, 350)


def test_a_quantity_of_the_variable_and_constants_alone_needs_no_point(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", write_model(_MODEL, name="absm"), "dev", "--for", "L", "--target", "250 ns", "--relation", ">=")
    assert code == 0, err
    assert "(550 <= L) | (L <= 75)" in out


def test_a_refusal_at_a_point_shows_the_relation_in_the_quantitys_unit(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", write_model(_MODEL, name="absm"), "odd", "--for", "L", "--target", "1000 ns", "--relation", "<", "-p", "p")
    assert code != 0 and out == ""
    assert "300*exp(L/300)" in err and "1000000000" not in err and "Abs" not in err


def test_the_minimum_of_an_abs_is_its_cusp(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(_MODEL, name="absm"))
    found = model.extremum("dev", "L", "min", preset="p")
    # by hand: dev >= 0, and dev(300) = 0; brute force: no whole ns below it
    assert min(_dev(x) for x in range(1, 2000)) == 0 == _dev(300)
    assert found.extra.value_at is not None and found.extra.location_at is not None
    assert abs(float(found.extra.value_at)) <= 1e-12 and abs(float(found.extra.location_at) - 300) <= 1e-9
