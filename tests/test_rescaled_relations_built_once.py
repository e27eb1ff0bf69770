"""A relation rescaled to base units is rebuilt from its sides once per process: the same
relation met again (a new object, as each near-tie test builds its own) is the memo's, and the
result is what SymPy builds from those sides, evaluated as SymPy evaluates it."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from conftest import FIXTURES
from symgpu import memo
from symgpu.evaluate import scaling


@pytest.fixture(scope="module")
def share() -> symgpu.Model:
    return symgpu.load(FIXTURES / "share.toml")


def _relations_memo() -> memo.MemoStats:
    return next(s for s in memo.stats() if s.name == "evaluate.scaling.relations")


def test_a_relation_met_again_is_rebuilt_once_and_as_sympy_builds_it(share: symgpu.Model) -> None:
    ws = share.symbols["ws"]
    memo.clear_all()
    first = scaling.base_expression(share, sympy.Ne(ws, sympy.floor(ws), evaluate=False))
    second = scaling.base_expression(share, sympy.Ne(ws, sympy.floor(ws), evaluate=False))  # another object, equal
    assert first == second == sympy.Ne(ws, sympy.floor(ws))  # ws is in B, a base unit: the sides unchanged
    stats = _relations_memo()
    assert (stats.misses, stats.hits) == (1, 1)


def test_a_literal_beside_a_scaled_side_is_still_scaled_in_the_rebuilt_relation(share: symgpu.Model) -> None:
    l2 = share.symbols["L2"]
    memo.clear_all()
    rescaled = scaling.base_expression(share, sympy.StrictGreaterThan(l2, 3, evaluate=False))
    assert rescaled == sympy.StrictGreaterThan(l2, 3 * 2**20)  # 3 MiB in bytes, by hand


def test_a_relation_sympy_decides_when_built_is_decided_when_rebuilt(share: symgpu.Model) -> None:
    k = sympy.Symbol("ws", integer=True, positive=True)  # floor(k) is k: the relation is false as SymPy builds it
    assert scaling.relation(sympy.Ne, k, sympy.floor(k)) is sympy.false
    with sympy.evaluate(False):  # built as it is, never from the memo
        assert isinstance(scaling.relation(sympy.Ne, k, k + 0), sympy.Ne)
