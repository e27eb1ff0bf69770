"""A one-sided limit at a point written in symbols (Hong & Kim's MWP = N switch, ``Active_blocks_per_SM ->
MWP_peak_BW*Threads_per_warp/Threads_per_block``), asked with every input given, decides which regime applies on
each side by the point's own numbers. An outside tester found both sides refused ("no regime of Exec_cycles_app is
proved to apply on the + side"): the regime conditions (``Eq(MWP, N)``, ``CWP >= MWP``) were pinned to the given
numbers, but the limit point itself was left in symbols, so no side of it could be decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.evaluate import evaluator

from conftest import assert_one_line_refusal

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


def test_two_sided_at_the_mwp_equals_n_switch_is_refused_with_both_one_sided_values(cli: Callable[..., tuple[int, str, str]]) -> None:
    # --dir +- used to end in an ~1500-character dump of the Piecewise ("cannot take the limit of the piecewise expression")
    at = [a for name, value in AT.items() for a in ("--set", f"{name}={value}")]
    code, out, err = cli("--no-cache", "limit", HK, "Exec_cycles_app", "--var", "Active_blocks_per_SM", "--to", POINT,
                         "--dir", "+-", "--preset", "table2_example", *at)
    assert_one_line_refusal(code, out, err, "the one-sided limits differ", "no two-sided limit", "--dir -")
    below, above = (float(x) for x in re.findall(r"from (?:below|above): ([0-9.]+) cycle", err))
    assert (below, above) == (pytest.approx(BELOW, rel=1e-9), pytest.approx(ABOVE, rel=1e-9))


def test_no_side_asked_at_the_switch_answers_from_above_and_says_the_side_below_differs() -> None:
    model = symgpu.load(HK)
    answer = model.limit("Exec_cycles_app", "Active_blocks_per_SM", POINT, preset="table2_example", values=AT)
    value = evaluator.evaluate_expression(model, answer.result, "cycle", preset="table2_example", values=AT).magnitude
    assert value == pytest.approx(ABOVE, rel=1e-12)  # the documented default: from above for a positive variable
    said = answer.extra.elsewhere or ""
    assert "the sides differ" in said and "no two-sided limit" in said
    assert float(re.search(r"from below it is ([0-9.]+) cycle", said).group(1)) == pytest.approx(BELOW, rel=1e-9)


# the tiny roofline with a case table in symbols; at preset toy (P_peak = 100 TFLOP/s, B = 2 TB/s) the switch I*B = P_peak
# is at I = 50 FLOP/B. A jump: P_peak from below, 2*P_peak from above. Continuous: P_peak from both sides.
JUMP = "Piecewise((I*B, I*B < P_peak), (2*P_peak, True))"
KINK = "Piecewise((I*B, I*B < P_peak), (P_peak + (I*B - P_peak)/2, True))"


def test_two_sided_limit_in_symbols_where_both_sides_agree_is_their_value(write_model: Callable[..., Path]) -> None:
    model = symgpu.load(str(write_model(rhs=KINK)))
    answer = model.limit("P", "I", "P_peak/B", direction="+-")
    assert sympy.simplify(answer.result - sympy.Symbol("P_peak", positive=True)) == 0 or str(answer.result) == "P_peak"
    at_toy = model.limit("P", "I", "P_peak/B", direction="+-", preset="toy")
    assert evaluator.evaluate_expression(model, at_toy.result, "TFLOP/s", preset="toy").magnitude == pytest.approx(100, rel=1e-12)


def test_two_sided_limit_at_a_jump_in_symbols_is_refused(write_model: Callable[..., Path]) -> None:
    model = symgpu.load(str(write_model(rhs=JUMP)))
    with pytest.raises(errors.NoAnswerHere, match=r"one-sided limits differ \(from below: 1e\+14 FLOP/s; from above: 2e\+14 FLOP/s\)"):
        model.limit("P", "I", "P_peak/B", direction="+-", preset="toy")
    with pytest.raises(errors.NoAnswerHere, match=r"differ \(from below: P_peak; from above: 2\*P_peak\)"):
        model.limit("P", "I", "P_peak/B", direction="+-")  # in symbols: P_peak > 0 is declared, so they differ
    above = model.limit("P", "I", "P_peak/B", preset="toy")  # no side asked: from above, and the side below differs
    assert "from below it is 1e+14" in (above.extra.elsewhere or "")
