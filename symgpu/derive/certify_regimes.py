"""The regimes check (:mod:`.certify` runs it at each point): the regime table, the value of the
first regime whose conditions hold, gives the model's own value at the point, and along a scan of
the variable when the question names one, wherever the model has a value there. A regime value
that differs from the model's, or a gap where no regime's conditions hold, is a failure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from symgpu.derive.certify_path import RESIDUAL, Asked, _fail, _inside, _Point, _quantity, _scan_grid, _with
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import evaluator

if TYPE_CHECKING:
    from symgpu.model import Model


def regimes(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """Check the regime table at ``point`` (the variable scanned when there is one); None where the
    model has no value to compare with."""
    xs = _scan_grid(model, asked.variable, []) if asked.variable else np.ones(1)
    with np.errstate(all="ignore"):
        truth = np.asarray(_quantity(model, asked, point, xs), dtype=float)
        fine = np.isfinite(truth) & _inside(model, asked, point, xs)
        if not fine.any():
            return None
        table = _table_values(model, derivation, asked, point, xs)
    scale = float(np.max(np.abs(truth[fine])))
    tolerance = np.maximum(RESIDUAL * np.maximum(np.abs(truth), np.abs(table)), 1e-12 * scale)
    # the variable at 0, where conditions cleared of a denominator in it (alpha**2*n < alpha*c) cancel: the table is
    # undefined there, as a regimes question at that point says ("put the deciding values in before deriving")
    degenerate = bool(asked.variable) & (xs == 0) & np.isnan(table)
    off = np.flatnonzero(fine & ~degenerate & ~(np.abs(table - truth) <= tolerance))  # NaN compares false: a gap is off too
    if len(off):
        i = int(off[0])
        where = f" at {asked.variable} = {xs[i]:.10g}" if asked.variable else ""
        if np.isnan(table[i]):
            raise _fail(model, asked, point, f"no regime's conditions hold{where}, where the model gives {truth[i]:.10g}")
        raise _fail(model, asked, point, f"the regime table gives {table[i]:.10g}{where}, the model {truth[i]:.10g}")
    if asked.variable:
        at_zero = f" (at {asked.variable} = 0 its conditions cancel and it is undefined)" if (fine & degenerate).any() else ""
        return f"the regime table gives the model's value at each of {int((fine & ~degenerate).sum())} scanned values of {asked.variable}{at_zero}"
    return "the regime table gives the model's value at the point"


def _table_values(model: Model, derivation: Derivation, asked: Asked, point: _Point, xs: np.ndarray) -> np.ndarray:
    """The regime table's value at each scan value (NaN where no regime holds or it has no value);
    quantities the table keeps as symbols are evaluated there from their equations."""
    values: dict[str, Any] = _with(model, asked, point, xs if asked.variable else 1.0)
    table = derivation.result
    for name in evaluator.free_names(table):
        if name in model.defining and name not in values:
            values[name] = evaluator.evaluate(model, name, preset=point.preset, values=values, checks=False).magnitude
    found = evaluator.evaluate_expression(model, table, model.units[asked.quantity], preset=point.preset, values=values).magnitude
    return np.broadcast_to(np.asarray(found, dtype=float), xs.shape)
