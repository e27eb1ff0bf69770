"""A boundary at a point is one only where the model gives the quantity a value there (an outside
tester's finding): MDM's Eq. (4), ``M = Min(M_Read*W, MSHRs) + M_Write*W``, holds only for
``W <= W_max`` (Table 1: 64 warps per SM). With ``M_Read = 1`` and 128 MSHRs the two arguments of the
Min meet at ``W = 128``, outside that domain: there is no switch for any ``W`` the model admits, and
the answer was ``value: 128 warp/SM`` with exit 0. With ``M_Read = 4`` they meet at 128/4 = 32."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

TABLE1 = ("--preset", "table1", "--set", "M_Write=1")


def _m(w: np.ndarray, m_read: float) -> np.ndarray:
    model = symgpu.load("mdm_2019")
    return np.asarray(model.evaluate("M", "table1", values={"M_Read": m_read, "M_Write": 1.0, "W": w}).magnitude)


def test_no_switch_inside_the_domain_is_no_boundary(cli) -> None:
    w = np.linspace(1.0, 64.0, 6301)
    slopes = np.diff(_m(w, 1.0)) / np.diff(w)
    assert np.allclose(slopes, 2.0)  # M_Read*W + M_Write*W all the way to W_max: one regime, no kink
    with pytest.raises(symgpu.SymgpuError, match="W <= W_max"):
        _m(np.array([128.0]), 1.0)  # where the closed form's boundary lies, the model gives no value
    code, out, err = cli("boundary", "mdm_2019", "M", "--for", "W", *TABLE1, "--set", "M_Read=1")
    assert code == 1 and out == ""
    assert "outside the model's domain" in err and "Traceback" not in err


def test_a_boundary_inside_the_domain_is_still_given(cli) -> None:
    below, above = np.diff(_m(np.array([31.0, 31.5, 32.0, 32.5, 33.0]), 4.0)).reshape(2, 2).mean(axis=1) / 0.5
    assert below == pytest.approx(5.0) and above == pytest.approx(1.0)  # 4*W + W below 32, 128 + W above
    code, out, err = cli("boundary", "mdm_2019", "M", "--for", "W", *TABLE1, "--set", "M_Read=4")
    assert code == 0, err
    assert "value: 32 warp/SM" in out


def test_the_api_certificate_checks_no_boundary_outside_the_domain() -> None:
    model = symgpu.load("mdm_2019")
    d = model.boundary("M", for_="W", preset="table1", values={"M_Read": 1.0, "M_Write": 1.0})
    assert d.certificate is not None and not any("switches" in c for c in d.certificate.checks)
    assert symgpu.derive.applying_boundaries(model, d, "table1", {"M_Read": 1.0, "M_Write": 1.0}) == ()


def test_a_switch_beyond_the_domain_edge_is_no_boundary_at_the_edge(cli) -> None:
    # M_Read = 2: the Min's arguments meet at W = 128/2 = 64 = W_max, and above it the model gives no value
    w = np.linspace(1.0, 64.0, 6301)
    assert np.allclose(np.diff(_m(w, 2.0)) / np.diff(w), 3.0)  # 2*W + W all the way to W_max: no switch the model makes
    code, out, err = cli("boundary", "mdm_2019", "M", "--for", "W", *TABLE1, "--set", "M_Read=2")
    assert code == 1 and out == "", out
