"""``SignReasoner.nonnegative`` sees a symbol's declared sign with extra relations in force as without: reading a relation
can hide it (MDM's ``LLCMissRate <= 1``, its valid_when, read as ``LLCMissRate = 1 - d``, where ``1 - d`` is no sum of
nonnegative parts), so the expression as it stands is asked too, as ``sign`` does. A limit that splits on ``sign(g)`` of a
nonnegative ``g`` relies on it: MDM's ``L_NoContention = L_MinLLC + LLCMissRate*L_MinDRAM`` as ``L_MinDRAM -> oo`` is ``oo``
where ``LLCMissRate > 0`` and ``L_MinLLC`` where it is 0, checked by brute force on ``Model.evaluate``."""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu import derive
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner

R = sympy.Symbol("r", nonnegative=True)
Y = sympy.Symbol("y", positive=True)
DECLARED = Declared(symbols=((R, frozenset({"nonnegative"})), (Y, frozenset({"positive"}))))


@pytest.mark.parametrize("relations", [(), (R <= 1,), (R < Y,), (R <= 1, R < Y)], ids=["none", "r<=1", "r<y", "both"])
def test_a_declared_nonnegative_symbol_is_nonnegative_under_any_relations(relations: tuple[sympy.Basic, ...]) -> None:
    ctx = SignReasoner(DECLARED, relations)
    assert ctx.nonnegative(R) and ctx.nonnegative(R * Y) and ctx.nonnegative(R**2 + Y)
    assert not ctx.nonnegative(R - Y) and not ctx.nonnegative(-R)  # nothing beyond what is proved


def test_a_relation_read_into_the_symbol_hides_its_declared_sign_from_the_forward_form() -> None:
    ctx = SignReasoner(DECLARED, [R <= 1])
    assert R in ctx.forward and ctx.forward[R] != R  # r read as 1 - d: the case the reasoner must see through


@pytest.fixture(scope="module")
def mdm() -> symgpu.Model:
    return symgpu.load("mdm_2019")


def test_no_contention_latency_as_the_dram_latency_grows(mdm: symgpu.Model) -> None:
    answer = mdm.limit("L_NoContention", "L_MinDRAM", "oo")
    miss = next(s for s in answer.result.free_symbols if s.name == "LLCMissRate")
    assert isinstance(answer.result, sympy.Piecewise) and answer.result.args[0][1] == sympy.Eq(miss, 0)
    inputs = {"L_MinLLC": 200.0}
    for rate in (0.5, 0.0):
        values = [mdm.evaluate("L_NoContention", values={**inputs, "LLCMissRate": rate, "L_MinDRAM": d}).magnitude
                  for d in (1.0, 10.0**3, 10.0**9)]
        expected = derive.evaluate_result(mdm, answer, **inputs, LLCMissRate=rate).magnitude
        if rate:  # grows without bound: 200 + rate*d
            assert values == pytest.approx([200 + rate * d for d in (1.0, 10.0**3, 10.0**9)], rel=1e-12) and expected == math.inf
        else:  # no miss: the latency is L_MinLLC whatever the DRAM's
            assert values == [200.0] * 3 and expected == 200.0
