"""The side a limit at a point (``--preset``/``--set``) is taken from: the model gives the quantity
values only inside its variable's declared range and its ``valid_when`` domain, so a limit from a
side where it has none is no limit of the model. Volkov's ``memory_latency`` as ``theta -> c``
(valid only when ``theta < c``) is taken from below; the interval notes' ``P_K0`` as ``N -> oo``
(valid for ``N <= 800`` at M = 16) and MDM's ``S_Mem`` as ``W -> oo`` past ``W_max`` have none.

Read on the evaluate path at the point, at the points the certificate approaches from
(:func:`symgpu.derive.certify_limit.limit`): a side is the model's where every such point is admitted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import certify, certify_path, declared_range
from symgpu.derive.certify_path import Asked
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import compiler, input_values

if TYPE_CHECKING:
    from symgpu.model import Model

#: how a side an --assume on the variable excludes is said (refused as no answer, not as outside the model)
ASSUMED = "the assumption "
#: relative offsets from a finite point, and distances towards an infinite one, that are read
NEAR = np.geomspace(1e-2, 1e-11, 10)
FAR = np.geomspace(1e4, 1e13, 10)


def direction(model: Model, asked: Asked, defaulted: str) -> str:
    """The direction to take the limit from at the point ``asked`` gives: its ``direction`` as asked
    where the model has values there; where it was not asked (``defaulted`` is the engine's default)
    the side or sides the model has values on.

    Raises:
        errors.DerivationError: where the model gives the quantity no value on the side asked (or on
            either side), saying which declared range or ``valid_when`` condition fails there.
    """
    direction = asked.direction
    if (direction or defaulted) not in ("+", "-", "+-"):
        return direction or defaulted  # refused, saying so, where the limit is taken
    point = certify_path._Point("", asked.preset, dict(asked.values))
    try:
        to = certify_path._to_number(model, asked, point)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return direction or defaulted
    if np.isnan(to):
        return direction or defaulted
    if np.isinf(to):
        why = _failing(model, asked, point, _approach(to, "+"))
        if why.startswith(ASSUMED):
            raise errors.NoAnswerHere(f"{model.id}: {asked.quantity} as {asked.variable} -> {asked.to} at the given values: {why}, so "
                                      "the question asked under it has no such limit; drop the assumption")
        if why:
            raise errors.DerivationError(f"{model.id}: the model gives {asked.quantity} no value as {asked.variable} -> {asked.to} "
                                         f"at the given values: {why}; there is no limit of the model there (ask for the "
                                         "extremum over its domain, or eval at the domain's end)")
        return direction or defaulted
    failing = {side: _failing(model, asked, point, _approach(to, side)) for side in ("+", "-")}
    admitted = [side for side in ("+", "-") if not failing[side]]
    if direction is None and admitted:  # not asked: the side or sides the model has values on
        return "+-" if len(admitted) == 2 and defaulted == "+-" else defaulted if defaulted in admitted else admitted[0]
    for side in _sides(direction or defaulted):
        if failing[side]:
            other = "-" if side == "+" else "+"
            hint = (f"; from the other side (--dir {other}) it has values" if other in admitted
                    else "; it has none on either side")
            if failing[side].startswith(ASSUMED):
                raise errors.NoAnswerHere(f"{model.id}: {asked.quantity} as {asked.variable} -> {asked.to} from "
                                          f"{'above' if side == '+' else 'below'} at the given values: {failing[side]}, so the "
                                          "question asked under it has no such limit" + (f"; from the other side (--dir {other}) it "
                                          "has values" if other in admitted else "; drop the assumption, or ask at a point it admits"))
            raise errors.DerivationError(
                f"{model.id}: the model gives {asked.quantity} no value as {asked.variable} -> {asked.to} from "
                f"{'above' if side == '+' else 'below'} at the given values: {failing[side]}{hint}")
    return direction or defaulted


def below_too(model: Model, answer: Derivation, asked: Asked, below: Callable[[], Derivation]) -> Derivation:
    """``answer``, a limit at a finite point taken from above by default (no side asked, a positive variable), with
    ``extra.elsewhere`` saying that the sides differ where the quantity just below the point (evaluate path) is not that
    limit and the model has values there: a switch or step at the point (Hong & Kim's MWP = N). The value below is
    ``below()``'s, that side's limit, checked; where it has none, the quantity's value just below is quoted."""
    point = certify_path._Point("", asked.preset, dict(asked.values))
    unit = model.units[asked.quantity]
    try:
        to = certify_path._to_number(model, asked, point)
        if not np.isfinite(to) or _failing(model, asked, point, _approach(to, "-")):
            return answer
        above = certify_path._result_at(model, answer, answer.result, unit, point, {})
        with np.errstate(all="ignore"):
            near = float(certify_path._quantity(model, asked, point, np.asarray([to - 1e-9 * max(abs(to), 1.0)]))[0])
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return answer
    if not (np.isfinite(above) and np.isfinite(near)) or abs(near - above) <= 1e-6 * max(abs(above), 1e-300):
        return answer
    try:
        other = below()
        value = certify_path._result_at(model, other, other.result, unit, point, {})
        said = f"from below it is {value:.10g} {answer.unit}"
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        value, said = near, f"just below it the quantity is {near:.10g} {answer.unit} (no limit from below is taken)"
    if abs(value - above) <= 1e-9 * max(abs(above), 1e-300):
        return answer
    note = (f"this is the limit from above, the default for a positive {asked.variable}; {said}: the sides differ, so there is "
            "no two-sided limit (--dir - for the side below)")
    return dataclasses.replace(answer, extra=answer.extra.with_(
        elsewhere=note if not answer.extra.elsewhere else f"{answer.extra.elsewhere}; {note}"))


def both_sides_in_symbols(model: Model, answer: Derivation, asked: Asked, below: Callable[[], Derivation]) -> Derivation:
    """``answer``, a limit in symbols at a finite point taken from above by default (no side asked, a positive
    variable), with the side below taken too (``below()``, checked) and said in ``extra.elsewhere``: equal (proved
    so), the two-sided limit; not equal at one of the model's presets or validation cases, no two-sided limit and both one-sided limits
    (MDM's ``S_Total_MDM`` at ``W = MSHRs/M_Read``, where the formula switches); neither shown, both given, the
    two-sided limit not claimed. Where the model has no limit below (its range ends at the point) ``answer`` as it is."""
    try:
        other = below()
    except errors.SymgpuError:
        return answer
    if any(step.operation == "side" for step in answer.steps) or other.extra.elsewhere:
        return answer  # one side only is the model's (valid_when): said by a step already
    above_expr, below_expr = answer.result, other.result
    if not (isinstance(above_expr, sympy.Expr) and isinstance(below_expr, sympy.Expr)):
        return answer
    if above_expr == below_expr or sympy.simplify(above_expr - below_expr) == 0:
        note = (f"the limits from above and from below are equal: this is the two-sided limit as {asked.variable} -> the point")
    else:
        differs = _differs_at_a_point(model, asked, answer, other)
        head = (f"no two-sided limit: the sides differ ({differs})" if differs else
                "the limits from above and from below are not shown equal, so no two-sided limit is claimed")
        note = (f"{head}; this is the limit from above, the default for a positive {asked.variable}; from below it is "
                f"{sympy.sstr(below_expr)} [{other.unit}] (direction '-', --dir -)")
    return dataclasses.replace(answer, extra=answer.extra.with_(
        elsewhere=note if not answer.extra.elsewhere else f"{answer.extra.elsewhere}; {note}"))


def _differs_at_a_point(model: Model, asked: Asked, above: Derivation, below: Derivation) -> str:
    """The first of the model's presets and validation cases where the two limits have different finite values,
    said ("" where none)."""
    for point in certify._bases(model, asked):
        try:
            up = certify_path._result_at(model, above, above.result, above.unit, point, {})
            down = certify_path._result_at(model, below, below.result, below.unit, point, {})
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
            continue
        if np.isfinite(up) and np.isfinite(down) and abs(up - down) > 1e-9 * max(abs(up), abs(down), 1e-300):
            return f"at {point.label}: {up:.10g} from above, {down:.10g} from below"
    return ""


def _sides(direction: str) -> tuple[str, ...]:
    return ("+", "-") if direction == "+-" else (direction,)


def _approach(to: float, side: str) -> np.ndarray:
    if np.isinf(to):
        return float(np.sign(to)) * FAR
    return to + (1.0 if side == "+" else -1.0) * NEAR * max(abs(to), 1.0)


def _failing(model: Model, asked: Asked, point: certify_path._Point, xs: np.ndarray) -> str:
    """Why the model gives no value at the last approach points (its declared range or the first
    ``valid_when`` condition that fails at them), or "" where it gives values at all of them."""
    tail = xs[-4:]
    declared = declared_range.of(model, asked.variable).failing(tail)
    if declared:
        return declared
    for text in asked.assume:  # an --assume on the variable (the others hold at the point: checked._skip)
        if not certify_path._assumed_hold(model, dataclasses.replace(asked, assume=(text,)), point, tail).all():
            return f"{ASSUMED}{text} (--assume) does not hold there"
    inside = certify_path._inside(model, asked, point, tail)
    if inside.all():
        return ""
    try:
        given, magnitudes = input_values.gather_values(model, asked.quantity, point.preset, certify_path._with(model, asked, point, tail),
                                                       check=False)
        for equation, condition, cond_args, holds_at in compiler.domain_conditions(model, asked.quantity, given):
            if all(a in magnitudes for a in cond_args):
                with np.errstate(all="ignore"):
                    holds = np.broadcast_to(np.asarray(holds_at(*[magnitudes[a] for a in cond_args]), dtype=bool), tail.shape)
                if not holds.all():
                    return f"equation {equation.id}'s valid_when {condition} does not hold there"
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        pass
    return "a valid_when domain does not hold there"
