"""The sign reasoner refutes an ``And`` whose equalities, put into its other parts and into the relations in force, leave one
of them false (:mod:`symgpu.proofs.equalities`), though no part is refuted alone: ``Eq(C, 0) & Eq(U, 0)`` under
``0 < U + C``. Hong & Kim's ``MWP_pw`` as ``Active_blocks_per_SM -> oo`` kept such a branch (``Coal_Mem_insts`` and
``Uncoal_Mem_insts`` both 0) though its domain (``0 < Uncoal_Mem_insts + Coal_Mem_insts``, the weights' valid_when)
excludes it; inside it, the limit is the one ``Min``, checked by brute force on ``Model.evaluate`` (growing the variable at
fixed admissible inputs, each kind of memory instruction alone and both), never from the limit's own answer."""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner

C, U = sympy.symbols("C U", nonnegative=True)
X = sympy.Symbol("x", positive=True)
DECLARED = Declared(symbols=((C, frozenset({"nonnegative"})), (U, frozenset({"nonnegative"})), (X, frozenset({"positive"}))))


def test_both_counts_zero_is_refuted_where_their_sum_is_positive() -> None:
    ctx = SignReasoner(DECLARED, [sympy.StrictLessThan(0, U + C)])
    both = sympy.And(sympy.Eq(C, 0), sympy.Eq(U, 0))
    assert ctx.decide(sympy.Eq(C, 0)) is None and ctx.decide(sympy.Eq(U, 0)) is None  # neither alone is refuted
    assert ctx.decide(both) is False and ctx.refuted(both)


def test_an_and_its_equalities_leave_possible_is_not_refuted() -> None:
    ctx = SignReasoner(DECLARED, [sympy.StrictLessThan(0, U + C)])
    assert ctx.decide(sympy.And(sympy.Eq(C, 0), U > 0)) is None  # C = 0 leaves 0 < U: U > 0 holds there
    assert not ctx.refuted(sympy.And(sympy.Eq(C, 0), sympy.Eq(U, X)))  # 0 < x: possible
    assert SignReasoner(DECLARED).decide(sympy.And(sympy.Eq(C, 0), sympy.Eq(U, 0))) is None  # no relation rules it out


def test_an_equality_put_into_another_part_refutes_the_and() -> None:
    ctx = SignReasoner(DECLARED)
    assert ctx.decide(sympy.And(sympy.Eq(U, C), U > C + X)) is False  # U = C leaves C > C + x, x positive
    assert ctx.refuted(sympy.And(sympy.Eq(U, C), U > C + X))


INPUTS = {"Active_SMs": 16.0, "Departure_del_coal": 4.0, "Departure_del_uncoal": 10.0, "Freq": 1.0e9, "Load_bytes_per_warp": 128.0,
          "Mem_Bandwidth": 8.0e10, "Mem_LD": 420.0, "Uncoal_per_mw": 8.0, "Threads_per_block": 128.0, "ind_mem_req": 4.0,
          "mem_req": 100.0}
GROWING = (1.0, 10.0, 10.0**4, 10.0**8, 10.0**12)


@pytest.fixture(scope="module")
def hong_kim() -> symgpu.Model:
    return symgpu.load("hong_kim_2009")


@pytest.fixture(scope="module")
def limit(hong_kim: symgpu.Model) -> derive.Derivation:
    return hong_kim.limit("MWP_pw", "Active_blocks_per_SM", "oo")


def test_mwp_pw_as_blocks_grow_has_no_branch_where_both_instruction_counts_are_zero(limit: derive.Derivation) -> None:
    assert not isinstance(limit.result, sympy.Piecewise)
    assert not any(isinstance(a, sympy.Eq) for a in sympy.preorder_traversal(limit.result))


@pytest.mark.parametrize("coal, uncoal", [(2.0, 6.0), (0.0, 6.0), (2.0, 0.0)])
def test_mwp_pw_as_blocks_grow_is_what_the_model_tends_to(hong_kim: symgpu.Model, limit: derive.Derivation,
                                                          coal: float, uncoal: float) -> None:
    inputs = {**INPUTS, "Coal_Mem_insts": coal, "Uncoal_Mem_insts": uncoal}
    values = [hong_kim.evaluate("MWP_pw", values={**inputs, "Active_blocks_per_SM": b}).magnitude for b in GROWING]
    assert values[0] < values[-1] and values[-2] == values[-1]  # grows with the blocks, then a bound not of them binds
    assert derive.evaluate_result(hong_kim, limit, **inputs).magnitude == pytest.approx(values[-1], rel=1e-12)
    assert math.isfinite(values[-1])


def test_mwp_pw_has_no_value_where_both_instruction_counts_are_zero(hong_kim: symgpu.Model) -> None:
    with pytest.raises(errors.SymgpuError):
        hong_kim.evaluate("MWP_pw", values={**INPUTS, "Coal_Mem_insts": 0.0, "Uncoal_Mem_insts": 0.0, "Active_blocks_per_SM": 8.0})
