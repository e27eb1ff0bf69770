"""``diff --json`` says of a point evaluated in only one model (or neither) that it is not compared
(``"differs": null``), not that the two models agree there (an outside tester's finding)."""

from __future__ import annotations

import sympy

from symgpu.compare.differences import ModelDiff, PointComparison, QuantityDiff, diff_json


def test_a_point_not_evaluated_in_both_models_is_neither_same_nor_different() -> None:
    x = sympy.Symbol("x")
    quantity = QuantityDiff("q", x, 2 * x, -x, sympy.Rational(1, 2), False)
    points = [PointComparison("preset p", 1.0, 2.0, "cycle"), PointComparison("preset r", 1.0, 1.0, "cycle"),
              PointComparison("case c", None, 2.0, "cycle", problem="model a: needs a value for x")]
    out = diff_json(ModelDiff("a", "b", [], [], [], 0, quantity, points))
    assert [p["differs"] for p in out["points"]] == [True, False, None]
    assert out["points"][2]["problem"] == "model a: needs a value for x"
