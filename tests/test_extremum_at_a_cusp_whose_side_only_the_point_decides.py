"""Extrema at a point that crashed or were missed (an outside tester's findings F5, F7). Hong & Kim's Synch_cost over
Departure_del_uncoal at table2_example peaks at the cusp where NpWB = Min(MWP, Active_warps_per_block) switches to
MWP_Without_BW: the separating condition's slope has no sign in symbols, so the cusp was no candidate ("SymPy could not
decide a step" from an open end's Min of zoo, and with a bound the end 9600 caught by the check). Volkov ILP's
memory_throughput_ilp over alpha: a plateau edge at alpha = 0, where another condition's alu_thru/alpha is zoo, crashed.
Expected values by brute force over ``Model.evaluate``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import symgpu


def _answer(out: str) -> tuple[float, float]:
    found = re.search(r"value: ([0-9.e+-]+) \S+ at \S+ = ([0-9.e+-]+)", out)
    assert found, out
    return float(found.group(1)), float(found.group(2))


def _scan(model: symgpu.Model, name: str, preset: str, variable: str, xs: np.ndarray, values: dict[str, float]) -> np.ndarray:
    value = model.evaluate(name, preset, values={**values, variable: xs}).magnitude
    return np.broadcast_to(np.asarray(value, dtype=float), xs.shape)


@pytest.mark.parametrize("bound", [(), ("--assume", "Departure_del_uncoal <= 100")])
def test_the_synchronization_cost_peaks_at_the_cusp_of_the_departure_delay(cli, bound: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("hong_kim_2009")
    xs = np.arange(0.01, 100.0, 5e-4)
    costs = _scan(model, "Synch_cost", "table2_example", "Departure_del_uncoal", xs, {})
    best = int(np.argmax(costs))
    # the cusp: where MWP falls to Active_warps_per_block (bisection on the evaluate path)
    low, high = float(xs[best - 1]), float(xs[best + 1])
    for _ in range(80):
        middle = (low + high) / 2
        mwp, block = (_scan(model, q, "table2_example", "Departure_del_uncoal", np.asarray([middle]), {})[0]
                      for q in ("MWP", "Active_warps_per_block"))
        low, high = (middle, high) if mwp >= block else (low, middle)
    peak = float(_scan(model, "Synch_cost", "table2_example", "Departure_del_uncoal", np.asarray([low]), {})[0])
    assert peak >= costs[best]
    code, out, err = cli("extremum", "hong_kim_2009", "Synch_cost", "--preset", "table2_example", "--over", "Departure_del_uncoal",
                         "--max", *bound)
    assert code == 0, err
    value, location = _answer(out)
    assert location == pytest.approx(low, rel=1e-8) and value == pytest.approx(peak, rel=1e-8)


@pytest.mark.parametrize("kind, bound", [("--max", ()), ("--min", ("--assume", "alpha <= 100"))])
def test_the_ilp_memory_throughput_extremum_over_alpha_is_answered(cli, kind: str, bound: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("volkov_2016_ilp")
    xs = np.concatenate([np.arange(0.0, 100.0, 1e-3), [100.0]])
    values = _scan(model, "memory_throughput_ilp", "h100", "alpha", xs, {"n": 64, "ilp": 1})
    best = float(values.max() if kind == "--max" else values.min())
    code, out, err = cli("extremum", "volkov_2016_ilp", "memory_throughput_ilp", "--preset", "h100", "--set", "n=64",
                         "--set", "ilp=1", "--over", "alpha", kind, *bound)
    assert code == 0, err
    value, location = _answer(out)
    assert value == pytest.approx(best, rel=1e-9)
    at = float(_scan(model, "memory_throughput_ilp", "h100", "alpha", np.asarray([location]), {"n": 64, "ilp": 1})[0])
    assert at == pytest.approx(best, rel=1e-9)
