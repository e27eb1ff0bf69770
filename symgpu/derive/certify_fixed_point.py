"""The certificate of a fixed point (:func:`fixed_point`): at the point, the answer lies in the variable's declared range
(an integer variable's is a whole number, or a real root between two whole values of the range across which
``x - quantity(x)`` changes sign), and the residual ``x - quantity(x)`` vanishes there; a point where the conditions the
answer states it holds under (``valid when``) fail is no check of it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from symgpu import units
from symgpu.derive import declared_range
from symgpu.derive.certify_path import RESIDUAL, Asked, _fail, _Point, _quantity, _result_at, stated_hold
from symgpu.derive.derivation import Derivation

if TYPE_CHECKING:
    from symgpu.model import Model


def fixed_point(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """What the check found at ``point``; raises where the answer is no admissible fixed point.

    Raises:
        errors.CertificateError: the answer is outside the declared range, an integer variable's answer lies between no
            two whole values across which the residual changes sign, or the residual does not vanish.
    """
    if not stated_hold(model, derivation, point):
        return None  # the closed form says where it holds ("valid when ...": inside the declared range): it claims nothing here
    unit = model.units[asked.variable]
    x = _result_at(model, derivation, derivation.result, unit, point, {})
    if not np.isfinite(x):
        raise _fail(model, asked, point, f"the fixed point is {x}")
    declared = declared_range.of(model, asked.variable)
    failing = declared.failing(np.asarray([x]))
    if failing:
        raise _fail(model, asked, point, f"the fixed point {asked.variable} = {x:.10g} is outside the variable's declared range ({failing})")
    whole = ""
    if declared.integer and abs(x - round(x)) > 1e-9 * max(1.0, abs(x)):
        ends = np.asarray([math.floor(x), math.ceil(x)], dtype=float)
        gaps = ends - _image(model, asked, point, ends) if not declared.failing(ends) else np.asarray([np.nan, np.nan])
        if not (np.all(np.isfinite(gaps)) and (gaps[0] == 0 or gaps[1] == 0 or (gaps[0] > 0) != (gaps[1] > 0))):
            raise _fail(model, asked, point, f"{asked.variable} is declared integer, and the fixed point {x:.10g} lies between no two whole "
                        f"values of its range across which {asked.variable} - {asked.quantity}({asked.variable}) changes sign")
        whole = f"; {asked.variable} - {asked.quantity}({asked.variable}) changes sign between the whole values {ends[0]:g} and {ends[1]:g} beside it"
    image = float(_image(model, asked, point, np.asarray(x)))
    if not abs(image - x) <= RESIDUAL * max(abs(x), 1e-300):
        raise _fail(model, asked, point, f"{asked.variable} = {x:.10g} maps to {image:.10g}: the residual does not vanish")
    return (f"the residual {asked.variable} - {asked.quantity}({asked.variable}) vanishes (relative {abs(image - x) / max(abs(x), 1e-300):.1e})"
            + whole)


def _image(model: Model, asked: Asked, point: _Point, v: np.ndarray) -> np.ndarray:
    """The quantity at ``v``, in the variable's unit (the quantity may be in another unit of the same dimension)."""
    image = np.asarray(_quantity(model, asked, point, v), dtype=float)
    return np.asarray(units.magnitude_in(units.registry().Quantity(image, model.units[asked.quantity]), model.units[asked.variable]), dtype=float)
