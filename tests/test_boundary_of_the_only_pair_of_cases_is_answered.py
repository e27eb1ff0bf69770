"""A boundary asked without ``--between`` where the quantity has exactly one pair of regimes, two cases of a case table,
is answered as if the pair were named (an outside tester's round-13c finding F10: camp's camped|spread was refused with
"1 pairs of regimes ... name two cases with --between", though with one pair there is nothing to choose). Expected
switches by hand (the camped case holds for 999/1000 <= r <= 1001/1000) and, independently, by bisecting where the value
that Model.evaluate gives changes from t0*(1 + r/10) to 8*t0."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from conftest import toy_header
import symgpu

CAMP = toy_header("camp", "Partition camping", "Eight times slower near a stride ratio of 1.") + '''
[symbols]
r = { description = "stride over partition width", unit = "1", assumptions = ["positive"] }
t0 = { description = "base time", unit = "ns", assumptions = ["positive"] }
t = { description = "time", unit = "ns", role = "output" }

[[equations]]
id = "tt"
defines = "t"
source = { ref = "toy2026", locator = "1" }
cases = [{ id = "camped", when = "r >= 0.999 and r <= 1.001", value = "8*t0" }, { id = "spread", when = "otherwise", value = "t0*(1 + r/10)" }]

[presets.g]
description = "g"
source = { ref = "toy2026", locator = "t" }
values = { t0 = "100 ns" }
'''

EXPECTED = (Fraction(999, 1000), Fraction(1001, 1000))  # the two ends of the camped case's condition


def _camped(model: symgpu.Model, r: float) -> bool:
    return bool(model.evaluate("t", preset="g", r=r).to("ns").magnitude == 800.0)  # 8*t0, t0 = 100 ns


def _switch(model: symgpu.Model, low: float, high: float) -> float:
    first = _camped(model, low)
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _camped(model, mid) == first else (low, mid)
    return (low + high) / 2


def test_the_only_pair_of_cases_is_answered_without_between(cli, write_model) -> None:
    path = write_model(CAMP, name="camp")
    code, out, err = cli("--no-cache", "boundary", path, "t", "-p", "g", "--for", "r")
    assert code == 0, err
    assert "--between" not in err
    assert re.search(r"result: \(999/1000, 1001/1000\)", out)
    assert f"it switches at r = {float(EXPECTED[0]):g}, {float(EXPECTED[1]):g}, the regime differing on the two sides" in out
    # each value labelled by the regimes below|above it: spread below 0.999, camped between, spread above 1.001
    labelled = re.findall(r"([0-9.]+) \((\w+)\|(\w+)\)", out.split("value:")[1])
    assert [(float(v), below, above) for v, below, above in labelled] == \
        [(float(EXPECTED[0]), "spread", "camped"), (float(EXPECTED[1]), "camped", "spread")]


def test_the_answer_is_where_the_evaluated_case_changes(write_model) -> None:
    model = symgpu.load(write_model(CAMP, name="camp"))
    answer = model.boundary("t", for_="r")
    roots = answer.result.args if hasattr(answer.result, "args") else (answer.result,)
    assert tuple(Fraction(str(r)) for r in roots) == EXPECTED
    assert _switch(model, 0.9, 1.0) == pytest.approx(float(EXPECTED[0]), abs=1e-12)
    assert _switch(model, 1.0, 1.1) == pytest.approx(float(EXPECTED[1]), abs=1e-12)
