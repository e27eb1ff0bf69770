"""An inequality solve renders as the set it answers, not as an equation: ``relation="<"`` on Volkov's
memory_throughput at Maxwell, alpha = 1, is ``n < 18.7`` in the notebook LaTeX and in ``result_latex``
(``n = 18.7`` before, identical for ``<`` and ``>=``); and a solve at a point whose answer is a whole range
(the memory-bound plateau) says "holds for every n where ..." in the API's answer, as the command line does
(tester round 14a, F12)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import symgpu

AT = {"preset": "maxwell", "values": {"alpha": 1}}


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.mark.parametrize(("relation", "latex_op"), [("<", "<"), (">=", r"\geq"), ("<=", r"\leq"), (">", ">")])
def test_a_bound_renders_with_its_relation(volkov: symgpu.Model, relation: str, latex_op: str) -> None:
    d = volkov.solve("memory_throughput", for_="n", target=0.05, relation=relation, **AT)
    # by hand: memory_throughput = min(n/374, 0.0814, ...) at Maxwell, alpha = 1, so the bound is 0.05 * 374
    bound = Fraction("0.05") * 374
    assert bound == Fraction(187, 10)
    assert d.to_dict()["result_latex"] == rf"n {latex_op} \frac{{187}}{{10}}"
    assert rf"n &{latex_op} \frac{{187}}{{10}}" in d._repr_latex_()
    assert r"n &= \frac{187}{10}" not in d._repr_latex_()
    # the side the relation names, read on the evaluate path on each side of the bound
    inside = float(bound) * (0.99 if "<" in relation else 1.01)
    q = float(volkov.evaluate("memory_throughput", "maxwell", values={"n": inside, "alpha": 1}).magnitude)
    assert {"<": q < 0.05, "<=": q <= 0.05, ">": q > 0.05, ">=": q >= 0.05}[relation]


def test_an_equation_still_renders_as_an_equation(volkov: symgpu.Model) -> None:
    d = volkov.solve("memory_throughput", for_="n", target=0.05, **AT)
    assert r"n &= \frac{\alpha alu_{lat}}{20} + \frac{mem_{lat}}{20}" in d._repr_latex_()
    assert d.to_dict()["result_latex"].startswith(r"\frac{")


def test_a_plateau_solve_at_a_point_says_where_it_holds_in_the_api(volkov: symgpu.Model) -> None:
    d = volkov.solve("memory_throughput", for_="n", target=0.0814, **AT)
    note = d.extra.elsewhere or ""
    assert "holds for every n where" in note and "n >= mem_thru*(alpha*alu_lat + mem_lat)" in note
    assert "holds for every n where" in d._repr_latex_()
    # by hand: the plateau starts at n = mem_thru * (mem_lat + alpha*alu_lat) = 0.0814 * 374 at Maxwell, alpha = 1
    knee = float(Fraction("0.0814") * 374)
    for n, on in ((knee * 1.01, True), (knee * 4, True), (knee * 0.99, False)):
        q = float(volkov.evaluate("memory_throughput", "maxwell", values={"n": n, "alpha": 1}).magnitude)
        assert (q == pytest.approx(0.0814, rel=1e-12)) is on
