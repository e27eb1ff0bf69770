"""A case condition on a quantity that is itself a case table becomes SymPy's ``ITE(c, a, b)`` once the quantity is put in;
the model reads it as ``(c & a) | (~c & b)`` where it expands quantities (:mod:`symgpu.model.case_logic`), so every reader
of conditions meets And/Or of relations alone. Proved equal to SymPy's own expansion: as propositional logic (each
relation an atom, its negation that atom's negation: the two agree under every assignment of truth values) and at every point of a grid of exact values
(the same value). The questions the generated models found refused through an ``ITE`` (a limit: "no regime proved"; a
boundary: "does not depend on t0"; an extremum's open end: a wrong maximum) are answered, each checked against
``Model.evaluate`` (brute force) and worked by hand."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive
from conftest import toy_header

_SYMBOLS = "".join(f'[symbols.{n}]\ndescription = "{n}"\nunit = "{u}"\nassumptions = ["positive"]\n' for n, u in
                   (("t0", "us"), ("k", "1"), ("t1", "us")))
_OUTPUTS = """[symbols.q0]
description = "k t0 up to 420 us, then t0"
unit = "us"
role = "intermediate"
[symbols.q2]
description = "q0 from 1.8 us, else t1"
unit = "us"
role = "intermediate"
[symbols.q3]
description = "t1 below q2 (strictly), else q2/2"
unit = "us"
role = "output"
"""


def _cases(name: str, *cases: tuple[str, str, str]) -> str:
    rows = ",\n".join(f'  {{ id = "{i}", when = "{w}", value = "{v}" }}' for i, w, v in cases)
    return f'[[equations]]\nid = "eq_{name}"\ndefines = "{name}"\ncases = [\n{rows},\n]\nsource = {{ ref = "toy2026", locator = "1" }}\n'


#: q2's condition compares q0 (two cases): one ITE; q3's compares q2 (three regimes, an ITE in them): ITEs nested
_TEXT = (toy_header("ite_cond", "Case conditions on case tables", "q2 compares q0, q3 compares q2") + _SYMBOLS + _OUTPUTS
         + _cases("q0", ("a", "t0 <= 420", "k*t0"), ("b", "otherwise", "t0"))
         + _cases("q2", ("c", "q0 >= 1.8", "q0"), ("d", "otherwise", "t1"))
         + _cases("q3", ("e", "t1 < q2", "t1"), ("f", "otherwise", "q2/2"))
         + '[presets.p0]\ndescription = "values"\nsource = { ref = "toy2026", locator = "p0" }\n'
         + '[presets.p0.values]\nt0 = "100 us"\nk = "2"\nt1 = "1 us"\n')


@pytest.fixture
def ite_model(write_model: Callable[..., Path]) -> symgpu.Model:
    return symgpu.load(write_model(_TEXT, name="ite_cond"))


def _sympys_expansion(model: symgpu.Model, name: str) -> sympy.Basic:
    """``name`` in its inputs as SymPy's own ``xreplace`` builds it, each defined quantity put in until none is left."""
    expr = model.equation_for(name).rhs
    while defined := {s: model.equation_for(s.name).rhs for s in expr.free_symbols if s.name in model.defining}:
        expr = expr.xreplace(defined)
    return expr


def _as_atoms(conditions: list[sympy.Basic]) -> list[sympy.Basic]:
    """Each relation of ``conditions`` a boolean atom, a relation's negation (either way round) that atom's negation."""
    atoms: dict[sympy.Basic, sympy.Basic] = {}

    def atom(relation: sympy.Basic) -> sympy.Basic:
        for known, symbol in atoms.items():
            if relation in (known.negated, known.negated.reversed):
                return sympy.Not(symbol)
            if relation in (known, known.reversed):
                return symbol
        atoms[relation] = sympy.Symbol(f"r{len(atoms)}")
        return atoms[relation]

    return [c.replace(lambda n: isinstance(n, sympy.core.relational.Relational), atom) for c in conditions]


def _conditions(expr: sympy.Basic) -> list[sympy.Basic]:
    return [c for node in sympy.preorder_traversal(expr) if isinstance(node, sympy.Piecewise) for _, c in node.args]


