"""``symgpu regimes`` at a point outside the quantity's ``valid_when`` domain names no active regime and prints no
value: there ``symgpu eval`` says the model gives no value.

Audit q32b: ``symgpu regimes volkov_2016 Latency_loaded -p g80 -s alpha=2 -s x=0.03`` exited 0 with
"active: all" and "value: -2109.666667 cycle", a negative latency, where s6_5_latency is valid only when
theta_loaded < c (theta_loaded = 0.03 x 128 B x 16 SM x 1.35 GHz = 82.944 GB/s, c = 81 GB/s).

Expected values by hand from equations/volkov_2016.toml, preset g80 (a = 453, b = 61 cycles, alu_lat = 20 cycles,
c = 81 GB/s, 16 SMs, 1.35 GHz, 128 B per instruction).
"""

from __future__ import annotations

import pytest

import symgpu

G80_BYTES_PER_IPC = 128 * 16 * 1.35  # GB/s per winst/cycle/SM


def latency_by_hand(alpha: float, x: float) -> float:
    theta = x * G80_BYTES_PER_IPC
    return 453 + alpha * 20 + 61 * theta / (81 - theta)


def test_the_command_refuses_a_point_outside_the_domain_and_names_its_condition(cli) -> None:
    assert 0.03 * G80_BYTES_PER_IPC >= 81  # the point is outside theta_loaded < c
    code, out, err = cli("regimes", "volkov_2016", "Latency_loaded", "-p", "g80", "-s", "alpha=2", "-s", "x=0.03")
    assert code != 0
    assert "active:" not in out and "value:" not in out
    assert "no regime of Latency_loaded applies" in err and "theta_loaded < c" in err


def test_inside_the_domain_the_active_regime_and_its_value_stand() -> None:
    model = symgpu.load("volkov_2016")
    answer = model.regimes("Latency_loaded", preset="g80", values={"alpha": 2, "x": 0.02})
    assert [r.name for r in answer.extra.active_regimes] == ["all"]
    assert answer.extra.value_at == pytest.approx(latency_by_hand(2, 0.02), rel=1e-12)  # 624.2269 cycles
    with pytest.raises(symgpu.errors.DerivationError, match="theta_loaded < c"):
        model.regimes("Latency_loaded", preset="g80", values={"alpha": 2, "x": 0.03})
