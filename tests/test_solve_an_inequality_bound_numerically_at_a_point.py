"""At a point that gives every other input, an inequality's least (``--kind min``) or greatest (``--kind max``) value
of a variable SymPy cannot isolate (Volkov's H100 ``dram_throughput`` in ``ilp``: ``ilp`` inside a log and outside it)
is found numerically: the change of the relation along a scan of the variable, bisected, and said "numeric" in the
method line. It was refused with two truncated expressions (an outside tester's finding, round 13a F8)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tests.conftest import bisect_sign_change

import symgpu

ASK = ("solve", "volkov_2016_h100", "dram_throughput", "--for", "ilp", "--target", "2.5 TB/s", "--preset", "h100_fit",
       "--set", "alpha=0", "--set", "n=16")


def _throughput(ilp: float | np.ndarray) -> np.ndarray:
    model = symgpu.load("volkov_2016_h100")
    return np.asarray(model.evaluate("dram_throughput", "h100_fit", values={"alpha": 0.0, "n": 16.0, "ilp": ilp}).to("GB/s").magnitude)


def _oracle() -> float:
    ilp = np.geomspace(0.01, 1000, 500)
    assert np.all(np.diff(_throughput(ilp)) > 0)  # rising in ilp: the crossing is the least ilp that reaches 2.5 TB/s
    return bisect_sign_change(lambda x: float(_throughput(x)) - 2500.0, 1.0, 16.0)


def _value(out: str) -> float:
    return float(out.split("value:")[1].split()[0])


def test_the_least_ilp_reaching_a_throughput_is_the_bisected_crossing_of_evaluate(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli(*ASK, "--relation", ">=", "--kind", "min")
    assert code == 0, err
    assert "method: numeric" in out and "least ilp" in out
    assert abs(_value(out) - _oracle()) < 1e-8 * _oracle()


def test_the_greatest_ilp_below_a_throughput_is_the_same_crossing(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli(*ASK, "--relation", "<=", "--kind", "max")
    assert code == 0, err
    assert "method: numeric" in out and "greatest ilp" in out
    assert abs(_value(out) - _oracle()) < 1e-8 * _oracle()


def test_a_bound_that_the_relation_holds_up_to_the_scan_edge_is_refused_in_one_line(cli: Callable[..., tuple[int, str, str]]) -> None:
    # dram_throughput <= 2.5 TB/s holds from the smallest ilp up: its least ilp is at the scan's first value or below
    code, out, err = cli(*ASK, "--relation", "<=", "--kind", "min")
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1
    assert "holds already at ilp" in err
