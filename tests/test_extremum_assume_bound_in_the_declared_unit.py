"""An ``--assume`` bound on a variable declared in a scaled unit (L_M in ns, Theta_M in GB/s) is read
in that unit by extremum, as by solve, boundary and limit: the end it makes is that many ns, not
seconds (the end was put into the quantity as 200 s, and the check refused every such question)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import symgpu
from symgpu.derive import extrema
from symgpu.evaluate import evaluator

Cli = Callable[..., tuple[int, str, str]]

POINT = ("-p", "a100_pcie_40gb+neusight_fit", "-s", "elements=1000000", "-s", "operands=3", "-s", "threads_per_block=128",
         "-s", "inflight_per_thread=32")


def _value_and_location(out: str) -> tuple[float, float]:
    line = next(x for x in out.splitlines() if x.strip().startswith("value:"))
    words = line.split()
    return float(words[1]), float(words[words.index("=") + 1])


@pytest.mark.parametrize("kind, bound", [("--max", "L_M <= 200"), ("--min", "L_M >= 200")])
def test_an_assumed_end_in_ns_is_the_extremum_in_ns(cli: Cli, kind: str, bound: str) -> None:
    # blocks = 20: t_kernel = t_launch + max(t_mem, t_lat), t_lat = bytes*L_M/(blocks*tpb*inflight) rises with L_M and binds
    # (t_mem = 12e6 B/(0.902*1555 GB/s) = 8.555 us); at L_M = 200 ns: 19.3 us + 12e6*200e-9/(20*128*32) s = 19.3 + 29.296875 us
    code, out, err = cli("extremum", "kernel_streaming", "t_kernel", "--over", "L_M", kind, *POINT, "-s", "blocks=20",
                         "--assume", bound)
    assert code == 0, err
    value, location = _value_and_location(out)
    assert value == pytest.approx(48.596875, rel=1e-9)
    assert location == pytest.approx(200, rel=1e-12)


def test_an_assumed_end_in_gb_per_s_is_read_in_gb_per_s(cli: Cli) -> None:
    # blocks = 2000: at Theta_M = 100 GB/s the memory time 12e6 B/(0.902*100 GB/s) = 133.0377 us binds (the latency
    # time 12e6*330e-9/(2000*4096) s = 0.4834 us does not) and falls as Theta_M rises: the minimum over Theta_M <= 100 is there,
    # 19.3 + 133.0376940 = 152.3376940 us
    code, out, err = cli("extremum", "kernel_streaming", "t_kernel", "--over", "Theta_M", "--min", *POINT, "-s", "blocks=2000",
                         "--assume", "Theta_M <= 100")
    assert code == 0, err
    value, location = _value_and_location(out)
    assert value == pytest.approx(19.3 + 12e6 / (0.902 * 100e9) * 1e6, rel=1e-9)
    assert location == pytest.approx(100, rel=1e-12)


def test_an_assumed_end_in_gb_per_s_is_shown_as_the_location_in_gb_per_s(cli: Cli) -> None:
    # the location is that end, 100 GB/s: its first line says so in the variable's unit, not 100000000000 (B/s) bare
    code, out, err = cli("extremum", "kernel_streaming", "t_kernel", "--over", "Theta_M", "--min", *POINT, "-s", "blocks=2000",
                         "--assume", "Theta_M <= 100")
    assert code == 0, err
    assert out.splitlines()[1] == "  at Theta_M = 100 GB/s"


def test_an_assumed_end_in_a_closed_form_without_a_point_is_read_in_ns() -> None:
    # the closed form's location is a Piecewise whose first branch is the end (a number) and whose others are
    # expressions in ns: the number was written in base units (1/5000000 s) and read beside them as ns, so the
    # check found the quantity at L_M = 2e-7 ns, not at 200 ns, and refused the answer. At the point of the
    # test above (blocks = 20) the end is the maximum: L_M = 200 ns, t_kernel = 19.3 + 29.296875 us (by hand there)
    model = symgpu.load("kernel_streaming")
    found = model.extremum("t_kernel", over="L_M", kind="max", assume=["L_M <= 200"])
    values = {"elements": 1000000, "operands": 3, "threads_per_block": 128, "inflight_per_thread": 32, "blocks": 20}
    at = evaluator.evaluate_expression(model, found.location, model.units["L_M"], preset="a100_pcie_40gb+neusight_fit", values=values)
    value = evaluator.evaluate_expression(model, found.result, model.units["t_kernel"], preset="a100_pcie_40gb+neusight_fit",
                                          values=values)
    assert at.magnitude == pytest.approx(200, rel=1e-12)
    assert value.magnitude == pytest.approx(48.596875, rel=1e-9)


def test_an_assumed_end_among_plateau_edges_is_written_in_ns_once() -> None:
    # the minimum over L_M <= 200 without a point: where no critical point applies, the best of the ends and
    # plateau edges (a Piecewise of its own, spliced into the answer) follows; its number 200 was written in ns
    # twice (2e11 ns). At blocks = 2000 the whole range is on the memory-bound plateau (the latency bound's edge
    # is above 200 ns), so the end 200 ns is a minimum: t_kernel = 19.3 us + 12e6 B/(0.902*1555 GB/s) = 27.8554788 us
    model = symgpu.load("kernel_streaming")
    found = extrema.extremum(model, "t_kernel", over="L_M", kind="min", assume=["L_M <= 200"])
    values = {"elements": 1000000, "operands": 3, "threads_per_block": 128, "inflight_per_thread": 32, "blocks": 2000}
    at = evaluator.evaluate_expression(model, found.location, model.units["L_M"], preset="a100_pcie_40gb+neusight_fit", values=values)
    value = evaluator.evaluate_expression(model, found.result, model.units["t_kernel"], preset="a100_pcie_40gb+neusight_fit",
                                          values=values)
    assert at.magnitude == pytest.approx(200, rel=1e-12)
    assert value.magnitude == pytest.approx(19.3 + 12e6 / (0.902 * 1555e9) * 1e6, rel=1e-9)
