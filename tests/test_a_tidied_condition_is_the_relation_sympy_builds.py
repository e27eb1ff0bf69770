"""A tidied condition (:meth:`symgpu.proofs.signs.SignReasoner.tidy`) ends as the relation of its two sides, built by
:func:`symgpu.proofs.unordered.inequality`: unevaluated where sample points show SymPy cannot decide it, SymPy's own
evaluation elsewhere. The derivations come out as with SymPy building every such relation itself."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import memo
from symgpu.derive import regime_split
from symgpu.proofs import unordered
from symgpu.proofs.signs import Declared, SignReasoner


def _sympy_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old path: every tidied relation evaluated by SymPy."""
    monkeypatch.setattr(unordered, "inequality", lambda op, lhs, rhs: op(lhs, rhs))


def _regimes(cache: Path, monkeypatch: pytest.MonkeyPatch) -> symgpu.Derivation:
    monkeypatch.setenv("SYMGPU_CACHE_DIR", str(cache))  # nothing read back from a store the other path filled
    memo.clear_all()
    return regime_split.regimes(symgpu.load("hong_kim_2009"), "Exec_cycles_app")


def test_hong_kim_regime_conditions_are_tidied_as_when_sympy_builds_each_relation(tmp_path, monkeypatch):
    fast = _regimes(tmp_path / "fast", monkeypatch)
    _sympy_builds(monkeypatch)
    slow = _regimes(tmp_path / "slow", monkeypatch)
    assert fast.result == slow.result and fast.steps == slow.steps
    assert [r.conditions for r in fast.extra.regimes] == [r.conditions for r in slow.extra.regimes]


def test_conditions_tidied_over_a_variable_or_none_are_the_relations_sympy_builds(monkeypatch):
    x, y, z = (sympy.Symbol(n, real=True, positive=True) for n in "xyz")
    c = sympy.Symbol("c", real=True)
    declared = Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (z, frozenset({"positive"})),
                                 (c, frozenset())))
    conditions = [sympy.StrictGreaterThan(x * y - z**2, c), sympy.GreaterThan((x + y) / z, 2 * c + x),
                  sympy.LessThan(x**2 * y, y * z + c * x), sympy.StrictLessThan(sympy.Min(x, y * z) - c, z / x),
                  sympy.GreaterThan(x + y, x), sympy.StrictGreaterThan(c**2 + 1, 0)]  # the last two SymPy decides
    fast = [SignReasoner(declared).tidy(cond, var) for var in (None, c, z) for cond in conditions]
    _sympy_builds(monkeypatch)
    slow = [SignReasoner(declared).tidy(cond, var) for var in (None, c, z) for cond in conditions]
    assert [sympy.srepr(f) for f in fast] == [sympy.srepr(s) for s in slow]
    assert any(isinstance(f, sympy.core.relational.Relational) for f in fast)
