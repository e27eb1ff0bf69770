"""A regime table asked at a point where a case condition is an exact tie that IEEE arithmetic
misses names the regime, and gives the value, that ``evaluate`` gives there (an outside tester's
finding: the table's own check evaluated it in floats, got another case's value and said
"please report it"; with the check passing, the active regime and value must be the exact ones too)."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import derive

SIM = {"mem_lat": 115, "alu_lat": 1, "alu_thru": 0.25, "BW": 1728, "clock": 1, "SMs": 115, "alpha": 1.3, "n": 19}
HONG_KIM = {"mem_lat": 55, "pin_BW": 1417, "alpha": 0.1, "n": 13.5}


def _sets(values):
    return [a for k, v in values.items() for a in ("-s", f"{k}={v}")]


# prior_sim at fermi: CWP = min(n, 1 + mem_lat/((alpha+1)*max(1/alu_thru, alu_lat/n))) = 1 + 115/(2.3*4) = 13.5 and
# MWP = min(n, BW*mem_lat/(SMs*bytes_per_inst*clock)) = 1728*115/(115*128*1) = 13.5 exactly (CWP is 13.500000000000002
# in floats): CWP <= MWP, Texec = max(Tcomp, Tmem + Tcomp/n) with Tcomp = 2.3*19*4 = 174.8, Tmem = 19*115/min(13.5, 12.5)
# = 174.8: 174.8 + 174.8/19 = 184 (by hand; the CWP > MWP case gives max(174.8, 174.8) = 174.8).
# prior_hong_kim_fixed at gt200: CWP_full = 1 + mem_lat/(4*(alpha + 1)) = 1 + 55/4.4 = 13.5 exactly (13.499999999999998
# in floats) = n, MWP_peak_bw = 1417*55/(1.296*128*30) = 15.66 > 13.5: latency bound, Time = mem_lat + alu_lat*alpha
# = 55 + 24*0.1 = 57.4 cycles (by hand; the compute bound would be 4.4*13.5 = 59.4)
@pytest.mark.parametrize(("model_id", "quantity", "preset", "values", "regime", "value"), [
    ("prior_sim", "Texec", "fermi", SIM, "cwp_at_most_mwp+throughput_bound+cwp_full+max_arg2+min_arg3", 184),
    ("prior_hong_kim_fixed", "Time", "gt200", HONG_KIM, "latency_bound", 57.4),
])
def test_regimes_at_an_exact_tie_name_the_exact_case_and_give_its_value(cli, model_id, quantity, preset, values, regime, value):
    model = symgpu.load(model_id)
    d = model.regimes(quantity, preset=preset, values=values)
    assert [r.name for r in d.extra.active_regimes] == [regime]
    assert float(derive.evaluate_result(model, d, preset, **values).magnitude) == pytest.approx(value, rel=1e-12)
    code, out, err = cli("--no-cache", "regimes", model_id, quantity, "-p", preset, *_sets(values))
    assert code == 0, err
    assert f"value: {value:g} cycle" in out
    assert f"active: {regime}" in out
