"""A limit taken without a point gives, at a point where two nonnegative inputs are 0, the value the
model approaches there (differential seed 38): Hong & Kim's ``Exec_cycles_eq1`` as
``Uncoal_Mem_insts -> 0`` has the case ``Coal_Mem_insts = 0``, whose limit ``oo*Comp_insts*...`` is
``nan`` where ``Comp_insts = 0`` too; the model tends to a finite value there."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgpu
import symgpu.derive

POINT = {"Active_SMs": 16.0, "Active_blocks_per_SM": 5.0, "Coal_Mem_insts": 0.0, "Comp_insts": 0.0, "Departure_del_coal": 4.0,
         "Departure_del_uncoal": 10.0, "Freq": 1.35e9, "Load_bytes_per_warp": 128.0, "Mem_Bandwidth": 8.64e10, "Mem_LD": 420.0,
         "Threads_per_block": 128.0, "Uncoal_per_mw": 32.0}


def test_the_symbolic_limit_at_two_zero_inputs_is_what_the_model_approaches() -> None:
    model = symgpu.load("hong_kim_2009_intended")
    approach = model.evaluate("Exec_cycles_eq1", None, values={**POINT, "Uncoal_Mem_insts": np.array([1e-8, 1e-10, 1e-12])})
    tail = approach.to("cycle").magnitude
    assert abs(tail[-1] - tail[-2]) < 1e-6  # it settles (linearly in Uncoal_Mem_insts)
    limit = symgpu.derive.evaluate_result(model, model.limit("Exec_cycles_eq1", "Uncoal_Mem_insts", "0"), None, **POINT)
    assert math.isfinite(limit.magnitude)
    assert limit.to("cycle").magnitude == pytest.approx(tail[-1], rel=1e-6)
