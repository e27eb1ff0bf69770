"""A quantity an equation defines, given a value at the point (``--set S_Mem=10``, ``values=``), is held at that value by
a derivation, as ``eval`` holds it: its equation was expanded instead, so the answer was another function than the one
its check evaluated, and the question ended in "the closed form disagrees with evaluate: please report it". Where the
quantity depends on the variable asked about, holding it fixed would answer about another function: refused."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu import derive, errors

#: MDM (2019) at preset table1 with every input S_Mem's expansion reads given, and L_NoContention (Eq. 6) given a value
GIVEN = {"M_Read": 5, "M_Write": 16, "L_DRAMService": 64, "L_NoCService": 100, "L_NoContention": 500}


@pytest.fixture(scope="module")
def mdm() -> symgpu.Model:
    return symgpu.load("mdm_2019")


def test_a_limit_holds_a_given_intermediate_at_its_value(mdm: symgpu.Model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("limit", "mdm_2019", "S_Mem", "--var", "W", "--to", "20", "-p", "table1",
                         *(a for k, v in GIVEN.items() for a in ("--set", f"{k}={v}")))
    assert code == 0, err
    sms = float(mdm.preset("table1")["SMs"].magnitude)
    # by hand, S_Mem = L_NoContention + S_NoC + S_DRAM below the MSHR limit (MDM Eqs. 5, 7): each queue holds half of the
    # W*SMs*(M_Read + M_Write) requests in flight at its service latency
    by_hand = 500 + (5 + 16) * (64 + 100) * sms * 20 / 2
    (value,) = [line.split()[1] for line in out.splitlines() if line.strip().startswith("value:")]
    assert float(value) == pytest.approx(by_hand, rel=1e-12)
    assert "L_NoContention" in out and "L_MinLLC" not in out  # held, not its equation (L_MinLLC + LLCMissRate*L_MinDRAM)
    evaluated = mdm.evaluate("S_Mem", preset="table1", W=20, **GIVEN)
    assert float(evaluated.to("cycle").magnitude) == pytest.approx(by_hand, rel=1e-12)


def test_a_given_intermediate_that_depends_on_the_variable_is_refused_naming_both(mdm: symgpu.Model) -> None:
    with pytest.raises(errors.UsageError) as caught:
        derive.limit(mdm, "S_MSHR", "W", to=sympy.Rational(128, 5), preset="table1", values={"M_Read": 5, "S_Mem": 10})
    text = str(caught.value)
    assert "S_Mem is given a value" in text and "depends on W" in text and "eq7" in text


def test_the_command_line_says_the_refusal_in_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("limit", "mdm_2019", "S_MSHR", "--var", "W", "--to", "128/5", "--set", "M_Read=5", "-p", "table1",
                         "--set", "S_Mem=10")
    assert code == 2 and not out
    assert "please report" not in err and "S_Mem is given a value" in err
