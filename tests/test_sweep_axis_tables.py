"""numba's sweep loop reads the common subexpressions of the innermost axis alone from a table made once per box
(:mod:`symgpu.evaluate.axis_tables`): which subexpressions go there, and that the columns and regime codes are the
untabled loop's and the NumPy backend's to the bit, over whole grids and chunks that start mid-row."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu.evaluate import axis_tables
from symgpu.sweep import backends, run, sweep
from symgpu.sweep.plan import build_plan


def test_only_number_subexpressions_of_the_innermost_axis_alone_are_tabled_and_only_those_read_are_passed() -> None:
    a, b, c = sympy.symbols("a b c")  # a, b swept (b innermost), c fixed
    inner = (b + c) ** 2  # b alone: tabled, read by the rest
    outer = (a + c) ** 3  # a alone: per point (the loop's own invariant)
    both = a * inner  # a and b: per point
    expr = sympy.Tuple(both + outer, outer * inner + both, sympy.Piecewise((1.0, inner > c), (0.0, True)),
                       sympy.Piecewise((1.0, inner > c), (2.0, True)))
    made = axis_tables.split(expr, [a, b])
    replacements, reduced = sympy.cse(expr, list=False)  # as lambdify takes them
    assert made.reduced == reduced
    by_value = {value: symbol for symbol, value in replacements}
    assert made.frontier == (by_value[inner],)
    assert by_value[outer] in {s for s, _ in made.point_body}
    # the condition inner > c reads b alone but is a truth value: computed per point, from the tabled number
    tabled = {s for s, _ in made.table_body}
    assert all(isinstance(v, sympy.Expr) for _, v in made.table_body) and by_value[outer] not in tabled
    assert not tabled & {s for s, _ in made.point_body}
    # every subexpression is computed once, in the table or per point, as written
    assert {(s, v) for s, v in made.table_body} | set(made.point_body) == set(replacements)
    assert axis_tables.split(expr, [b, a]).frontier == (by_value[outer],)  # a innermost: its own subexpression
    assert axis_tables.split(expr, [a, b, c]).frontier == ()  # c innermost: nothing of c alone is repeated


def _numba():  # type: ignore[no-untyped-def]
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")


@pytest.mark.parametrize("regime_of", ["", None])
def test_hong_kim_numba_sweep_reads_tables_and_gives_the_numpy_backends_bits_in_every_chunking(regime_of: str | None) -> None:
    _numba()
    model = symgpu.load("hong_kim_2009")
    # Mem_LD fractional near MWP's switches, so that some rows hold points near a tie (computed again by the rule)
    grid = ["Active_blocks_per_SM=1:8", "Comp_insts=1:40", "Mem_LD=100,150.5,200,255,300.25,419.9999999999,420,800"]
    plan = build_plan(model, ["Exec_cycles_app"], preset="table2_example", grid=grid, regime_of=regime_of)
    function = run.compile_plan(plan, backends.load("numba"))
    assert isinstance(function, axis_tables.Tabled) and function.count >= 2  # MWP's memory latency and its bounds
    want = sweep(model, "Exec_cycles_app", grid=grid, preset="table2_example", regime_of=regime_of, backend="numpy")
    column = np.asarray(want.columns["Exec_cycles_app"])
    for chunk in (plan.grid.size, 13, 3):
        got = list(run.iter_chunks(plan, "numba", chunk))
        values = np.concatenate([np.asarray(c.columns["Exec_cycles_app"]) for c in got])
        assert np.array_equal(values.view(np.int64), column.view(np.int64)), chunk
        if regime_of is None:
            assert want.regime is not None
            assert np.array_equal(np.concatenate([c.regime for c in got if c.regime is not None]), want.regime), chunk
    whole = sweep(model, "Exec_cycles_app", grid=grid, preset="table2_example", regime_of=regime_of, backend="numba")
    assert np.array_equal(np.asarray(whole.columns["Exec_cycles_app"]).view(np.int64), column.view(np.int64))


def test_whole_parts_truth_values_and_bare_integers_stay_out_of_the_table_of_floats() -> None:
    a, b, c = sympy.symbols("a b c")  # b innermost
    whole = sympy.floor(b / c)  # an integer in numba
    flag = sympy.Piecewise((1, b > c), (0, True))  # bare integers
    number = sympy.exp(b) + c  # a float
    expr = sympy.Tuple(a * whole + whole, a * flag + flag, a * number + number)
    made = axis_tables.split(expr, [a, b])
    replacements, _ = sympy.cse(expr, list=False)
    by_value = {value: symbol for symbol, value in replacements}
    assert by_value[number] in made.frontier
    assert by_value[whole] not in made.frontier and by_value[flag] not in made.frontier


def test_volkov_min_near_ties_settled_from_a_tabled_function_give_the_numpy_backends_codes() -> None:
    # the latency bound n/(mem_lat + alpha*alu_lat) within 1e-13 and 3e-9 relative of mem_thru at alpha = 0: the loop
    # leaves those points to its second pass, which computes a point's table entry for it
    _numba()
    model = symgpu.load("volkov_2016")
    values = model.preset("maxwell")
    tie = values["mem_thru"].to("winst/cycle/SM").magnitude * values["mem_lat"].to("cycle").magnitude
    grid = ["n=" + ",".join(repr(tie * (1 + f)) for f in (0.0, 1e-13, -1e-13, 3e-9, -3e-9)), "alpha=0,1,2,0.5"]
    plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=grid)
    assert isinstance(run.compile_plan(plan, backends.load("numba")), axis_tables.Tabled)
    got, want = (sweep(model, "memory_throughput", grid=grid, preset="maxwell", backend=b) for b in ("numba", "numpy"))
    assert got.regime is not None and want.regime is not None and np.array_equal(got.regime, want.regime)
    assert len(set(want.regime.tolist())) > 1  # both sides of the tie
    column, expected = np.asarray(got.columns["memory_throughput"]), np.asarray(want.columns["memory_throughput"])
    assert np.array_equal(column.view(np.int64), expected.view(np.int64))
