"""A large Piecewise evaluated at one point through only the piece that applies there
(:mod:`symgpu.evaluate.piece_select`) gives the whole compiled Piecewise's value bit for bit:
the same first-true choice (ties and boundaries included) and the same IEEE arithmetic."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, units
from symgpu.evaluate import compiler, evaluator, input_values, piece_select


def bits(value) -> int:
    return int(np.asarray(value, dtype=float).view(np.int64))


@pytest.fixture(scope="module")
def occupancy():
    model = symgpu.load("occupancy")
    return model, derive.regimes(model, "active_blocks_per_SM").result


def whole_value(model, expr, unit, preset, values) -> float:
    """The value of the whole compiled Piecewise at the point (the path before narrowing)."""
    merged = input_values.merge_values(model, preset, values)
    names = sorted(s.name for s in expr.free_symbols)
    magnitudes = [np.asarray(input_values.base_magnitude(model, n, merged[n]), dtype=float) for n in names]
    function = compiler.compiled_expression(model, expr, names, units.unit(unit) if unit else units.registry().dimensionless)
    with np.errstate(all="ignore"):
        return float(np.asarray(function(*compiler.broadcast(magnitudes)), dtype=float))


@pytest.mark.parametrize("preset", ["cc_3_5", "cc_8_6"])
def test_occupancy_table_at_a_point_is_the_whole_tables_value(occupancy, preset):
    model, expr = occupancy
    assert isinstance(expr, sympy.Piecewise) and len(expr.args) >= piece_select.MIN_PIECES
    unit = model.unit_text("active_blocks_per_SM")
    # allocation granularities and limits (32 threads, 64/256 registers, 3072/3073 B) put points on the boundaries, where regimes tie
    for threads, regs, smem in itertools.product((32, 96, 256, 1024), (16, 32, 40, 64, 255), ("0 B/block", "3072 B/block", "3073 B/block", "48 KiB/block")):
        values = {"threads_per_block": threads, "regs_per_thread": regs, "smem_per_block": smem}
        narrow = evaluator.evaluate_expression(model, expr, unit, preset=preset, values=values).magnitude
        assert bits(narrow) == bits(whole_value(model, expr, unit, preset, values)), (preset, values)


def test_first_true_piece_is_chosen_at_ties_boundaries_and_nan():
    model = symgpu.load("occupancy")
    a, b = model.symbols["threads_per_block"], model.symbols["regs_per_thread"]
    pieces = [(a - b, a < b), (2 * a, sympy.Eq(a, b)), (a * b / 3, sympy.And(a <= 2 * b, b > 1)),
              (a / b, sympy.Or(sympy.Not(a > 5), b >= a)), (sympy.floor(a / 7), sympy.Ne(a, 3 * b))]
    pieces += [(a + k, a > k * b) for k in range(1, 14)]
    pieces += [(sympy.Integer(0), sympy.Eq(a, 0)), (b, sympy.true)]
    table = sympy.Piecewise(*pieces, evaluate=False)
    assert len(table.args) >= piece_select.MIN_PIECES
    whole = compiler.base_function(model, [a, b], table)
    grid = (0.0, 1.0, 2.0, 2.5, 3.0, 6.0, 1e300, -1.0, np.nan, np.inf)
    for x, y in itertools.product(grid, grid):
        inputs = [np.float64(x), np.float64(y)]
        narrow = piece_select.narrowed(table, [a, b], inputs)
        with np.errstate(all="ignore"):
            expected = float(np.asarray(whole(*inputs), dtype=float))
            if narrow is None:  # no condition holds: the whole gives NaN
                assert np.isnan(expected), (x, y)
                continue
            got = float(np.asarray(compiler.base_function(model, [a, b], narrow)(*inputs), dtype=float))
        assert bits(got) == bits(expected), (x, y, narrow)


def test_a_scaled_table_keeps_its_scale_factor():
    model = symgpu.load("occupancy")
    a = model.symbols["threads_per_block"]
    table = sympy.Piecewise(*[(a / (k + 1), a < k) for k in range(2, 2 + piece_select.MIN_PIECES)], (a, sympy.true), evaluate=False)
    scaled = sympy.Rational(1, 1000) * table
    inputs = [np.float64(7.3)]
    narrow = piece_select.narrowed(scaled, [a], inputs)
    assert narrow is not None
    got = compiler.base_function(model, [a], narrow)(*inputs)
    assert bits(got) == bits(compiler.base_function(model, [a], scaled)(*inputs))
    assert float(got) == pytest.approx(7.3 / 9 / 1000, rel=1e-15)  # the piece a/9 (first k with 7.3 < k is 8), scaled


def test_array_inputs_and_small_tables_are_not_narrowed():
    model = symgpu.load("occupancy")
    a = model.symbols["threads_per_block"]
    large = sympy.Piecewise(*[(a + k, a < k) for k in range(2, 2 + piece_select.MIN_PIECES)], (a, sympy.true), evaluate=False)
    small = sympy.Piecewise((a, a < 1), (2 * a, sympy.true))
    assert piece_select.narrowed(large, [a], [np.arange(3.0)]) is None
    assert piece_select.narrowed(small, [a], [np.float64(0.5)]) is None
    narrow = piece_select.narrowed(large, [a], [np.float64(2.5)])  # the first k with 2.5 < k is 3
    assert isinstance(narrow, sympy.Piecewise) and narrow.args[0].expr == a + 3 and narrow.args[0].cond is sympy.true


def test_tables_printed_another_way_are_not_narrowed():
    model = symgpu.load("occupancy")
    a, b = model.symbols["threads_per_block"], model.symbols["regs_per_thread"]
    rows = [(a + k, a < k) for k in range(2, 2 + piece_select.MIN_PIECES)]
    with_infinity = sympy.Piecewise(*rows, (sympy.oo, sympy.true), evaluate=False)
    piecewise_side = sympy.Piecewise(*rows, (a, sympy.Piecewise((a, b < 1), (b, True)) > 3), (b, sympy.true), evaluate=False)
    exclusive = sympy.Piecewise(*rows, (a, sympy.Xor(a > 3, b > 3)), (b, sympy.true), evaluate=False)
    for table in (with_infinity, piecewise_side, exclusive):
        assert piece_select.narrowed(table, [a, b], [np.float64(100.0), np.float64(2.0)]) is None
