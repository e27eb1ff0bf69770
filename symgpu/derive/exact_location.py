"""An extremum's value at its location put in exactly: the quantity with the variable replaced by the answer's location
itself, a closed form in the inputs, so a case condition whose edge the location is decides there as it does at the
exact point (``bw0 <= c2/u0`` at ``u0 = c2/bw0`` is ``bw0 <= bw0``), where the location's double may lie just past the
edge (``19/0.56``: no double), on the other case. Read by :func:`symgpu.derive.certify._extremum` where the quantity at
the double is not the extreme value."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pint
import sympy

from symgpu import errors
from symgpu.derive.certify_path import Asked, _Point, _result_at

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.model import Model


def value_there(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> float | None:
    """The quantity at ``point`` with the variable replaced by ``derivation.location`` (evaluated after the replacement, so
    exactly at the location the closed form names); None where the question rewrote the quantity (a substitution), the
    location is no closed form in symbols (a number found by a search, whose digits are all it has), or there is no value."""
    location = derivation.location
    if asked.substitute or derivation.extra.declared_numbers or asked.quantity not in model.defining \
            or asked.variable in model.defining or asked.variable not in model.symbols \
            or not isinstance(location, sympy.Expr) or not location.free_symbols or location.has(sympy.oo, -sympy.oo, sympy.zoo):
        return None
    there = model.expression(asked.quantity).xreplace({model.symbols[asked.variable]: location})
    try:
        return _result_at(model, derivation, there, model.units[asked.quantity], point, {})
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return None
