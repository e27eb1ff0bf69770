"""A case condition that compares a quantity which is itself a case table (``q0 >= 1.8``, ``q0`` of two cases) becomes
SymPy's ``ITE(c, a, b)`` once ``q0`` is put in; every reader of conditions reads it exactly as ``(c & a) | (~c & b)``:
the verdict at a point and over an array (:mod:`symgpu.evaluate.active`), a sweep's regime tree
(:mod:`symgpu.sweep.regimes`), and a plateau's edges and closure (:mod:`symgpu.derive.case_conditions`, read by
:mod:`symgpu.derive.extremum_domain`). The differential tester's generated models found them refused ("cannot evaluate
the condition ITE(...)"; "has no edge in closed form"). Every expected value is the boolean formula, or worked by hand.
"""

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
from symgpu.model import case_logic
from symgpu.evaluate import active
from symgpu.sweep import decide, regimes
from conftest import toy_header

X, Y, Z = sympy.symbols("x y z", positive=True)
#: ITE(x <= 1, y <= 1, z <= 1), built unevaluated as SymPy builds it from a case table
CONDITION = sympy.ITE(X <= 1, Y <= 1, Z <= 1)
#: each of x, y, z at 0.5 (its relation true) or 2 (false)
COMBOS = list(itertools.product((0.5, 2.0), repeat=3))


def _by_hand(x: float, y: float, z: float) -> bool:
    return (x <= 1 and y <= 1) or (not x <= 1 and z <= 1)


@pytest.mark.parametrize("x, y, z", COMBOS)
def test_the_verdict_of_an_ite_is_its_test_and_the_branch_it_picks(x: float, y: float, z: float) -> None:
    values = {X: x, Y: y, Z: z}
    side = lambda expr: float(expr.xreplace(values))  # noqa: E731 - the magnitude of a side
    verdict, shown = active.condition_verdict(CONDITION, side)
    assert verdict is _by_hand(x, y, z)
    assert ("x <= 1" in shown) and (("y <= 1" in shown) if x <= 1 else ("z <= 1" in shown))
    negated, _ = active.condition_verdict(sympy.Not(CONDITION, evaluate=False), side)
    assert negated is not _by_hand(x, y, z)


@pytest.mark.parametrize("x, y, z", COMBOS)
def test_as_cases_reads_an_ite_exactly(x: float, y: float, z: float) -> None:
    values = {X: x, Y: y, Z: z}
    read = case_logic.as_cases(CONDITION)
    assert not read.has(sympy.ITE)
    assert bool(read.xreplace(values)) is _by_hand(x, y, z)
    assert bool(case_logic.as_cases(CONDITION, negate=True).xreplace(values)) is not _by_hand(x, y, z)


def test_a_sweep_decides_an_ite_tree_as_the_boolean_formula() -> None:
    rows: list[sympy.Basic] = []

    def add(expr: sympy.Basic, unit: object) -> int:
        rows.append(expr)
        return len(rows) - 1

    tree = regimes._tree(CONDITION, add)
    xs, ys, zs = (np.array(c) for c in zip(*COMBOS))
    out = [np.asarray(sympy.lambdify((X, Y, Z), row, "numpy")(xs, ys, zs), dtype=float) * np.ones(len(COMBOS)) for row in rows]
    held = np.broadcast_to(decide._holds(tree, out), (len(COMBOS),))
    assert list(held) == [_by_hand(*c) for c in COMBOS]


