"""Numeric certificates: every answer is checked on the evaluate path before it is shown.

A closed form that disagrees with the numbers is a bug to report, never a value to print. Each answer is checked at
the preset and values when given, else at the model's presets (or seeded admissible sample points; a symbolic extremum
also inside its own valid-when region, :mod:`.certify_region`), by brute force on :mod:`symgpu.evaluate` only: a
solve's roots satisfy the relation and a scan of the variable's declared range (sign changes bisected, inside every
``valid_when``) finds no root the answer lacks; a boundary switches the regime (:func:`symgpu.evaluate.active.binding`
differs on its two sides or at the boundary itself); no scanned point beats an extremum; evaluation tends to a limit; a
fixed point lies in its variable's declared range and its residual vanishes (:mod:`.certify_fixed_point`); a regime table gives the model's value (:mod:`.certify_regimes`). A failure raises
:class:`symgpu.errors.CertificateError` naming the check and the point (exit 1); where no check applies the certificate
says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors
from symgpu.derive import certify_bound, certify_boundary, certify_fixed_point, certify_limit, certify_region, certify_regimes, exact_location, result_form, summary
from symgpu.derive.certify_path import (RESIDUAL, Asked, _admissible, _fail, _inside, _Point, _quantity, _result_at, _unsettled,
                                        _scan_grid, _settles_finite, _with, at_a_point, case_edges, sorted_unique, stated_hold)
from symgpu.derive.certify_solve import _out_of_reach, _solve, _target_free_of_the_variable
from symgpu.derive.derivation import Certificate, Derivation
from symgpu.evaluate import input_values
from symgpu.proofs import forms, sample_points

if TYPE_CHECKING:
    from symgpu.model import Model

#: relative slack with which a scanned point may beat an extremum before it is a counterexample
BEATS = 1e-6
#: presets (or sampled points) checked when the question names none
POINTS = 2
#: fully drawn points tried when no preset, validation case or completed preset gave a check
FALLBACK_POINTS = 6
#: points drawn onto each preset (and fully drawn) to find one where each branch of a Piecewise answer holds
BRANCH_DRAWS = 12
#: regime tables up to this many pieces get a point for each piece (:func:`_branch_points`); a larger
#: table (the 284 occupancy regimes) is checked at the points and along the variable's scan only
BRANCH_TABLE = 16
#: the base of a fully drawn point: no preset, no values
_DRAWN = _Point("", None, MappingProxyType({}))


def certify(model: Model, derivation: Derivation, asked: Asked) -> Derivation:
    """``derivation`` with its :class:`Certificate`; raises when a check fails.

    Raises:
        errors.CertificateError: the answer disagrees with the evaluate path at a point.
    """
    bounded = asked.op == "solve" and asked.kind in ("max", "min")  # admissibility is checked even where the relation is not
    if asked.skip and not bounded:
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=asked.skip))
    inequality = asked.op == "solve" and asked.relation not in ("==", "=") and not bounded
    check = certify_bound.bound if bounded else certify_bound.bound_set if inequality else _CHECKS.get(asked.op)
    if check is None or asked.quantity not in model.defining and asked.quantity not in model.equations:
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=f"no numeric check for {asked.op} of an expression"))
    quantity = model.equation_for(asked.quantity).definition.defines
    asked = dataclasses.replace(asked, quantity=quantity)
    answer_inputs = _answer_inputs(model, derivation, asked)
    points, why = _points(model, asked, answer_inputs)
    done: list[str] = []
    labels: list[str] = []
    checked: list[_Point] = []
    tried: list[_Point] = []
    for point in _then_more(model, asked, points, answer_inputs, done, checked, lambda: _branch_points(model, derivation, asked, checked, answer_inputs)):
        tried.append(point)
        try:
            said = check(model, derivation, asked, point)
        except (errors.CertificateError, errors.TargetOutOfReach):
            raise
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError) as exc:
            why = f"at {point.label}: {exc}"
            continue
        if said is None:
            continue
        done.append(said)
        labels.append(point.label)
        checked.append(point)
    if asked.op == "extremum" and not at_a_point(asked):  # many points inside its own region (round 14b F2, F5, F9, F11)
        done, labels = certify_region.in_region(model, derivation, asked, (answer_inputs, check), done, labels, len(tried))
    if not done:
        if not why and derivation.extra.valid_when:
            why = (f"the conditions it holds under (valid when ...) held at none of the {len(tried)} point{'s' if len(tried) != 1 else ''} "
                   "tried: it may hold nowhere")
        return dataclasses.replace(derivation, certificate=Certificate(unchecked=_short(why or "the answer has no value at any point tried")))
    return dataclasses.replace(derivation, certificate=Certificate(where=", ".join(labels), checks=summary.said_once(done)))


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ------------------------------------------------------------------------------ points
def _then_more(model: Model, asked: Asked, points: list[_Point], answer_inputs: frozenset[str], done: list[str],
               checked: list[_Point], branches: Callable[[], Iterator[_Point]]) -> Iterator[_Point]:
    """``points``, then, where none of them gave a check (``done`` still empty; no root of the answer
    applies at the presets completed with drawn workloads) and the caller gave no point, points with
    every input drawn; then, asked without a point, a point for each branch of the answer the points
    checked left out (``branches``)."""
    yield from points
    if asked.preset is not None or any(k != asked.variable for k, _ in asked.values):
        return
    if not done:
        seen = {tuple(sorted(p.values.items())) for p in points if p.preset is None}
        for point in _sampled(model, asked, _DRAWN, FALLBACK_POINTS, answer_inputs):
            if tuple(sorted(point.values.items())) not in seen:
                yield point
    if checked:
        yield from branches()


def _branch_points(model: Model, derivation: Derivation, asked: Asked, checked: list[_Point],
                   answer_inputs: frozenset[str]) -> Iterator[_Point]:
    """For an extremum or limit that is a first-match Piecewise, asked without a point: one point for
    each branch (and, where the answer says so, for "no branch holds") that the points ``checked``
    left out, from more points drawn onto each preset and then fully drawn. A point where another
    branch holds proves nothing about a branch: Huang's ``NO_alu`` over ``alu_lat`` once passed at two
    points of one branch with a second branch at a negative ``alu_lat``."""
    form = derivation.location if isinstance(derivation.location, sympy.Piecewise) else derivation.result
    if asked.op not in ("extremum", "limit", "regimes") or not isinstance(form, sympy.Piecewise):
        return
    if asked.op == "regimes" and (asked.variable or len(form.args) > BRANCH_TABLE):  # over a variable: its scan covers them
        return
    index = sympy.Piecewise(*((sympy.Integer(i), c) for i, (_, c) in enumerate(form.args)), (sympy.Integer(-1), True))
    unstated = not derivation.extra.elsewhere  # where no branch holds the answer claims nothing else

    def branch(point: _Point) -> int | None:
        try:
            number = _result_at(model, derivation, index, None, point, {})
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
            return None
        return int(number) if np.isfinite(number) and not (number < 0 and unstated) else None

    covered = {branch(p) for p in checked}
    wanted = len(form.args) + (0 if unstated else 1)
    for base in (*_bases(model, asked, cases=False), _DRAWN):
        for point in _sampled(model, asked, base, BRANCH_DRAWS, answer_inputs, zeros=True, seed="/branches"):
            found = branch(point)
            if found is not None and found not in covered:
                covered.add(found)
                yield point
            if len(covered - {None}) >= wanted:
                return


def _answer_inputs(model: Model, derivation: Derivation, asked: Asked) -> frozenset[str]:
    """Inputs the answer's own forms name beyond the quantity's: a ``valid_when`` domain end
    (``L_F/t_issue``) can enter a location although the quantity never uses it, and a derived
    quantity the answer names (``solve MWP_peak_BW --target N``) needs its own inputs."""
    names: set[str] = set()
    for form in (derivation.result, derivation.location):
        if isinstance(form, sympy.Basic):
            names.update(s.name for s in forms.free_symbols(form))
    for name in [n for n in names if n != asked.variable and n in model.defining]:
        names.update(model.inputs(name))  # a derived name the answer keeps (a solve's target N) is computed from its inputs
    return frozenset(n for n in names if n != asked.variable and n in model.symbol_definitions and n not in model.defining)


def _known(model: Model, asked: Asked, point: _Point) -> set[str]:
    """The names the point (constants, preset, values) and the question's substitutions give a value."""
    return set(input_values.merge_values(model, point.preset, point.values)) | {n for n, _ in asked.substitute}


