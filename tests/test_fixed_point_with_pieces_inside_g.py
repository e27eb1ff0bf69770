"""A fixed point x = Min(g(x), peak) whose g(x) has a Min/Max inside (a latency floor) has no closed form, but at a
point a bracketed numeric root (an outside tester's finding F3: it was refused with "needs Min(g(x), bounds free of x);
got 1 terms depending on x", a message that contradicted itself)."""

from __future__ import annotations

from fractions import Fraction

import symgpu
from tests.conftest import toy_header

_MODEL = toy_header("floor_fix", "Loaded latency with a floor", "x = Min(inflight/L(x), peak), L(x) = Max(a + b x/(c - x), 300)") + '''
[symbols.x]
description = "attained bandwidth (guess)"
unit = "GB/s"
assumptions = ["positive"]
[symbols.inflight]
description = "bytes in flight"
unit = "KiB"
assumptions = ["positive"]
[symbols.a]
description = "unloaded latency"
unit = "ns"
assumptions = ["positive"]
[symbols.b]
description = "contention coefficient"
unit = "ns"
assumptions = ["positive"]
[symbols.c]
description = "saturation bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.peak]
description = "peak bandwidth"
unit = "GB/s"
assumptions = ["positive"]
[symbols.L_loaded]
description = "loaded latency"
unit = "ns"
role = "intermediate"
[symbols.bw_next]
description = "bandwidth given x"
unit = "GB/s"
role = "output"

[[equations]]
id = "lat"
defines = "L_loaded"
rhs = "Max(a + b*x/(c - x), 300)"
valid_when = ["x < c"]
source = { ref = "toy2026", locator = "1" }

[[equations]]
id = "bw"
defines = "bw_next"
rhs = "Min(inflight/L_loaded, peak)"
source = { ref = "toy2026", locator = "2" }

[presets.gpu]
description = "GPU"
source = { ref = "toy2026", locator = "p" }
[presets.gpu.values]
inflight = "256 KiB"
a = "400 ns"
b = "50 ns"
c = "2000 GB/s"
peak = "1800 GB/s"

[presets.small_a]
description = "low latency"
source = { ref = "toy2026", locator = "p" }
based_on = "gpu"
[presets.small_a.values]
a = "100 ns"
'''


def _bisected(model: symgpu.Model, preset: str) -> float:
    """The root of x - bw_next(x) on (0, c) by bisection over Model.evaluate (bw_next(x) in GB/s)."""
    lo, hi = 1e-6, 2000.0 * (1 - 1e-12)
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid - model.evaluate("bw_next", preset=preset, values={"x": mid}).to("GB/s").magnitude < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def test_a_floor_inside_g_gives_the_bisected_fixed_point_at_a_preset(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    path = write_model(_MODEL, name="floor_fix")
    model = symgpu.load(path)
    # by hand on the 300 ns floor (a = 100 ns): x = 262144 B / 300 ns = 873.8133... GB/s, and there 100 + 50 x/(2000 - x) < 300
    on_floor = Fraction(262144, 300)
    assert 100 + 50 * on_floor / (2000 - on_floor) < 300
    for preset, expected in (("gpu", _bisected(model, "gpu")), ("small_a", float(on_floor))):
        code, out, err = cli("fixed-point", path, "bw_next", "--var", "x", "-p", preset)
        assert code == 0, err
        value = model.fixed_point("bw_next", "x", preset=preset).extra.value_at
        assert abs(value - expected) <= 1e-9 * expected
        assert "checked numerically" in out and "g(x) has Min/Max/Piecewise in it" in out
    assert abs(_bisected(model, "small_a") - float(on_floor)) <= 1e-9 * float(on_floor)


def test_a_floor_inside_g_proves_g_non_increasing_so_the_root_is_unique(write_model) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load(write_model(_MODEL, name="floor_fix"))
    steps = {s.operation: s.justification for s in model.fixed_point("bw_next", "x", preset="gpu").steps}
    assert "non-increasing" in steps["monotone"] and "at most one root" in steps["monotone"]


def test_a_floor_inside_g_without_a_point_asks_for_one_in_a_sentence_that_holds(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("fixed-point", write_model(_MODEL, name="floor_fix"), "bw_next", "--var", "x")
    assert code != 0 and out == ""
    assert "g(x) has Min/Max/Piecewise in it" in err and "--preset, --set" in err
    assert "got 1 terms" not in err and "Traceback" not in err
