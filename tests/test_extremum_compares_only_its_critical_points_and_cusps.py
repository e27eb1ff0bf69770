"""An extremum asked without a point holds each critical point and cusp only where it beats every other candidate and
open end (``extremum_choice.against_all``); the domain's ends and plateau edges are compared among themselves
(``global_choice``), so what beats one of them is not read and not decided (issue 31: Volkov's n_needed over alpha
decided its end's comparisons, 35 ms of a cold question, for nothing). ``against_all`` records nothing: what it gives
for a cusp is the same whether or not it was asked of the end first, as the engine asked it before."""

from __future__ import annotations

import sympy

import symgpu
from symgpu import memo
from symgpu.derive import extrema, extremum_choice, extremum_domain, jobs


def _candidates(model: symgpu.Model) -> list[extremum_domain.Candidate]:
    """The answer's candidates, their conditions read back from its records."""
    answer = extrema.extremum(model, "n_needed", "alpha", "max")
    return [extremum_domain.Candidate(r.location, r.value, r.origin, tuple(model.parse(w, "test", boolean=True) for w in r.when))
            for r in answer.extra.candidates]


def test_volkov_n_needed_over_alpha_compares_its_three_cusps_and_not_its_end():
    model = symgpu.load("volkov_2016")
    memo.clear_all()
    answer = extrema.extremum(model, "n_needed", "alpha", "max")
    origins = [r.origin for r in answer.extra.candidates]
    assert origins[0] == "end of the domain alpha >= 0" and all(o.startswith("boundary ") for o in origins[1:])
    assert memo.tallies()["derive.extremum_choice.against_all"] == 3  # one per cusp
    # each cusp where it holds, then the end alpha = 0 where it beats the far end (compared by global_choice)
    assert isinstance(answer.location, sympy.Piecewise) and [c for c, _ in answer.location.args][-1] == 0
    assert len(answer.location.args) == 4


def test_a_cusps_comparisons_are_the_same_whether_or_not_the_end_was_compared_first():
    model = symgpu.load("volkov_2016")
    s = model.symbols
    merged = _candidates(model)
    far = [extremum_domain.OpenEnd(sympy.oo, sympy.Min(s["alu_lat"] * s["alu_thru"], s["alu_lat"] * s["issue_thru"]), side="-"),
           # and one that beats a cusp somewhere (not Volkov's: made up so that the cusps have conditions to compare)
           extremum_domain.OpenEnd(sympy.oo, s["alu_lat"] * s["issue_thru"] + s["mem_lat"] * s["alu_thru"] / 2, side="-")]
    end, cusps = merged[0], merged[1:]
    assert not extremum_domain.interior([end]) and extremum_domain.interior(cusps) == cusps

    def compared(end_first: bool) -> list[tuple[sympy.Basic, ...]]:
        memo.clear_all()  # each job from cold memos, as a fresh process
        job, _ = jobs.start(model, "extremum", "n_needed", "alpha")
        before = extremum_choice.against_all(job, end, merged, far, "max") if end_first else None
        out = [extremum_choice.against_all(job, c, merged, far, "max") for c in cusps]
        assert not job.steps  # nothing recorded
        assert before is None or before  # the end is beaten somewhere: its comparisons were real work
        return out

    old, new = compared(end_first=True), compared(end_first=False)
    assert new == old
    assert all(new)  # each cusp beaten by the made-up far end somewhere: conditions compared
