"""A domain that the evaluate path shows ends short of an open end, at given values.

SymPy finds no limit or edge of a condition through nested ``Min`` (Hong & Kim's ``NpWB >= 1``
through MWP); at given values the evaluate path says where the quantity has a value, and the
domain's closed edges, found by bisection, are candidates whose location and value are numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.derive.extremum_domain import END, Candidate, at_location
from symgpu.evaluate import scaling


#: values far out at which the domain is checked at given values (declared unit of the variable; their inverses towards 0)
FAR = (1e6, 1e9, 1e12, 1e15, 1e18)
#: where the domain's edges are looked for when it ends short of an open end (declared unit of the variable)
WALL_GRID = tuple(10.0 ** (k / 8) for k in range(-144, 145))


#: how a candidate found by :func:`numeric_walls` begins its origin (its location and value are numbers)
NUMERIC_END = f"{END} of the domain at the given values"


def numeric_walls(job: jobs._Job, var: sympy.Symbol, inside_at: Callable[[np.ndarray], np.ndarray] | None,
                  value_at: Callable[[float], float], domain: Sequence[sympy.Basic] = ()) -> tuple[tuple[bool, bool], list[Candidate]]:
    """At given values (``inside_at(xs)``: where the evaluate path gives a finite value, elementwise
    over an array of the variable in its declared unit; ``value_at(x)``: that value), whether the
    model gives no value at any of :data:`FAR` (the domain ends short of ``oo``) and at none of their
    inverses (short of ``0``), and where so, the closed edges of the domain on :data:`WALL_GRID`,
    refined by bisection, as candidates whose location and value are numbers: SymPy finds no limit
    or edge of a condition through nested ``Min`` (Hong & Kim's ``NpWB >= 1`` through MWP), where
    the far end's limit would be a value the model never takes. An edge outside ``domain`` (the extremum's, in the
    variable's declared unit: ``--assume 'theta <= 150'``) is none, and one it leaves open is a candidate only where
    its conditions hold (Volkov's pole at ``theta = c``, where the evaluate path's value is finite but huge: an
    outside tester's finding, round 10, F3)."""
    def inside(xs: Sequence[float]) -> np.ndarray:
        assert inside_at is not None
        return np.asarray(inside_at(np.asarray(xs, dtype=float)), dtype=bool)

    def at(x: float) -> float | None:
        try:
            value = float(value_at(x))
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            return None
        return value if value == value else None

    if inside_at is None:
        return (False, False), []
    try:
        walls = (not inside(FAR).any(), not inside([1 / x for x in FAR]).any())
        flags = inside(WALL_GRID) if any(walls) else np.zeros(0, dtype=bool)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return (False, False), []
    if not any(walls):
        return walls, []
    if not flags.any():
        raise errors.NoAnswerHere(f"{job.model.id}: the model gives {job.quantity} no value for any {var} from {WALL_GRID[0]:g} to "
                                  f"{WALL_GRID[-1]:g} at the given values (its valid_when domain holds nowhere there); "
                                  "check the values (--set) against the domain (symgpu show)")
    model = job.model
    found: list[Candidate] = []
    for i in np.nonzero(flags[:-1] != flags[1:])[0]:
        held, left = (WALL_GRID[i], WALL_GRID[i + 1]) if flags[i] else (WALL_GRID[i + 1], WALL_GRID[i])
        while abs(held - left) > 1e-13 * abs(held):
            mid = 0.5 * (held + left)
            held, left = (mid, left) if inside([mid])[0] else (held, mid)
        # bare numbers are read in coherent base units (symgpu.evaluate.scaling); the value is taken where the location reads back
        location = sympy.Float(held * scaling.symbol_scale(model, var.name), 17)
        held = float(location) / scaling.symbol_scale(model, var.name)
        conditions = at_location(job, domain, var, sympy.Float(held, 17))  # the domain's numbers are in the declared unit
        if conditions is None:
            continue
        value = at(held)
        if value is None:
            continue
        job.step("end point", sympy.Eq(var, location), f"{END} of the valid_when domain at the given values, {var} = {held:.10g} "
                 f"{model.unit_text(var.name)} (found by bisection on the evaluate path: SymPy gives no closed form of the edge): "
                 f"the quantity there, {value:.10g} {model.unit_text(job.quantity)}, is a candidate (both in base units here)")
        found.append(Candidate(location, sympy.Float(value * scaling.symbol_scale(model, job.quantity), 17), NUMERIC_END,
                               tuple(conditions)))
    return walls, found
