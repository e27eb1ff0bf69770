"""A solve's numeric target (in its quantity's declared unit) put into the answer after the unit check (:func:`put`), where
the answer read in coherent base units is the same with it put in (:func:`same_in_base_units`); else kept as the quantity's
value beside the answer (extra ``target_value``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from symgpu import errors
from symgpu.derive.derivation import Step
from symgpu.derive.extra_records import TargetValue
from symgpu.evaluate import scaling
from symgpu.proofs import forms

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class Put:
    """The answer with the target put in (or as it was), the step that says so, and the target kept beside the answer
    (extra ``target_value``) where it stays a symbol, else None."""

    result: sympy.Basic
    step: Step
    kept: TargetValue | None


def put(model: Model, result: sympy.Basic, symbol: sympy.Symbol, number: sympy.Expr) -> Put:
    """The numeric target ``number`` (in ``symbol``'s declared unit, ``symbol`` the quantity) put into ``result``, or kept as the
    quantity's value where a bare number would change meaning.

    NOTE: evaluation reads an expression in coherent base units (:mod:`symgpu.evaluate.scaling`): a bare number in a
    product is a pure number there. ``500`` put in for a time declared in ns would be read as 500 s (``500*phi`` with
    phi in GHz: 5e11 cycles instead of 500). The number goes in only where the result read in base units is the same
    with it put in as with the quantity's base-unit value put into the base-unit reading."""
    unit = model.unit_text(symbol.name)
    equation = sympy.Eq(symbol, number, evaluate=False)
    if same_in_base_units(model, result, symbol, number):
        return Put(forms.xreplaced(result, {symbol: number}, {})[0],
                   Step("target value", equation, f"the target {sympy.sstr(number)} is in the unit of {symbol} ({unit}); "
                        "put in after the unit check, where a bare number would have lost that unit"), None)
    return Put(result, Step("target value", equation,
                            f"the target {sympy.sstr(number)} {unit} is the value of {symbol} wherever the result is evaluated; "
                            f"{symbol} stays a symbol because {unit} is not a coherent base unit (a bare number in the expression "
                            "would lose its scale)"), TargetValue(symbol.name, number))


def same_in_base_units(model: Model, result: sympy.Basic, symbol: sympy.Symbol, number: sympy.Expr) -> bool:
    """Does ``result`` with ``number`` (in ``symbol``'s unit) put in evaluate as with ``symbol`` at that value? (False: not proved.)"""
    if scaling.in_base_units(model, result):
        return True
    parts = result.args if isinstance(result, sympy.Tuple) else (result,)
    base_value = number * scaling.unit_scale(model.units[symbol.name])
    for part in parts:  # substituted as SymPy's xreplace does, each Min/Max built once (forms.xreplaced)
        try:
            put = scaling.base_expression(model, forms.xreplaced(part, {symbol: number}, {})[0])
        except errors.EvaluationError:  # the number lands beside siblings of different scale: not the same
            return False
        wanted = forms.xreplaced(scaling.base_expression(model, part), {symbol: base_value}, {})[0]
        if put != wanted and (put.has(sympy.Piecewise) or wanted.has(sympy.Piecewise) or sympy.cancel(put - wanted) != 0):
            return False
    return True
