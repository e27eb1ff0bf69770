"""A one-sided limit at a point written in symbols (Hong & Kim's MWP = N switch, ``Active_blocks_per_SM ->
MWP_peak_BW*Threads_per_warp/Threads_per_block``), asked with every input given, decides which regime applies on
each side by the point's own numbers. An outside tester found both sides refused ("no regime of Exec_cycles_app is
proved to apply on the + side"): the regime conditions (``Eq(MWP, N)``, ``CWP >= MWP``) were pinned to the given
numbers, but the limit point itself was left in symbols, so no side of it could be decided.
"""

from __future__ import annotations

import pytest

import symgpu
from symgpu.evaluate import evaluator

HK = "hong_kim_2009"
POINT = "MWP_peak_BW*Threads_per_warp/Threads_per_block"
AT = {"Mem_Bandwidth": "71.68 GB/s", "Mem_LD": "300 cycle", "Coal_Mem_insts": "6 winst", "Uncoal_Mem_insts": "0 winst",
      "Active_SMs": "14 SM"}

# By hand, from equations/hong_kim_2009.toml at preset table2_example (Freq 1 GHz, Comp_insts 27, Blocks 80, 128-thread
# blocks, so N = 4a warps/SM): MWP_peak_BW = 71.68e9*300/(1e9*128*14) = 12 warps/SM, so the point is a = 3.
# Mem_cycles = 300*6 = 1800, Comp_cycles = 4*(27 + 6) = 132, Comp_p = 132/6 = 22, CWP_full = 1932/132 = 14.64,
# MWP_Without_BW = 300/4 = 75, Rep = 80/(3*14) at the point.
# Below (a < 3): N < 12, so MWP = CWP = N: Eq. (22), (1800 + 132 + 22*(12 - 1))*Rep.
# Above (a > 3): MWP = 12 < N, CWP = Min(14.64, N) >= MWP: Eq. (23), (1800*N/MWP + 22*(12 - 1))*Rep with N/MWP -> 1.
REP = 80 / (3 * 14)
BELOW = (1800 + 132 + 22 * 11) * REP  # 4140.952...
ABOVE = (1800 + 22 * 11) * REP  # 3889.524...


@pytest.mark.parametrize(("direction", "expected", "regime", "beside"),
                         [("-", BELOW, "eq22", 3 - 1e-9), ("+", ABOVE, "eq23", 3 + 1e-9)])
def test_each_side_of_the_mwp_equals_n_switch_takes_its_own_regime(direction: str, expected: float, regime: str,
                                                                     beside: float) -> None:
    model = symgpu.load(HK)
    answer = model.limit("Exec_cycles_app", "Active_blocks_per_SM", POINT, direction=direction, preset="table2_example",
                         values=AT)
    assert answer.certificate is not None and answer.certificate.checks
    value = evaluator.evaluate_expression(model, answer.result, "cycle", preset="table2_example", values=AT).magnitude
    assert value == pytest.approx(expected, rel=1e-12)
    # brute force on the evaluate path, just beside the point
    near = model.evaluate("Exec_cycles_app", "table2_example", values={**AT, "Active_blocks_per_SM": beside})
    assert near.to("cycle").magnitude == pytest.approx(expected, rel=1e-6)
    chosen = [s.justification for s in answer.steps if s.operation == "select regime"]
    assert chosen and chosen[0].startswith(regime + "+")
