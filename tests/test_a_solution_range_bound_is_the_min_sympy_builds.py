"""A relation that holds on whole regimes is answered as a range of the unknown whose bounds are the Min of its
upper bounds and the Max of its lower ones (:func:`symgpu.derive.solve_ranges.solution_set`). Those are built by
:func:`symgpu.model.substitution.min_max`, without SymPy's search for dominated arguments where every bound is proved
kept: the same nodes, and so the same derivation, as SymPy's ``Min(*bounds)``/``Max(*bounds)`` give."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import memo
from symgpu.derive import solve_ranges
from symgpu.model import substitution


def _solved(cache: Path, monkeypatch: pytest.MonkeyPatch) -> symgpu.Derivation:
    monkeypatch.setenv("SYMGPU_CACHE_DIR", str(cache))  # nothing read back from a store the other path filled
    memo.clear_all()
    return symgpu.load("hong_kim_2009").solve("MWP", for_="N", target="CWP")


def test_the_range_where_mwp_equals_cwp_is_the_one_sympys_min_gives(tmp_path, monkeypatch):
    fast = _solved(tmp_path / "fast", monkeypatch)
    monkeypatch.setattr(solve_ranges.substitution, "min_max", lambda func, args: func(*args))  # the old path: SymPy builds each
    slow = _solved(tmp_path / "slow", monkeypatch)
    assert fast.result == slow.result and fast.extra.holds_for == slow.extra.holds_for
    assert fast.steps == slow.steps
    assert [len(m.args) for m in fast.result.atoms(sympy.Min)] == [4]  # N's four upper bounds, each kept


def test_a_bound_that_another_dominates_or_a_single_bound_is_built_as_sympy_builds_it():
    x, y = sympy.symbols("x y", positive=True)
    cases = [(x, x + 1), (x,), (x, y), (x + y, x * y, x / y), (x, sympy.Min(y, x + 2))]
    for bounds in cases:
        for func in (sympy.Min, sympy.Max):
            assert substitution.min_max(func, bounds) == func(*bounds)
