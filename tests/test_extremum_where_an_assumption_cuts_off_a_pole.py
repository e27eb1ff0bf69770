"""An extremum whose variable has a strict ``valid_when`` edge with a pole (Volkov's ``memory_latency = a + b*theta/(c -
theta)``, ``theta < c``) and an ``--assume`` bound that cuts the variable off before it: the pole's infinity was said to be
approached (\"no maximum: it tends to oo as theta -> c\") though the assumed range never reaches it, the numeric edge of the
evaluate path's domain (theta = 170 GB/s) was offered as a candidate beyond the assumed end, and the assumed end's value,
a number in GB/s put into ``c - theta``, was read as 150e9 GB/s (an outside tester's finding, round 10, F3). Expected values
by hand (kepler: a = 300 cy, b = 32 cy, c = 170 GB/s) or by brute force over Model.evaluate."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, errors


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.mark.parametrize(("kind", "bound", "value", "where"), [
    ("max", "theta <= 150", 540.0, 150.0),        # 300 + 32*150/(170 - 150)
    ("max", "theta <= c/2", 332.0, 85.0),         # 300 + 32*85/85
    ("min", "theta >= 100", 2420 / 7, 100.0),     # 300 + 32*100/70, increasing in theta
])
def test_the_extremum_at_a_point_is_at_the_assumed_end_before_the_pole(volkov, kind: str, bound: str, value: float, where: float) -> None:
    found = volkov.extremum("memory_latency", over="theta", kind=kind, preset="kepler", assume=[bound])
    assert derive.evaluate_result(volkov, found, "kepler").to("cycle").magnitude == pytest.approx(value, rel=1e-12)
    assert derive.evaluate_result(volkov, found, "kepler", which="location").to("GB/s").magnitude == pytest.approx(where, rel=1e-12)


def test_the_answer_without_a_point_under_a_symbolic_bound_is_the_value_there(volkov) -> None:
    found = volkov.extremum("memory_latency", over="theta", kind="max", assume=["theta <= c/2"])
    a, b, c = (volkov.symbols[n] for n in ("a", "b", "c"))
    for at in ({a: 300, b: 32, c: 170}, {a: 128, b: 7, c: 16}):  # a + b*(c/2)/(c - c/2) = a + b
        assert found.result.xreplace(at) == at[a] + at[b]
        assert found.location.xreplace(at) == sympy.Rational(at[c], 2)


def test_a_numeric_bound_in_a_scaled_unit_without_a_point_is_refused_saying_to_ask_at_a_point(volkov) -> None:
    with pytest.raises(errors.DerivationError, match=r"no closed form.*--preset"):
        volkov.extremum("memory_latency", over="theta", kind="max", assume=["theta <= 150"])


def test_without_the_assumption_the_pole_still_leaves_no_maximum(volkov) -> None:
    with pytest.raises(errors.DerivationError, match=r"no maximum.*tends to oo as theta -> c"):
        volkov.extremum("memory_latency", over="theta", kind="max", preset="kepler")


def test_the_h100_latency_maximum_below_its_pole_is_the_brute_force_one() -> None:
    model = symgpu.load("volkov_2016_h100")
    given = {"n": 8.0, "ilp": 2.0, "alpha": 0.0}
    found = model.extremum("Latency_h100", over="x", kind="max", preset="h100_fit", values=given, assume=["x <= 0.05"])
    grid = np.linspace(0.0, 0.05, 5001)  # the assumed range (the pole lies at x = 0.0938...)
    brute = np.asarray(model.evaluate("Latency_h100", preset="h100_fit", values={**given, "x": grid}).to("cycle").magnitude, dtype=float)
    assert derive.evaluate_result(model, found, "h100_fit", **given).to("cycle").magnitude == pytest.approx(brute.max(), rel=1e-12)
    assert float(derive.evaluate_result(model, found, "h100_fit", which="location", **given).magnitude) == pytest.approx(0.05, rel=1e-12)
