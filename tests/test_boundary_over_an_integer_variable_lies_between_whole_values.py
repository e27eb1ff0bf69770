"""A boundary over a variable declared integer whose closed form is no whole number at the point is answered: the switch
lies between the two whole values beside it, each side's regime read from the model there (outside testers' finding
round 15a U3: Little's law on an H100 switches at n = 2875 GB/s x 340.909 ns / (128 B x 132 SM) = 58.0086 warps/SM; the
answer was refused with reasons that did not apply)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import symgpu
from symgpu import derive
from tests.conftest import toy_header

# the testers' model file (/work/fresh_q15a/models/little.toml), its tables written inline
_LITTLE = toy_header("little", "Little's law streaming throughput with integer warps", "Min(warps x ILP x bytes x SMs / latency, peak)") + \
    '''[symbols]
n = { description = "resident warps per SM", unit = "warp/SM", assumptions = ["positive", "integer"] }
ilp = { description = "independent loads per warp", unit = "winst/warp", assumptions = ["positive"] }
L = { description = "memory latency", unit = "ns", assumptions = ["positive"] }
bytes = { description = "bytes per warp load", unit = "B/winst", assumptions = ["positive"] }
SMs = { description = "SMs", unit = "SM", assumptions = ["positive"] }
peak = { description = "peak bandwidth", unit = "GB/s", assumptions = ["positive"] }
thr = { description = "throughput", unit = "GB/s", role = "output" }
[[equations]]
id = "little"
defines = "thr"
rhs = "Min(n*ilp*bytes*SMs/L, peak)"
source = { kind = "derived", note = "Little" }
limiters = { latency_bound = "n*ilp*bytes*SMs/L", peak_bound = "peak" }
[presets.h100]
description = "H100 measured"
source = { kind = "measured", note = "data/h100" }
values = { L = "340.909 ns", bytes = "128 B/winst", SMs = "132 SM", peak = "2875 GB/s", ilp = "1 winst/warp" }
'''

#: by hand: n*128 B*132 SM/340.909 ns = 2875 GB/s (B/ns = GB/s)
SWITCH = Fraction(2875) * Fraction("340.909") / (128 * 132)


def _regime_at(model: symgpu.Model, n: int) -> str:
    """Which limiter binds at n, by brute force on Model.evaluate: the latency bound alone against the peak."""
    thr = model.evaluate("thr", "h100", values={"n": n}).to("GB/s").magnitude
    return "peak_bound" if thr == pytest.approx(2875, rel=1e-12) else "latency_bound"


def test_the_switch_between_58_and_59_warps_is_answered_with_both_sides(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    path = write_model(_LITTLE, name="little")
    assert 58 < SWITCH < 59
    model = symgpu.load(path)
    assert (_regime_at(model, 58), _regime_at(model, 59)) == ("latency_bound", "peak_bound")
    code, out, err = cli("boundary", path, "thr", "--for", "n", "--preset", "h100")
    assert code == 0, err
    assert "value: 58.00860411 warp/SM" in out
    assert ("n is declared integer: the switch at 58.00860411 lies between the whole values 58 and 59: latency_bound at "
            "n <= 58, peak_bound at n >= 59 (the model evaluated at both)") in out
    code, out, err = cli("boundary", path, "thr", "--for", "n", "--preset", "h100", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["value"] == pytest.approx(float(SWITCH), rel=1e-14)
    assert data["whole_sides"] == [{"value": pytest.approx(float(SWITCH), rel=1e-14), "below": 58, "above": 59,
                                    "regime_below": "latency_bound", "regime_above": "peak_bound"}]
    assert data["certificate"]["checked"]


def test_the_api_gives_the_boundary_value(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(_LITTLE, name="little"))
    found = model.boundary("thr", None, for_="n", preset="h100")
    assert derive.evaluate_result(model, found, "h100").magnitude == pytest.approx(float(SWITCH), rel=1e-14)


def test_a_solve_over_an_integer_variable_refuses_a_fractional_root_saying_so(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    # thr = 2000 GB/s at n = 2000*340.909/(128*132) = 40.35 (latency-bound there): no whole number of warps gives it, so no
    # root; the refusal says that, not that no regime's conditions are met
    path = write_model(_LITTLE, name="little")
    root = Fraction(2000) * Fraction("340.909") / (128 * 132)
    assert 40 < root < 41 and root < SWITCH
    code, out, err = cli("solve", path, "thr", "--for", "n", "--target", "2000 GB/s", "--preset", "h100")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"n = {float(root):.10g} (latency_bound) is no whole number and n is declared integer" in err
    assert "conditions met" not in err
