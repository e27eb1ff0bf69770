"""A limit point given to the API as a nonzero number is read in the variable's declared unit, as the command line's
``--to 20`` is: a bare 20 put in for W (warp/SM) left the answer's unit check blaming the model
(``derive.limit(mdm, 'M', 'W', to=20)``: "'MSHRs + 20*M_Write' is dimensionally inconsistent"). A negative point of a
variable declared positive is refused: the model gives the quantity no value near it (the command line printed a negative
count of requests, 'not checked numerically')."""

from __future__ import annotations

from fractions import Fraction

import pytest

import symgpu
from symgpu import derive, errors


@pytest.fixture(scope="module")
def mdm() -> symgpu.Model:
    return symgpu.load("mdm_2019")


@pytest.mark.parametrize("to", [20, "20", 12.5, Fraction(25, 2)])
def test_a_number_as_the_limit_point_gives_the_models_value_there(mdm: symgpu.Model, to: object) -> None:
    d = derive.limit(mdm, "M", "W", to=to)
    w = float(Fraction(str(to)))
    # by hand, MDM Eq. (4): M = M_Write*W + Min(MSHRs, M_Read*W), continuous in W, so its limit is its value at W
    for m_read, m_write, mshrs in ((128, 4, 256), (16, 4, 64), (5, 16, 32)):
        by_hand = m_write * w + min(mshrs, m_read * w)
        values = {"M_Read": m_read, "M_Write": m_write, "MSHRs": mshrs}
        point = {s: v for s, v in ((mdm.symbols[k], v) for k, v in values.items())}
        constants = {s: w for s in d.result.free_symbols if s.name.startswith("lit_")}
        assert float(d.result.subs({**point, **constants})) == pytest.approx(by_hand, rel=1e-14)
        assert float(mdm.evaluate("M", W=w, **values).magnitude) == pytest.approx(by_hand, rel=1e-14)


def test_the_api_and_the_command_line_give_the_same_limit(mdm: symgpu.Model, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("limit", "mdm_2019", "M", "--var", "W", "--to", "20", "--json")
    assert code == 0, err
    assert str(derive.limit(mdm, "M", "W", to=20).result) in out


@pytest.mark.parametrize("to", [-3, "-3", -0.5])
def test_a_negative_point_of_a_positive_variable_is_refused(mdm: symgpu.Model, to: object) -> None:
    with pytest.raises(errors.UsageError, match="is negative, but W is declared positive"):
        derive.limit(mdm, "M", "W", to=to)


def test_the_command_line_refuses_a_negative_point_of_a_positive_variable(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("limit", "mdm_2019", "M", "--var", "W", "--to=-3")
    assert code == 2 and not out
    assert "limit point '-3 warp/SM' is negative, but W is declared positive" in err
