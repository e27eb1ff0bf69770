"""A quantity's exact value at a point (:func:`symgpu.evaluate.evaluator.exact`) computed in ``Fraction`` arithmetic where
every part of its formula is rational arithmetic: the number SymPy's substitution gives, without building it node by node
(issue 31: the comparison report's near-tie points, each decided exactly, were 60 % of its CPU time). A formula that
divides by an input at 0 is still SymPy's, with its one-sided limit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

import symgpu
from symgpu import memo
from symgpu.compare import prior_study
from symgpu.evaluate import evaluator, point, scaling

SYMPY_VALUES = "evaluate.one_sided.sympy_values"


def test_volkov_throughput_at_a_point_is_its_hand_value_without_sympy_substitution() -> None:
    # fermi: mem_thru = 0.0599, alu_thru = issue_thru = 1, alu_lat = 18, mem_lat = 513 (cycles), simd_width = 32;
    # at alpha = 3.5, n = 12.25 the latency bound n/(alpha*alu_lat + mem_lat) = 12.25/576 = 49/2304 is the least of
    # 0.0599, 1/3.5, 1/4.5 and it: alpha*simd_width*49/2304 = 7/2*32*49/2304 = 343/144
    model = symgpu.load("volkov_2016")
    before = memo.tallies()[SYMPY_VALUES]
    value = evaluator.exact(model, "arithmetic_throughput", preset="fermi", values={"alpha": 3.5, "n": 12.25})
    assert value == sympy.Rational(343, 144) == Fraction(7, 2) * 32 * Fraction(49, 2304)
    assert memo.tallies()[SYMPY_VALUES] == before


def test_exact_values_are_sympys_substitution_at_many_points() -> None:
    model = symgpu.load("volkov_2016")
    expr = model.expression("arithmetic_throughput")
    based = scaling.base_expression(model, expr) / scaling.unit_scale(model.units["arithmetic_throughput"])
    for preset in ("g80", "kepler"):
        for alpha in (0.5, 1.0, 2.0 ** 3.5, 64.0):
            for n in (0.25, 3.0, 17.75, 48.0):
                values = {"alpha": alpha, "n": n}
                mapping = point.exact_base_values(model, based.free_symbols, preset, values)
                assert mapping is not None
                assert evaluator.exact(model, "arithmetic_throughput", preset=preset, values=values) == based.xreplace(mapping)


def test_a_division_by_an_input_at_zero_is_left_to_sympys_one_sided_limit() -> None:
    # alpha = 0: alu_thru/alpha has no rational value; its limit from above is +oo inside the Min, so the
    # throughput alpha*simd_width*Min(...) is 0*32*0.0599 = 0 (the memory-only workload does no arithmetic)
    model = symgpu.load("volkov_2016")
    before = memo.tallies()[SYMPY_VALUES]
    assert evaluator.exact(model, "arithmetic_throughput", preset="fermi", values={"alpha": 0.0, "n": 12.25}) == 0
    assert memo.tallies()[SYMPY_VALUES] == before + 1


def test_needed_occupancy_decides_its_near_ties_without_sympy_substitution() -> None:
    # prior_hong_kim on g80 has points within rounding of a case tie over alpha x n; each is settled
    # exactly, in Fractions, and the needed occupancy is the first n whose throughput reaches 90 % of the row's peak,
    # (93 near ties here), checked against a brute-force scan of Model.evaluate at each point
    model = symgpu.load("prior_hong_kim")
    alphas = prior_study.ALPHAS[::6]
    n_top = 2 * float(model.presets["g80"]["n_max"].magnitude)
    before = memo.tallies()[SYMPY_VALUES]
    needed = prior_study.needed_occupancy(model, "g80", alphas, n_top)
    assert memo.tallies()[SYMPY_VALUES] == before
    n = np.arange(0.25, n_top + 0.125, 0.25)
    for alpha, found in zip(alphas, needed):
        row = []
        for k in n:
            try:
                row.append(float(model.evaluate(prior_study.QUANTITY, preset="g80", alpha=alpha, n=float(k)).magnitude))
            except symgpu.errors.SymgpuError:
                row.append(-np.inf)
        peak = max(row)
        assert found == next(k for k, v in zip(n, row) if v >= 0.9 * peak)


def test_a_points_exact_inputs_are_the_presets_unless_the_caller_gives_one() -> None:
    # the preset's exact numbers are made once per model and preset; a caller's value still wins, and does not stay:
    # fermi's clock 1.4 GHz is 1400000000 Hz exactly, mem_lat 513 cycles; then mem_lat = 500.5 given, then the preset's again
    model = symgpu.load("volkov_2016")
    clock, mem_lat = model.symbols["clock"], model.symbols["mem_lat"]
    assert point.exact_base_values(model, [clock, mem_lat], "fermi", {}) == {clock: 1400000000, mem_lat: 513}
    given = point.exact_base_values(model, [clock, mem_lat], "fermi", {"mem_lat": 500.5})
    assert given == {clock: 1400000000, mem_lat: sympy.Rational(1001, 2)}
    assert point.exact_base_values(model, [mem_lat], "kepler", {}) == {mem_lat: sympy.Integer(model.presets["kepler"]["mem_lat"].magnitude)}
    assert point.exact_base_values(model, [clock, mem_lat], "fermi", {}) == {clock: 1400000000, mem_lat: 513}