def _lacks(model: Model, asked: Asked, point: _Point, answer_inputs: frozenset[str]) -> bool:
    """Whether the point leaves an input of the answer without a value."""
    return not answer_inputs <= _known(model, asked, point)


def _points(model: Model, asked: Asked, answer_inputs: frozenset[str] = frozenset()) -> tuple[list[_Point], str]:
    """The caller's point, else the model's presets that evaluate the quantity, else seeded samples;
    inputs a point lacks (the quantity's or the answer's) are drawn onto it."""
    given = {k: v for k, v in asked.values if k != asked.variable}
    if asked.preset is not None or given:
        label = f"preset {asked.preset}" if asked.preset else "the given values"
        if asked.preset and given:
            label += " with " + ", ".join(sorted(given))
        point = _Point(label, asked.preset, given)
        if _evaluates(model, asked, point) and not _lacks(model, asked, point, answer_inputs):
            return [point], ""
        # inputs the point lacks (a GPU preset without the workload) are sampled
        completed = _sampled(model, asked, point, 1, answer_inputs)
        return (completed or [point]), ""
    found: list[_Point] = []
    why = "no preset or validation case of the model, and no sampled point, gives every input of the question"
    for point in _bases(model, asked):
        if _evaluates(model, asked, point) and not _lacks(model, asked, point, answer_inputs):
            found.append(point)
        elif point.preset is not None and not point.values:  # a GPU preset without the workload: what it lacks is drawn
            found.extend(_sampled(model, asked, point, 1, answer_inputs))
        if len(found) == POINTS:
            return found, ""
    bare = _Point("the model's constants", None, {})
    needed = answer_inputs - {n for n, _ in asked.substitute}
    if not found and (not needed or result_form.of_constants(model, needed)) and _evaluates(model, asked, bare):
        return [bare], ""  # nothing to draw: the question reads the variable and the model's constants alone
    return found + _sampled(model, asked, _DRAWN, POINTS - len(found), answer_inputs), why


