"""A single closed-form root says where the model gives the quantity a value at it: Volkov's loaded
latency ``a + b*theta/(c - theta)`` (valid when ``theta < c``) equals 200 cycles at
``theta = c*(a - 200)/(a - b - 200)``, which lies below ``c`` only when ``a < 200``; the answer printed
the root with no such condition (an outside tester's finding). Nor did it say that ``theta``, declared
nonnegative, is a root only where the root is not negative (``a`` between 200 and ``200 + b``)."""

from __future__ import annotations

import pytest

import symgpu


def test_the_single_root_is_printed_with_the_domain_it_needs(cli) -> None:
    code, out, err = cli("solve", "volkov_2016", "memory_latency", "--for", "theta", "--target", "200")
    assert code == 0, err
    assert ("a root only where the model gives a value there: (c*(a - 200)/(a - b - 200) >= 0) & "
            "(c*(a - 200)/(a - b - 200) < c)") in out


@pytest.mark.parametrize("a, refusal", [(453.0, "theta < c"), (230.0, "nonnegative"), (150.0, None)])
def test_the_domain_printed_is_where_eval_gives_the_root_a_value(a: float, refusal: str | None) -> None:
    model = symgpu.load("volkov_2016")
    b, c = 61.0, 81.0  # preset g80's b (cycle) and c (GB/s)
    root = c * (a - 200) / (a - b - 200)  # by hand from the equation text
    assert (0 <= root < c) is (refusal is None)
    values = {"a": a, "theta": root}
    if refusal is None:
        assert model.evaluate("memory_latency", "g80", values=values).to("cycle").magnitude == pytest.approx(200.0)
    else:
        with pytest.raises(symgpu.SymgpuError, match=refusal):
            model.evaluate("memory_latency", "g80", values=values)


def test_a_roots_condition_does_not_repeat_a_weaker_form_of_itself(cli) -> None:
    # MDM's memory-divergent case (M_Read*W > MSHRs) with Min(M_Read*W, MSHRs) at MSHRs (M_Read*W >= MSHRs): the root's
    # condition is the strict one alone (it printed "(M_Read*W >= MSHRs) & (M_Read*W > MSHRs)"); the other root's stays
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--for", "L_MinLLC", "--target", "3000")
    assert code == 0, err
    when = [line.strip() for line in out.splitlines() if line.strip().startswith("when:")]
    assert when == ["when: M_Read*W > MSHRs", "when: MSHRs >= M_Read*W"]
