"""``scaling._Rescaler.unit``, the declared unit of an expression found without rebuilding its nodes, is the unit the
rewriting walk (``walk(expr)[1]``, which rebuilds every node for base units) finds, and it refuses what that walk refuses
with the same error: on every equation of every bundled model, expanded, on a 228-row regime table (relations and
``And``\\ s), on a symbol of no declared unit and on a bare literal between siblings of two scales."""

from __future__ import annotations

import functools
from typing import Any

import pytest
import sympy

import symgpu
from conftest import FIXTURES
from symgpu import errors, memo
from symgpu.derive import regime_split
from symgpu.evaluate import scaling


def _outcome(model: symgpu.Model, expr: Any, *, rebuilt: bool) -> Any:
    """The unit found (or the error's type and text) with every memo empty, by the rewriting walk or without it."""
    memo.clear_all()
    rescaler = scaling._Rescaler(model)
    try:
        return rescaler.walk(expr)[1] if rebuilt else rescaler.unit(expr)
    except (KeyError, errors.SymgpuError) as error:
        return type(error), str(error)


def _assert_same(model: symgpu.Model, expr: Any) -> Any:
    found = _outcome(model, expr, rebuilt=False)
    assert found == _outcome(model, expr, rebuilt=True)
    return found


@functools.cache
def _expressions(model_id: str) -> tuple[symgpu.Model, tuple[sympy.Basic, ...]]:
    model = symgpu.load(model_id)
    return model, tuple(model.expression(eq.lhs.name) for eq in model.equations.values())


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_every_expanded_equation_of_a_bundled_model_has_the_unit_the_rewriting_walk_finds(model_id: str) -> None:
    model, expressions = _expressions(model_id)
    units = [_assert_same(model, expr) for expr in expressions]
    assert any(u is not None for u in units)
    # the walk over all of them in one process, sharing the memos (a node found by either is read by both)
    memo.clear_all()
    rescaler = scaling._Rescaler(model)
    mixed = [rescaler.unit(e) if i % 2 else rescaler.walk(e)[1] for i, e in enumerate(expressions)]
    assert mixed == units


def test_a_regime_table_of_relations_and_conjunctions_has_the_unit_the_rewriting_walk_finds() -> None:
    model = symgpu.load("occupancy")
    table = regime_split.regimes(model, "active_blocks_per_SM").result
    assert isinstance(table, sympy.Piecewise) and len(table.args) > 100 and table.atoms(sympy.And)
    assert _assert_same(model, table) == model.units["active_blocks_per_SM"]
    for value, condition in table.args[:20]:
        _assert_same(model, condition)
        _assert_same(model, value)


def test_a_symbol_of_no_declared_unit_and_an_ambiguous_literal_are_refused_alike() -> None:
    share = symgpu.load(FIXTURES / "share.toml")
    ws, l2 = share.symbols["ws"], share.symbols["L2"]
    unknown = _assert_same(share, ws + sympy.Symbol("nowhere"))
    assert unknown[0] is KeyError
    for ambiguous in (ws + l2 + 3, sympy.Max(ws, l2, 3), sympy.Piecewise((ws, ws > 1), (l2, l2 > 2), (3, True)),
                      sympy.StrictGreaterThan(ws + l2 + 3, 0, evaluate=False)):
        refused = _assert_same(share, ambiguous)
        assert refused[0] is errors.EvaluationError, ambiguous
    assert _assert_same(share, sympy.Piecewise((ws, ws > 1), (3, True)) + l2) is not None  # 3 beside ws alone: not refused
    # a literal among siblings of one scale: the siblings' unit (MiB read in B, then its scale)
    assert _assert_same(share, l2 + 3) == share.units["L2"]
    assert _assert_same(share, sympy.floor(ws / l2) + sympy.Abs(ws - 1) ** 2 * sympy.exp(ws / ws)) is not None
    assert _assert_same(share, sympy.And(ws > 3, l2 < 2)) is None
    assert _assert_same(share, sympy.StrictGreaterThan(ws + l2, 3, evaluate=False)) is None  # a relation has no unit
