"""Two questions on Volkov's H100 model that ran for minutes (round-10 finding 4) end in seconds: the solve
for ilp, whose equation holds ilp both inside log(ilp/ilp_ref) and outside it (no closed form, Lambert's W at
best, even with the point's numbers in: sympy.solve ran past 400 s), is refused at once saying so; the
extremum over theta_target (declared in GB/s, so a bare root was not read alike and the closed-form critical
points in a dozen symbols were tidied for minutes) solves its critical points with the numbers in first and
says there is no maximum, the quantity rising without bound towards the capacity pole. Expected values from
Model.evaluate, not from the derivation."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sympy

from conftest import bisect_sign_change
import symgpu
from symgpu.derive import roots


@contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: the question ran for minutes before the fix."""
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_variable_inside_a_log_and_outside_it_is_told_apart_from_one_inside_only():
    x = sympy.Symbol("x", positive=True)
    assert roots.transcendental_in(x + 3 * sympy.log(x / 2), x) == [sympy.log(x / 2)]
    assert roots.transcendental_in(sympy.log(x) ** 2 + 1, x) == []  # log(x) alone: solved for log(x)
    assert roots.transcendental_in(x ** 2 + sympy.log(2) * x, x) == []  # a log of numbers only


def test_h100_dram_throughput_solved_for_ilp_at_a_point_ends_in_seconds_with_its_numeric_root(cli):
    # no closed form (ilp inside log(ilp/ilp_ref) and outside it: SymPy tried Lambert's W past 400 s); at a point that
    # gives every other input the root is found on the evaluate path and checked (it was refused, pointing to a sweep)
    with _deadline(60):
        code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp",
                             "--target", "2000 GB/s", "-p", "h100_fit", "-s", "n=16", "-s", "alpha=8")
    assert code == 0, err
    assert "method: numeric" in out
    model = symgpu.load("volkov_2016_h100")

    def excess(ilp: float) -> float:
        return model.evaluate("dram_throughput", preset="h100_fit", n=16, alpha=8, ilp=ilp).to("GB/s").magnitude - 2000

    expected = bisect_sign_change(excess, 1, 16)
    assert 4.2 < expected < 4.22  # the tester's Brent: 4.21068
    value = float(next(line for line in out.splitlines() if line.startswith("  value:")).split()[1])
    assert value == pytest.approx(expected, rel=1e-9)


def test_h100_dram_throughput_solved_for_ilp_without_a_point_is_refused_at_once_naming_the_log(cli):
    with _deadline(60):
        code, out, err = cli("--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp", "--target", "2000 GB/s")
    assert code != 0 and out == ""
    assert "no closed form" in err and "log(ilp/ilp_ref)" in err and "at a point" in err
    assert "no root" not in err and "no admissible" not in err  # a root exists at a point: the refusal must not deny it


def test_loads_in_flight_needed_has_no_maximum_over_theta_target_it_rises_to_the_capacity_pole(cli):
    with _deadline(120):
        code, out, err = cli("--no-cache", "extremum", "volkov_2016_h100", "loads_in_flight_needed", "--over", "theta_target",
                             "--max", "-p", "h100_fit", "-s", "ilp=2", "-s", "alpha=0")
    model = symgpu.load("volkov_2016_h100")
    at = {"preset": "h100_fit", "ilp": 2, "alpha": 0}
    # the pole: x_target = capacity_h100, theta = capacity_h100 * bytes_per_inst * SMs * clock (valid_when x_target < capacity)
    # x_target = theta_target/(bytes_per_inst*SMs*clock) is linear in theta_target: read its slope at 1 GB/s (bare inputs are in the declared unit)
    capacity = model.evaluate("capacity_h100", **at).magnitude
    per_gbs = model.evaluate("x_target", theta_target=1, **at).to(model.evaluate("capacity_h100", **at).units).magnitude
    pole = capacity / per_gbs  # GB/s: 3139.56 (the tester's own implementation)
    near = [model.evaluate("loads_in_flight_needed", theta_target=pole * (1 - d), **at).magnitude for d in (1e-2, 1e-4, 1e-6)]
    assert near[0] < near[1] < near[2] and near[2] > 100 * near[0]  # unbounded below the pole: no maximum
    assert code == 2 and out == "", err
    assert "no maximum" in err and f"{pole:.6g} GB/s" in err
