"""Exhaustive search of a quantity over an integer grid, for staircase functions with no closed form."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import certify_path
from symgpu.derive.derivation import Derivation, Step
from symgpu.derive.extras import Extras
from symgpu.evaluate import active, evaluator
from symgpu.proofs import forms

if TYPE_CHECKING:
    from symgpu.model import Model


def parse_grid(text: str) -> tuple[int, int, int]:
    """Parse ``"32:1024:32"`` (start, stop inclusive, step; step defaults to 1).

    Raises:
        errors.UsageError: not of that form, or an empty grid.
    """
    parts = str(text).split(":")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise errors.UsageError(f"grid {text!r}: expected START:STOP[:STEP] with whole numbers (--grid searches a staircase "
                                "at whole values; over a continuous variable ask without --grid for the closed form, or "
                                "sweep it: symgpu sweep ... -g VAR=START:STOP:STEP takes fractional steps)") from None
    if len(numbers) not in (2, 3) or (len(numbers) == 3 and numbers[2] <= 0) or numbers[1] < numbers[0]:
        raise errors.UsageError(f"grid {text!r}: expected START:STOP[:STEP] with START <= STOP and STEP > 0")
    start, stop = numbers[0], numbers[1]
    return start, stop, numbers[2] if len(numbers) == 3 else 1


def refuse_rewrites(model: Model, substitute: Any, omit: Iterable[Any] | None) -> None:
    """Refuse rewrites a grid search would not apply: it evaluates the model as written at each point,
    so a substitution or an omitted limiter would be silently ignored (a wrong value, or a missing one).

    Raises:
        errors.UsageError: ``substitute`` or ``omit`` given.
    """
    rewrites = [name for name, given in (("substitute", substitute), ("omit", tuple(omit or ()))) if given]
    if rewrites:
        raise errors.UsageError(f"{model.id}: an extremum over a grid evaluates the model as written at each grid point: "
                                f"{' and '.join(rewrites)} would not be applied; give input values instead (--set NAME=VALUE, "
                                "API values=), or ask without a grid for the closed form")


def grid_extremum(model: Model, quantity: str, over: str, grid: str, kind: str = "max", *,
                  preset: str | None = None, values: Mapping[str, Any] | None = None,
                  assume: Iterable[Any] | None = None) -> Derivation:
    """Maximise or minimise ``quantity`` over every point of an integer grid of ``over``.

    Used where the quantity is a staircase (floor/ceiling) with no derivative and no closed-form
    arg-extremum, e.g. the block sizes that maximise occupancy. Points outside the model's
    domain (``valid_when``) are skipped and counted, and so are the points where an ``assume``
    relation fails (``threads_per_block <= 256``: the question is asked where it holds; one
    that cannot be read at a point holds there). Ties are all reported.

    Returns:
        Derivation whose ``result`` is the extreme value and ``location`` the tuple of grid
        points attaining it; ``method`` says the search was exhaustive.

    Raises:
        errors.DerivationError: no grid point lies inside the model's domain.
        errors.NoAnswerHere: no grid point inside it meets the assumptions.
    """
    if kind not in ("max", "min"):
        raise errors.UsageError(f"extremum kind must be 'max' or 'min', not {kind!r}")
    start, stop, step = parse_grid(grid)
    points = np.arange(start, stop + 1, step)
    unit = model.units[over]
    found: list[tuple[int, float]] = []
    refused = 0
    conditions = [certify_path.assumed(model, a) for a in assume or ()]
    excluded: dict[sympy.Basic, int] = {}
    for point in points:
        given = dict(values or {})
        given[over] = float(point)
        failed = _failed(model, conditions, preset, given)
        if failed:
            excluded[failed[0]] = excluded.get(failed[0], 0) + 1
            continue
        try:
            value = evaluator.evaluate(model, quantity, preset=preset, values=given)
        except errors.DomainError:
            refused += 1
            continue
        found.append((int(point), float(value.magnitude)))
    if not found and excluded:
        raise errors.NoAnswerHere(f"{model.id}: no point of {over} in {grid} meets the assumption {' and '.join(map(sympy.sstr, conditions))} "
                                  f"(--assume) inside the domain of {quantity}: {_excluded_text(excluded)}"
                                  + (f", {refused} outside the model domain" if refused else "")
                                  + "; drop the assumption or give a grid where it holds")
    if not found:
        raise errors.DerivationError(f"{model.id}: no point of {over} in {grid} lies inside the domain of {quantity}")
    best = max(v for _, v in found) if kind == "max" else min(v for _, v in found)
    winners = tuple(sympy.Integer(p) for p, v in found if np.isclose(v, best, rtol=1e-12, atol=0))
    value = _exact_best(model, quantity, over, winners, best, preset, values or {})
    symbol = model.symbol(over)
    steps = (
        Step("grid", sympy.Eq(symbol, sympy.Tuple(*[sympy.Integer(p) for p in points[:3]] + ([sympy.Symbol("...")] if len(points) > 3 else []))),
             f"{len(points)} values of {over} from {start} to {stop} in steps of {step}" + ("" if unit.dimensionless else f" ({unit:~})")),
        Step("evaluate", sympy.Eq(sympy.Symbol(quantity), value),
             f"{quantity} at every grid point{'' if not refused else f'; {refused} outside the model domain skipped'}"
             + (f"; {_excluded_text(excluded)}, left out" if excluded else "")),
        Step(f"arg{kind}", sympy.Eq(symbol, sympy.Tuple(*winners)),
             f"the grid points where {quantity} is {'largest' if kind == 'max' else 'smallest'} (ties included)"),
    )
    return Derivation(
        model=model.id, operation="extremum", quantity=quantity, variable=over, steps=steps,
        result=value, location=sympy.Tuple(*winners), unit=model.unit_text(quantity),
        method=f"exhaustive evaluation over {len(found)} grid points " + (f"(a staircase has no closed-form arg-{kind})"
                                                                          if _staircase(model, quantity, symbol) else
                                                                          "(the grid's points only: not between or beyond them)"),
        assumptions=((f"preset {preset}",) if preset else ()) + tuple(f"{sympy.sstr(c)} (given)" for c in conditions),
        extra=Extras().with_(grid=grid, refused=refused, values=tuple(found), declared_numbers=True),
    )


#: the most tied grid points whose exact values are compared (beyond, the value is given as the float found)
MAX_EXACT_TIES = 64


def _exact_best(model: Model, quantity: str, over: str, winners: tuple[sympy.Integer, ...], best: float, preset: str | None,
                values: Mapping[str, Any]) -> sympy.Expr:
    """The extreme value exactly (a staircase's occupancy of 1 is ``1``, not ``1.00000000000000``): ``quantity`` in exact
    arithmetic (:func:`evaluator.exact`) at every grid point found extreme, where each gives the same rational number and
    that number is the float found; else the float found (15 digits)."""
    fallback = sympy.Float(best, 15)
    if len(winners) > MAX_EXACT_TIES:
        return fallback
    exact: set[sympy.Expr] = set()
    for point in winners:
        try:
            exact.add(evaluator.exact(model, quantity, preset=preset, values={**values, over: point}))
        except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError):
            return fallback
    (value, *others) = exact
    if others or not isinstance(value, sympy.Rational) or not math.isclose(float(value), best, rel_tol=1e-12, abs_tol=0.0):
        return fallback
    return value


def _failed(model: Model, conditions: list[sympy.Basic], preset: str | None, given: Mapping[str, Any]) -> list[sympy.Basic]:
    """The assumptions that fail at the grid point ``given`` (one that cannot be read there holds)."""
    out = []
    for condition in conditions:
        try:
            if not active.condition_true(model, condition, preset, given):
                out.append(condition)
        except errors.SymgpuError:
            continue
    return out


def _excluded_text(excluded: Mapping[sympy.Basic, int]) -> str:
    return ", ".join(f"{n} point{'s' if n > 1 else ''} where {sympy.sstr(c)} fails" for c, n in excluded.items())


def _staircase(model: Model, quantity: str, symbol: sympy.Symbol) -> bool:
    """Whether ``quantity`` depends on ``symbol`` through floor/ceiling (Hong & Kim's Exec_cycles_app over
    Active_blocks_per_SM does not: a grid's answer then says it searched the grid only, not "a staircase")."""
    try:
        return forms.has_staircase(model.expression(quantity), symbol)
    except errors.SymgpuError:
        return False
