"""A grid program whose value's last Min/Max step is left to the caller (gridcode ``defer``: the
regime row computed in the value's column, the extreme taken after the regime is decided) gives
the same bits as the compiled grid function, and the sweep built on it the same values and regime
codes as evaluate.active's rule, in single-box chunks and in chunks of several boxes."""

from __future__ import annotations

import numpy as np
import pytest

import grid_programs
import symgpu
from symgpu.evaluate import active, compiler, gridcode
from symgpu.sweep import backends, build_plan, sweep
from symgpu.sweep.run import compile_plan, evaluate_chunk


def _volkov_rows(model: symgpu.Model, n: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """memory_throughput and its four arguments (precedence order), written from the model file."""
    values = model.preset("maxwell")
    mem_lat, alu_lat = (values[k].to("cycle").magnitude for k in ("mem_lat", "alu_lat"))
    mem_thru, alu_thru, issue_thru = (values[k].to("winst/cycle/SM").magnitude for k in ("mem_thru", "alu_thru", "issue_thru"))
    with np.errstate(divide="ignore"):
        rows = [n / (alpha * alu_lat + mem_lat), np.full(n.shape, mem_thru), alu_thru / alpha, issue_thru / (alpha + 1.0)]
    return np.minimum(np.minimum(np.minimum(mem_thru, rows[2]), rows[3]), rows[0]), rows


@pytest.mark.parametrize(("model_id", "quantity", "preset", "grid"), [
    ("volkov_2016", "memory_throughput", "maxwell", ["n=1:40", "alpha=0:30"]),
    ("volkov_2016", "memory_throughput", "maxwell", ["alpha=0:30", "n=1:40"]),
])
def test_deferred_program_after_finish_is_the_compiled_function_bit_for_bit(model_id: str, quantity: str, preset: str,
                                                                            grid: list[str]) -> None:
    model = symgpu.load(model_id)
    plan = build_plan(model, [quantity], preset=preset, grid=grid)
    names, constants = plan.grid.names, [k for k, _ in plan.fixed]
    plain = compiler.fused_function(model, plan.exprs, names, constants, plan.out_units)
    program = compiler.grid_program(model, plan.exprs, names, constants, plan.out_units, 1, defer=True)
    assert program is not None and program.deferred  # the value's last step is a minimum with a regime row
    coords, shape, fixed = grid_programs.axes_and_values(plan)
    targets = [np.empty(shape)]
    with np.errstate(all="ignore"):
        want = plain(*coords, *fixed)
        got = grid_programs.run_program(program, coords, fixed, shape, targets)
        # before finish, the deferred output's column holds the regime row (output 1)
        assert got[0] is targets[0]
        assert np.array_equal(np.broadcast_to(want[1], shape), targets[0])
        for index in range(1, len(want)):
            assert np.array_equal(np.broadcast_to(want[index], shape), np.broadcast_to(got[index], shape), equal_nan=True)
        gridcode.finish(program, got, targets)
    assert np.array_equal(np.broadcast_to(want[0], shape), targets[0], equal_nan=True)


def test_not_deferred_where_not_asked_or_without_a_regime() -> None:
    model = symgpu.load("volkov_2016")
    for regime_of, defer in ((None, False), ("", True)):
        plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=["n=1:4", "alpha=0:3"], regime_of=regime_of)
        program = compiler.grid_program(model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units, 1, defer=defer)
        assert program is not None and program.deferred == ()


@pytest.mark.parametrize("chunk_size", [1 << 18, 4000, 777])
def test_sweep_with_the_deferred_step_is_the_rule_at_every_point(chunk_size: int) -> None:
    model = symgpu.load("volkov_2016")
    result = sweep(model, "memory_throughput", preset="maxwell", grid=["n=1:300", "alpha=0:120"], chunk_size=chunk_size)
    n, alpha = np.meshgrid(np.arange(1.0, 301.0), np.arange(0.0, 121.0), indexing="ij")
    value, rows = _volkov_rows(model, n, alpha)
    assert np.array_equal(result.columns["memory_throughput"], value.reshape(-1))
    assert result.regime is not None
    assert np.array_equal(result.regime, active.binding_index(rows, "min").reshape(-1))


def test_a_chunk_of_several_boxes_finishes_each_box() -> None:
    model = symgpu.load("volkov_2016")
    plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=["n=20:1979:40", "alpha=0:40"])
    runner = backends.load("numpy")
    function = compile_plan(plan, runner)
    assert function.deferred
    start, stop = 17, 41 * 7 + 5  # a partial row, whole rows, a partial row: three boxes
    assert len(plan.grid.boxes(start, stop)) == 3
    chunk = evaluate_chunk(plan, runner, function, start, stop)
    n, alpha = np.meshgrid(np.arange(20.0, 1980.0, 40.0), np.arange(0.0, 41.0), indexing="ij")
    value, rows = _volkov_rows(model, n, alpha)
    want = active.binding_index(rows, "min").reshape(-1)[start:stop]
    assert len(set(want)) >= 2  # the value is not the first argument everywhere
    assert np.array_equal(chunk.columns["memory_throughput"], value.reshape(-1)[start:stop])
    assert chunk.regime is not None
    assert np.array_equal(chunk.regime, want)


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_every_bundled_regime_program_deferred_then_finished_is_the_compiled_function(model_id: str) -> None:
    for quantity, plan, plain, program in grid_programs.regime_plans(model_id, defer=True):
        if program is None:
            continue
        coords, shape, values = grid_programs.axes_and_values(plan)
        targets = [np.empty(shape)]
        with np.errstate(all="ignore"):
            want = plain(*coords, *values)
            got = list(grid_programs.run_program(program, coords, values, shape, targets))
            rows = [np.array(np.broadcast_to(g, shape)) for g in got]  # what the regime decision reads, before finish
            gridcode.finish(program, got, targets)
        deferred = {d.position for d in program.deferred}
        for index, a in enumerate(want):
            b = targets[0] if index in deferred else (rows[index] if index < len(rows) else None)
            assert b is not None and np.array_equal(np.broadcast_to(a, shape), np.broadcast_to(b, shape), equal_nan=True), (quantity, index)
