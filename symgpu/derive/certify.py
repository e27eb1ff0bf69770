"""Numeric certificates: every answer is checked on the evaluate path before it is shown.

A closed form that disagrees with the numbers is a bug to report, never a value to print. Each
answer is checked at the preset and values when given, else at the model's presets (or seeded
admissible sample points) that evaluate the quantity, by brute force on :mod:`symgpu.evaluate`
only: a solve's roots satisfy the relation and a scan of the variable's declared range (sign
changes refined by bisection, inside every ``valid_when``) finds no root the answer lacks; a
boundary switches the regime (two named limiters cross; else :func:`symgpu.evaluate.active.binding`
differs on its two sides, :func:`symgpu.evaluate.active.boundary_sides`, or at the boundary itself);
no scanned point beats an extremum; evaluation tends to a limit; a fixed point's residual vanishes. A failure raises
:class:`symgpu.errors.CertificateError` naming the check and the point (exit 1); where no check
applies (an omitted limiter, a chosen case, an assumption failing at the point) the certificate
says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.derive import solving
from symgpu.derive.derivation import Certificate, Derivation
from symgpu.evaluate import active, evaluator, input_values
from symgpu.proofs import sample_points

if TYPE_CHECKING:
    from symgpu.model import Model

#: relative residual under which a relation counts as holding (float64 evaluation of a closed form)
RESIDUAL = 1e-6
#: relative slack with which a scanned point may beat an extremum before it is a counterexample
BEATS = 1e-6
#: points of the variable's range scanned (geometric, plus a linear patch around each answer)
SCAN = 2400
#: the scan's range in the variable's declared unit (a root outside it is not looked for)
SPAN = (1e-6, 1e12)
#: presets (or sampled points) checked when the question names none
POINTS = 2


@dataclass(frozen=True)
class Asked:
    """What the caller asked, so the answer can be checked against the evaluate path.

    Attributes:
        op: ``solve``, ``boundary``, ``extremum``, ``limit`` or ``fixed_point``.
        quantity: the quantity asked about.
        variable: the unknown or the variable varied.
        preset: the preset to check at (``None``: the model's presets or sampled points).
        values: input values (name -> value) to check at.
        substitute: name -> expression (text, number or SymPy) substituted before deriving.
        target: solve's target (``None``: the quantity's symbol, valued at the point).
        to: a limit's point; direction: ``+``, ``-`` or ``None``.
        skip: why the evaluate path does not answer the question asked ("" when it does).
    """

    op: str
    quantity: str
    variable: str
    preset: str | None = None
    values: tuple[tuple[str, Any], ...] = ()
    substitute: tuple[tuple[str, Any], ...] = ()
    target: Any = None
    to: Any = None
    direction: str | None = None
    skip: str = ""


@dataclass(frozen=True)
class _Point:
    """One point to check at: a preset and values (the variable itself not among them)."""

    label: str
    preset: str | None
    values: Mapping[str, Any]


def certify(model: Model, derivation: Derivation, asked: Asked) -> Derivation:
    """``derivation`` with its :class:`Certificate`; raises when a check fails.

    Raises:
        errors.CertificateError: the answer disagrees with the evaluate path at a point.
    """
    if asked.skip:
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=asked.skip))
    check = _CHECKS.get(asked.op)
    if check is None or asked.quantity not in model.defining and asked.quantity not in model.equations:
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=f"no numeric check for {asked.op} of an expression"))
    quantity = model.equation_for(asked.quantity).definition.defines
    asked = dataclasses.replace(asked, quantity=quantity)
    points, why = _points(model, asked)
    done: list[str] = []
    labels: list[str] = []
    for point in points:
        try:
            said = check(model, derivation, asked, point)
        except errors.CertificateError:
            raise
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError) as exc:
            why = f"at {point.label}: {exc}"
            continue
        if said is None:
            continue
        done.append(said)
        labels.append(point.label)
    if not done:
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=_short(why or "the answer has no value at any point tried")))
    checks = tuple(dict.fromkeys(done))
    return dataclasses.replace(derivation, certificate=Certificate(where=", ".join(labels), checks=checks))


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fail(model: Model, asked: Asked, point: _Point, what: str) -> errors.CertificateError:
    return errors.CertificateError(f"{model.id}: {asked.op} of {asked.quantity} over {asked.variable} at {point.label}: {what}; "
                                   "the closed form disagrees with evaluate: please report it with the command line")


# ------------------------------------------------------------------------------ points
def _points(model: Model, asked: Asked) -> tuple[list[_Point], str]:
    """The caller's point, else the model's presets that evaluate the quantity, else seeded samples."""
    given = {k: v for k, v in asked.values if k != asked.variable}
    if asked.preset is not None or given:
        label = f"preset {asked.preset}" if asked.preset else "the given values"
        if asked.preset and given:
            label += " with " + ", ".join(sorted(given))
        point = _Point(label, asked.preset, given)
        if _evaluates(model, asked, point):
            return [point], ""
        # inputs the point lacks (a GPU preset without the workload) are sampled
        completed = _sampled(model, asked, point, 1)
        return (completed or [point]), ""
    found: list[_Point] = []
    why = "no preset of the model, and no sampled point, gives every input of the question"
    for preset in model.presets:
        point = _Point(f"preset {preset}", preset, {})
        if _evaluates(model, asked, point):
            found.append(point)
        if len(found) == POINTS:
            return found, ""
    return found + _sampled(model, asked, _Point("", None, {}), POINTS - len(found)), why


def _sampled(model: Model, asked: Asked, base: _Point, count: int) -> list[_Point]:
    """Up to ``count`` points: ``base`` with its missing inputs drawn (seeded) from whole and
    fractional values that meet the inputs' declared assumptions and every equation's domain."""
    known = set(input_values.merge_values(model, base.preset, base.values)) | {n for n, _ in asked.substitute}
    inputs = [n for n in model.inputs(asked.quantity) if n != asked.variable and n not in known]
    if not inputs or count <= 0:
        return []
    rng = sample_points.Draws(f"{model.id}/{asked.quantity}/{asked.variable}")
    choices = (1, 2, 3, 4, 8, 16, 32, 64, 100, 128, 256, 1000, 4096)
    found: list[_Point] = []
    for attempt in range(8):
        values: dict[str, Any] = dict(base.values)
        drawn: dict[str, float] = {}
        for name in inputs:
            value: float = rng.choice(choices)
            if "integer" not in model.symbol_definitions[name].assumptions and attempt % 2:
                value = value * rng.choice((0.5, 0.75, 1.5))
            drawn[name] = value
        values.update(drawn)
        shown = ", ".join(f"{k}={v:g}" for k, v in sorted(drawn.items()))
        label = f"{base.label} with {shown} (sampled)" if base.label else f"sampled point {attempt + 1} ({shown})"
        point = _Point(label, base.preset, values)
        if _evaluates(model, asked, point, checks=True):
            found.append(point)
        if len(found) == count:
            break
    return found


def _evaluates(model: Model, asked: Asked, point: _Point, *, checks: bool = False) -> bool:
    try:
        value = _quantity(model, asked, point, np.asarray([1.0, 10.0]), checks=checks)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    return bool(np.all(np.isfinite(value)))


# ------------------------------------------------------------------------------ the evaluate path
def _with(model: Model, asked: Asked, point: _Point, v: Any) -> dict[str, Any]:
    """The point's values, the variable at ``v`` and the substitutions evaluated there."""
    values = dict(point.values)
    values[asked.variable] = v
    for name, expr in asked.substitute:
        parsed = model.parse(expr, f"substitute.{name}") if isinstance(expr, str) else expr
        if isinstance(parsed, sympy.Basic) and not parsed.is_number:
            values[name] = evaluator.evaluate_expression(model, parsed, model.units[name], preset=point.preset, values=values).magnitude
        else:
            values[name] = float(parsed) if isinstance(parsed, (sympy.Basic, int, float)) else parsed
    return values


