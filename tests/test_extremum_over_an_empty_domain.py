"""An extremum asked where the model's valid_when domain holds for no value of the variable says so
(an outside tester's finding: the message suggested a plateau or an open end)."""

from __future__ import annotations

ASKED = ("extremum", "interval_analysis", "P_K0", "--over", "N", "--min", "-p", "gtx1080", "--substitute", "M=N", "-s", "L_F=6")


def test_an_empty_domain_is_named(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand: L_K0 needs N >= L_F/t_issue = 6 and N <= 2*L_M/t_issue, which is 0.4 at L_M = 0.2: no N
    code, out, err = cli(*ASKED, "-s", "L_M=0.2")
    assert code == 1 and out == ""
    assert "the model gives P_K0 no value at the given values for any scanned N (magnitudes 1e-6 to 1e12 and 0): its " \
           "valid_when domain (N >= L_F/t_issue and L_M >= N*t_issue/2) holds at none of them" in err


def test_a_domain_of_one_edge_point_still_answers(cli) -> None:  # type: ignore[no-untyped-def]
    # at L_M = 36 the domain is 6 <= N <= 72 and the minimum lies at its edge N = 6 (the tester computed 300.8598 there)
    code, out, err = cli(*ASKED, "-s", "L_M=36")
    assert code == 0, err
    assert "at N = 6" in out
