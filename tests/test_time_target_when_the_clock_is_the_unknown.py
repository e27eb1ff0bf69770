"""A time target for a quantity in cycles is converted at the model's clock; where that clock is
the unknown solved for (or the variable of a limit or extremum shown with ``--unit``), no fixed
clock converts it and the question is refused in one line, never answered at the preset's clock."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conftest import assert_one_line_refusal
from symgpu import derive, errors, load

Cli = Callable[..., tuple[int, str, str]]

HK_POINT = ("-p", "gtx280+tiled_matmul", "-s", "Active_blocks_per_SM=2")
IA_POINT = ("-p", "gtx1080", "-s", "M=16", "-s", "N=16")


def test_a_time_target_solved_for_the_clock_itself_is_refused(cli: Cli) -> None:
    # right: Exec_cycles_app/Freq = 65 us at Freq = 81929.396 cy / 65 us = 1.2605 GHz; converting 65 us at the preset's
    # 1.3 GHz (84500 cycles) and solving Exec_cycles_app = 84500 printed 48.7 GHz (where the kernel takes 1.73 us)
    code, out, err = cli("solve", "hong_kim_2009", "Exec_cycles_app", "--for", "Freq", "--target", "65 us", *HK_POINT)
    assert_one_line_refusal(code, out, err, "Freq", "65 us", "give the target in")


@pytest.mark.parametrize("relation", [(), ("--relation", ">="), ("--relation", ">=", "--kind", "max")])
def test_a_time_target_for_cycles_solved_for_their_clock_is_refused_naming_the_time_quantity(cli: Cli, relation: tuple[str, ...]) -> None:
    # L_K0 = L_M + (M*N + M) = 400 + 256 + 16 = 672 cycles; it lasts >= 300 ns exactly where phi <= 672/300 ns = 2.24 GHz,
    # but 300 ns at the preset's 1.73 GHz is 519 cycles: the inequality printed "phi > 0", the equation "holds for no phi"
    code, out, err = cli("solve", "interval_analysis", "L_K0", "--for", "phi", "--target", "300 ns", *relation, *IA_POINT)
    assert_one_line_refusal(code, out, err, "phi", "solve L_K0_time")


def test_the_api_refuses_a_time_target_solved_for_the_clock() -> None:
    model = load("interval_analysis")
    with pytest.raises(errors.UsageError, match="which is the unknown"):
        derive.solve(model, "L_K0", for_="phi", target="300 ns", preset="gtx1080", values={"M": 16, "N": 16})


def test_a_time_target_solved_for_another_variable_still_uses_the_clock(cli: Cli) -> None:
    # 300 ns at phi = 1.73 GHz is 519 cycles = L_M + 16*N + 16 = 416 + 16*N, so N = 103/16 = 6.4375 (by hand)
    code, out, err = cli("solve", "interval_analysis", "L_K0", "--for", "N", "--target", "300 ns", "-p", "gtx1080", "-s", "M=16")
    assert code == 0, err
    assert "value: 6.4375" in out


def test_a_limit_over_the_clock_shown_as_a_time_is_refused(cli: Cli) -> None:
    # as Freq -> 0 the cycles tend to 81929 but the time they take tends to +oo: no fixed clock converts the limit
    code, out, err = cli("limit", "hong_kim_2009", "Exec_cycles_app", "--var", "Freq", "--to", "0", *HK_POINT, "--unit", "us")
    assert_one_line_refusal(code, out, err, "Freq is the variable here", "--clock")


@pytest.mark.parametrize("substitutes", [("phi=M*N*1e7",), ("phi=L_M*1e7", "L_M=N")])
def test_a_clock_substituted_by_the_unknown_directly_or_through_another_substitution_is_refused(cli: Cli, substitutes: tuple[str, ...]) -> None:
    # phi = 16e7 N (or 1e7 L_M with L_M = N) moves with N: 300 ns is a different number of cycles at every N
    flags = [a for s in substitutes for a in ("--substitute", s)]
    code, out, err = cli("solve", "interval_analysis", "L_K0", "--for", "N", "--target", "300 ns", "-p", "gtx1080", "-s", "M=16", *flags)
    assert_one_line_refusal(code, out, err, "phi", "depends on the unknown N")