def _quantity(model: Model, asked: Asked, point: _Point, v: Any, *, checks: bool = False) -> Any:
    """The quantity through ``model.evaluate`` with the variable at ``v`` (declared unit); ``checks``
    also checks the declared assumptions and domains (sampled points must meet them)."""
    values = _with(model, asked, point, v)
    return np.asarray(evaluator.evaluate(model, asked.quantity, preset=point.preset, values=values, checks=checks).magnitude, dtype=float)


def _inside(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> np.ndarray:
    """Which scan points lie inside every ``valid_when`` domain (the model gives no value outside)."""
    try:
        return evaluator.inside_domain(model, asked.quantity, point.preset, _with(model, asked, point, grid), len(grid), check=False)
    except (errors.SymgpuError, ValueError, TypeError):
        return np.ones(len(grid), dtype=bool)


def _result_at(model: Model, derivation: Derivation, expr: Any, unit: Any, point: _Point, extra: Mapping[str, Any]) -> float:
    """A result expression's number at the point (kept quantities evaluated there too)."""
    values = {**point.values, **extra}
    for symbol in sorted(getattr(expr, "free_symbols", ()), key=str):
        if symbol.name in model.defining and symbol.name not in values:
            values[symbol.name] = evaluator.evaluate(model, symbol.name, preset=point.preset, values=values, checks=False).magnitude
    return float(evaluator.evaluate_expression(model, expr, unit, preset=point.preset, values=values).magnitude)


def _scan_grid(model: Model, variable: str, around: Sequence[float]) -> np.ndarray:
    """Points of the variable's declared range: geometric over :data:`SPAN`, 0 where admitted,
    negatives for a variable with no sign assumption, and a fine patch around each answer."""
    assumptions = set(model.symbol_definitions[variable].assumptions) if variable in model.symbol_definitions else set()
    grid = np.geomspace(SPAN[0], SPAN[1], SCAN)
    parts = [grid]
    if "positive" not in assumptions and "nonnegative" not in assumptions:
        parts.append(-grid)
    if "positive" not in assumptions:
        parts.append(np.zeros(1))
    for a in around:
        if np.isfinite(a) and a != 0:
            parts.append(np.linspace(a * 0.5, a * 1.5, 201))
    return np.unique(np.concatenate(parts))


def _close(a: float, b: float, tol: float = 1e-5) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-12)


