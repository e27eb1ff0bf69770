"""evaluate.point.exact_base_values: the values at a point as exact numbers in base units, the one
step an exact evaluation at a point (derive's limits at a preset) puts them in with."""

from __future__ import annotations

import sympy

import symgpu
from symgpu.evaluate import point


def test_values_come_in_as_exact_numbers_in_base_units_the_callers_over_the_presets(write_model) -> None:
    model = symgpu.load(write_model())
    peak, bandwidth, intensity = (model.symbols[n] for n in ("P_peak", "B", "I"))
    found = point.exact_base_values(model, [peak, bandwidth, intensity], "toy", {"B": "1.5 GB/s", "I": 0.3})
    # toy: 100 TFLOP/s = 10**14 FLOP/s; the caller's 1.5 GB/s = 1.5e9 B/s replaces the preset's 2 TB/s; 0.3 FLOP/B = 3/10
    assert found == {peak: sympy.Integer(10**14), bandwidth: sympy.Integer(1_500_000_000), intensity: sympy.Rational(3, 10)}
    assert all(isinstance(v, sympy.Rational) for v in found.values())


def test_a_symbol_without_a_value_at_the_point_gives_none(write_model) -> None:
    model = symgpu.load(write_model())
    assert point.exact_base_values(model, [model.symbols["I"]], "toy", {}) is None
    assert point.exact_base_values(model, [], None, {}) == {}
