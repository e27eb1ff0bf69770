"""``limit ... --var phi --to 2 --unit cycle``: the limit point is made a constant of the model (``lit_2_GHz``), which is
no clock of the model; the refusal says the model's clock phi is the variable (so no one clock converts the value),
not that the model has "several clocks (phi, 2 GHz)" (a fresh-question audit's finding). Without ``--unit`` the limit
is the value at phi = 2 GHz, checked here by hand: L_K0 = L_M + (M*N + M)*t_issue cycles over 2 GHz."""

from __future__ import annotations

import re

import pytest

import symgpu

ASK = ("limit", "interval_analysis", "L_K0_time", "--var", "phi", "--to", "2", "--preset", "gtx1080", "--set", "M=16", "--set", "N=16")


def test_the_unit_refusal_names_the_clock_as_the_variable_not_two_clocks(cli) -> None:
    code, out, err = cli(*ASK, "--unit", "cycle")
    assert code == 2 and "several" not in err and "2 GHz" not in err
    assert "interval_analysis's clock phi is the variable here, so no one clock converts the value" in err, err


def test_the_limit_in_its_own_unit_is_the_value_at_2_ghz(cli) -> None:
    code, out, err = cli(*ASK)
    assert code == 0, err
    value = float(re.search(r"value: ([0-9.]+) ns", out).group(1))
    model = symgpu.load("interval_analysis")
    cycles = model.evaluate("L_K0", "gtx1080", values={"M": 16, "N": 16}).to("cycle").magnitude
    assert value == pytest.approx(cycles / 2.0, rel=1e-9)  # cycles at 2 cycles per ns
