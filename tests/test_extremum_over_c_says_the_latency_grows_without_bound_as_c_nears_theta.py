"""An extremum over Volkov's fit coefficient ``c`` of a loaded latency valid when ``theta < c``: the latency
``a + b*theta/(c - theta) + alpha*alu_lat`` falls in ``c`` wherever ``b*theta > 0`` and grows without bound as ``c -> theta+``,
so it has no maximum (nor a minimum: it falls towards ``a + alpha*alu_lat`` as ``c -> oo``), and where ``b*theta = 0`` it does not
change with ``c``. Both were refused as "no critical point or regime boundary qualifies; it may be monotone — try limit".
The refusal now says why there is none (:func:`symgpu.derive.extremum_diverging.no_candidate`): the end where it grows without
bound, the value approached at the other, and where it is flat.

The expected behaviour is by hand from G80's preset (a = 453 cycle, b = 61 cycle, alu_lat = 20 cycle, 16 SMs, 128 B/winst,
1.35 GHz: theta = 27.648 GB/s at x = 0.01) and by brute force on ``Model.evaluate``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

import symgpu
from symgpu import derive

A, B, ALU, ALPHA = 453, 61, 20, 2
THETA = Fraction(1, 100) * 128 * 16 * Fraction(135, 100)  # GB/s at x = 0.01
AT = {"x": 0.01, "alpha": float(ALPHA)}


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _latency(volkov: symgpu.Model, c: float, x: float = 0.01) -> float:
    return float(volkov.evaluate("Latency_loaded", "g80", values={**AT, "x": x, "c": c}).magnitude)


def test_the_latency_falls_in_c_and_grows_without_bound_as_c_nears_theta(volkov: symgpu.Model) -> None:
    cs = [float(THETA) + 10.0 ** -k for k in range(6, -4, -1)]  # from just above theta outwards
    values = [_latency(volkov, c) for c in cs]
    for c, value in zip(cs, values):
        by_hand = A + B * THETA / (Fraction(c) - THETA) + ALPHA * ALU
        assert value == pytest.approx(float(by_hand), rel=1e-6)  # c - theta rounded in base units near the pole
    assert all(a > b for a, b in zip(values, values[1:]))  # falls in c: no c is the largest, nor the smallest
    assert values[0] > 1e9 and values[-1] - (A + ALPHA * ALU) < 2  # beyond any bound near theta; towards 493 far out


def test_where_x_is_0_the_latency_does_not_change_with_c(volkov: symgpu.Model) -> None:
    assert {_latency(volkov, c, x=0.0) for c in (1.0, 81.0, 1e6)} == {float(A + ALPHA * ALU)}


@pytest.mark.parametrize("quantity", ["Latency_loaded", "Latency_loaded_2term"])
def test_no_maximum_over_c_it_grows_without_bound_as_c_nears_theta_loaded(cli: Callable[..., tuple[int, str, str]], quantity: str) -> None:
    code, out, err = cli("extremum", "volkov_2016", quantity, "--over", "c", "--max")
    assert code == 2 and out == "" and "may be monotone" not in err
    assert f"{quantity} has no maximum over c wherever it changes with c: as c -> SMs*bytes_per_inst*clock*x from above it " \
        "grows without bound where b*x > 0" in err, err
    assert "where b = 0 or x = 0 it does not change with c (every c of the domain is a maximum there)" in err


def test_no_minimum_over_c_it_tends_to_a_plus_alpha_alu_lat_far_out(volkov: symgpu.Model, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = cli("extremum", "volkov_2016", "Latency_loaded", "--over", "c", "--min")
    assert code == 2 and "has no minimum over c wherever it changes with c: as c -> oo it tends to a + alpha*alu_lat" in err, err
    # at a point the infimum is the answer: 453 + 2*20 = 493 cycles, approached, never attained (the brute force above)
    answer = volkov.extremum("Latency_loaded", over="c", kind="min", preset="g80", values=AT)
    assert "no minimum: the infimum 493 cycle is approached as c -> oo" in answer.extra.elsewhere
    assert derive.evaluate_result(volkov, answer, "g80", **AT).magnitude == pytest.approx(A + ALPHA * ALU, rel=1e-12)


def test_memory_latency_over_c_names_theta_as_the_end_where_it_grows(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = cli("extremum", "volkov_2016", "memory_latency", "--over", "c", "--max")
    assert code == 2 and "as c -> theta from above it grows without bound where b*theta > 0" in err, err
