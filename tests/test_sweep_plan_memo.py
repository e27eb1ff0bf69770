"""A sweep request made again gets the plan built the first time (build_plan's memo): the same
object for the same texts and numbers, a new plan for anything that differs (a value's type or
sign included), none kept for requests that are not plain data, and the kept plan's axes are
read-only, so nothing a caller does to one sweep's result changes the next sweep."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import memo, units
from symgpu.sweep import Axis, Grid, build_plan, parse_axis, sweep

GRID = ["n=1:6", "alpha=0:4"]


def test_the_same_request_gets_the_same_plan() -> None:
    model = symgpu.load("volkov_2016")
    first = build_plan(model, ["memory_throughput"], preset="maxwell", grid=GRID)
    again = build_plan(model, ("memory_throughput",), preset="maxwell", grid=tuple(GRID))
    assert again is first


@pytest.mark.parametrize("change", [
    {"grid": ["n=1:7", "alpha=0:4"]},
    {"grid": ["alpha=0:4", "n=1:6"]},
    {"regime_of": ""},
    {"checks": False},
    {"preset": None, "values": {"mem_lat": 368.0, "alu_lat": 6.0, "mem_thru": 0.06, "alu_thru": 4.0, "issue_thru": 4.0}},
])
def test_a_request_that_differs_gets_its_own_plan(change: dict[str, object]) -> None:
    model = symgpu.load("volkov_2016")
    request: dict[str, object] = {"preset": "maxwell", "grid": GRID} | change
    first = build_plan(model, ["memory_throughput"], preset="maxwell", grid=GRID)
    other = build_plan(model, ["memory_throughput"], **request)  # type: ignore[arg-type]
    assert other is not first
    assert build_plan(model, ["memory_throughput"], **request) is other  # type: ignore[arg-type]


def test_values_are_told_apart_by_type_and_sign() -> None:
    model = symgpu.load("volkov_2016")
    fixed = {"mem_lat": 368.0, "alu_lat": 6.0, "mem_thru": 0.06, "alu_thru": 4.0, "issue_thru": 4.0}
    as_float = build_plan(model, ["memory_throughput"], grid=GRID, values=fixed)
    as_int = build_plan(model, ["memory_throughput"], grid=GRID, values=fixed | {"mem_lat": 368})
    as_text = build_plan(model, ["memory_throughput"], grid=GRID, values=fixed | {"mem_lat": "368 cycle"})
    assert len({id(as_float), id(as_int), id(as_text)}) == 3
    # 0.0 == -0.0 and hash alike: the key holds their repr, so they are two requests
    zero = build_plan(model, ["memory_throughput"], grid=["n=1:3"], values=fixed | {"alpha": 0.0})
    negative_zero = build_plan(model, ["memory_throughput"], grid=["n=1:3"], values=fixed | {"alpha": -0.0})
    assert zero is not negative_zero
    assert dict(zero.values)["alpha"] == 0.0 and np.signbit(dict(negative_zero.values)["alpha"])


def test_requests_that_are_not_plain_data_are_planned_afresh() -> None:
    model = symgpu.load("volkov_2016")
    axes = [parse_axis(t) for t in GRID]
    for grid in (axes, Grid(tuple(axes))):
        assert build_plan(model, ["memory_throughput"], preset="maxwell", grid=grid) is not \
            build_plan(model, ["memory_throughput"], preset="maxwell", grid=grid)
    values = {"mem_lat": units.quantity("368 cycle")}  # a pint quantity: equal to others in other units
    assert build_plan(model, ["memory_throughput"], preset="maxwell", grid=GRID, values=values) is not \
        build_plan(model, ["memory_throughput"], preset="maxwell", grid=GRID, values=values)
    plan = build_plan(model, ["memory_throughput"], preset="maxwell", grid=[Axis("n", np.arange(1.0, 4.0), "n=1:3"), "alpha=1:2"])
    assert plan.grid.axes[0].values.flags.writeable  # the caller's array is left as it was


def test_a_kept_plans_axes_are_read_only_and_its_sweep_unchanged() -> None:
    model = symgpu.load("volkov_2016")
    memo.clear_all()
    fresh = sweep(model, "memory_throughput", grid=GRID, preset="maxwell")
    for axis in fresh.plan.grid.axes:
        assert not axis.values.flags.writeable
        with pytest.raises(ValueError):
            axis.values[0] = 99.0
    again = sweep(model, "memory_throughput", grid=GRID, preset="maxwell")
    assert again.plan is fresh.plan
    assert np.array_equal(again.columns["memory_throughput"], fresh.columns["memory_throughput"])
    assert again.regime is not None and fresh.regime is not None and np.array_equal(again.regime, fresh.regime)
    # by hand: n / (mem_lat + alpha alu_lat) at n = 1, alpha = 0 (maxwell: mem_lat 368 cycles) is the latency bound
    assert again.regime_names()[0] == "latency_bound"


def test_a_large_grid_is_not_kept() -> None:
    model = symgpu.load("volkov_2016")
    grid = ["n=1:300000", "alpha=1:2"]  # 300,002 axis values, over the 2**18 kept
    assert build_plan(model, ["memory_throughput"], preset="maxwell", grid=grid) is not \
        build_plan(model, ["memory_throughput"], preset="maxwell", grid=grid)
