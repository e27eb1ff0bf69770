"""Shared pieces of the tests of compiled grid programs (``evaluate.gridcode``): every bundled
regime quantity's sweep plan over the regime test's grids, the plan's axes as broadcasting views,
and one run of a program into fresh buffers."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import symgpu
from symgpu.evaluate import compiler
from symgpu.sweep import build_plan


def regime_plans(model_id: str, *, defer: bool = False) -> Iterator[tuple[str, Any, Any, Any]]:
    """(quantity, plan, the plain compiled function, the grid program or None) for every Min/Max or
    cases quantity of a bundled model, over the same grids as ``tests/test_regime_rule.py``; skips a
    model without presets or such quantities. Built once per test process (:func:`_plans`, :func:`_programs`):
    three test files read the same plans, which the engine does not keep (their axes are :class:`Axis` objects)."""
    built = _plans(model_id)
    if built is None:
        pytest.skip("no preset, or no Min/Max or cases quantity")
    for (quantity, plan, plain), program in zip(built, _programs(model_id, defer)):
        yield quantity, plan, plain, program


@functools.cache
def _plans(model_id: str) -> tuple[tuple[str, Any, Any], ...] | None:
    """(quantity, plan, the plain compiled function) for each regime quantity of the model; None where there is none
    or the model has no preset. Plans and compiled functions are frozen: sharing them between tests changes nothing."""
    from test_regime_rule import _axes, _base_point, _regime_quantities  # noqa: PLC0415 - the same grids as the regime test

    model = symgpu.load(model_id)
    if not model.definition.presets or not _regime_quantities(model):
        return None
    out = []
    for quantity in _regime_quantities(model):
        preset, base = _base_point(model, quantity)
        axes = _axes(model, quantity, preset, base)
        fixed = {k: v for k, v in base.items() if k not in {a.name for a in axes}}
        plan = build_plan(model, [quantity], preset=preset, grid=axes, values=fixed, regime_of=quantity)
        names, constants = plan.grid.names, [k for k, _ in plan.fixed]
        out.append((quantity, plan, compiler.fused_function(model, plan.exprs, names, constants, plan.out_units)))
    return tuple(out)


@functools.cache
def _programs(model_id: str, defer: bool) -> tuple[Any, ...]:
    """The grid program (or None) of each of :func:`_plans`' plans, its last Min/Max step deferred or not."""
    model, built = symgpu.load(model_id), _plans(model_id)
    assert built is not None
    return tuple(compiler.grid_program(model, plan.exprs, plan.grid.names, [k for k, _ in plan.fixed], plan.out_units, 1, defer=defer)
                 for _, plan, _ in built)


def axes_and_values(plan: Any) -> tuple[list[np.ndarray], tuple[int, ...], list[np.float64]]:
    """The plan's axes as broadcasting views in base units, the grid's shape and the fixed values."""
    count = len(plan.grid.axes)
    coords = [a.values.reshape((1,) * k + (a.size,) + (1,) * (count - k - 1)) * s
              for k, (a, s) in enumerate(zip(plan.grid.axes, plan.scales))]
    return coords, plan.grid.shape, [np.float64(v) for _, v in plan.fixed]


def run_program(program: Any, coords: list[np.ndarray], values: list[np.float64], shape: tuple[int, ...],
                targets: list[np.ndarray]) -> Any:
    """One call of a grid program into ``targets`` with fresh scratch buffers."""
    return program.function(*coords, *values, targets, [np.empty(shape) for _ in range(program.floats_needed)],
                            [np.empty(shape, dtype=bool) for _ in range(program.bools_needed)])
