"""The regimes check (:mod:`.certify` runs it at each point): the regime table, the value of the
first regime whose conditions hold, gives the model's own value at the point, and along a scan of
the variable when the question names one, wherever the model has a value there and the question's
extra assumptions hold. A regime value that differs from the model's, or a gap where no regime's
conditions hold, is a failure.

The scan follows what the derivation took the variable to be: a constant of positive value is
positive, an integer is scanned at integers. Where the table is undefined because an input is 0
(conditions cleared of a denominator in it cancel there: ``alpha**2*n < alpha*c`` at ``alpha = 0``),
nothing is claimed: a question asked at that point says so and what to do."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.derive.certify_path import RESIDUAL, Asked, _fail, _inside, _Point, _quantity, _scan_grid, _with, assumed
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import evaluator, input_values

if TYPE_CHECKING:
    from symgpu.model import Model


def regimes(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """Check the regime table at ``point`` (the variable scanned when there is one); None where the
    model has no value to compare with."""
    xs = _scan(model, asked.variable) if asked.variable else np.ones(1)
    with np.errstate(all="ignore"):
        truth = np.asarray(_quantity(model, asked, point, xs), dtype=float)
        fine = np.isfinite(truth) & _inside(model, asked, point, xs) & _assumed(model, asked, point, xs)
        if not fine.any():
            return None
        table = _table_values(model, derivation, asked, point, xs)
    scale = float(np.max(np.abs(truth[fine])))
    # the tolerance from the model's value alone: an infinite table value is no match for a finite one
    tolerance = np.maximum(RESIDUAL * np.abs(truth), 1e-12 * scale)
    degenerate = np.isnan(table) & _zero_input(model, derivation, asked, point, xs)
    off = np.flatnonzero(fine & ~degenerate & ~(np.abs(table - truth) <= tolerance))  # NaN compares false: a gap is off too
    if len(off):
        i = int(off[0])
        where = f" at {asked.variable} = {xs[i]:.10g}" if asked.variable else ""
        if np.isnan(table[i]):
            raise _fail(model, asked, point, f"no regime's conditions hold{where}, where the model gives {truth[i]:.10g}")
        raise _fail(model, asked, point, f"the regime table gives {table[i]:.10g}{where}, the model {truth[i]:.10g}")
    checked = fine & ~degenerate
    if not checked.any():
        return None  # undefined where an input is 0: the question at that point says so
    if asked.variable:
        at_zero = " (where an input is 0 its conditions cancel and it is undefined)" if (fine & degenerate).any() else ""
        return f"the regime table gives the model's value at each of {int(checked.sum())} scanned values of {asked.variable}{at_zero}"
    return "the regime table gives the model's value at the point"


def _scan(model: Model, variable: str) -> np.ndarray:
    """The variable's scan (:func:`_scan_grid`) as the derivation took it: positive values only for
    a constant of positive value (the sign reasoner takes it as positive), integers for an integer."""
    xs = _scan_grid(model, variable, [])
    constant = model.constants.get(variable)
    if constant is not None and float(constant.magnitude) > 0:
        xs = xs[xs > 0]
    if variable in model.symbol_definitions and "integer" in model.symbol_definitions[variable].assumptions:
        xs = np.unique(np.round(xs))
        assumptions = model.symbol_definitions[variable].assumptions
        xs = xs[xs > 0] if "positive" in assumptions else xs[xs >= 0] if "nonnegative" in assumptions else xs
    return xs


def _assumed(model: Model, asked: Asked, point: _Point, xs: np.ndarray) -> np.ndarray:
    """Where the question's extra assumptions (``--assume``) hold along the scan: the table is
    derived under them and claims nothing elsewhere (all True without any)."""
    if not asked.assume:
        return np.ones(xs.shape, dtype=bool)
    flag = sympy.Piecewise((1, sympy.And(*[assumed(model, a) for a in asked.assume])), (0, True))
    values = _with(model, asked, point, xs if asked.variable else 1.0)
    found = evaluator.evaluate_expression(model, flag, None, preset=point.preset, values=values).magnitude
    return np.broadcast_to(np.asarray(found, dtype=float) == 1, xs.shape)


def _zero_input(model: Model, derivation: Derivation, asked: Asked, point: _Point, xs: np.ndarray) -> np.ndarray:
    """Where an input of the table is 0 along the scan (the variable itself, or an input the point gives as 0)."""
    values = input_values.merge_values(model, point.preset, dict(point.values))
    zero = any(n != asked.variable and n in values and _is_zero(model, n, values[n]) for n in evaluator.free_names(derivation.result)) \
        if isinstance(derivation.result, sympy.Basic) else False
    return (xs == 0) | zero if asked.variable else np.full(xs.shape, zero)


def _is_zero(model: Model, name: str, value: Any) -> bool:
    try:
        return bool(np.all(np.asarray(input_values.base_magnitude(model, name, value), dtype=float) == 0))
    except (TypeError, ValueError):
        return False


def _table_values(model: Model, derivation: Derivation, asked: Asked, point: _Point, xs: np.ndarray) -> np.ndarray:
    """The regime table's value at each scan value (NaN where no regime holds or it has no value);
    quantities the table keeps as symbols are evaluated there from their equations."""
    table = derivation.result
    values = evaluator.with_kept(model, table, point.preset, _with(model, asked, point, xs if asked.variable else 1.0), checks=False)
    found = evaluator.evaluate_expression(model, table, model.units[asked.quantity], preset=point.preset, values=values).magnitude
    return np.broadcast_to(np.asarray(found, dtype=float), xs.shape)
