"""Where two regimes of a boundary question switch along the variable: the condition that separates them
inverted (for staircases, a threshold), else its root, else where their values meet.

One convention for a tie: two staircase limiters may stay equal on a whole interval (occupancy's register and
shared-memory limits, both 4 blocks for smem_per_block in 32513..40960 at cc_8_0, 64 registers, 256 threads).
The boundary is then the last value where the regime below still binds, alone or tied; above it the other binds
alone (40960, as the scan of the evaluate path says: register_limit binds up to and including it). The tie's
other end is said in a step.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.core.relational import Relational

from symgpu import errors
from symgpu.derive import inequalities, jobs, regime_conditions, regime_split
from symgpu.proofs import forms

_ABOVE = (sympy.StrictGreaterThan, sympy.GreaterThan)


def switch_condition(ra: regime_split.Regime, rb: regime_split.Regime, var: sympy.Symbol) -> tuple[regime_split._Cond, regime_split.Regime] | None:
    """The condition (``h > 0`` or ``h >= 0``) of one regime whose opposite is a condition of
    the other: where its sign switches, so does the regime (for Min/Max regimes it compares
    the two arguments; for the cases of a Piecewise it is the case condition). Returns the
    non-strict one of the pair (the regime that takes the tie) and its regime."""
    for ca in ra.raw:
        if ca.h is None or var not in ca.h.free_symbols:
            continue
        for cb in rb.raw:
            if cb.h is not None and regime_conditions.cancel_to_zero(ca.h, cb.h):
                return (cb, rb) if ca.strict and not cb.strict else (ca, ra)
    return None


def same_context(ra: regime_split.Regime, rb: regime_split.Regime) -> bool:
    """Do the two regimes share their opaque (case) conditions, such as ``Eq(x, 0)``?"""
    return {c.boolean for c in ra.raw if c.h is None} == {c.boolean for c in rb.raw if c.h is None}


def boundary_of(job: jobs._Job, ra: regime_split.Regime, rb: regime_split.Regime, var: sympy.Symbol, label: str) -> Any:
    """Where ``ra`` switches to ``rb``, solved for ``var`` (None if nowhere admissible)."""
    assert job.ctx is not None
    switch = switch_condition(ra, rb, var)
    h = switch[0].h if switch is not None else None
    if switch is not None and forms.has_staircase(h, var):
        return _staircase_threshold(job, ra, rb, switch, var, label)
    if h is not None:
        roots = jobs._solve_for(job, sympy.Eq(h, 0), var, f"the switching condition {label}")
        if roots:
            root = roots[0] if len(roots) == 1 else sympy.Tuple(*roots)
            job.step(f"boundary {label}", sympy.Eq(var, root),
                     f"{ra.name} and {rb.name} are separated by {sympy.sstr(sympy.GreaterThan(h, 0))}; it switches where {sympy.sstr(h)} = 0")
            return root
    # no single separating condition: where the two values meet
    eq = sympy.Eq(ra.expression, rb.expression)
    if var not in (ra.expression - rb.expression).free_symbols:
        return None
    roots = jobs._solve_for(job, eq, var, f"the boundary {label}")
    if not roots:
        return None
    root = roots[0] if len(roots) == 1 else sympy.Tuple(*roots)
    job.step(f"boundary {label}", sympy.Eq(var, root), f"{ra.name} = {rb.name}: {sympy.sstr(eq)} solved for {var}")
    return root


def _staircase_threshold(job: jobs._Job, ra: regime_split.Regime, rb: regime_split.Regime,
                         switch: tuple[regime_split._Cond, regime_split.Regime], var: sympy.Symbol, label: str) -> Any:
    """The threshold of the separating condition of two staircase regimes, by the module's tie convention: the
    condition of the regime below with the tie (``h >= 0`` of the regime that takes it, else ``-h >= 0`` of the
    other) inverted into ``var <= B``; B is the boundary."""
    assert job.ctx is not None
    cond, owner = switch
    other = rb if owner is ra else ra
    assert cond.h is not None
    job.step("switch condition", cond.relational, f"{owner.name} applies where this holds, {other.name} where it fails "
             "(the condition that separates them)")
    local = job.ctx.copy()
    context = [c.boolean for c in ra.raw if c.h is None and c.boolean in {d.boolean for d in rb.raw if d.h is None}]
    for condition in context:
        local.add(condition)
    if context:
        job.step("case context", sympy.And(*context), f"conditions shared by {ra.name} and {rb.name}, used to prove signs")
    inverted, steps = inequalities.invert(cond.relational, var, local.sign, local.nonnegative)
    job.steps.extend(steps)
    lower, upper, tie_start = owner, other, None
    if isinstance(inverted, _ABOVE):
        # the regime that takes the tie binds above: the boundary is where the other stops binding, tie included
        try:
            below, below_steps = inequalities.invert(sympy.GreaterThan(-cond.h, 0), var, local.sign, local.nonnegative)
        except errors.DerivationError:
            below = None
        if below is not None and not isinstance(below, _ABOVE) and isinstance(below, Relational):
            job.step("tie side", sympy.GreaterThan(-cond.h, 0), f"{other.name} binds, alone or tied with {owner.name}, where this "
                     "holds: the boundary is where it stops holding (the tie convention: the regime below keeps the tie)")
            job.steps.extend(below_steps)
            tie_start = job.ctx.nice(inverted.rhs)
            lower, upper, inverted = other, owner, below
    bound = job.ctx.nice(inverted.rhs)
    inverted = type(inverted)(var, bound)
    if tie_start is not None:
        job.step("tie", sympy.And(type(inverted)(var, bound), sympy.StrictGreaterThan(var, tie_start)),
                 f"where both hold {lower.name} and {upper.name} are equal (both bind): a tie from just above "
                 f"{sympy.sstr(tie_start)} to {sympy.sstr(bound)}")
    if isinstance(inverted, _ABOVE):
        why = (f"{lower.name} applies exactly when {sympy.sstr(inverted)}, {upper.name} on the other side: the threshold is the "
               "bound (the staircase values stay equal on a whole interval, so the boundary is where the separating condition "
               "switches)")
    else:
        why = (f"{lower.name} binds, alone or tied, exactly when {sympy.sstr(inverted)}, {upper.name} alone beyond it: the "
               "threshold is the boundary (the staircase values may stay equal on a whole interval; the boundary is its end, "
               "where the regime below stops binding)")
    job.step(f"boundary {label}", inverted, why)
    return bound
