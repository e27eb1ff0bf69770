"""A relation that holds on whole regimes is answered as a range of the unknown whose bounds are the Min of its
upper bounds and the Max of its lower ones (:func:`symgpu.derive.solve_ranges.solution_set`). Those are built by
:func:`symgpu.model.substitution.min_max`, without SymPy's search for dominated arguments where every bound is proved
kept: the same nodes, and so the same derivation, as SymPy's ``Min(*bounds)``/``Max(*bounds)`` give."""

from __future__ import annotations

import sympy

import symgpu
from symgpu.model import substitution


def test_the_range_where_mwp_equals_cwp_bounds_n_by_the_min_sympy_builds_of_its_bounds(empty_store):
    solved = symgpu.load("hong_kim_2009").solve("MWP", for_="N", target="CWP")
    mins = list(solved.result.atoms(sympy.Min))
    assert len(mins) == 1 and len(mins[0].args) > 1  # N bounded above by a Min of several bounds
    for node in mins:  # SymPy's own Min of the same bounds: the same node (no bound SymPy would drop, its order)
        assert sympy.srepr(sympy.Min(*node.args)) == sympy.srepr(node)
        assert sympy.srepr(sympy.Min(*reversed(node.args))) == sympy.srepr(node)


def test_a_bound_that_another_dominates_or_a_single_bound_is_built_as_sympy_builds_it():
    x, y = sympy.symbols("x y", positive=True)
    cases = [(x, x + 1), (x,), (x, y), (x + y, x * y, x / y), (x, sympy.Min(y, x + 2))]
    for bounds in cases:
        for func in (sympy.Min, sympy.Max):
            assert substitution.min_max(func, bounds) == func(*bounds)
