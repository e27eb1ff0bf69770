"""A ``floor``/``ceiling`` whose argument is within rounding of a whole number takes the whole part of the
exact value, the inputs as the decimals given, as a case condition near a tie does (F1 of the tenth outside
test): MDM's ``ceiling(M_Read*W/MSHRs)`` at 1.12 x 50 / 28 = 2 exactly (2.0000000000000004 in doubles) gave 3
batches and an S_MSHR twice too high, and ``floor(T/tw)`` at 0.3 us / 100 ns = 3 (2.9999999999999996 in
doubles) gave 2, in ``eval``, in array evaluation and in the sweep (exit 0 each).

Expected values by hand or in ``Fraction``s from the model files (equations/mdm_2019.toml,
tests/fixtures/whole_part_tie.toml).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import units
from symgpu.evaluate import evaluator
from symgpu.sweep import backends, sweep

from conftest import FIXTURES

BACKENDS = ["numpy"] + (["numba"] if backends.available("numba") else [])
WHOLE = FIXTURES / "whole_part_tie.toml"


def test_mdm_batches_at_a_whole_ratio_of_decimal_inputs_are_the_exact_ceiling() -> None:
    # n_batches = ceiling(M_Read*W/MSHRs): 1.12*50/28 = 2 and 0.56*50/28 = 1 exactly (IEEE: 2.0000000000000004 and
    # 1.0000000000000002, whose ceilings are 3 and 2)
    assert math.ceil(Fraction("1.12") * 50 / 28) == 2 and math.ceil(Fraction("0.56") * 50 / 28) == 1
    assert math.ceil(1.12 * 50 / 28) == 3  # the doubles' answer, which was printed
    model = symgpu.load("mdm_2019")
    assert model.evaluate("n_batches", "table1", values={"M_Read": 1.12, "W": 50, "MSHRs": 28}).magnitude == 2
    assert model.evaluate("n_batches", "table1", values={"M_Read": 0.56, "W": 50, "MSHRs": 28}).magnitude == 1
    arrays = model.evaluate("n_batches", "table1", values={"M_Read": np.array([1.12, 0.56, 0.5]), "W": 50, "MSHRs": 28})
    assert list(arrays.magnitude) == [2, 1, 1]  # 0.5*50/28 = 0.89: 1


def test_mdm_mshr_stall_at_two_exact_batches_is_one_memory_stall() -> None:
    # table1: SMs = 28, L_MinLLC = 120, L_MinDRAM = 220; M_Read*W = 56 > MSHRs = 28: case md, M = Min(56, 28) + 0 = 28,
    # S_NoC = S_DRAM = 28*28*1 = 784, S_Mem = 120 + 0.5*220 + 784 + 784 = 1798, S_MSHR = (2 - 1)*1798 = 1798
    # (3596 with the doubles' 3 batches)
    model = symgpu.load("mdm_2019")
    got = model.evaluate("S_MSHR", "table1", values={"M_Read": 1.12, "W": 50, "MSHRs": 28, "M_Write": 0, "LLCMissRate": 0.5,
                                                     "L_NoCService": 1, "L_DRAMService": 1})
    assert got.magnitude == pytest.approx(1798, rel=1e-12)


def test_floor_of_a_scaled_ratio_at_a_whole_decimal_ratio_counts_every_whole_wave() -> None:
    # floor(T/tw) of base-unit values: 0.3 us/100 ns = 3, 0.7 us/100 ns = 7, 300 ns/100 ns = 3 (doubles: 2, 6, 2);
    # 0.5 us/100 ns = 5 either way
    model = symgpu.load(WHOLE)
    assert math.floor(Fraction("0.3e-6") / Fraction("100e-9")) == 3 and math.floor(Fraction("0.7e-6") / Fraction("100e-9")) == 7
    q = units.registry().Quantity
    assert model.evaluate("waves", "p", values={"T": 0.3, "tw": 100}).magnitude == 3
    assert model.evaluate("waves", "p", values={"T": 0.7, "tw": 100}).magnitude == 7
    assert model.evaluate("waves", "p", values={"T": q(300, "ns"), "tw": 100}).magnitude == 3
    assert list(model.evaluate("waves", "p", values={"T": np.array([0.3, 0.7, 0.5]), "tw": 100}).magnitude) == [3, 7, 5]
    # a dimensionless ceiling whose double is above the whole number: ceiling(1.12*50) = 56 (doubles: 57)
    assert 1.12 * 50 > 56 and Fraction("1.12") * 50 == 56
    assert model.evaluate("batches", "p", values={"x": 1.12, "y": 50}).magnitude == 56


def test_an_expression_with_a_whole_part_near_a_whole_number_is_valued_exactly() -> None:
    # evaluate_expression (the solve certificate's and the derivations' path): floor(T/tw) at 0.3 us, 100 ns = 3
    model = symgpu.load(WHOLE)
    expr = sympy.floor(model.symbols["T"] / model.symbols["tw"])
    got = evaluator.evaluate_expression(model, expr, "1", preset="p", values={"T": 0.3, "tw": 100})
    assert float(got.magnitude) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_sweep_flags_and_settles_whole_parts_near_a_whole_number(backend: str) -> None:
    # the grid's 0.3 and 0.7 us give 3 and 7 waves of 100 ns (doubles: 2 and 6), 0.45 us gives 4 either way;
    # ceiling(x*y) at x = 1.12, 0.5 and y = 50 is 56 and 25 (doubles: 57 and 25)
    model = symgpu.load(WHOLE)
    result = sweep(model, "waves", preset="p", grid=["T=0.3,0.45,0.7"], values={"tw": 100}, backend=backend)
    assert [float(v) for v in result.columns["waves"]] == [3, 4, 7]
    result = sweep(model, "batches", preset="p", grid=["x=1.12,0.5"], values={"y": 50}, backend=backend)
    assert [float(v) for v in result.columns["batches"]] == [56, 25]


def test_solve_at_a_staircase_edge_agrees_with_eval_and_its_certificate_passes(cli) -> None:  # type: ignore[no-untyped-def]
    # waves >= 3 at T = 1 us: tw <= 1000/3 ns, max 333.33 ns, where floor(1000/333.333...) = 3 (the certificate read 2
    # there and refused its own right answer)
    assert math.floor(Fraction(1000) / Fraction("333.3333333333333")) == 3
    code, out, err = cli("solve", WHOLE, "waves", "--for", "tw", "--relation", ">=", "--target", "3", "--kind", "max",
                         "--preset", "p")
    assert code == 0, err
    assert "333.333333" in out
    # MDM: n_batches <= 2 holds up to W = 2*28/1.12 = 50 warps, where eval now gives 2 batches too
    code, out, err = cli("solve", "mdm_2019", "n_batches", "--for", "W", "--relation", "<=", "--target", "2", "--kind", "max",
                         "--preset", "table1", "--set", "M_Read=1.12", "--set", "MSHRs=28")
    assert code == 0 and "value: 50 warp/SM" in out, (out, err)
    code, out, err = cli("eval", "mdm_2019", "n_batches", "--preset", "table1", "--set", "M_Read=1.12", "--set", "W=50",
                         "--set", "MSHRs=28")
    assert code == 0 and "n_batches = 2" in out, (out, err)
