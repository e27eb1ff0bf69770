"""An extremum's value at its location, exactly: the location's closed form and the quantity read at the point's inputs
as exact numbers (each the shortest decimal of its value, as the exact evaluation reads inputs), the quantity taken at
the location's exact value, so a case condition whose edge the location is decides there as it does at the exact point
(``bw0 <= c2/u0`` at ``u0 = c2/bw0``: ``0.56 <= 0.56``), where the location's double may lie just past the edge
(``19/0.56``: no double), on the other case. Read by :func:`symgpu.derive.certify._extremum` where the quantity at the
double is not the extreme value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from symgpu import errors
from symgpu.derive.certify_path import Asked, _Point
from symgpu.evaluate import point as exact_point
from symgpu.evaluate import scaling

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.model import Model


def value_there(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> float | None:
    """The quantity at ``point`` with the variable at ``derivation.location`` exactly, in the quantity's declared unit;
    None where the question rewrote the quantity (a substitution), the location is no closed form in symbols (a number
    found by a search, whose digits are all it has), an input has no exact value there, or either is no finite number."""
    location = derivation.location
    if asked.substitute or derivation.extra.declared_numbers or asked.quantity not in model.defining \
            or asked.variable in model.defining or asked.variable not in model.symbols \
            or not isinstance(location, sympy.Expr) or not location.free_symbols or location.has(sympy.oo, -sympy.oo, sympy.zoo):
        return None
    var = model.symbols[asked.variable]
    try:  # every input a number: each case condition decided at once, no condition of symbols left for SymPy to fold
        quantity, where = (scaling.base_expression(model, e) for e in (model.expression(asked.quantity), location))
        numbers = exact_point.exact_base_values(model, (quantity.free_symbols | where.free_symbols) - {var}, point.preset, point.values)
        if numbers is None:
            return None
        at = where.xreplace(numbers)
        if not (at.is_number and at.is_extended_real and at.is_finite):
            return None
        value = quantity.xreplace({**numbers, var: at})
        return float(value / scaling.unit_scale(model.units[asked.quantity])) if value.is_number and value.is_finite else None
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, NotImplementedError, RecursionError):
        return None