def _bases(model: Model, asked: Asked, *, cases: bool = True) -> Iterator[_Point]:
    """The model's presets, then (``cases``) its validation cases (a preset with a paper's workload:
    the points the published numbers were computed at), the variable's own value left out."""
    for preset in model.presets:
        yield _Point(f"preset {preset}", preset, {})
    if not cases:
        return
    for case in model.validation_inputs.values():
        values = {k: v for k, v in case.inputs if k != asked.variable}
        if values:
            yield _Point(f"validation case {case.case.id}", case.case.preset or None, values)


def _sampled(model: Model, asked: Asked, base: _Point, count: int, answer_inputs: frozenset[str] = frozenset(),
             *, zeros: bool = False, seed: str = "") -> list[_Point]:
    """Up to ``count`` points: ``base`` with its missing inputs (the quantity's and the answer's)
    drawn (seeded) from whole and fractional values that meet the inputs' declared assumptions and
    every equation's domain; ``zeros`` also draws 0 for an input declared nonnegative (the degenerate
    points where one branch of an answer gives way to another, ``alpha = 0``)."""
    found: list[_Point] = []
    for point in draws(model, asked, base, count, answer_inputs, zeros=zeros, seed=seed):
        if _admits(model, asked, point):
            found.append(point)
        if len(found) == count:
            break
    return found


