"""``solve --target '865 cycle'`` for a quantity declared in ns moves the target across the clock and makes it a
constant of the model for the derivation (``lit_865_cy``, :func:`symgpu.derive.targets.across_rates`); the answer
prints the target as the caller gave it (865 cycle), not that internal name (a fresh-question audit's finding).
The root is checked independently: the model evaluated there gives the target."""

from __future__ import annotations

import re

import pytest

import symgpu

ASK = ("solve", "interval_analysis", "L_K0_time", "--for", "N", "--target", "865 cycle", "--preset", "gtx1080", "--set", "M=16")


def test_a_target_in_cycles_for_a_time_is_printed_as_865_cycle_not_an_internal_name(cli) -> None:
    code, out, err = cli("--no-cache", *ASK)
    assert code == 0, err
    assert "lit_" not in out
    # L_K0 = L_M + (M*N + M)*t_issue = 865 cycle (equations/interval_analysis.toml), solved for N by hand
    assert "  result: (-L_M - M*t_issue + 865 cycle)/(M*t_issue)\n" in out
    root = float(re.search(r"value: ([0-9.]+)", out).group(1))
    model = symgpu.load("interval_analysis")
    at_root = model.evaluate("L_K0", "gtx1080", values={"M": 16, "N": root})
    assert at_root.to("cycle").magnitude == pytest.approx(865, rel=1e-9)
