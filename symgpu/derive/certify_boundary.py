"""The boundary check (:mod:`.certify` runs it at each point): at each boundary the answer gives,
two named limiters of the quantity's Min/Max (or of the one it reaches through sums and products) cross (their difference changes sign), or else the
regime :func:`symgpu.evaluate.active.binding` names differs on the two sides
(:func:`symgpu.evaluate.active.boundary_sides`) or at the boundary itself, and between the regimes
named (:func:`symgpu.derive.results.composite_switch`). Where two arguments that do not bind cross
the certificate says so. Brute force on :mod:`symgpu.evaluate` only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.derive import results, solving, staircase_boundary
from symgpu.derive.certify_path import Asked, _fail, _inside, _Point, _roots_at, _with, at_a_point
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active, evaluator

if TYPE_CHECKING:
    from symgpu.model import Model


def boundary(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """Check the boundaries at ``point``: each switches the regime there (module doc); None where none could be checked."""
    keep = tuple(n for n in (asked.variable,) if n in model.defining)  # a defined quantity as the variable stays a symbol
    expr = model.expression(asked.quantity, stop_at=keep)
    pair = _limiter_pair(model, asked.quantity, derivation.extra.between, keep)
    checked = 0
    crossings: list[float] = []  # two arguments' order switches, but the binding argument does not
    for number in _roots_at(model, derivation, asked, point, {}):
        around = active.boundary_sides(model, asked.variable, number)
        if not _inside(model, asked, point, np.asarray([number, *around])).all():  # no value there or beside it: no switch here
            continue
        if pair is not None:  # two named arguments of the quantity's Min/Max: their difference changes sign here
            gaps = [float(evaluator.evaluate_expression(model, pair, None, preset=point.preset,
                                                        values=_with(model, asked, point, x)).magnitude) for x in around]
            if any(np.isnan(gaps)):  # no number on one side (0/0 at the end of a range): nothing to check there
                continue
            if not (gaps[0] * gaps[1] < 0 or (gaps[0] == 0) != (gaps[1] == 0)):  # a sign change, or a tie on one side only
                raise _fail(model, asked, point, f"the two named limiters do not cross at {asked.variable} = {number:.10g} "
                            f"(their difference is {gaps[0]:.6g} below and {gaps[1]:.6g} above)")
        else:
            sides = [active.binding(model, expr, point.preset, _with(model, asked, point, x)) for x in around]
            if sides[0] == sides[1] and around[0] != number:  # a regime that holds at the boundary only (Eq(x, 1))
                sides[1] = active.binding(model, expr, point.preset, _with(model, asked, point, number))
            if sides[0] == sides[1]:
                raise _fail(model, asked, point, f"the regime is the same just below and just above the boundary {asked.variable} = {number:.10g}")
            values = [_with(model, asked, point, x) for x in (around[0], around[1] if around[0] != number else number)]
            if results.composite_switch(model, asked.quantity, derivation.extra.between, point.preset, values) is False:
                if at_a_point(asked):  # the command line refuses it, naming the switch there (results.applying_boundaries)
                    continue
                raise _fail(model, asked, point, f"the regime switches at {asked.variable} = {number:.10g}, but not between the named regimes")
            if len({active.binding(model, expr, point.preset, v, binding_only=True) for v in values}) == 1:
                crossings.append(number)
                continue
        checked += 1
    if not checked and not crossings:
        return None
    if not crossings:
        return f"the regime switches at {'each of ' + str(checked) + ' boundaries' if checked > 1 else 'the boundary'}"
    return (f"the regime switches at {checked} of {checked + len(crossings)} boundaries; at {asked.variable} = "
            f"{', '.join(f'{x:.6g}' for x in crossings)} arguments that do not bind there cross")


def _limiter_pair(model: Model, quantity: str, between: Any, keep: tuple[str, ...]) -> sympy.Expr | None:
    """``A - B`` (expanded) for two named limiters of the quantity's own Min/Max, or of the one it reaches
    through no other Min/Max or case table (:func:`symgpu.derive.staircase_boundary.limiter_owner`), else None."""
    owner = staircase_boundary.limiter_owner(model, quantity, between) or quantity
    pair = solving.named_limiters(model, owner, tuple(between) if between else None)
    if pair is None:
        return None
    a, b = pair
    expanded = {s: model.expression(s.name, stop_at=keep) for s in (a - b).free_symbols if s.name in model.defining and s.name not in keep}
    return (a - b).xreplace(expanded)
