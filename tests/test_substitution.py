"""Kept Min/Max, kept expansions and kept base-unit rewrites give exactly what SymPy builds afresh."""

from __future__ import annotations

import sympy

import symgpu
from symgpu.evaluate import compiler
from symgpu.model import Model, substitution

x, y = sympy.symbols("x y", positive=True)


def test_min_max_gives_what_min_builds_and_reuses_it():
    args = (x, x + 1, y)
    first = substitution.min_max(sympy.Min, args)
    assert sympy.srepr(first) == sympy.srepr(sympy.Min(*args)) == sympy.srepr(sympy.Min(x, y))
    assert substitution.min_max(sympy.Min, args) is first


def test_min_max_keeps_nothing_built_without_evaluation():
    args = (y, y + 2)
    with sympy.evaluate(False):
        raw = substitution.min_max(sympy.Max, args)
    assert isinstance(raw, sympy.Max) and set(raw.args) == set(args)
    assert substitution.min_max(sympy.Max, args) == y + 2


def test_xreplace_builds_node_for_node_what_sympy_xreplace_builds():
    model = symgpu.load("hong_kim_2009")
    one_level = {eq.lhs: eq.rhs for eq in model.equations.values()}
    compared = 0
    for equation in model.equations.values():
        rule = {s: one_level[s] for s in equation.rhs.free_symbols if s in one_level}
        if rule:
            assert sympy.srepr(substitution.xreplace(equation.rhs, rule)) == sympy.srepr(equation.rhs.xreplace(rule)), equation.id
            compared += 1
    assert compared >= 10


def test_expansions_kept_across_quantities_and_stop_sets_equal_a_fresh_models():
    """Expanding with caches filled by other quantities (and other stop sets) gives the same
    expression and the same compiled base-unit expression as a model that computes only it."""
    warm = symgpu.load("hong_kim_2009")
    for name in warm.defining:  # fill the kept expansions and rewrites with every quantity
        compiler.compiled(warm, name, frozenset())
    name = "Exec_cycles_app"
    direct = sorted(s.name for s in warm.defining[name].rhs.free_symbols if s.name in warm.defining)
    assert direct
    for stop in [frozenset()] + [frozenset({d}) for d in direct]:
        fresh = Model(warm.definition)
        assert sympy.srepr(warm.expression(name, stop_at=stop)) == sympy.srepr(fresh.expression(name, stop_at=stop)), stop
        assert sympy.srepr(compiler.compiled(warm, name, stop)[2]) == sympy.srepr(compiler.compiled(fresh, name, stop)[2]), stop
