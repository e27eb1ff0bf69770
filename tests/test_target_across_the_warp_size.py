"""A solve target in warps for a quantity in threads (or threads/SM for warps/SM) is converted at the
model's warp size, as ``eval --unit`` converts a value; a target in a unit that no rate converts is
refused saying so first, not as a parse error of the model file (an outside tester's finding F7).

Expected values are computed here from the model files' equations and presets in plain floats.
"""

from __future__ import annotations

import math

import pytest

import symgpu
from conftest import assert_one_line_refusal
from symgpu import derive, errors, units
from symgpu.derive import targets
from symgpu.evaluate import evaluator

IA = ("solve", "interval_analysis", "P_K0", "--for", "N", "--preset", "gtx1080", "--substitute", "M=N")
HK = ("solve", "hong_kim_2009", "N", "--for", "Active_blocks_per_SM", "--preset", "table2_example")


def values_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith("value:"))


def p_k0_roots_at_1000_threads() -> list[float]:
    """By hand from equations/interval_analysis.toml with M = N: P_K0 = Theta_M*(L_M + t_issue*(N**2 + N))/(2*N*S_elt*phi);
    P_K0 = 1000 thread is Theta_M*t_issue*N**2 + (Theta_M*t_issue - 2000*S_elt*phi)*N + Theta_M*L_M = 0."""
    ia = symgpu.load("interval_analysis")
    v = {**ia.constants, **ia.preset("gtx1080")}
    theta = v["Theta_M"].to("B/s").magnitude
    phi = v["phi"].to("cycle/s").magnitude
    s_elt = v["S_elt"].to("B/thread").magnitude
    t_issue = v["t_issue"].to("cycle").magnitude
    l_m = v["L_M"].to("cycle").magnitude
    a, b, c = theta * t_issue / phi, theta * t_issue / phi - 2000 * s_elt, theta * l_m / phi
    d = math.sqrt(b * b - 4 * a * c)
    return [(-b - d) / (2 * a), (-b + d) / (2 * a)]


def blocks_at_640_threads_per_sm() -> float:
    """By hand: 640 thread/SM over the preset's Threads_per_block threads in a block."""
    hk = symgpu.load("hong_kim_2009")
    return 640 / hk.preset("table2_example")["Threads_per_block"].to("thread/block").magnitude


def test_a_target_in_warps_solves_as_the_same_count_in_threads(cli) -> None:
    code, out, err = cli(*IA, "--target", "31.25 warp")  # 31.25 warp x 32 thread/warp = 1000 thread
    assert code == 0, err
    assert "31.25 warp = 1000 thread at warp size threads_per_warp = 32" in out
    found = [float(x) for x in values_line(out).split("[")[1].split("]")[0].split(",")]
    expected = p_k0_roots_at_1000_threads()
    assert found == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx([14.366, 27.843], abs=1e-3)  # the finding's numbers


def test_a_target_in_threads_per_sm_solves_for_blocks_of_a_quantity_in_warps_per_sm(cli) -> None:
    code, out, err = cli(*HK, "--target", "640 thread/SM")
    assert code == 0, err
    assert blocks_at_640_threads_per_sm() == 5
    assert "value: 5 block/SM" in values_line(out)
    code, out, err = cli(*HK, "--target", "640 thread/SM", "--relation", ">=")
    assert code == 0, err
    assert "Active_blocks_per_SM >= 5 block/SM" in values_line(out)


def test_the_api_converts_a_warp_target_like_the_command_line() -> None:
    ia = symgpu.load("interval_analysis")
    expected = p_k0_roots_at_1000_threads()
    for target in ("31.25 warp", units.quantity("31.25 warp")):
        derivation = ia.solve("P_K0", for_="N", target=target, preset="gtx1080", substitute={"M": "N"})
        # the roots are written over the warp size and the target's own constant (lit_31p25_warp), as the command line's
        holding = targets.holding(ia, derivation.extra.given_constants)
        found = sorted(evaluator.evaluate_expression(holding, root, "1", preset="gtx1080").magnitude for root in derivation.result)
        assert found == pytest.approx(expected, rel=1e-9)
    hk = symgpu.load("hong_kim_2009")
    at_threads = hk.solve("N", for_="Active_blocks_per_SM", target="640 thread/SM", preset="table2_example")
    at_warps = hk.solve("N", for_="Active_blocks_per_SM", target="20 warp/SM", preset="table2_example")
    assert derive.evaluate_result(hk, at_threads, "table2_example").magnitude == \
        pytest.approx(derive.evaluate_result(hk, at_warps, "table2_example").magnitude, rel=1e-12)


def test_a_target_in_an_unconvertible_unit_says_so_first_and_only(cli) -> None:
    code, out, err = cli(*IA, "--target", "1 ms")
    assert_one_line_refusal(code, out, err, "--target '1 ms': P_K0 is in thread", "[time]", "cannot be converted")
    assert "cannot parse" not in err and ".toml" not in err and "column" not in err


def test_a_warp_target_is_refused_where_the_warp_size_is_the_unknown(cli) -> None:
    code, out, err = cli("solve", "interval_analysis", "P_K0", "--for", "threads_per_warp", "--preset", "gtx1080",
                         "--target", "31.25 warp")
    assert_one_line_refusal(code, out, err, "warp size threads_per_warp", "is the unknown")
    ia = symgpu.load("interval_analysis")
    with pytest.raises(errors.UsageError, match="is the unknown"):
        ia.solve("P_K0", for_="threads_per_warp", target="31.25 warp", preset="gtx1080")
