"""A decimal target that equals a plateau of the quantity only to a double's precision is refused with
what happened and what to give instead, not as a closed form to report (an outside tester's finding:
interval_analysis's t_P plateau N_exec*d_iota/Theta_M = 32/80075 s, given as the printed 399.6253512332188 us)."""

from __future__ import annotations

from fractions import Fraction

POINT = ("-p", "gtx1080", "-s", "N_exec=1e6", "-s", "L_iota=672", "-s", "d_iota=128")


def test_the_printed_plateau_is_refused_with_the_reason_and_its_expression_answers(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand: the plateau is 1e6 x 128 B / 320.3 GB/s = 32/80075 s, whose shortest double prints as 399.6253512332188 us,
    # not equal to that decimal exactly
    plateau = Fraction(10**6 * 128, 320_300_000_000)
    assert plateau == Fraction(32, 80075) and Fraction("399.6253512332188") / 10**6 != plateau
    code, out, err = cli("solve", "interval_analysis", "t_P", "--for", "P", "--target", "399.6253512332188 us", *POINT)
    assert code == 1 and out == ""
    assert "at a value the target equals only to the precision of a double" in err and "please report" not in err
    code, out, err = cli("solve", "interval_analysis", "t_P", "--for", "P", "--target", "N_exec*d_iota/Theta_M", *POINT)
    assert code == 0, err
    assert "holds for every P where P >= L_iota*Theta_M/(d_iota*phi)" in out
