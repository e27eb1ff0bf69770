"""A tidied condition (:meth:`symgpu.proofs.signs.SignReasoner.tidy`) ends as the relation of its two sides, built by
:func:`symgpu.proofs.unordered.inequality`: unevaluated where sample points show SymPy cannot decide it, SymPy's own
evaluation elsewhere. Every inequality in the tidied conditions is the node SymPy's own evaluated constructor builds from
its two sides. (``tests/test_unordered.py`` proves ``inequality`` against SymPy on random sides, including sides SymPy
decides; the conditions here are the ones the engine meets.)"""

from __future__ import annotations

import sympy

import symgpu
from symgpu.derive import regime_split
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner


_INEQUALITIES = (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


def _built_by_sympy(relation: sympy.Basic) -> bool:
    """Is ``relation`` the node SymPy's own evaluated constructor builds from its two sides (one SymPy would have
    decided is True or False there, not an unevaluated relation)?"""
    return sympy.srepr(type(relation)(relation.lhs, relation.rhs)) == sympy.srepr(relation)


def test_hong_kim_regime_conditions_hold_only_relations_sympy_builds_from_their_sides(empty_store):
    derivation = regime_split.regimes(symgpu.load("hong_kim_2009"), "Exec_cycles_app")
    relations = [r for regime in derivation.regimes for condition in regime.conditions  # the SymPy objects, as tidied
                 for r in condition.atoms(*_INEQUALITIES)]
    assert relations
    assert all(_built_by_sympy(r) for r in relations), [r for r in relations if not _built_by_sympy(r)]


def test_conditions_tidied_over_a_variable_or_none_are_the_relations_sympy_builds():
    x, y, z = (sympy.Symbol(n, real=True, positive=True) for n in "xyz")
    c = sympy.Symbol("c", real=True)
    declared = Declared(symbols=((x, frozenset({"positive"})), (y, frozenset({"positive"})), (z, frozenset({"positive"})),
                                 (c, frozenset())))
    conditions = [sympy.StrictGreaterThan(x * y - z**2, c), sympy.GreaterThan((x + y) / z, 2 * c + x),
                  sympy.LessThan(x**2 * y, y * z + c * x), sympy.StrictLessThan(sympy.Min(x, y * z) - c, z / x),
                  sympy.GreaterThan(x + y, x), sympy.StrictGreaterThan(c**2 + 1, 0)]  # the last two SymPy decides
    tidied = [SignReasoner(declared).tidy(cond, var) for var in (None, c, z) for cond in conditions]
    relations = [t for t in tidied if isinstance(t, _INEQUALITIES)]
    assert relations and all(_built_by_sympy(r) for r in relations)
    assert [tidied[i] for i in (4, 5)] == [sympy.true, sympy.true]  # decided: SymPy's own verdicts