def draws(model: Model, asked: Asked, base: _Point, count: int, answer_inputs: frozenset[str] = frozenset(),
          *, zeros: bool = False, seed: str = "") -> Iterator[_Point]:
    """The points :func:`_sampled` draws, in order, before it asks whether each is admitted (none where ``base`` gives
    every input or ``count`` is 0)."""
    known = _known(model, asked, base)
    wanted = sorted(set(model.inputs(asked.quantity)) | answer_inputs)
    inputs = [n for n in wanted if n != asked.variable and n not in known]
    if not inputs or count <= 0:
        return
    # each preset its own workloads (the same draws for every preset would test one workload twice)
    rng = sample_points.Draws(f"{model.id}/{asked.quantity}/{asked.variable}" + (f"/{base.label}" if base.label else "") + seed)
    choices = (1, 2, 3, 4, 8, 16, 32, 64, 100, 128, 256, 1000, 4096)
    for attempt in range(max(8, 2 * count)):
        values: dict[str, Any] = dict(base.values)
        drawn: dict[str, float] = {}
        for name in inputs:
            nonnegative = zeros and "nonnegative" in model.symbol_definitions[name].assumptions
            value: float = rng.choice(choices + ((0,) * 3 if nonnegative else ()))
            if "integer" not in model.symbol_definitions[name].assumptions and attempt % 2:
                value = value * rng.choice((0.5, 0.75, 1.5))
            drawn[name] = value
        values.update(drawn)
        shown = ", ".join(f"{k}={v:g}" for k, v in sorted(drawn.items()))
        label = f"{base.label} with {shown} (sampled)" if base.label else f"sampled point {attempt + 1} ({shown})"
        yield _Point(label, base.preset, values)


