"""The minimum of Hong & Kim's ``Exec_cycles_app`` over ``Active_blocks_per_SM`` at ``gtx280+tiled_matmul``.
An outside tester found it ending in "check failed ... please report it": the closed form proposed the Eq. (22)
value at a cusp (83043 cycles) while Eq. (23) falls on towards 81920 as the blocks grow. The open end's limit
is now taken at the point (its regime decided by the point's numbers), so the answer says there is no minimum;
with ``Active_blocks_per_SM <= 8`` assumed the minimum is at the bound. There a cusp past the bound
(a = 11.99) is no candidate, and of the forms that hold at the point the smallest answers, not the first.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

HK = "hong_kim_2009"
PRESET = "gtx280+tiled_matmul"
# By hand, from equations/hong_kim_2009.toml at gtx280+tiled_matmul (Coal_Mem_insts = 0): Mem_L = 450 + 31*40 = 1690,
# Mem_cycles = 6*1690 = 10140, Comp_cycles = 4*33 = 132, N = 4a, Rep = 80/(30a), so N*Rep = 32/3; MWP = Min(N, 1690/1280,
# 47.97) = 1690/1280 = 1.3203125 for a > 0.33, CWP >= MWP: Eq. (23),
# Exec = 10140*(32/3)/1.3203125 + (132/6)*0.3203125*80/(30a) = 81920 + 18.79/a, falling towards 81920 (not attained).
INFIMUM = 10140 * (32 / 3) / 1.3203125
AT_EIGHT = INFIMUM + 22 * 0.3203125 * 80 / (30 * 8)  # 81922.34896


def _exec(a: float) -> float:
    return symgpu.load(HK).evaluate("Exec_cycles_app", PRESET, values={"Active_blocks_per_SM": a}).to("cycle").magnitude


def test_no_minimum_is_said_with_the_value_approached_as_the_blocks_grow() -> None:
    answer = symgpu.load(HK).extremum("Exec_cycles_app", "Active_blocks_per_SM", "min", preset=PRESET)
    assert answer.location is None  # no number of blocks attains it (a refusal before tester round 13a, F5)
    assert "no minimum: the infimum 81920 cycle is approached as Active_blocks_per_SM -> oo" in answer.extra.elsewhere
    # brute force: the model falls towards 81920 without reaching it
    assert INFIMUM == pytest.approx(81920, rel=1e-12)
    far = [_exec(a) for a in (1e3, 1e6, 1e9)]
    assert far[0] > far[1] > far[2] > INFIMUM and far[2] == pytest.approx(INFIMUM, rel=1e-12)


def test_with_the_blocks_bounded_the_minimum_is_at_the_bound() -> None:
    answer = symgpu.load(HK).extremum("Exec_cycles_app", "Active_blocks_per_SM", "min", preset=PRESET,
                                      assume=["Active_blocks_per_SM <= 8"])
    assert answer.certificate is not None and answer.certificate.checks
    assert answer.location == 8 and _exec(8) == pytest.approx(AT_EIGHT, rel=1e-12)
    assert answer.extra.value_at == pytest.approx(AT_EIGHT, rel=1e-9)  # in cycles, the quantity's unit
    grid = np.linspace(0.01, 8, 800)  # brute force over (0, 8]: nothing smaller
    assert min(_exec(float(a)) for a in grid) >= AT_EIGHT * (1 - 1e-12)


def test_the_minimum_at_the_bound_has_its_unit_checked_on_the_quantitys_own_expression() -> None:
    """At ``a = 8`` the 8 stands for 8 block/SM, which the dimension walker reads as a pure number: the value as written
    is inconsistent (MWP's Min compares a count of warps per block with warps per SM), so the unit check reads the
    quantity's own expression at once (it used to try the value's regroupings first: 4.6 s, all failing)."""
    from symgpu.units import dimensions

    model = symgpu.load(HK)
    answer = model.extremum("Exec_cycles_app", "Active_blocks_per_SM", "min", preset=PRESET, assume=["Active_blocks_per_SM <= 8"])
    dims = {model.symbols[n]: dimensions.dimension_of_unit(model.unit_text(n)) for n in model.symbols}
    at_eight = [c for c in answer.extra.candidates if not c.location.free_symbols and c.location == 8]
    assert at_eight and not any(dimensions.consistent(c.value, dims) for c in at_eight)
    checked = [s for s in answer.steps if s.operation == "unit check"]
    assert any(s.expression.rhs.has(model.symbols["Active_blocks_per_SM"]) for s in checked)  # the quantity's expression