# ------------------------------------------------------------------------------ solve
def _target_at(model: Model, asked: Asked, point: _Point, v: Any) -> Any:
    """The target in the quantity's declared unit with the variable at ``v`` (None: not given)."""
    unit = model.units[asked.quantity]
    target = asked.target
    if target is None:
        given = dict(point.values).get(asked.quantity)
        return None if given is None else input_values.to_magnitude(model, asked.quantity, given, check=False)
    if isinstance(target, pint.Quantity):
        return float(target.to(unit).magnitude)
    if isinstance(target, str):
        try:
            target = model.parse(target, "target")
        except errors.SymgpuError:
            return float(units.quantity(target).to(unit).magnitude)
    if isinstance(target, (int, float)) or (isinstance(target, sympy.Basic) and target.is_number):
        return float(target)
    values = _with(model, asked, point, v)
    return evaluator.evaluate_expression(model, target, unit, preset=point.preset, values=values).magnitude


def _roots_at(model: Model, derivation: Derivation, asked: Asked, point: _Point, extra: Mapping[str, Any]) -> list[float]:
    """The answer's roots at the point: those whose regime conditions hold there, finite and real."""
    result = derivation.result
    unit = model.units[asked.variable]
    listed = dict(derivation.extra).get("roots")
    candidates: list[tuple[Any, Any]] = []
    if isinstance(listed, (list, tuple)) and listed and isinstance(listed[0], dict):
        candidates = [(r.get("root"), r.get("when")) for r in listed]
    elif isinstance(result, dict):
        candidates = [(r, None) for item in result.values() for r in (item.args if isinstance(item, sympy.Tuple) else (item,))]
    elif isinstance(result, sympy.Tuple):
        candidates = [(r, None) for r in result]
    else:
        candidates = [(result, None)]
    found = []
    values = {**point.values, **extra}
    for root, when in candidates:
        if isinstance(when, sympy.Basic) and when is not sympy.true:
            try:
                if not active.condition_holds(model, when, point.preset, values)[0]:
                    continue
            except errors.SymgpuError:
                pass
        number = _result_at(model, derivation, root, unit, point, extra)
        if np.isfinite(number):
            found.append(number)
    return found


