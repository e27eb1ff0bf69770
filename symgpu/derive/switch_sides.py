"""The regimes of a quantity's own equation binding on the two sides of a candidate boundary value, at a point, and
whether they switch between a named pair there: helpers of :func:`symgpu.derive.results.applying_boundaries`, its
:class:`~symgpu.derive.results.Switch` and the boundary's certificate (:mod:`symgpu.derive.certify_boundary`). Moved out
of :mod:`symgpu.derive.results` when it passed 500 lines."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.evaluate import active, evaluator

if TYPE_CHECKING:
    from symgpu.model import Model


def regimes_beside(model: Model, name: str, variable: str, b: float, preset: str | None,
                    values: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """The regimes of ``name``'s own equation binding just below and just above ``variable = b``
    (at ``b`` itself for the upper side where both sides agree: a regime that holds there only, ``Eq(x, 1)``)."""
    sides = [{**values, variable: x} for x in active.boundary_sides(model, variable, b)]
    regimes = [binding_at(model, name, preset, side) for side in sides]
    if regimes[0] == regimes[1] and sides[0][variable] != b:
        regimes[1] = binding_at(model, name, preset, {**values, variable: b})
    return regimes[0], regimes[1]


def binding_at(model: Model, name: str, preset: str | None, values: Mapping[str, Any]) -> frozenset[str]:
    """The regimes of ``name``'s own equation that bind at the point: its applying case, or the
    limiters of its Min/Max as the regime table names them (:func:`symgpu.evaluate.active.binding_names`:
    equal bounds both, a nested Min's inner limiters)."""
    if isinstance(model.equation_for(name).rhs, (sympy.Min, sympy.Max)):
        return active.binding_names(model, name, preset, **values)
    return frozenset({active.active_regime(model, name, preset, **values)[0]})


def switches_between(below: frozenset[str], above: frozenset[str], pair: set[str]) -> bool:
    """Does the regime switch from one of the two named regimes, binding on one side only, to the
    other, binding on the other side only?"""
    if len(pair) != 2:
        return False
    a, b = sorted(pair)
    return a in below - above and b in above - below or b in below - above and a in above - below


def first_named_switch(model: Model, name: str, preset: str | None, sides: Sequence[Mapping[str, Any]], pair: set[str],
                        regimes: Sequence[frozenset[str]]) -> bool:
    """The two of ``pair`` bind together on one side (``regimes``: :func:`binding_at`'s names), and the limiter
    that binds by the model's rule (:func:`symgpu.evaluate.active.active_regime`: the first of equal ones in the
    file's order) changes from one of them to the other across the two sides (a staircase's step edge)?"""
    tied = len(pair) == 2 and any(pair <= side for side in regimes)
    names = [active.active_regime(model, name, preset, **side)[0] for side in sides] if tied else []
    return len(set(names)) == 2 and set(names) == pair


def composite_switch(model: Model, name: str, pair: Any, preset: str | None, sides: Sequence[Mapping[str, Any]]) -> bool | None:
    """Two regimes named ``case+limiter...`` (at least one with a limiter), the cases of ``name``'s own case table: does
    one hold on the first side and the other on the second (:func:`symgpu.evaluate.active.composite_holds`)? None for
    another pair (the boundary's certificate and :func:`applying_boundaries` check it, beside each value)."""
    pair = set(pair or ())
    own = {c.id for c in model.equation_for(name).cases} if name in model.defining else set()
    if len(pair) != 2 or all("+" not in p for p in pair) or not {p.split("#")[0].split("+")[0] for p in pair} <= own:
        return None
    a, b = sorted(pair)
    held = [(active.composite_holds(model, name, a, preset, **side), active.composite_holds(model, name, b, preset, **side)) for side in sides]
    return held[0] == (True, False) and held[1] == (False, True) or held[0] == (False, True) and held[1] == (True, False)


def undefined_beside(model: Model, name: str, preset: str | None, sides: Sequence[Mapping[str, Any]]) -> bool:
    """Does the quantity, every input given, have no value (NaN: ``0/0`` where an input is 0) on a side
    of a candidate boundary? Then no regime holds there and the named regimes do not switch: Hong &
    Kim's ``CWP_full = (Mem_cycles + Comp_cycles)/Comp_cycles`` at ``Uncoal_Mem_insts = 0`` when it is
    the only instruction count, the low end of its range."""
    for side in sides:
        try:
            value = float(evaluator.evaluate(model, name, preset=preset, values=side).magnitude)
        except (errors.SymgpuError, TypeError, ValueError):
            return False  # a missing input: not decided here
        if math.isnan(value):
            return True
    return False
