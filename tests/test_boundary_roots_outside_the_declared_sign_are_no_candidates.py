"""A boundary answer whose closed form for one pair comes to a value outside the variable's declared sign at the point
(Hong & Kim's Synch_cost over Departure_del_uncoal at table2_example: one pair's root is -Coal_Mem_insts*.../...,
-0 with Coal_Mem_insts = 0) drops that value as no boundary there; the numeric check of the others still runs and says
which of them are crossings of arguments that do not bind (an outside tester's finding: the whole check was skipped,
"-0 cycle/txn violates the declared assumption 'positive'", and three crossings stood unmarked beside the one switch).
Expected values by brute force over ``Model.evaluate``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import symgpu

PRESET = "table2_example"


def _at(model: symgpu.Model, name: str, d: np.ndarray) -> np.ndarray:
    value = model.evaluate(name, PRESET, values={"Departure_del_uncoal": d}).magnitude
    return np.broadcast_to(np.asarray(value, dtype=float), np.shape(d))


def test_synch_cost_over_the_departure_delay_switches_once_and_its_other_crossings_are_marked(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("hong_kim_2009")
    # NpWB = Min(MWP, Active_warps_per_block): the block bound binds while MWP is above it; the switch by bisection
    low, high = 0.5, 100.0
    assert _at(model, "MWP", np.asarray([low]))[0] > _at(model, "Active_warps_per_block", np.asarray([low]))[0]
    assert _at(model, "MWP", np.asarray([high]))[0] < _at(model, "Active_warps_per_block", np.asarray([high]))[0]
    for _ in range(100):
        middle = (low + high) / 2
        if _at(model, "MWP", np.asarray([middle]))[0] >= _at(model, "Active_warps_per_block", np.asarray([middle]))[0]:
            low = middle
        else:
            high = middle
    switch = low
    code, out, err = cli("boundary", "hong_kim_2009", "Synch_cost", "--preset", PRESET, "--for", "Departure_del_uncoal", "--full")
    assert code == 0, err
    assert "not checked" not in out and "-0" not in out
    checked = next(line for line in out.splitlines() if "checked numerically" in line)
    assert float(re.search(r"it switches at Departure_del_uncoal = ([0-9.]+), the regime differing", checked).group(1)) == \
        pytest.approx(switch, rel=1e-5)
    crossed = [float(x) for x in re.search(r"the closed form's ([0-9., ]+) are no switches here", checked).group(1).split(",")]
    values = [float(v) for v in re.findall(r"[0-9.]+", out.split("value: ")[1].split("(preset")[0])]
    assert len(crossed) == 3
    assert values == pytest.approx([switch], rel=1e-6)  # the value line gives the switch only, not the crossings (14b F4)
    for c in crossed:  # the block bound binds on both sides of each crossing: MWP's arguments cross beneath it
        beside = np.asarray([c * 0.99, c * 1.01])
        assert np.all(_at(model, "Active_warps_per_block", beside) < _at(model, "MWP", beside)), c
