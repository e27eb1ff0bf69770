"""A regime condition that is itself a staircase (occupancy's ``no_shared_memory`` case ``Eq(ceiling(S/256), 0)``, its
``floor(floor(64/ceiling(R/8))/5) < 1`` "fewer warps than the block" case) is solved relation by relation at a point,
as a regime's relation is, where SymPy's ``as_set`` leaves it a ``ConditionSet`` (an outside tester's findings, round 9:
F2, a SymPy TypeError "sym is not in base_set" on cc_6_0; F3, the set {0} U (0, 12288] kept apart and refused as having
"no largest integer value" on every preset before CC 8.0). Expected values by brute force over ``Model.evaluate`` on
every whole value of the variable, or by hand."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu.derive.inequality_pieces import where_holds

X = sympy.Symbol("x", nonnegative=True)
NONNEGATIVE = sympy.Interval(0, sympy.oo)


@pytest.fixture(scope="module")
def occ() -> symgpu.Model:
    return symgpu.load("occupancy")


def _largest_holding(occ: symgpu.Model, preset: str, values: dict[str, float], var: str, grid: np.ndarray, k: int) -> int:
    """The largest whole ``var`` of ``grid`` with at least ``k`` blocks, checked to hold at every value below it (so the
    set is one interval from 0, as a single bound ``var <= b`` states it)."""
    blocks = np.asarray(occ.evaluate("active_blocks_per_SM", preset=preset, values={**values, var: grid}).magnitude, dtype=float)
    ok = blocks >= k
    best = int(grid[ok].max())
    assert ok[grid <= best].all()
    return best


def test_a_case_for_no_allocation_at_zero_joins_the_interval_beside_it() -> None:
    # by hand: at x = 0 the first case (10 blocks); on (256*(c-1), 256*c] floor(49152/(256*c)) >= 4 until c = 48: [0, 12288]
    f = sympy.Piecewise((10, sympy.Eq(sympy.ceiling(X / 256), 0)), (sympy.floor(49152 / (256 * sympy.ceiling(X / 256))), True))
    assert where_holds(f, sympy.GreaterThan, sympy.Integer(4), X, NONNEGATIVE) == sympy.Interval(0, 12288)


def test_a_warp_count_staircase_condition_is_solved_through_its_reciprocal() -> None:
    # by hand: floor(floor(64/c)/5) < 1 <=> 64/c < 5 <=> c = ceiling(x/8) >= 13 <=> x > 96; 0 blocks there and past 255
    warps_short = sympy.floor(sympy.floor(64 / sympy.ceiling(X / 8)) / 5) < 1
    f = sympy.Piecewise((1, sympy.Eq(X, 0)), (0, (X > 255) | warps_short), (1, True))
    assert where_holds(f, sympy.GreaterThan, sympy.Integer(1), X, NONNEGATIVE) == sympy.Interval(0, 96)
    # the same condition negated (a Not of an Or, pushed into its relations): x <= 255 and 64/ceiling(x/8) >= 5, which has no
    # value at x = 0 (64/0), so 0 stays out: (0, 96]
    g = sympy.Piecewise((1, sympy.Not((X > 255) | warps_short)), (0, True))
    assert where_holds(g, sympy.GreaterThan, sympy.Integer(1), X, NONNEGATIVE) == sympy.Interval.Lopen(0, 96)


def test_cc60_largest_registers_for_one_block_of_640_threads(occ: symgpu.Model, cli) -> None:  # type: ignore[no-untyped-def]
    # by hand (the report): 96 regs -> 3072 reg/warp, 32768/3072 = 10 warps per sub-partition, 20 >= 20 warps; 97 -> 3328, 9*2 = 18 < 20
    at = ("-p", "cc_6_0", "-s", "threads_per_block=640", "-s", "smem_per_block=0")
    expected = _largest_holding(occ, "cc_6_0", {"threads_per_block": 640, "smem_per_block": 0}, "regs_per_thread",
                                np.arange(0, 256, dtype=float), 1)
    assert expected == 96
    code, out, err = cli("solve", "occupancy", "active_blocks_per_SM", "--for", "regs_per_thread", "--relation", ">=", "--target", "1",
                         "--kind", "max", *at)
    assert code == 0, err
    assert f"value: {expected} reg/thread" in out


# (preset, threads per block, registers per thread, at least k blocks): the report's pre-8.0 questions, and two more CCs
SMEM_CASES = [("cc_3_0", 96, 16, 6), ("cc_3_5", 128, 16, 4), ("cc_6_1", 128, 40, 2), ("cc_5_2", 128, 64, 6), ("cc_6_0", 64, 64, 3),
              ("cc_1_3", 64, 16, 2), ("cc_7_0", 256, 32, 3)]


@pytest.mark.parametrize(("preset", "threads", "regs", "k"), SMEM_CASES)
def test_largest_shared_memory_for_k_blocks_before_cc80(occ: symgpu.Model, cli, preset: str, threads: int, regs: int, k: int) -> None:  # type: ignore[no-untyped-def]
    expected = _largest_holding(occ, preset, {"threads_per_block": threads, "regs_per_thread": regs}, "smem_per_block",
                                np.arange(0, 2**17 + 1, dtype=float), k)
    at = ("-p", preset, "-s", f"threads_per_block={threads}", "-s", f"regs_per_thread={regs}")
    ask = ("solve", "occupancy", "active_blocks_per_SM", "--for", "smem_per_block", "--relation", ">=", "--target", str(k), *at)
    code, out, err = cli(*ask, "--kind", "max")
    assert code == 0, err
    assert f"value: {expected} B/block" in out
    code, out, err = cli(*ask)
    assert code == 0, err
    assert f"value: smem_per_block <= {expected} B/block" in out
