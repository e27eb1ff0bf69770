"""A boundary whose closed form keeps an intermediate quantity as a symbol (Volkov's knee
``n = Latency*mem_thru``) is valued at a point with that quantity from its equation (an outside
tester's finding: the command line asked for a value of ``Latency``, exit 2)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu


def test_the_knee_at_a_preset_is_valued_through_the_kept_latency(cli) -> None:
    model = symgpu.load("volkov_2016")
    preset = model.preset("maxwell")
    mem_lat, alu_lat = preset["mem_lat"].to("cycle").magnitude, preset["alu_lat"].to("cycle").magnitude
    mem_thru = preset["mem_thru"].magnitude
    knee = (mem_lat + 8 * alu_lat) * mem_thru  # Latency = mem_lat + alpha*alu_lat, alpha = 8; by hand 33.8624
    # on the evaluate path the memory bound binds from the knee on: throughput n/Latency below, mem_thru above
    n = np.array([knee * 0.99, knee * 1.01])
    throughput = model.evaluate("memory_throughput", "maxwell", values={"alpha": 8, "n": n}).magnitude
    assert throughput[0] == pytest.approx(n[0] / (mem_lat + 8 * alu_lat)) and throughput[1] < n[1] / (mem_lat + 8 * alu_lat)
    code, out, err = cli("boundary", "volkov_2016", "memory_throughput", "--between", "memory_bound", "latency_bound",
                         "--for", "n", "--preset", "maxwell", "--set", "alpha=8")
    assert code == 0, err
    value = float(next(x for x in out.splitlines() if x.strip().startswith("value:")).split()[1])
    assert value == pytest.approx(knee, rel=1e-9)
