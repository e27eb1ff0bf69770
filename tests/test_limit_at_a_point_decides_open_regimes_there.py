"""A limit asked at a fully given point decides which regime applies near the limit point by the point's
own numbers, where the symbols leave it open. An outside tester found Hong & Kim's ``Exec_cycles_app`` as
``Active_blocks_per_SM -> oo`` refused at ``gtx280+tiled_matmul`` ("no regime ... is proved to apply"):
the Eq. (22) and (23) conditions are booleans with Min()s in them (``Eq(MWP, N)``, ``CWP >= MWP``),
which the symbols alone do not decide far out. Over ``Departure_del_uncoal -> 0`` a Min argument has no
value at the point (``Mem_L/Departure_delay`` is ``zoo`` there: "SymPy could not decide a step"), and
``-> oo`` was refused too. The regime chosen carries the model's names (eq23, departure_bound), not
``piece2+min_arg2``: the point's zero inputs (``Coal_Mem_insts = 0``) are put into the table of names too.
"""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.evaluate import evaluator

HK = "hong_kim_2009"

# By hand, from equations/hong_kim_2009.toml (N = 4a warps/SM with 128-thread blocks, Rep = Blocks/(a*Active_SMs),
# Comp_cycles = 4*(27 + 6) = 132, Coal_Mem_insts = 0 so Mem_L = Mem_L_Uncoal = Mem_LD + 31*Departure_del_uncoal):
# as a -> oo, N -> oo and N*Rep = 4*Blocks/Active_SMs stays, Comp_p*(MWP - 1)*Rep -> 0, MWP -> its departure bound
# Mem_L/(32*Departure_del_uncoal) (below the bandwidth bound), CWP -> CWP_full >= MWP: Eq. (23),
# Mem_cycles*N*Rep/MWP = 6*Mem_L*(4*Blocks/Active_SMs)*32*Departure_del_uncoal/Mem_L.
FAR_BLOCKS = {
    # gtx280: Mem_L = 450 + 31*40 = 1690, MWP -> 1690/1280 (bandwidth bound 47.97), 10140*(320/30)/(1690/1280) = 81920
    "gtx280+tiled_matmul": 6 * 40 * 32 * 4 * 80 / 30,
    # table2: Mem_L = 420 + 31*10 = 730, MWP -> 730/320 = 2.28125 (bandwidth bound 28.5), 4380*20/2.28125 = 38400
    "table2_example": 6 * 10 * 32 * 4 * 80 / 16,
}


@pytest.mark.parametrize("preset", sorted(FAR_BLOCKS))
def test_exec_cycles_tend_to_the_eq23_departure_bound_value_as_blocks_grow(preset: str) -> None:
    model = symgpu.load(HK)
    answer = model.limit("Exec_cycles_app", "Active_blocks_per_SM", "oo", preset=preset)
    assert answer.certificate is not None and answer.certificate.checks
    expected = FAR_BLOCKS[preset]
    assert evaluator.evaluate_expression(model, answer.result, "cycle", preset=preset).magnitude == pytest.approx(expected, rel=1e-12)
    # brute force on the evaluate path: Exec = expected + O(1/a)
    far = model.evaluate("Exec_cycles_app", preset, values={"Active_blocks_per_SM": 1e9}).to("cycle").magnitude
    assert far == pytest.approx(expected, rel=1e-9)
    chosen = [s.justification for s in answer.steps if s.operation == "select regime"]
    assert chosen and chosen[0].startswith("eq23+departure_bound applies")


def test_exec_cycles_as_the_departure_delay_goes_to_zero_take_the_bandwidth_bound() -> None:
    # gtx280+tiled_matmul, a = 5: Mem_L -> 450, the departure bound 450/(32*D) -> oo, so MWP -> the bandwidth bound
    # 141.7e9*450/(30*1.3e9*128) = 12.7734375 (below N = 20); CWP = Min((2700 + 132)/132, 20) = 20 >= MWP: Eq. (23),
    # (2700*20/12.7734375 + 132/6*(12.7734375 - 1))*80/(5*30) = 2392.8206
    bandwidth = 141.7e9 * 450 / (30 * 1.3e9 * 128)
    expected = (2700 * 20 / bandwidth + 22 * (bandwidth - 1)) * 80 / 150
    model = symgpu.load(HK)
    at = {"Active_blocks_per_SM": 5}
    answer = model.limit("Exec_cycles_app", "Departure_del_uncoal", "0", preset="gtx280+tiled_matmul", values=at)
    assert answer.certificate is not None and answer.certificate.checks
    value = evaluator.evaluate_expression(model, answer.result, "cycle", preset="gtx280+tiled_matmul", values=at).magnitude
    assert value == pytest.approx(expected, rel=1e-12)
    near = model.evaluate("Exec_cycles_app", "gtx280+tiled_matmul", values={**at, "Departure_del_uncoal": 1e-9}).to("cycle").magnitude
    assert near == pytest.approx(expected, rel=1e-9)
    chosen = [s.justification for s in answer.steps if s.operation == "select regime"]
    assert chosen and chosen[0].startswith("eq23+bandwidth_bound applies")


def test_exec_cycles_grow_without_bound_with_the_departure_delay() -> None:
    # Mem_L = 450 + 31*D grows with D while MWP -> its departure bound Mem_L/(32*D) -> 31/32: Mem_cycles*N/MWP grows like D
    model = symgpu.load(HK)
    at = {"Active_blocks_per_SM": 5}
    answer = model.limit("Exec_cycles_app", "Departure_del_uncoal", "oo", preset="gtx280+tiled_matmul", values=at)
    assert answer.result == sympy.oo and answer.certificate is not None and answer.certificate.checks
    small, large = (model.evaluate("Exec_cycles_app", "gtx280+tiled_matmul", values={**at, "Departure_del_uncoal": d}).magnitude
                    for d in (1e6, 1e9))
    assert large > 900 * small
