"""An extremum at a point whose value holds over a whole stretch of the variable says so in the short answer, not only
one end of it as "the" maximiser (an audit's finding: ``extremum hong_kim_2009 CWP --over N --max`` named N = 77.8,
while CWP = Min(CWP_full, N) is CWP_full for every N >= CWP_full; ``--full`` showed the plateau, the answer did not).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction

import pytest

import symgpu

CWP = ("extremum", "hong_kim_2009", "CWP", "--over", "N", "--max", "--preset", "gtx280+tiled_matmul")


def test_hong_kim_cwp_is_flat_from_cwp_full_on(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli(*CWP, "--json")
    assert code == 0
    stretch = json.loads(out)["flat_stretch"]
    # the second path: CWP_full evaluated by eval (Eq. 8 at the preset), not by the derivation
    model = symgpu.load("hong_kim_2009")
    full = model.evaluate("CWP_full", "gtx280+tiled_matmul").magnitude
    assert stretch["low"] == pytest.approx(full, rel=1e-12) and stretch["high"] is None and not stretch["low_open"]
    assert stretch["regime"] == "computation_bound"
    # brute force: the model's CWP is the same beyond it, and smaller just below it
    for n in (full * 1.001, full * 2, full * 100):
        assert model.evaluate("CWP", "gtx280+tiled_matmul", values={"N": n}).magnitude == pytest.approx(full, rel=1e-12)
    assert model.evaluate("CWP", "gtx280+tiled_matmul", values={"N": full * 0.99}).magnitude < full


def test_the_short_answer_says_the_stretch(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli(*CWP)
    assert code == 0
    flat = [line for line in out.splitlines() if line.startswith("  flat: ")]
    assert len(flat) == 1
    assert flat[0].startswith("  flat: the maximum holds for every N >= 77.81818182 warp/SM, not only at N = 77.81818182")
    assert "computation_bound binds and does not depend on N" in flat[0]


def test_volkov_memory_throughput_is_flat_from_the_memory_bound_on(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("extremum", "volkov_2016", "memory_throughput", "--over", "n", "--max", "--preset", "maxwell",
                       "--set", "alpha=1", "--json")
    assert code == 0
    stretch = json.loads(out)["flat_stretch"]
    # by hand: memory_throughput = Min(n/Latency, mem_thru, ...) meets mem_thru at n = Latency*mem_thru,
    # Latency = mem_lat + alpha*alu_lat = 368 + 6 = 374 cycles, mem_thru = 0.0814 on Maxwell
    assert stretch["low"] == pytest.approx(float(374 * Fraction("0.0814")), rel=1e-12)
    assert stretch["high"] is None and stretch["regime"] == "memory_bound"


def test_an_extremum_at_an_isolated_point_says_no_stretch(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "kepler", "--json")
    assert code == 0
    assert "flat_stretch" not in json.loads(out)
    code, out, _ = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "kepler")
    assert code == 0 and "flat:" not in out


def test_the_stretch_text_writes_open_and_closed_ends() -> None:
    from symgpu.cli.flat_stretch import FlatStretch
    assert "every x in (0, 4] B" in FlatStretch(0.0, 4.0, True, "r").text("x", "B", "min", 4.0)
    assert "every x in [1, 4]" in FlatStretch(1.0, 4.0, False, "r").text("x", "1", "max", 1.0)
    assert "every x > 0" in FlatStretch(0.0, math.inf, True, "r").text("x", "", "max", 3.0)