_TEXT = toy_header("ite_cond", "A case condition on a case table", "q2 compares q0, itself of two cases") + """
[symbols.t0]
description = "t0"
unit = "us"
assumptions = ["positive"]
[symbols.k]
description = "k"
unit = "1"
assumptions = ["positive"]
[symbols.t1]
description = "t1"
unit = "us"
assumptions = ["positive"]
[symbols.q0]
description = "k t0 up to 420 us, then t0"
unit = "us"
role = "intermediate"
[symbols.q2]
description = "q0 from 1.8 us, else t1"
unit = "us"
role = "output"
[[equations]]
id = "eq_q0"
defines = "q0"
cases = [
  { id = "a", when = "t0 <= 420", value = "k*t0" },
  { id = "b", when = "otherwise", value = "t0" },
]
source = { ref = "toy2026", locator = "1" }
[[equations]]
id = "eq_q2"
defines = "q2"
cases = [
  { id = "c", when = "q0 >= 1.8", value = "q0" },
  { id = "d", when = "otherwise", value = "t1" },
]
source = { ref = "toy2026", locator = "2" }
[presets.p0]
description = "values"
source = { ref = "toy2026", locator = "p0" }
[presets.p0.values]
t0 = "100 us"
k = "2"
t1 = "1 us"
"""


@pytest.fixture
def ite_model(write_model: Callable[..., Path]) -> symgpu.Model:
    return symgpu.load(write_model(_TEXT, name="ite_cond"))


@pytest.mark.parametrize("k, expected", [
    (2.0, [False, False, True, True, True]),      # t0 <= 420: 2*t0 >= 1.8 from t0 = 0.9; beyond, t0 >= 1.8
    (0.001, [False, False, False, False, True]),  # t0 <= 420: 0.001*t0 <= 0.42 < 1.8; t0 = 500 > 420 and >= 1.8
])
def test_the_mask_of_an_ite_condition_over_an_array_is_the_case_taken(ite_model: symgpu.Model, k: float, expected: list[bool]) -> None:
    # SymPy's form of q0 >= 1.8 with q0 put in (a derived answer may still hold one), and the model's expansion of it
    sympys = ite_model.equation_for("q2").rhs.xreplace({ite_model.symbols["q0"]: ite_model.expression("q0")}).args[0][1]
    assert sympys.has(sympy.ITE)
    expanded = ite_model.expression("q2").args[0][1]
    assert not expanded.has(sympy.ITE)  # read as (c & a) | (~c & b) where the model expands it (symgpu.model.case_logic)
    t0 = np.array([0.5, 0.8, 1.0, 100.0, 500.0])
    for condition in (sympys, expanded):
        mask = active.condition_mask(ite_model, condition, "p0", {"t0": t0, "k": k})
        assert list(np.broadcast_to(mask, t0.shape)) == expected
        one_by_one = [active.condition_holds(ite_model, condition, "p0", {"t0": float(t), "k": k})[0] for t in t0]
        assert one_by_one == expected


@pytest.mark.parametrize("over", ["t0", "k"])
def test_the_plateau_of_an_ite_regime_is_found_at_its_relations_edges(ite_model: symgpu.Model, over: str) -> None:
    # by hand at p0 (t0 = 100 us, k = 2, t1 = 1 us): q2 = t1 = 1 us where k*t0 < 1.8 us (t0 < 0.9 us; k < 0.018), else
    # q0 >= 1.8 us: the least value is 1 us, on the plateau of case d, which ends at the edge of its relation k*t0 = 1.8
    # (it was refused: "where it holds (~ITE(...)) has no edge in closed form")
    d = ite_model.extremum("q2", over=over, kind="min", preset="p0")
    assert math.isclose(float(derive.evaluate_result(ite_model, d, "p0").magnitude), 1.0)


def test_the_plateau_of_an_ite_regime_whose_relation_holds_a_max_is_found(write_model: Callable[..., Path]) -> None:
    # q0 = Max(k*t0, t1) up to 420 us: by hand at p0 (t1 = 1 us < 1.8 us), q2 = t1 = 1 us where k*t0 < 1.8 us (k < 0.018),
    # else q0 >= 1.8 us: the least value is 1 us; the edge of 1.8 <= Max(k*t0, t1) is where k*t0 or t1 is 1.8 us
    model = symgpu.load(write_model(_TEXT.replace('value = "k*t0"', 'value = "Max(k*t0, t1)"'), name="ite_cond"))
    d = model.extremum("q2", over="k", kind="min", preset="p0")
    assert math.isclose(float(derive.evaluate_result(model, d, "p0").magnitude), 1.0)
