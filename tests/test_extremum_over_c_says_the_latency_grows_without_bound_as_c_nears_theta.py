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


def test_a_valid_when_alpha_above_0_makes_0_an_open_end_where_the_memory_need_grows_without_bound(
        volkov: symgpu.Model, cli: Callable[..., tuple[int, str, str]]) -> None:
    # mem_in_exec = mem_lat*alu_thru/alpha (valid when alpha > 0; alpha declared nonnegative): 444*0.25/alpha at G80 grows
    # without bound as alpha -> 0+; the end at 0 was never examined ("may be monotone")
    for alpha in (1e-3, 1e-6, 1e-9):
        value = volkov.evaluate("mem_in_exec", "g80", values={"alpha": alpha}).magnitude
        assert value == pytest.approx(444 * 0.25 / alpha, rel=1e-12)
    for quantity in ("mem_in_exec", "n_large_alpha", "warps_needed_cuda"):
        code, _, err = cli("extremum", "volkov_2016", quantity, "--over", "alpha", "--max")
        assert code == 2 and f"{quantity} has no maximum over alpha: it tends to oo as alpha -> 0" in err, err
    # n_large_alpha = alu_lat*alu_thru + mem_lat*alu_thru/alpha falls in alpha: no minimum, its infimum as alpha -> oo
    code, out, err = cli("extremum", "volkov_2016", "n_large_alpha", "--over", "alpha", "--min")
    assert code == 0 and "no minimum: the infimum alu_lat*alu_thru warp/SM is approached as alpha -> oo" in out, err


def test_an_infinity_times_a_sign_the_domain_decides_is_that_infinity(cli: Callable[..., tuple[int, str, str]]) -> None:
    # N_pw = N*ind_mem_req/(mem_req - ind_mem_req), valid when 0 < ind_mem_req < mem_req: oo*sign(ind_mem_req/...) as
    # mem_req -> ind_mem_req+ is oo there, and as ind_mem_req -> mem_req- too
    code, _, err = cli("extremum", "hong_kim_2009", "N_pw", "--over", "mem_req", "--max")
    assert code == 2 and "N_pw has no maximum over mem_req: it tends to oo as mem_req -> ind_mem_req" in err and "sign(" not in err, err
    # falling in mem_req (its slope's sign decided in the domain), its minimum is the infimum at the far end (extremum_monotone)
    code, out, err = cli("extremum", "hong_kim_2009", "N_pw", "--over", "mem_req", "--min")
    assert code == 0 and "no minimum: the infimum 0 warp/SM is approached as mem_req -> oo" in out and "sign(" not in out, err
    code, _, err = cli("extremum", "hong_kim_2009", "N_pw", "--over", "ind_mem_req", "--min")  # the end at 0 once
    assert code == 2 and "as ind_mem_req -> 0 it tends to 0; as ind_mem_req -> mem_req from below it grows without bound" in err, err
    code, _, err = cli("extremum", "hong_kim_2009", "N_pw", "--over", "ind_mem_req", "--max")
    assert code == 2 and "N_pw has no maximum over ind_mem_req: it tends to oo as ind_mem_req -> mem_req" in err, err


def test_where_no_branch_holds_the_latency_grows_without_bound_as_theta_nears_c(volkov: symgpu.Model) -> None:
    # a + b*theta/(c - theta) over theta: a Piecewise limit at theta -> c (a where b = 0, else oo) was said as such
    answer = volkov.extremum("memory_latency", over="theta", kind="max")
    assert answer.extra.elsewhere == ("where no condition above holds there is no maximum: the quantity grows without bound "
                                      "as theta -> c where b > 0")
    assert answer.certificate.checked
    assert derive.evaluate_result(volkov, answer, "g80", b=0.0).magnitude == A  # flat at b = 0: a everywhere
