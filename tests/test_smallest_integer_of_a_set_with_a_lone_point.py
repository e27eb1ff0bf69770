"""``solve --kind min|max`` reads the smallest or largest integer of the set where the relation holds, a lone point of it
too (an outside tester's finding: {21} U [22, oo), the Fermi 21-register allocation exception, had "no smallest integer
value"). Expected values by brute force over ``Model.evaluate``."""

from __future__ import annotations

import numpy as np
import sympy

import symgpu
from symgpu.derive.inequality_answers import largest


def test_fewer_than_four_fermi_blocks_start_at_the_21_register_exception(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("occupancy")
    regs = np.arange(0.0, 256.0)
    blocks = np.asarray(model.evaluate("active_blocks_per_SM", "cc_2_0", values={"threads_per_block": 352, "smem_per_block": 0,
                                                                                "regs_per_thread": regs}).magnitude, dtype=float)
    below = regs[blocks < 4]
    assert below.size and np.all(np.diff(below) == 1)  # one run up to 255
    code, out, err = cli("solve", "occupancy", "active_blocks_per_SM", "--preset", "cc_2_0", "--set", "threads_per_block=352",
                         "--set", "smem_per_block=0", "--for", "regs_per_thread", "--relation", "<", "--target", "4", "--kind", "min")
    assert code == 0, err
    assert f"value: {below[0]:.0f} reg/thread" in out


def test_a_lone_point_is_a_piece_of_the_set_either_way() -> None:
    # by hand: {21} U [22, oo) has smallest integer 21; {3} U [0, 2) has largest integer 3, smallest 0; {5} alone is both
    x = sympy.Union(sympy.FiniteSet(21), sympy.Interval(22, sympy.oo))
    assert largest(x, "min", True) == (21, False)
    assert largest(x, "max", True) is None
    y = sympy.Union(sympy.FiniteSet(3), sympy.Interval.Ropen(0, 2))
    assert largest(y, "max", True) == (3, False) and largest(y, "min", True) == (0, False)
    assert largest(sympy.FiniteSet(5), "max", False) == (5, False) == largest(sympy.FiniteSet(5), "min", True)
