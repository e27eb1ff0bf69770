"""The maximum of Volkov's ILP variant's ``n_needed_ilp`` over ``alpha`` is the cusp where its memory
bound ``ipc_per_SM = BW/(clock*SMs*bytes_per_inst)`` meets its issue bound ``issue_thru/(alpha + 1)``,
at ``alpha = issue_thru/ipc_per_SM - 1``. An outside tester found it answered with the ``alpha = 0``
value and refused by the certificate ("the closed form disagrees with evaluate"), while the base
model, whose memory bound is one symbol, was right. The cusp search assumes the meeting point is
positive, ``SMs*bytes_per_inst*clock*issue_thru > BW``, which the sign reasoner read as
``BW = SMs*bytes_per_inst*clock*issue_thru - d``; the slope that says on which side each regime lies,
``BW**2/(...)``, then had no sign, and the cusp was dropped.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

# by hand, from equations/volkov_2016.toml's presets (declared units: GB/s, GHz, SM, B/winst, cycle, winst/cycle/SM)
PRESETS = {
    "h100": dict(BW=2875.0, clock=1.98, SMs=132, bytes_per_inst=128.0, issue_thru=4.0, alu_lat=4.055, mem_lat=675.0, ilp=2),
    "maxwell": dict(BW=211.0, clock=1.266, SMs=16, bytes_per_inst=128.0, issue_thru=4.0, alu_lat=6.0, mem_lat=368.0, ilp=1),
}


def _cusp(p: dict) -> tuple[float, float]:
    """(alpha, n_needed_ilp) where ipc_per_SM = issue_thru/(alpha + 1), with plain floats."""
    ipc = p["BW"] / (p["clock"] * p["SMs"] * p["bytes_per_inst"])  # GB/s / (GHz*SM*B/winst) = winst/cycle/SM
    alpha = p["issue_thru"] / ipc - 1  # h100: 45.545, maxwell: 48.152
    return alpha, (alpha * p["alu_lat"] + p["mem_lat"]) * ipc / p["ilp"]  # Latency*ipc_per_SM/ilp


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_maximum_over_alpha_is_the_cusp_where_the_memory_bound_meets_the_issue_bound(preset: str) -> None:
    model = symgpu.load("volkov_2016_ilp")
    ilp = PRESETS[preset]["ilp"]
    answer = model.extremum("n_needed_ilp", over="alpha", kind="max", preset=preset, values={"ilp": ilp})
    assert answer.certificate is not None and answer.certificate.checks
    alpha, value = _cusp(PRESETS[preset])
    assert answer.extra.location_at == pytest.approx(alpha, rel=1e-9)
    assert answer.extra.value_at == pytest.approx(value, rel=1e-9)
    # brute force on the evaluate path: no alpha of a dense scan beats it, and the scan comes close to it
    scan = model.evaluate("n_needed_ilp", preset, values={"ilp": ilp, "alpha": np.linspace(0.0, 400.0, 40001)}).magnitude
    assert scan.max() <= value * (1 + 1e-12) and scan.max() >= value * (1 - 1e-4)
    assert scan[0] < 0.9 * value  # the alpha = 0 value the closed form gave before is no maximum
    # the papers' forms, this one among them: the cusp where alu_lat <= mem_lat, its conditions with the positive
    # BW**2 cancelled (BW*x <= BW*y and alu_lat*BW**2 <= mem_lat*BW**2 were left while BW's sign was lost)
    assert "(-BW + SMs*bytes_per_inst*clock*issue_thru)/BW, (alu_lat <= mem_lat)" in str(answer.location)
    assert "BW**2" not in str(answer.location) and "BW*SMs" not in str(answer.location)