def _solve(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    if derivation.result is sympy.true:  # every value is a root: the quantity equals the target all along the scan
        grid = _scan_grid(model, asked.variable, [])
        with np.errstate(all="ignore"):
            along = _quantity(model, asked, point, grid)
            targets = np.asarray(_target_at(model, asked, point, grid), dtype=float)
        fine = np.isfinite(along) & np.isfinite(targets) & _inside(model, asked, point, grid)
        off = fine & ~(np.abs(along - targets) <= RESIDUAL * np.maximum(np.maximum(np.abs(along), np.abs(targets)), 1e-300))
        if off.any():
            i = int(np.argmax(off))
            raise _fail(model, asked, point, f"the answer says every {asked.variable} is a root, but at {grid[i]:.10g} the quantity "
                        f"is {along[i]:.10g}, not {targets[i]:.10g}")
        return f"the relation holds at all {int(fine.sum())} scanned values of {asked.variable}" if fine.any() else None
    if isinstance(derivation.result, sympy.logic.boolalg.Boolean) or "holds_for" in dict(derivation.extra):
        return None
    extra: dict[str, Any] = {}
    with np.errstate(all="ignore"):
        target = _target_at(model, asked, point, np.nan)
    if target is None and asked.target is None:
        # no value for the quantity at the point: take the one it has at a variable value and
        # check the answer gives that value back
        probe = 8.0
        extra[asked.quantity] = float(_quantity(model, asked, point, np.asarray(probe)))
    elif target is not None and np.ndim(target) == 0 and np.isfinite(target):
        extra[asked.quantity] = float(target)  # a result may keep the quantity's symbol for its target
    roots = _roots_at(model, derivation, asked, point, extra)
    target_of: Callable[[Any], Any] = (lambda v: extra[asked.quantity]) if extra else (lambda v: _target_at(model, asked, point, v))
    for root in roots:
        got = float(_quantity(model, asked, point, np.asarray(root)))
        want = float(np.asarray(target_of(np.asarray(root)), dtype=float))
        if not abs(got - want) <= RESIDUAL * max(abs(got), abs(want), 1e-300):
            raise _fail(model, asked, point, f"at the root {asked.variable} = {root:.10g} the quantity is {got:.10g}, not the target {want:.10g}")
    grid = _scan_grid(model, asked.variable, roots)
    grid = grid[_inside(model, asked, point, grid)]
    missing = [r for r in _brute_roots(model, asked, point, grid, target_of) if not any(_close(r, a) for a in roots)]
    if missing:
        shown = ", ".join(f"{r:.10g}" for r in missing[:4])
        raise _fail(model, asked, point, f"a scan of {asked.variable} finds root(s) {shown} that the answer lacks "
                    f"(answer: {', '.join(f'{r:.10g}' for r in roots) or 'none here'})")
    n = len(roots)
    return (f"{n} root{'s satisfy' if n != 1 else ' satisfies'} the relation and a scan of {asked.variable} finds no other"
            if n else f"no root here, and a scan of {asked.variable} finds none")


def _brute_roots(model: Model, asked: Asked, point: _Point, grid: np.ndarray, target_of: Callable[[Any], Any]) -> list[float]:
    """Roots of quantity - target on ``grid``: sign changes refined by bisection (all brackets at once);
    a jump (a pole or a staircase step) is not a root."""
    def g(v: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(_quantity(model, asked, point, v) - np.asarray(target_of(v), dtype=float), dtype=float)

    values = g(grid)
    ok = np.isfinite(values)
    sign = np.sign(values)
    exact = list(grid[(values == 0) & ok])
    if len(exact) > 2:
        return []  # the relation holds on a range: not isolated roots
    change = np.nonzero(ok[:-1] & ok[1:] & (sign[:-1] * sign[1:] < 0))[0]
    if not len(change):
        return exact
    lo, hi = grid[change], grid[change + 1]
    glo = values[change]
    for _ in range(60):
        mid = (lo + hi) / 2
        gm = g(mid)
        left = np.sign(gm) == np.sign(glo)
        lo, glo = np.where(left, mid, lo), np.where(left, gm, glo)
        hi = np.where(left, hi, mid)
    mid = (lo + hi) / 2
    scale = np.maximum(np.abs(_quantity(model, asked, point, mid)), np.abs(np.asarray(target_of(mid), dtype=float)))
    with np.errstate(all="ignore"):
        real = np.abs(g(mid)) <= 1e-4 * np.maximum(scale, 1e-300)
    return exact + [float(r) for r in mid[real]]


# ------------------------------------------------------------------------------ boundary
def _boundary(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    keep = tuple(n for n in (asked.variable,) if n in model.defining)  # a defined quantity as the variable stays a symbol
    expr = model.expression(asked.quantity, stop_at=keep)
    pair = _limiter_pair(model, asked.quantity, dict(derivation.extra).get("between"), keep)
    checked = 0
    for number in _roots_at(model, derivation, asked, point, {}):
        around = active.boundary_sides(model, asked.variable, number)
        if pair is not None:  # two named arguments of the quantity's Min/Max: their difference changes sign here
            gaps = [float(evaluator.evaluate_expression(model, pair, None, preset=point.preset,
                                                        values=_with(model, asked, point, x)).magnitude) for x in around]
            if any(np.isnan(gaps)):  # no number on one side (0/0 at the end of a range): nothing to check there
                continue
            if not (gaps[0] * gaps[1] < 0 or (gaps[0] == 0) != (gaps[1] == 0)):  # a sign change, or a tie on one side only
                raise _fail(model, asked, point, f"the two named limiters do not cross at {asked.variable} = {number:.10g} "
                            f"(their difference is {gaps[0]:.6g} below and {gaps[1]:.6g} above)")
        else:
            sides = [active.binding(model, expr, point.preset, _with(model, asked, point, x)) for x in around]
            if sides[0] == sides[1] and around[0] != number:  # a regime that holds at the boundary only (Eq(x, 1))
                sides[1] = active.binding(model, expr, point.preset, _with(model, asked, point, number))
            if sides[0] == sides[1]:
                raise _fail(model, asked, point, f"the regime is the same just below and just above the boundary {asked.variable} = {number:.10g}")
        checked += 1
    if not checked:
        return None
    return f"the regime switches at {'each of ' + str(checked) + ' boundaries' if checked > 1 else 'the boundary'}"


def _limiter_pair(model: Model, quantity: str, between: Any, keep: tuple[str, ...]) -> sympy.Expr | None:
    """``A - B`` (expanded) for two named limiters of the quantity's own Min/Max, else None."""
    pair = solving.named_limiters(model, quantity, tuple(between) if between else None)
    if pair is None:
        return None
    a, b = pair
    expanded = {s: model.expression(s.name, stop_at=keep) for s in (a - b).free_symbols if s.name in model.defining and s.name not in keep}
    return (a - b).xreplace(expanded)


# ------------------------------------------------------------------------------ extremum
def _extremum(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    kind = dict(derivation.extra).get("kind") or ("min" if "min" in derivation.method.lower() else "max")
    kind = asked.to if asked.to in ("max", "min") else kind
    unit = model.units[asked.quantity]
    value = _result_at(model, derivation, derivation.result, unit, point, {})
    if not np.isfinite(value):
        raise _fail(model, asked, point, f"the extreme value is {value}")
    location = None
    if isinstance(derivation.location, sympy.Basic) and not derivation.location.has(sympy.oo, -sympy.oo, sympy.zoo):
        location = _result_at(model, derivation, derivation.location, model.units[asked.variable], point, {})
        if np.isfinite(location):
            at = float(_quantity(model, asked, point, np.asarray(location)))
            if not abs(at - value) <= RESIDUAL * max(abs(at), abs(value), 1e-300):
                raise _fail(model, asked, point, f"at {asked.variable} = {location:.10g} the quantity is {at:.10g}, not the extreme value {value:.10g}")
    grid = _scan_grid(model, asked.variable, [location] if location is not None else [])
    with np.errstate(all="ignore"):
        scanned = _quantity(model, asked, point, grid)
    fine = np.isfinite(scanned) & _inside(model, asked, point, grid)
    if not fine.any():
        return None
    slack = BEATS * max(abs(value), 1e-300)
    best = int(np.nanargmax(np.where(fine, scanned, -np.inf)) if kind == "max" else np.nanargmin(np.where(fine, scanned, np.inf)))
    if (kind == "max" and scanned[best] > value + slack) or (kind == "min" and scanned[best] < value - slack):
        raise _fail(model, asked, point, f"{asked.variable} = {grid[best]:.10g} gives {scanned[best]:.10g}, beyond the {kind}imum {value:.10g}")
    return f"the quantity at the location equals the {kind}imum and no point of a {len(grid)}-point scan beats it"


# ------------------------------------------------------------------------------ limit
def _limit(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    unit = model.units[asked.quantity]
    result = derivation.result
    if not isinstance(result, sympy.Basic):
        raise _fail(model, asked, point, f"the limit is {result!r}, not a value")
    expected = _result_at(model, derivation, result, unit, point, {})
    if np.isnan(expected):
        raise _fail(model, asked, point, "the limit evaluates to nan there (undetermined)")
    to = _to_number(model, asked, point)
    if np.isinf(to):
        approach = np.sign(to) * np.geomspace(1e4, 1e13, 10)
    else:
        side = -1.0 if asked.direction == "-" else 1.0
        approach = to + side * np.geomspace(1e-2, 1e-11, 10) * max(abs(to), 1.0)
    with np.errstate(all="ignore"):
        seen = _quantity(model, asked, point, approach)
    tail = seen[-4:]
    if np.isinf(expected):
        grows = np.all(np.sign(tail) == np.sign(expected)) and (np.all(np.isinf(tail)) or np.all(np.diff(np.abs(tail)) > 0))
        if not grows:
            raise _fail(model, asked, point, f"the answer is {expected} but the quantity approaches {tail[-1]:.10g}")
        return f"the quantity grows without bound as {asked.variable} -> {asked.to}"
    errors_seen = np.abs(tail - expected)
    scale = max(abs(expected), 1e-300)
    shrinking = bool(np.all(np.diff(errors_seen) < 0) and errors_seen[-1] <= 0.1 * errors_seen[0])  # tenfold in three decades: 0 by c*x
    if not (np.all(np.isfinite(tail)) and (errors_seen[-1] <= 1e-4 * scale + 1e-12 or shrinking)):
        raise _fail(model, asked, point, f"the answer is {expected:.10g} but the quantity approaches {tail[-1]:.10g} "
                    f"at {asked.variable} = {approach[-1]:.4g}")
    return (f"the quantity at {asked.variable} -> {asked.to} tends to the limit (within {max(errors_seen[-1] / scale, 0):.1e})"
            if errors_seen[-1] <= 1e-4 * scale + 1e-12 else f"the quantity's gap to the limit at {asked.variable} -> {asked.to} "
            f"shrinks to {errors_seen[-1] / errors_seen[0]:.1e} of itself over the last three decades")


def _to_number(model: Model, asked: Asked, point: _Point) -> float:
    to = asked.to
    text = str(to).strip()
    if text in ("oo", "+oo", "inf", "infinity"):
        return float("inf")
    if text in ("-oo", "-inf"):
        return float("-inf")
    parsed = to if isinstance(to, sympy.Basic) else model.parse(text, "--to")
    if parsed.is_number:
        return float(parsed)
    return float(evaluator.evaluate_expression(model, parsed, model.units[asked.variable], preset=point.preset, values=dict(point.values)).magnitude)


# ------------------------------------------------------------------------------ fixed point
def _fixed_point(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    unit = model.units[asked.variable]
    x = _result_at(model, derivation, derivation.result, unit, point, {})
    if not np.isfinite(x):
        raise _fail(model, asked, point, f"the fixed point is {x}")
    image = float(_quantity(model, asked, point, np.asarray(x)))
    # the quantity may be in another unit of the same dimension as the variable
    image = float(units.registry().Quantity(image, model.units[asked.quantity]).to(unit).magnitude)
    if not abs(image - x) <= RESIDUAL * max(abs(x), 1e-300):
        raise _fail(model, asked, point, f"{asked.variable} = {x:.10g} maps to {image:.10g}: the residual does not vanish")
    return f"the residual {asked.variable} - {asked.quantity}({asked.variable}) vanishes (relative {abs(image - x) / max(abs(x), 1e-300):.1e})"


_CHECKS: dict[str, Callable[[Model, Derivation, Asked, _Point], str | None]] = {
    "solve": _solve, "boundary": _boundary, "extremum": _extremum, "limit": _limit, "fixed_point": _fixed_point,
}
CHECKED_OPS = frozenset(_CHECKS)  #: the operations whose answers have a numeric check
