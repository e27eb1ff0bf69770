"""An extremum's steps say what each candidate's value is: the quantity at that candidate (its place and kind named),
whose unit is checked too. It was labelled "unit check" alone, which hid that the step gives the value the candidates
are compared by."""

from __future__ import annotations

import math

import sympy

import symgpu

#: a point where every candidate of Volkov's n_needed over alpha lies inside alpha >= 0 (by hand: alu_thru/mem_thru = 2,
#: alu_thru/(issue_thru - alu_thru) = 1, (issue_thru - mem_thru)/mem_thru = 3, and the end alpha = 0)
POINT = {"alu_lat": 3.0, "mem_lat": 7.0, "alu_thru": 2.0, "issue_thru": 4.0, "mem_thru": 1.0}


def _by_hand(alpha: float) -> float:
    """Volkov's n_needed = (alpha*alu_lat + mem_lat) * Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)) at POINT
    (equations s4_5_needed and s4_1_latency written out by hand; at alpha = 0 the alu term is unbounded)."""
    p = POINT
    alu = math.inf if alpha == 0 else p["alu_thru"] / alpha
    return (alpha * p["alu_lat"] + p["mem_lat"]) * min(p["mem_thru"], alu, p["issue_thru"] / (alpha + 1))


def test_each_candidate_value_is_a_step_named_for_its_candidate() -> None:
    model = symgpu.load("volkov_2016")
    answer = model.extremum("n_needed", "alpha", "max")
    valued = [s for s in answer.steps if s.operation == "value at candidate"]
    assert len(valued) == len(answer.extra.candidates) == 4
    assert not any(s.operation == "unit check" for s in answer.steps)  # each check is of a candidate's value, said so
    at = {model.symbols[name]: sympy.Float(value) for name, value in POINT.items()}
    held = 0
    for step, candidate in zip(valued, answer.extra.candidates):
        assert step.justification.startswith(f"n_needed at the candidate alpha = {sympy.sstr(candidate.location)} ({candidate.origin})")
        assert "its dimension [warp]/[SM] equals the declared unit of n_needed [warp/SM]" in step.justification
        assert (", where " in step.justification) == bool(candidate.when)  # a cusp's value holds where its regimes meet
        alpha = float(candidate.location.xreplace(at))
        if alpha >= 0 and all(bool(model.parse(c, "test", boolean=True).xreplace(at)) for c in candidate.when):  # the candidate is one here
            held += 1
            assert float(step.expression.rhs.xreplace(at)) == _by_hand(alpha)  # the step's value is the quantity there
    assert held >= 2  # the end alpha = 0 and the memory/issue cusp at alpha = 3 (by hand: alu_lat <= mem_lat, 4 <= 2 + 1 fails)
