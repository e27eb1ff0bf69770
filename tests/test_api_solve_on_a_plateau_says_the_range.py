"""The API's value of a solve whose target is a flat regime's value at the point (a plateau: every n past the knee)
says the relation holds on a range there, as the command line does, not "no root lies in its regime" (outside round
11a, F4: a script read that as an unreachable throughput). Brute force over Model.evaluate: the quantity is the
target at and past the knee n = mem_thru*(mem_lat + alpha*alu_lat), computed here from the preset's numbers."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors
from symgpu.derive import evaluate_result


def test_a_throughput_plateau_target_is_said_to_hold_on_a_range():
    volkov = symgpu.load("volkov_2016")
    kepler = volkov.preset("kepler")
    target = kepler["mem_thru"].to("winst/cycle/SM").magnitude
    knee = target * (kepler["mem_lat"] + 8 * kepler["alu_lat"]).to("cycle").magnitude  # 0.1338*373 warps/SM (an instruction counts 1)
    for n in (knee, knee * 1.5, knee * 10):
        assert volkov.evaluate("memory_throughput", "kepler", n=n, alpha=8).to("winst/cycle/SM").magnitude == pytest.approx(target)
    derivation = volkov.solve("memory_throughput", for_="n", target=target, preset="kepler", values={"alpha": 8})
    with pytest.raises(errors.NoAnswerHere, match="holds on a range there") as raised:
        evaluate_result(volkov, derivation, "kepler", alpha=8)
    assert "n >= mem_thru*(alpha*alu_lat + mem_lat)" in str(raised.value)
