"""A derived answer whose Piecewise conditions hold an ``ITE`` evaluates (differential tester, seed 68).

Volkov's maximum of ``cycles_per_warp`` over ``cuda_cpi`` is a Piecewise whose conditions are
``ITE(Eq(cuda_insts, 0), <many relations>, False)``. SymPy's NumPy printer puts a condition with an
``ITE`` through ``simplify_logic``, which leaves one of more than 8 relations as it is, and then
prints the ``ITE`` as ``select([test, True], [then, otherwise], default=nan)``: a float, which the
outer ``select`` refused ("invalid entry 0 in condlist: should be boolean ndarray"), so
``evaluate_result`` of that answer raised a TypeError while the command line answered.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu.evaluate import evaluator

#: nine instruction counts of volkov_2016 (winst/warp, nonnegative); with Eq(cuda_insts, 0) the
#: condition below holds ten distinct relations, more than the 8 ``simplify_logic`` handles
COUNTS = ("sfu_insts", "gmem_insts", "gmem2_insts", "smem_insts", "smem2_insts", "dual_issues", "reissues", "single_issues")


def _answer(model: symgpu.Model) -> sympy.Piecewise:
    """``sfu_cpi*sfu_insts`` where ``cuda_insts == 0`` and every count is positive and
    ``sfu_insts >= gmem_insts``, else ``issue_cpi*single_issues`` (built unevaluated, as the engine
    builds an extremum's answer, so the ITE stays)."""
    s = model.symbols
    then = sympy.And(*(s[n] > 0 for n in COUNTS), s["sfu_insts"] >= s["gmem_insts"])
    condition = sympy.ITE(sympy.Eq(s["cuda_insts"], 0), then, sympy.false)
    return sympy.Piecewise((s["sfu_cpi"] * s["sfu_insts"], condition), (s["issue_cpi"] * s["single_issues"], True), evaluate=False)


POINT = {n: 2.0 for n in COUNTS} | {"sfu_insts": 5.0, "sfu_cpi": 3.0, "issue_cpi": 0.5}


@pytest.mark.parametrize("cuda_insts, gmem_insts, expected", [
    (0.0, 2.0, 15.0),    # test true, every relation true: sfu_cpi*sfu_insts = 3*5
    (0.0, 6.0, 1.0),     # test true, sfu_insts >= gmem_insts false: issue_cpi*single_issues = 0.5*2
    (100.0, 2.0, 1.0),   # test false: ITE(..., False) is false: 0.5*2
])
def test_an_ite_condition_of_many_relations_evaluates_at_a_point(cuda_insts: float, gmem_insts: float, expected: float) -> None:
    model = symgpu.load("volkov_2016")
    values = POINT | {"cuda_insts": cuda_insts, "gmem_insts": gmem_insts}
    got = evaluator.evaluate_expression(model, _answer(model), model.units["cycles_per_warp"], values=values)
    assert float(got.magnitude) == expected


def test_an_ite_condition_of_many_relations_evaluates_along_an_array() -> None:
    model = symgpu.load("volkov_2016")
    values = POINT | {"cuda_insts": np.array([0.0, 100.0, 0.0]), "gmem_insts": np.array([2.0, 2.0, 6.0])}
    got = evaluator.evaluate_expression(model, _answer(model), model.units["cycles_per_warp"], values=values)
    assert list(np.asarray(got.magnitude, dtype=float)) == [15.0, 1.0, 1.0]  # as the three scalar cases above
