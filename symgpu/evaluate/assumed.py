"""The conditions a source assumes for a formula to be what its quantity is described as (an equation's
``assumes``: Volkov's cusp alpha = alu_thru/mem_thru 'if we assume that throughput is bound by arithmetic
capability, not instruction issue'), checked at a point. Unlike ``valid_when`` nothing is refused: the value
is the formula's either way, and the caller says which assumption fails there."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors
from symgpu.evaluate import compiler, evaluator, input_values

if TYPE_CHECKING:
    from symgpu.model.build import Model


@dataclass(frozen=True)
class Assumption:
    """One ``assumes`` condition on the way to a quantity, at a point.

    Attributes:
        equation: the id of the equation that assumes it.
        defines: the quantity that equation defines.
        condition: the condition as written.
        fails: at how many points it fails (0: it holds everywhere asked; the point count for a scalar is 1).
        points: how many points were asked.
        lacking: the inputs it reads that have no value (then it is not checked, and ``fails`` is 0).
        inputs: the condition's symbols at the point, each in its declared unit (scalars only; empty where
            one could not be evaluated or a value is lacking).
    """

    equation: str
    defines: str
    condition: sympy.Basic
    fails: int
    points: int
    lacking: tuple[str, ...] = ()
    inputs: tuple[tuple[str, pint.Quantity], ...] = ()


def assumptions(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any]) -> list[Assumption]:
    """Every ``assumes`` condition of the equations ``quantity`` is computed from, at the preset and values:
    whether it holds (at each point of an array input), or which inputs it lacks."""
    given, magnitudes = input_values.gather_values(model, quantity, preset, values)
    out = []
    for equation, condition, args, holds_at in compiler.domain_conditions(model, quantity, given, "assumes"):
        defines = equation.definition.defines
        lacking = tuple(a for a in args if a not in magnitudes)
        if lacking:
            out.append(Assumption(equation.id, defines, condition, 0, 0, lacking))
            continue
        with np.errstate(all="ignore"):
            holds = np.asarray(holds_at(*[magnitudes[a] for a in args]), dtype=bool)
        fails = int(holds.size - np.count_nonzero(holds))
        out.append(Assumption(equation.id, defines, condition, fails, int(holds.size),
                              inputs=_inputs(model, condition, preset, values) if fails and holds.size == 1 else ()))
    return out


def failing(model: Model, assumption: Assumption, shown: Callable[[str, pint.Quantity], str], *, described: bool = True) -> str:
    """The sentence on ``assumption`` where it fails, as ``symgpu eval`` and a report's value table say it: which
    equation assumes what, which does not hold here (each input as ``shown(name, value)`` gives it) or at how many
    points, and that the value is the formula's, not what the quantity is described as (``described``: with that
    description in parentheses)."""
    said = f"{assumption.defines} (equation {assumption.equation}) assumes {sympy.sstr(assumption.condition)}"
    where = (f"here ({', '.join(f'{n} = {shown(n, q)}' for n, q in assumption.inputs)})"
             if assumption.points == 1 else f"at {assumption.fails} of the {assumption.points} points")
    description = f" ({model.symbol_definitions[assumption.defines].description})" if described else ""
    return f"{said}, which does not hold {where}: the value is the formula's, not what {assumption.defines} is described as{description}"


def _inputs(model: Model, condition: sympy.Basic, preset: str | None, values: Mapping[str, Any]) -> tuple[tuple[str, pint.Quantity], ...]:
    """The symbols of ``condition`` (as written) at the point, each in its declared unit; none where one fails."""
    out = []
    for symbol in sorted(condition.free_symbols, key=lambda s: s.name):
        try:
            out.append((symbol.name, evaluator.evaluate_expression(model, symbol, model.units[symbol.name], preset=preset, values=values)))
        except errors.SymgpuError:
            return ()
    return tuple(out)
