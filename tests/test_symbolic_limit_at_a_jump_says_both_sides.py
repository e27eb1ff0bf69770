"""A limit in symbols at a finite point with no side asked (``direction=None``, the CLI's default) takes both
one-sided limits: equal, it says the limit is two-sided; different, it says there is no two-sided limit and
gives the limit from below beside the one from above (the result), each labelled.

mdm_2019's ``S_Total_MDM`` jumps at ``W = MSHRs/M_Read`` (non-MSHR-dominated below, MSHR-dominated above); the
symbolic limit there returned the right-hand limit with no word of a side (tester round 14a, F11).
"""

from __future__ import annotations

import re

import pytest

import symgpu


def _near(model: symgpu.Model, quantity: str, variable: str, at: float, side: float, preset: str, values: dict) -> float:
    """The model's own value just beside the point (evaluate path), the oracle for each one-sided limit."""
    x = at * (1 + side * 1e-9)
    return float(model.evaluate(quantity, preset, values={**values, variable: x}).magnitude)


def test_a_jump_in_symbols_says_no_two_sided_limit_and_gives_both_sides() -> None:
    m = symgpu.load("mdm_2019")
    d = m.limit("S_Total_MDM", "W", "MSHRs/M_Read")
    note = d.extra.elsewhere or ""
    assert "no two-sided limit" in note and "from above" in note and "from below it is" in note
    case = m.validation_inputs["mshr_stall_md"]
    values = {k: v for k, v in case.inputs if k != "W"}
    point = float((m.preset(case.case.preset)["MSHRs"] / values["M_Read"]).to("warp/SM").magnitude)
    above = _near(m, "S_Total_MDM", "W", point, +1, case.case.preset, values)
    below = _near(m, "S_Total_MDM", "W", point, -1, case.case.preset, values)
    assert abs(above - below) > 1  # the jump itself, read on the evaluate path
    said = re.search(r"([0-9.e+-]+) from above, ([0-9.e+-]+) from below", note)
    assert said is not None
    assert float(said.group(1)) == pytest.approx(above, rel=1e-6)
    assert float(said.group(2)) == pytest.approx(below, rel=1e-6)
    # the result is the side above, valued where the evaluate path reads it
    got = symgpu.derive.evaluate_result(m, d, case.case.preset, **values)
    assert float(got.magnitude) == pytest.approx(above, rel=1e-6)


def test_a_continuous_point_in_symbols_says_the_limit_is_two_sided() -> None:
    v = symgpu.load("volkov_2016")
    d = v.limit("memory_throughput", "n", "Latency*mem_thru")
    assert "this is the two-sided limit" in (d.extra.elsewhere or "")
    # both sides read on the evaluate path at maxwell, alpha = 1: n = 374 * 0.0814 is where n/Latency meets mem_thru
    point = 374 * 0.0814
    above = _near(v, "memory_throughput", "n", point, +1, "maxwell", {"alpha": 1})
    below = _near(v, "memory_throughput", "n", point, -1, "maxwell", {"alpha": 1})
    assert above == pytest.approx(below, rel=1e-8) and above == pytest.approx(0.0814, rel=1e-8)


def test_an_asked_side_is_answered_alone() -> None:
    v = symgpu.load("volkov_2016")
    d = v.limit("memory_throughput", "n", "Latency*mem_thru", direction="+")
    assert not d.extra.elsewhere
