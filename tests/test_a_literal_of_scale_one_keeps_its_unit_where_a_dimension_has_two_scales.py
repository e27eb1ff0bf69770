"""A bare literal read beside terms of scale 1 (cycle, B) keeps that unit wherever a derivation or an expansion moves it:
made a constant of the model where the model's units give its dimension two scales (kcycle beside cycle), left bare where
they give each dimension one (every term of its dimension then has scale 1), and a request's number in a unit that would
give a dimension a second scale given in one that keeps one. Every expected value worked out by hand."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import derive
from symgpu.units import literal_units, quantities
from conftest import toy_header


def _model(write_model: Callable[..., Path], name: str, symbols: dict[str, str], equations: dict[str, str], values: str) -> symgpu.Model:
    """A model of ``symbols`` (name -> unit; the defined ones intermediate) and ``equations`` (name -> right-hand side)."""
    text = toy_header(name, name, "a literal's unit")
    for symbol, unit in symbols.items():
        role = 'role = "intermediate"' if symbol in equations else 'assumptions = ["positive"]'
        text += f'\n[symbols.{symbol}]\ndescription = "{symbol}"\nunit = "{unit}"\n{role}\n'
    for symbol, rhs in equations.items():
        text += f'\n[[equations]]\nid = "eq_{symbol}"\ndefines = "{symbol}"\nrhs = "{rhs}"\nsource = {{ ref = "toy2026", locator = "1" }}\n'
    text += '\n[presets.p0]\ndescription = "values"\nsource = { ref = "toy2026", locator = "p0" }\n[presets.p0.values]\n' + values
    return symgpu.load(write_model(text, name=name))


@pytest.mark.parametrize(("units", "one_scale"), [
    (("kcycle", "cycle"), False),       # kcycle/cycle: a pure number of scale 1000
    (("GB", "B", "MHz"), False),        # GB/B
    (("ns", "GB/s", "B"), True),        # ns*GB/s is B: scale 1e-9 * 1e9
    (("cycle", "B", "warp/SM"), True),  # base units only
    (("percent",), False),              # a pure number of scale 0.01
    (("kB**0.5", "B"), False),          # (kB**0.5)**2/B: 1000
    (("B**0.5", "B"), True),
])
def test_a_models_units_give_each_dimension_one_scale_unless_a_product_of_them_is_a_scaled_pure_number(units: tuple[str, ...],
                                                                                                       one_scale: bool) -> None:
    assert literal_units.scale_follows_dimension([quantities.registry().Unit(u) for u in units]) is one_scale


def test_a_number_in_a_unit_that_would_give_a_dimension_a_second_scale_is_given_in_one_that_keeps_one() -> None:
    unit = quantities.registry().Unit
    model = [unit("ns"), unit("GB/s"), unit("B")]
    assert literal_units.consistent_unit(unit("us"), model) == unit("ns")  # a unit of the model of that dimension
    assert literal_units.consistent_unit(unit("ns"), model) == unit("ns")
    assert literal_units.consistent_unit(unit("kB"), model) == unit("B")
    # no unit of the model in cycles: GHz*ns is one (1e9 cycle/s * 1e-9 s), where kcycle would be a second scale
    assert literal_units.consistent_unit(unit("kcycle"), [unit("ns"), unit("GHz")]) == unit("GHz") * unit("ns")
    assert literal_units.consistent_unit(unit("cycle"), [unit("ns"), unit("GHz")]) == unit("cycle")


def test_a_number_a_defining_equation_gives_in_cycles_stays_cycles_beside_kilocycles(write_model: Callable[..., Path]) -> None:
    model = _model(write_model, "defined_lat", {"lat": "cycle", "c": "kcycle", "q": "kcycle"}, {"lat": "200", "q": "lat + c"},
                   'c = "1 kcycle"\n')
    assert [c.name for c in model.literal_constants] == ["lit_200_cy"]
    assert math.isclose(float(model.evaluate("q", "p0").magnitude), 1.2)  # by hand: 200 cycle + 1 kcycle = 1.2 kcycle
    together = model.evaluate("q", "p0", values={"c": np.array([1.0, 3.0])}).magnitude  # the expanded expression: 200 + c
    assert np.allclose(together, [1.2, 3.2], rtol=1e-12)


def test_a_literal_beside_terms_of_scale_one_stays_bare_where_every_dimension_has_one_scale(write_model: Callable[..., Path]) -> None:
    # ns, GB/s and B: L*B is in B at scale 1, so the 5 is 5 B beside any term of bytes a derivation can build
    model = _model(write_model, "one_scale", {"L": "ns", "B": "GB/s", "k": "1", "q": "B"}, {"q": "k*L*B - 5"},
                   'L = "330 ns"\nB = "1 GB/s"\nk = "2"\n')
    assert model.literal_constants == () and str(model.equations["eq_q"].rhs) == "B*L*k - 5"
    assert math.isclose(float(model.evaluate("q", "p0").magnitude), 655.0)  # by hand: 2 * 330 ns * 1 GB/s - 5 B


def test_a_substitute_in_another_unit_of_the_symbols_dimension_keeps_a_bare_literal_beside_it_in_its_unit(
        write_model: Callable[..., Path]) -> None:
    """0.33 us for L (in ns) had been made a constant in us: the 5 beside L*B (B) then sat beside lit_0p33_us*B, in kB, and
    the limit's answer was refused by its certificate (-4670 for 325). The number is now given in ns."""
    model = _model(write_model, "foreign_unit", {"L": "ns", "B": "GB/s", "k": "1", "q": "B"}, {"q": "k*L*B - 5"},
                   'L = "330 ns"\nB = "1 GB/s"\nk = "2"\n')
    for given in ("330 ns", "0.33 us"):
        d = model.limit("q", "k", "1", preset="p0", substitute={"L": given})
        assert str(d.result) == "B*lit_330_ns - 5"
        assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), 325.0)  # by hand: 330 ns * 1 GB/s - 5 B