@pytest.mark.parametrize("name", ["q2", "q3"])
def test_the_expanded_conditions_are_sympys_ite_as_propositional_logic(ite_model: symgpu.Model, name: str) -> None:
    sympys, ours = _sympys_expansion(ite_model, name), ite_model.expression(name)
    assert sympys.has(sympy.ITE) and not ours.has(sympy.ITE)
    theirs, mine = _conditions(sympys), _conditions(ours)
    assert len(theirs) == len(mine)
    both = _as_atoms(theirs + mine)
    atoms = sorted(set().union(*[c.free_symbols for c in both]), key=lambda s: s.name)
    for truth in itertools.product((sympy.true, sympy.false), repeat=len(atoms)):  # every assignment (SymPy's satisfiable
        assignment = dict(zip(atoms, truth))  # misreads an ITE with a False branch: the truth table instead)
        assert [c.xreplace(assignment) for c in both[:len(theirs)]] == [c.xreplace(assignment) for c in both[len(theirs):]]


@pytest.mark.parametrize("name", ["q2", "q3"])
def test_the_expanded_quantity_is_sympys_at_every_point_of_a_grid(ite_model: symgpu.Model, name: str) -> None:
    sympys, ours = _sympys_expansion(ite_model, name), ite_model.expression(name)
    s = ite_model.symbols  # the literals at their values (420 us, 1.8 us): the logic alone is proved above for any
    fixed = {s["lit_420_us"]: sympy.Integer(420), s["lit_1p8_us"]: sympy.Rational(9, 5)}
    symbols = [s["t0"], s["k"], s["t1"]]
    grid = ([sympy.Rational(v) for v in ("1/2", "9/10", "9/5", "2", "420", "421", "500")],  # t0 at and each side of its edges
            [sympy.Rational(v) for v in ("1/1000", "1/2", "1", "2")],                      # k t0 = 9/5 at t0 = 9/10, k = 2
            [sympy.Rational(v) for v in ("1/2", "9/5", "421", "1000")])                    # t1 = k t0 at 9/5, t1 = t0 at 421
    assert set(sympys.free_symbols) | set(ours.free_symbols) <= set(symbols) | set(fixed)
    for point in itertools.product(*grid):
        values = fixed | dict(zip(symbols, point))
        assert sympys.xreplace(values) == ours.xreplace(values), values


def test_a_limit_through_a_condition_on_a_case_table_is_answered(ite_model: symgpu.Model) -> None:
    # by hand at p0 (k = 2, t1 = 1 us): beyond t0 = 420 us, q0 = t0 >= 1.8 us, so q2 = t0: it grows without bound,
    # and just above 420 us it is t0, which tends to 420 us (was refused: "no regime of q2 is proved to apply")
    assert ite_model.limit("q2", "t0", "oo", preset="p0").result == sympy.oo
    assert [float(ite_model.evaluate("q2", "p0", values={"t0": t}).magnitude) for t in (1e6, 1e9)] == [1e6, 1e9]
    d = ite_model.limit("q2", "t0", "420", preset="p0", direction="+")
    assert math.isclose(float(derive.evaluate_result(ite_model, d, "p0").magnitude), 420.0)
    assert math.isclose(float(ite_model.evaluate("q2", "p0", values={"t0": 420 * (1 + 1e-9)}).magnitude), 420.0, rel_tol=1e-8)


@pytest.mark.parametrize("over, edge", [("t0", 0.9), ("k", 0.018)])
def test_a_boundary_through_a_condition_on_a_case_table_is_answered(ite_model: symgpu.Model, over: str, edge: float) -> None:
    # by hand at p0 (t0 = 100 us, k = 2): q2 leaves case d (t1) for case c where k*t0 reaches 1.8 us: t0 = 0.9 us, k = 0.018
    # (was refused: "the condition that separates c and d, ITE(...), does not depend on t0")
    d = ite_model.boundary("q2", for_=over, between=("c+a", "d"), preset="p0")
    assert np.allclose(derive.evaluate_result(ite_model, d, "p0").magnitude, [edge], rtol=1e-12, atol=0)
    below, above = (float(ite_model.evaluate("q2", "p0", values={over: edge * f}).magnitude) for f in (1 - 1e-9, 1 + 1e-9))
    assert below == 1.0 and math.isclose(above, 1.8, rel_tol=1e-8)  # t1 below it, k*t0 = 1.8 us above it: brute force


def test_an_extremums_open_end_through_a_condition_on_a_case_table_is_its_limit(ite_model: symgpu.Model) -> None:
    # q2 = t0 beyond 420 us: no maximum over t0 (a maximum 840 us at t0 = 420 us was answered, caught by the certificate)
    with pytest.raises(symgpu.SymgpuError, match="no maximum over t0: it tends to oo"):
        ite_model.extremum("q2", over="t0", kind="max", preset="p0")
    assert float(ite_model.evaluate("q2", "p0", values={"t0": 1e12}).magnitude) > 840.0
