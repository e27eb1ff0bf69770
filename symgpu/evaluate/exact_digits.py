"""A scalar value whose IEEE digits are rounding noise, put right in exact arithmetic.

``symgpu eval volkov_2016 exposed_latency -p maxwell -s alpha=0.1 -s n=1339.1818181818182`` is
``368 - 1338.1818181818182 * 1.1 * 0.25``: two terms of about 368 whose difference, from the decimals given,
is -5e-15 cycle. IEEE doubles give -5.684341886e-14, a difference of rounding residues printed with ten
digits as if each were known. :func:`checked` computes the value once more in ``Fraction`` arithmetic
(:mod:`symgpu.proofs.rational_value`: no SymPy substitution), every input the rational its decimal names
(:func:`point.exact_base_values`, as :func:`evaluator.exact` reads them), and gives that value where the
IEEE one differs from it by more than :data:`RELATIVE` (relative): only a cancellation or a long chain of
roundings moves a value so far, so every other answer keeps its IEEE digits. An expression that is not
rational arithmetic (a root, a float literal, a division by zero) is not checked: its value stands.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from symgpu.proofs import rational_value
from symgpu.evaluate import point, scaling, stepwise

if TYPE_CHECKING:  # pragma: no cover
    from symgpu.model import Model

#: the largest relative difference between the IEEE value and the exact one that is taken as rounding
#: (a few roundings are about 1e-16 each; 1e-12 takes an amplification of some ten thousand to reach)
RELATIVE = 1e-12


@dataclass(frozen=True)
class Checked:
    """A scalar value of a quantity after the check.

    Attributes:
        value: the value to show: the IEEE one, or the exact one where they differ by more than :data:`RELATIVE`.
        ieee: the IEEE value :func:`checked` was given.
        exact: the exact value (None where the expression is not rational arithmetic at the point).
        corrected: whether ``value`` is the exact value in place of the IEEE one.
    """

    value: float
    ieee: float
    exact: Fraction | None
    corrected: bool = False


def checked(model: Model, name: str, result: float, *, preset: str | None, values: Mapping[str, Any]) -> Checked:
    """``result``, the IEEE value of quantity ``name`` at ``preset`` and ``values`` (in its declared unit), checked
    against its exact value (the inputs' decimals as given): the exact one where they differ by more than
    :data:`RELATIVE`, else ``result`` as it is."""
    exact = exact_value(model, name, preset=preset, values=values)
    if exact is None or not math.isfinite(result):
        return Checked(result, result, exact)
    shown = float(exact)
    if abs(result - shown) <= RELATIVE * abs(shown):
        return Checked(result, result, exact)
    return Checked(shown, result, exact, corrected=True)


def exact_value(model: Model, name: str, *, preset: str | None, values: Mapping[str, Any]) -> Fraction | None:
    """Quantity ``name`` at the point in ``Fraction`` arithmetic, in its declared unit, every input the rational its
    decimal names; None where an equation on the way is not rational arithmetic there or an input has no finite value.
    Equation by equation, as :mod:`stepwise` computes the IEEE value (each right-hand side in base units, as
    :func:`compiler.equation_functions` compiles it): the expanded expression is not built."""
    defines = model.equation_for(name).definition.defines
    given = frozenset(k for k in values if k in model.defining and k != defines)  # as evaluator.evaluate takes them
    how = stepwise.plan(model, defines, given)
    mapping = point.exact_base_values(model, [model.symbols[k] for k in sorted(how.inputs)], preset, values)
    if mapping is None:
        return None
    memo = rational_value.inputs(mapping)
    found: Fraction | None = None
    for step in how.steps:
        rhs = model.defining[step].rhs
        found = rational_value.value(rhs if scaling.in_base_units(model, rhs) else scaling.base_expression(model, rhs), memo)
        if found is None:
            return None
        memo[model.symbols[step]] = found
    if found is None:
        return None
    scale = scaling.unit_scale(model.units[defines])
    return found / Fraction(int(scale.p), int(scale.q))


__all__ = ["Checked", "RELATIVE", "checked", "exact_value"]