def _admits(model: Model, asked: Asked, point: _Point) -> bool:
    """Whether a drawn point's values meet their declared assumptions and some point of the
    variable's scan lies inside every ``valid_when`` domain with a finite value there (the
    variable's admissible range may depend on the drawn values: ``N >= L_F/t_issue``)."""
    fixed = {k: v for k, v in _with(model, asked, point, 1.0).items() if k != asked.variable}
    grid = _scan_grid(model, asked.variable, [])
    try:
        input_values.gather_values(model, asked.quantity, point.preset, fixed, check=True)
        with np.errstate(all="ignore"):
            compiled = np.broadcast_to(_quantity(model, asked, point, grid, settle=False), grid.shape)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    inside = _inside(model, asked, point, grid)
    admitted = np.isfinite(compiled) & inside
    found = np.flatnonzero(admitted)
    # the middle admitted point: the scan's ends are where a Min/Max of the variable ties (Hong & Kim's MWP = N at small N)
    if found.size and _settles_finite(model, asked, point, grid, int(found[found.size // 2])):
        return True  # the settled scan is finite there: no near-tie flags needed
    near = _unsettled(model, asked, point, grid) if admitted.any() else None
    if near is not None and (admitted & ~near).any():  # a finite point no tie can change: the settled scan has it too
        return True
    try:  # the points near a case tie decide: evaluated as a scalar call evaluates them (some thousand of Hong & Kim's)
        with np.errstate(all="ignore"):
            scanned = np.broadcast_to(_quantity(model, asked, point, grid), grid.shape)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    return bool((np.isfinite(scanned) & inside).any())


def _evaluates(model: Model, asked: Asked, point: _Point, *, checks: bool = False) -> bool:
    try:
        value = _quantity(model, asked, point, np.asarray([1.0, 10.0]), checks=checks)
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
        return False
    return bool(np.all(np.isfinite(value)))


# ------------------------------------------------------------------------------ extremum
def _extremum(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    kind = "min" if "min" in derivation.method.lower() else "max"
    kind = asked.to if asked.to in ("max", "min") else kind
    if not stated_hold(model, derivation, point):
        return None  # the closed form says where it holds ("valid when ..."): it claims nothing here
    unit = model.units[asked.quantity]
    value = _result_at(model, derivation, derivation.result, unit, point, {})
    if np.isnan(value) and derivation.extra.elsewhere:
        return _unattained(model, derivation, asked, point, kind)
    if not np.isfinite(value):
        raise _fail(model, asked, point, f"the extreme value is {value}")
    location = None
    if isinstance(derivation.location, sympy.Basic) and not derivation.location.has(sympy.oo, -sympy.oo, sympy.zoo):
        location = _result_at(model, derivation, derivation.location, model.units[asked.variable], point, {})
        if np.isfinite(location) and not (_admissible(model, asked, point, location) and _whole(model, asked.variable, location)):
            raise _fail(model, asked, point, f"the location {asked.variable} = {location:.10g} is outside its declared range "
                        "(its sign; whole values where declared integer) or a valid_when domain")
    grid = _scan_grid(model, asked.variable, [location] if location is not None and np.isfinite(location) else [])
    grid = sorted_unique(np.concatenate([grid, case_edges(model, asked, point)]))  # a narrow case's peak, at its edges exactly
    grid = sorted_unique(np.concatenate([grid, certify_region.extra_scan(model, asked, point, grid)]))  # kinks, domain ends
    with np.errstate(all="ignore"):
        scanned = _quantity(model, asked, point, grid)  # one value per scan value, also where the variable dropped out
    fine = np.isfinite(scanned) & _inside(model, asked, point, grid)
    if location is not None and np.isfinite(location):
        at = float(_quantity(model, asked, point, np.asarray(location)))
        # an extreme value near 0 (a domain edge where the quantity crosses 0) equals to the IEEE resolution of the quantity's scale
        floor = 1e-12 * float(np.max(np.abs(scanned[fine]))) if fine.any() else 0.0
        close = lambda v: abs(v - value) <= max(RESIDUAL * max(abs(v), abs(value), 1e-300), floor)  # noqa: E731
        if not close(at) and not close(exactly if (exactly := exact_location.value_there(model, derivation, asked, point)) is not None
                                       else np.nan):  # the location's double past a case's edge: the location itself decides
            raise _fail(model, asked, point, f"at {asked.variable} = {location:.10g} the quantity is {at:.10g}, not the extreme value {value:.10g}")
    if not fine.any():
        return None
    slack = BEATS * max(abs(value), 1e-300)
    best = int(np.nanargmax(np.where(fine, scanned, -np.inf)) if kind == "max" else np.nanargmin(np.where(fine, scanned, np.inf)))
    if (kind == "max" and scanned[best] > value + slack) or (kind == "min" and scanned[best] < value - slack):
        raise _fail(model, asked, point, f"the {kind}imum is at {'least' if kind == 'max' else 'most'} {scanned[best]:.10g} (at {asked.variable} = {grid[best]:.10g}), "
                    f"the closed form gives {value:.10g} ({asked.variable} = {grid[best]:.10g} gives {scanned[best]:.10g}, beyond the {kind}imum {value:.10g})")
    if derivation.location is None:  # a bound approached, not attained (:mod:`.extremum_monotone`)
        return f"no point of a {len(grid)}-point scan beats the {'supremum' if kind == 'max' else 'infimum'}"
    return f"the quantity at the location equals the {kind}imum and no point of a {len(grid)}-point scan beats it"


def _whole(model: Model, variable: str, location: float) -> bool:  # not integer-declared, or within rounding of a whole number
    definition = model.symbol_definitions.get(variable)
    return definition is None or "integer" not in definition.assumptions or abs(location - round(location)) <= 1e-9 * max(1.0, abs(location))


def _unattained(model: Model, derivation: Derivation, asked: Asked, point: _Point, kind: str) -> str | None:
    """Where no branch holds the answer says there is no extremum (the quantity approaches one at an
    open end): the scan's best admissible point must be its first or last, never strictly inside,
    unless it lies beside a cusp the answer says is approached and not attained (:func:`_approached`)."""
    grid = _scan_grid(model, asked.variable, [])
    with np.errstate(all="ignore"):
        scanned = _quantity(model, asked, point, grid)
    fine = np.flatnonzero(np.isfinite(scanned) & _inside(model, asked, point, grid))
    if not len(fine):
        return None
    sign = 1.0 if kind == "max" else -1.0
    best = fine[int(np.argmax(sign * scanned[fine]))]
    ends = (fine[0], fine[-1])
    at_ends = max(sign * scanned[e] for e in ends)
    if best not in ends and sign * scanned[best] - at_ends > BEATS * max(abs(scanned[best]), 1e-300):
        cusp = _approached(model, derivation, asked, point, sign, float(scanned[best]))
        if cusp:
            return cusp
        raise _fail(model, asked, point, f"the answer says there is no {kind}imum here, but {asked.variable} = {grid[best]:.10g} "
                    f"gives {scanned[best]:.10g}, inside the scan and beyond both its ends")
    return f"no {kind}imum, as the answer says: the best point of a {len(grid)}-point scan is at its end"


def _approached(model: Model, derivation: Derivation, asked: Asked, point: _Point, sign: float, best: float) -> str | None:
    """A cusp of ``extra.approached`` that explains a scan whose best point is inside: on the evaluate
    path the quantity tends to the cusp's value on a side of it (1e-9 away), the scan beats it
    nowhere, and at the cusp itself the quantity is worse (another case gives it): no extremum.
    None where no such cusp is there."""
    unit, at_unit = model.units[asked.quantity], model.units[asked.variable]
    for cusp in derivation.extra.approached or ():
        try:
            where = _result_at(model, derivation, cusp.location, at_unit, point, {})
            value = _result_at(model, derivation, cusp.value, unit, point, {})
        except errors.SymgpuError:
            continue
        if not (np.isfinite(where) and np.isfinite(value) and where > 0):
            continue
        with np.errstate(all="ignore"):
            beside = _quantity(model, asked, point, np.asarray([where * (1 - 1e-9), where, where * (1 + 1e-9)]))
        tolerance = BEATS * max(abs(value), 1e-300)
        tends = any(abs(x - value) <= tolerance for x in (beside[0], beside[2]))
        if tends and sign * best <= sign * value + tolerance and sign * beside[1] < sign * value - tolerance:
            return (f"no {'max' if sign > 0 else 'min'}imum, as the answer says: the quantity tends to {value:.10g} as "
                    f"{asked.variable} -> {where:.10g} and is {beside[1]:.10g} there; no point of the scan beats it")
    return None


def out_of_reach(model: Model, asked: Asked) -> None:
    """Where a solve asked at a point with a target of one number found no admissible root: the target beyond the
    quantity's range there (it stays below or above it over a scan of the variable), said in one line with the
    bound and where it is approached (Volkov H100's ``dram_throughput`` tends to 3139.56 GB/s as ``n`` grows and never
    reaches 4000 GB/s). Nothing where the point or the scan does not show that.

    Raises:
        errors.TargetOutOfReach: the target lies beyond every scanned value.
    """
    if asked.op != "solve" or asked.relation not in ("==", "=") or asked.target is None:
        return
    if asked.quantity not in model.defining and asked.quantity not in model.equations:
        return
    asked = dataclasses.replace(asked, quantity=model.equation_for(asked.quantity).definition.defines)
    points, _ = _points(model, asked)
    if len(points) != 1 or points[0].preset != asked.preset or set(points[0].values) - {k for k, _ in asked.values}:
        return  # no point of the caller's (sampled inputs) or one completed by samples: nothing to say about the question
    target = _target_free_of_the_variable(model, asked, points[0])
    if target is not None and np.ndim(target) == 0 and np.isfinite(target):
        _out_of_reach(model, asked, points[0], float(target), None, None)


# ------------------------------------------------------------------------------ limit
_CHECKS: dict[str, Callable[[Model, Derivation, Asked, _Point], str | None]] = {
    "solve": _solve, "boundary": certify_boundary.boundary, "extremum": _extremum, "limit": certify_limit.limit, "fixed_point": certify_fixed_point.fixed_point,
    "regimes": certify_regimes.regimes,
}
CHECKED_OPS = frozenset(_CHECKS)  #: the operations whose answers have a numeric check
