"""Tester round 7, F9: a limit at a finite point, one-sided, through a Min/Max whose winner near the point
the argument-by-argument rule cannot see (Baghsorkhi's alu = Max(1/alu_thru, alu_lat/n) inside a sum with
a factor (n - 1) of open sign): the argument that wins just beside the point (its gap to the others tends
to oo there) is put in first. Expected values by hand from the model file, and growth checked by brute
force on the evaluate path."""

from __future__ import annotations

import sympy

import symgpu
from symgpu import derive


def test_baghsorkhis_warp_latency_grows_without_bound_and_throughput_tends_to_0_as_n_goes_to_0():
    # g80: alu = Max(4, 20/n) -> 20/n; Latency_exposed = 444 - (n - 1)*(5*20/n + 4) -> +oo as n -> 0+, so
    # Warp_latency = 5*alu + Max(LatencyBW, Latency_exposed) -> oo and arithmetic_throughput = 32*5/Warp_latency -> 0
    model = symgpu.load("prior_baghsorkhi")
    near = [float(model.evaluate("Warp_latency", "g80", values={"alpha": 5, "n": n}).magnitude) for n in (1e-3, 1e-6)]
    assert near[1] > 900 * near[0] > 1e5  # ~ 200/n
    latency = model.limit("Warp_latency", "n", "0", preset="g80", values={"alpha": 5})
    assert latency.result == sympy.oo
    throughput = model.limit("arithmetic_throughput", "n", "0", direction="+", preset="g80", values={"alpha": 5})
    assert throughput.result == 0
    assert float(derive.evaluate_result(model, throughput, "g80", alpha=5).magnitude) == 0.0


def test_streaming_time_grows_without_bound_as_blocks_go_to_0_at_a_full_point(cli):
    # tester round 8, F6: kernel_streaming at a100 with every input but blocks given: active_blocks = Min(max_blocks_SM = 32,
    # blocks/108, floor(64/ceiling(128/32)) = 16) is blocks/108 near 0, whose gap to the others the symbols alone leave open;
    # t_latency = bytes*L_M/(blocks*threads*inflight) = 12e6*330e-9/(blocks*4096) s by hand -> +oo, and t_kernel with it
    model = symgpu.load("kernel_streaming")
    at = {"elements": 1000000, "operands": 3, "threads_per_block": 128, "inflight_per_thread": 32}
    near = [float(model.evaluate("t_kernel", "a100_pcie_40gb+neusight_fit", values={**at, "blocks": b}).to("us").magnitude) for b in (1e-2, 1e-5)]
    assert near[1] > 900 * near[0] > 1e5  # ~ 966.8/blocks us
    args = ["--var", "blocks", "--to", "0", "-p", "a100_pcie_40gb+neusight_fit", *[part for k, v in at.items() for part in ("-s", f"{k}={v}")]]
    for quantity in ("t_kernel", "t_latency"):
        code, out, err = cli("limit", "kernel_streaming", quantity, *args)
        assert code == 0, err
        assert "value: oo us" in out
