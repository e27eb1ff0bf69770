"""At a point, the roots of ``quantity = target`` in a variable SymPy cannot isolate (the variable inside a
``log`` and outside it: Volkov's H100 ``dram_throughput`` in ``ilp``), found on the evaluate path: a scan
of the variable's admissible range (declared sign, ``valid_when`` domain, ``--assume``) brackets each
change of sign of ``quantity - target``, and bisection narrows each bracket to adjacent doubles. A
change of sign where the quantity jumps (a pole, a step) is no root and is said so; a root where the
quantity only touches the target without crossing it is not found, and the method says that too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive.certify_path import Asked, _inside, _Point, _quantity, _scan_grid
from symgpu.derive.certify_solve import _target_free_of_the_variable
from symgpu.derive.derivation import Derivation, Step
from symgpu.derive.extras import Extras
from symgpu.evaluate import evaluator

if TYPE_CHECKING:
    from symgpu.model import Model

#: a bracket's quantity must meet the target to this relative tolerance (of the target, or of 1 near 0) to be a root
RESIDUAL = 1e-9
#: at most this many bisection steps per bracket (adjacent doubles are reached in about 60 for any bracket of finite numbers)
STEPS = 200


def answerable(model: Model, quantity: str, variable: str, preset: str | None, values: Mapping[str, Any] | None,
               rewritten: bool) -> bool:
    """Whether the question can be answered numerically: asked at a point that gives every input of the quantity but
    the variable, as written (no substitution, omitted limiter or case: the evaluate path would not apply them)."""
    if rewritten or (preset is None and not values):
        return False
    try:
        evaluator.evaluate(model, quantity, preset=preset, values={**dict(values or {}), variable: 1.0}, checks=False)
    except errors.NoValueError:  # an input the point leaves free
        return False
    except errors.SymgpuError:  # no value at that one probe (outside the domain): the inputs are there
        return True
    return True


def numeric_roots(model: Model, quantity: str, variable: str, target: Any, why: str, *, preset: str | None,
                  values: Mapping[str, Any] | None, assume: tuple[Any, ...] = ()) -> Derivation:
    """The roots in ``variable`` of ``quantity = target`` at the point, each to adjacent doubles (module doc).

    Args:
        why: why no closed form is used (the refusal of the symbolic solve), said in the steps.

    Raises:
        errors.DerivationError: no root in the scanned range, or the relation holds on a whole range there.
    """
    asked, point, want, xs, ys = _scanned(model, quantity, variable, target, why, preset=preset, values=values, assume=assume)
    label = point.label
    zeros = np.flatnonzero(ys == 0)
    if len(zeros) > 2 and np.any(np.diff(zeros) == 1):
        raise errors.DerivationError(f"{model.id}: {why}; at {label} {quantity} equals the target on a whole range of {variable} "
                                     f"(from {xs[zeros[0]]:.6g}): no isolated root; sweep {variable} for the range")
    roots: list[float] = [float(x) for x in xs[zeros]]
    jumps: list[float] = []
    for i in np.flatnonzero(ys[:-1] * ys[1:] < 0):
        root = _bisected(model, asked, point, float(xs[i]), float(xs[i + 1]), want, float(ys[i]))
        residual = abs(float(_quantity(model, asked, point, root)) - want)
        (roots if residual <= RESIDUAL * max(abs(want), 1.0) else jumps).append(root)
    unit = model.unit_text(variable)
    at_unit = "" if unit in ("", "1") else f" {unit}"
    if not roots:
        raise errors.DerivationError(
            f"{model.id}: {why}; and at {label} {quantity} - target changes sign nowhere along {variable} from {xs[0]:.4g} to "
            f"{xs[-1]:.4g}{at_unit}" + (f" but where it jumps (at {', '.join(f'{j:.6g}' for j in jumps)})" if jumps else "")
            + ": no root there")
    symbol = model.symbol(variable)
    found = tuple(sympy.Float(r, 17) for r in sorted(roots))
    steps = (
        Step("no closed form", sympy.Symbol(quantity), why),
        Step("scan", sympy.Eq(symbol, sympy.Tuple(sympy.Float(xs[0], 6), sympy.Float(xs[-1], 6))),
             f"{len(xs)} values of {variable} (geometric, inside the declared range, the valid_when domain and the assumptions) at "
             f"{label}: {quantity} - {want:.10g} changes sign {len(roots) + len(jumps) - len(zeros)} time(s)"),
        Step("bisect", sympy.Eq(symbol, found[0] if len(found) == 1 else sympy.Tuple(*found)),
             "each change of sign narrowed to adjacent doubles; the quantity meets the target there to "
             f"{RESIDUAL:g} relative" + (f"; at {', '.join(f'{j:.6g}' for j in jumps)} it jumps across the target: no root"
                                          if jumps else "")),
    )
    return Derivation(
        model=model.id, operation="solve", quantity=quantity, variable=variable, steps=steps,
        result=found[0] if len(found) == 1 else sympy.Tuple(*found), unit=unit,
        method=(f"numeric: {len(found)} root(s) bracketed by a scan of {variable} and bisected at the given values (no closed "
                "form); a root where the quantity only touches the target is not found"),
        assumptions=((f"preset {preset}",) if preset else ()) + tuple(f"{a} (given)" for a in assume),
        extra=Extras().with_(declared_numbers=True),
    )


def _scanned(model: Model, quantity: str, variable: str, target: Any, why: str, *, preset: str | None,
             values: Mapping[str, Any] | None, assume: tuple[Any, ...]) -> tuple[Asked, _Point, float, np.ndarray, np.ndarray]:
    """The question, its point, the target as one number, and the scan of ``variable``'s admissible range with
    ``quantity - target`` at each point where the model gives the quantity a value."""
    given = {k: v for k, v in (values or {}).items() if k != variable}
    asked = Asked("solve", quantity, variable, preset, tuple(given.items()), assume=assume, target=target)
    label = (f"preset {preset}" if preset else "the given values") + (f" with {', '.join(sorted(given))}" if preset and given else "")
    point = _Point(label, preset, given)
    want = _target_free_of_the_variable(model, asked, point)
    if want is None or np.ndim(want) != 0 or not np.isfinite(want):
        raise errors.DerivationError(f"{model.id}: {why}; a numeric root needs a target that is one number at the point")
    grid = _scan_grid(model, variable, [])
    grid = grid[_inside(model, asked, point, grid)]
    with np.errstate(all="ignore"):
        gap = np.asarray(_quantity(model, asked, point, grid), dtype=float) - float(want)
    finite = np.isfinite(gap)
    if np.count_nonzero(finite) < 2:
        raise errors.DerivationError(f"{model.id}: {why}; and the model gives {quantity} no value along {variable} at {label}")
    return asked, point, float(want), grid[finite], gap[finite]


def _bisected(model: Model, asked: Asked, point: _Point, low: float, high: float, want: float, low_gap: float) -> float:
    """The bracket ``[low, high]`` (``quantity - want`` of sign ``low_gap`` at ``low``, the other at ``high``) narrowed
    by bisection until its ends are adjacent doubles; the end nearer the target."""
    for _ in range(STEPS):
        middle = low + (high - low) / 2
        if middle in (low, high):
            break
        with np.errstate(all="ignore"):
            gap = float(_quantity(model, asked, point, middle)) - want
        if gap == 0:
            return middle
        if not np.isfinite(gap):
            break
        if (gap < 0) == (low_gap < 0):
            low, low_gap = middle, gap
        else:
            high = middle
    with np.errstate(all="ignore"):
        high_gap = float(_quantity(model, asked, point, high)) - want
    return low if abs(low_gap) <= abs(high_gap) else high


#: an inequality's relation of ``quantity - target`` to 0, per relation text
INEQUALITIES = (">=", ">", "<=", "<")
_HOLDS = {">=": np.greater_equal, ">": np.greater, "<=": np.less_equal, "<": np.less}


def numeric_bound(model: Model, quantity: str, variable: str, target: Any, relation: str, kind: str, why: str, *,
                  preset: str | None, values: Mapping[str, Any] | None, assume: tuple[Any, ...] = ()) -> Derivation:
    """The least (``kind="min"``) or greatest (``"max"``) value of ``variable`` where ``quantity relation target`` holds
    at the point: the first (last) change of the relation along the scan of :func:`numeric_roots`, bisected to adjacent
    doubles, the end where it holds. Where it holds at the scan's first (last) point, the answer lies at or beyond the
    edge of the scanned range, and is refused so; so is a change where the quantity jumps (which side holds is the
    model's choice there) and a variable declared integer (the change lies between whole values).

    Raises:
        errors.DerivationError: the relation holds nowhere in the scanned range, or up to its edge on the asked side;
            it changes at a jump; the variable is declared integer.
    """
    declared = model.symbol_definitions.get(variable)
    if declared is not None and "integer" in declared.assumptions:  # a bisected change lies between whole values
        raise errors.DerivationError(f"{model.id}: {why}; {variable} is declared integer: ask over a grid of its whole values "
                                     f"(sweep {variable}) for the {kind}imum where the relation holds")
    asked, point, want, xs, ys = _scanned(model, quantity, variable, target, why, preset=preset, values=values, assume=assume)
    holds = _HOLDS[relation](ys, 0.0)
    at = f"at {point.label} {quantity} {relation} {want:.10g} {model.unit_text(quantity)}"
    if not holds.any():
        raise errors.DerivationError(f"{model.id}: {why}; and {at} holds nowhere along {variable} from {xs[0]:.4g} to {xs[-1]:.4g}")
    least = kind == "min"
    if holds[0 if least else -1]:
        raise errors.DerivationError(f"{model.id}: {why}; and {at} holds already at {variable} = {xs[0 if least else -1]:.6g}, the "
                                     f"{'first' if least else 'last'} value scanned: its {'least' if least else 'greatest'} value "
                                     f"is there or beyond; sweep {variable} to read the range")
    changes = np.flatnonzero(holds[:-1] != holds[1:])
    i = int(changes[0] if least else changes[-1])
    out, inside = (float(xs[i]), float(xs[i + 1])) if least else (float(xs[i + 1]), float(xs[i]))
    for _ in range(STEPS):  # ``out`` where the relation fails, ``inside`` where it holds
        middle = out + (inside - out) / 2
        if middle in (out, inside):
            break
        with np.errstate(all="ignore"):
            gap = float(_quantity(model, asked, point, middle)) - want
        if not np.isfinite(gap):
            break
        out, inside = (out, middle) if _HOLDS[relation](gap, 0.0) else (middle, inside)
    with np.errstate(all="ignore"):
        residual = abs(float(_quantity(model, asked, point, inside)) - want)
    if residual > RESIDUAL * max(abs(want), 1.0):  # whether the end itself holds depends on the side the model takes there
        raise errors.DerivationError(f"{model.id}: {why}; and {at} changes where {quantity} jumps across the target, at "
                                     f"{variable} = {inside:.10g}: sweep {variable} around it to read which side holds")
    symbol = model.symbol(variable)
    found = sympy.Float(inside, 17)
    steps = (
        Step("no closed form", sympy.Symbol(quantity), why),
        Step("scan", sympy.Eq(symbol, sympy.Tuple(sympy.Float(xs[0], 6), sympy.Float(xs[-1], 6))),
             f"{len(xs)} values of {variable} (geometric, inside the declared range, the valid_when domain and the assumptions) {at}: "
             f"the relation changes {len(changes)} time(s); the {'first' if least else 'last'} change taken"),
        Step("bisect", sympy.Eq(symbol, found),
             f"the change narrowed to adjacent doubles, the end where the relation holds; the quantity meets the target there "
             f"to {RESIDUAL:g} relative"),
    )
    return Derivation(
        model=model.id, operation="solve", quantity=quantity, variable=variable, steps=steps, result=found,
        unit=model.unit_text(variable),
        method=(f"numeric: the {'least' if least else 'greatest'} {variable} where {quantity} {relation} the target, its change "
                f"bracketed by a scan of {variable} and bisected at the given values (no closed form)"),
        assumptions=((f"preset {preset}",) if preset else ()) + tuple(f"{a} (given)" for a in assume),
        extra=Extras().with_(declared_numbers=True),
    )
