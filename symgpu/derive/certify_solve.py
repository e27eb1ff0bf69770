"""The numeric certificate of a solve (:mod:`.certify`): each root that applies at the point
satisfies the relation there and lies inside every ``valid_when`` domain, and a scan of the
variable's declared range (sign changes refined by bisection) finds no root the answer lacks; an
answer that holds on ranges (every value, flat regimes) holds at the scanned values it claims,
inside the domain, and claims every scanned value where the relation holds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.derive import exact_roots, range_lines, results
from symgpu.derive.certify_path import (RESIDUAL, Asked, _assumed_hold, _close, _exact_at, _exact_expr, _exact_gap, _fail, _inside, _Point, _quantity, _result_at, _roots_at,
                                        _scan_grid, _with, kept_valued, sorted_unique)
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import RootRecord
from symgpu.evaluate import active, evaluator, input_values

if TYPE_CHECKING:
    from symgpu.model import Model

#: values of the scan at which a range answer's conditions are evaluated (one scalar check each)
RANGE_SAMPLES = 120
#: relative residual under which the relation holds exactly (a range the answer must cover)
EXACT = 1e-12
#: the same in exact arithmetic (against a target rounded once to IEEE: a few units in the last place)
EXACT_AGAIN = 1e-14
#: how far (relative) outside a closed edge of its domain a root may lie by rounding alone
EDGE = 1e-12


def _target_at(model: Model, asked: Asked, point: _Point, v: Any) -> Any:
    """The target in the quantity's declared unit with the variable at ``v`` (None: not given)."""
    unit = model.units[asked.quantity]
    target = asked.target
    if target is None:
        given = dict(point.values).get(asked.quantity)
        return None if given is None else input_values.to_magnitude(model, asked.quantity, given, check=False)
    if isinstance(target, pint.Quantity):
        return float(units.exact_convert(target, unit).magnitude)
    if isinstance(target, str):
        try:
            target = model.parse(target, "target")
        except errors.SymgpuError:
            return float(units.exact_convert(units.quantity(target), unit).magnitude)
    if isinstance(target, (int, float)) or (isinstance(target, sympy.Basic) and target.is_number):
        return float(target)
    values = kept_valued(model, asked, point, _with(model, asked, point, v), [target])  # a target naming model quantities
    return evaluator.evaluate_expression(model, target, unit, preset=point.preset, values=values).magnitude


#: values of the variable (declared unit) at which the quantity's value becomes the target where the question gives none
PROBES = (8.0, 3.0, 100.0, 0.5, 1000.0, 1e5, 1e7)


def _probe_target(model: Model, asked: Asked, point: _Point) -> float:
    """The quantity at the first of :data:`PROBES` where it changes with the variable (a millionth either side), else at
    the first: a flat regime's value is met on a range whose ends are ties of the regimes' conditions, where the scan's
    root and the answer's own may fall on either side by rounding (Hong & Kim's ``MWP_pw`` over ``Departure_del_coal``
    at its bandwidth plateau: the departure root at its end, 208396, was dropped and the scan's kept, differential seed 91)."""
    first = None
    for probe in PROBES:
        with np.errstate(all="ignore"):
            around = np.asarray(_quantity(model, asked, point, np.asarray([probe, probe * (1 - 1e-6), probe * (1 + 1e-6)])), dtype=float)
        first = float(around[0]) if first is None else first
        if np.all(np.isfinite(around)) and not around[1] == around[0] == around[2]:
            return float(around[0])
    return first if first is not None else float("nan")


def _solve(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    if results.holds_on_ranges(derivation.result) or derivation.extra.holds_for is not None:
        return _ranges(model, derivation, asked, point)
    extra: dict[str, Any] = {}
    target = _target_free_of_the_variable(model, asked, point)
    probed = target is None and asked.target is None
    if probed:
        # no value for the quantity at the point: take the one it has at a variable value and
        # check the answer gives that value back
        extra[asked.quantity] = _probe_target(model, asked, point)
    elif target is not None and np.ndim(target) == 0 and np.isfinite(target):
        extra[asked.quantity] = float(target)  # a result may keep the quantity's symbol for its target
    roots = _answer_roots(model, derivation, asked, point, extra)
    target_of: Callable[[Any], Any] = (lambda v: extra[asked.quantity]) if extra else (lambda v: _target_at(model, asked, point, v))
    for root in roots:
        got = float(_quantity(model, asked, point, np.asarray(root)))
        want = float(np.asarray(target_of(np.asarray(root)), dtype=float))
        if not abs(got - want) <= RESIDUAL * max(abs(got), abs(want), 1e-300):
            _out_of_reach(model, asked, point, want, root, got)
            raise _fail(model, asked, point, f"at the root {asked.variable} = {root:.10g} the quantity is {got:.10g}, not the target {want:.10g}")
    if not roots and not probed and asked.quantity in extra and _conditional_equation_root(derivation):
        # the closed form's root is none here by the sign its squared radical equation needs: the target out of reach says why
        _out_of_reach(model, asked, point, extra[asked.quantity], None, None)
    outside = [r for r, inside in zip(roots, _inside(model, asked, point, np.asarray(roots, dtype=float)))
               if not inside and not _on_edge(model, asked, point, r)] if roots else []
    if outside:
        raise _fail(model, asked, point, f"the root {asked.variable} = {outside[0]:.10g} lies outside the model's valid_when domain "
                    f"(the model gives {asked.quantity} no value there)")
    grid = _scan_grid(model, asked.variable, roots)
    grid = grid[_inside(model, asked, point, grid)]
    # a target taken from the quantity at a probe value may be a flat regime's value, which a symbolic target meets
    # only on a set of measure zero: no range is asked of the answer then
    uncovered, covered = (None, 0) if probed else \
        _uncovered_range(model, derivation, asked, point, grid, roots, target_of, {**point.values, **extra})
    if uncovered is not None and asked.preset is None and not asked.values and _degenerate(model, derivation, point, extra):
        return None  # a point the certificate chose where the closed form is 0/0: it says nothing there (ask at the point)
    if uncovered is not None and not roots and _decimal_rounds_a_plateau(model, asked, point, uncovered):
        # the answer holds the decimal exactly (no root), the evaluate path meets it on a plateau within a double's precision
        raise errors.CertificateError(
            f"{model.id}: {asked.op} of {asked.quantity} over {asked.variable} at {point.label}: the quantity is constant over a range "
            f"of {asked.variable} (at {uncovered:.10g}, among others) at a value the target equals only to the "
            "precision of a double: solved exactly, the decimal given is not that value, so no root is found; give the target "
            "as the plateau's expression in the model's symbols (or a value off the plateau)")
    if uncovered is not None:
        raise _fail(model, asked, point, f"the relation holds on a range of {asked.variable} (exactly at {uncovered:.10g}, among others) "
                    f"that neither the answer's roots nor its ranges give")
    ranges = () if probed else results.applying_ranges(model, derivation, point.preset, {**point.values, **extra})
    missing = [r for r in _brute_roots(model, asked, point, grid, target_of) if _lacked(model, asked, point, grid, r, target_of, roots)
               and not _ends_a_range(model, asked, point, grid, r, target_of, ranges, {**point.values, **extra})]
    if missing:
        shown = ", ".join(f"{r:.10g}" for r in missing[:4])
        raise _fail(model, asked, point, f"a scan of {asked.variable} finds root(s) {shown} that the answer lacks "
                    f"(answer: {', '.join(f'{r:.10g}' for r in roots) or 'none here'})")
    n = len(roots)
    on_ranges = f"; the relation holds at {covered} scanned values on the answer's ranges" if covered else ""
    return (f"{n} root{'s satisfy' if n != 1 else ' satisfies'} the relation and a scan of {asked.variable} finds no other" + on_ranges
            if n else f"no isolated root here, and a scan of {asked.variable} finds none" + on_ranges if covered
            else f"no root here, and a scan of {asked.variable} finds none")


def _conditional_equation_root(derivation: Derivation) -> bool:
    """Does the answer hold a root of an equation without regimes that is one only under a condition
    (the sign a squared radical equation's root needs: :func:`symgpu.derive.solve_ranges.equation_records`)?"""
    return any(r.regime == "the equation" and r.when is not sympy.true for r in derivation.extra.roots or ())


def _out_of_reach(model: Model, asked: Asked, point: _Point, want: float, root: float | None, got: float | None) -> None:
    """Where a question asked at a point has a numeric target that the quantity stays strictly below (or
    above) over the whole scan of the variable inside the domain, there is no root, whatever the closed
    form gives (Volkov's ``x_latency_root_ilp`` rises towards ``c_ipc`` = 0.0899 and never reaches 0.1;
    the closed form's root, valid only below ``c_ipc``, gives a positive n there, or is no root there by
    the condition its squared radical equation leaves: ``root`` None).

    Raises:
        errors.TargetOutOfReach: the target lies beyond every scanned value.
    """
    at_a_point = asked.preset is not None or any(k != asked.variable for k, _ in asked.values)
    drawn = set(point.values) - {k for k, _ in asked.values} - {asked.variable}  # inputs the caller's point lacks, sampled
    if not at_a_point or drawn or _target_free_of_the_variable(model, asked, point) is None:
        return  # the scan at sampled inputs says nothing of the caller's question
    grid = _scan_grid(model, asked.variable, [])
    grid = grid[_inside(model, asked, point, grid)]
    with np.errstate(all="ignore"):
        along = np.broadcast_to(np.asarray(_quantity(model, asked, point, grid), dtype=float), grid.shape)
    finite = np.isfinite(along)
    if finite.sum() < 2:
        return
    xs, ys = grid[finite], along[finite]
    below = bool(np.all(ys < want))
    if not below and not bool(np.all(ys > want)):
        return
    k = int(np.argmax(ys) if below else np.argmin(ys))
    end = f", approached as {asked.variable} grows" if k == len(ys) - 1 else f", approached as {asked.variable} falls" if k == 0 else ""
    unit, at_unit = (f" {u}" if u not in ("", "1") else "" for u in (model.unit_text(asked.quantity), model.unit_text(asked.variable)))
    raise errors.TargetOutOfReach(
        f"{model.id}: {asked.quantity}: no root for {asked.variable} at {point.label}: {asked.quantity} stays "
        f"{'below' if below else 'above'} the target {want:.10g}{unit} for every {asked.variable} (scanned from {xs[0]:.4g} to "
        f"{xs[-1]:.4g}{at_unit}: {'at most' if below else 'at least'} about {ys[k]:.6g}{unit}, at {asked.variable} = {xs[k]:.4g}"
        f"{at_unit}{end})"
        + (f"; the closed form's root {asked.variable} = {root:.10g} is none here (the quantity is {got:.10g} there)"
           if root is not None and got is not None else "") + ": give a target within the quantity's range")


def _uncovered_range(model: Model, derivation: Derivation, asked: Asked, point: _Point, grid: np.ndarray, roots: list[float],
                     target_of: Callable[[Any], Any], values: Mapping[str, Any]) -> tuple[float | None, int]:
    """Where the relation holds exactly at more than two scan points (a range of roots, which
    :func:`_brute_roots` leaves out), the first of them (at most :data:`RANGE_SAMPLES`, spread) that
    is none of the answer's ``roots`` (the end of a range can be a regime's root) and that none of
    its flat ranges applying at the point (:func:`results.applying_ranges`) covers (None where every one is covered, or the relation holds on no range), and how many
    were checked covered."""
    with np.errstate(all="ignore"):
        along = np.broadcast_to(np.asarray(_quantity(model, asked, point, grid), dtype=float), grid.shape)
        targets = np.broadcast_to(np.asarray(target_of(grid), dtype=float), grid.shape)
    scale = np.maximum(np.maximum(np.abs(along), np.abs(targets)), 1e-300)
    exact = grid[np.isfinite(along) & np.isfinite(targets) & (np.abs(along - targets) <= EXACT * scale)]
    if len(exact) <= 2:
        return None, 0
    ranges = results.applying_ranges(model, derivation, point.preset, values)
    fixed = bool(np.all(targets == targets[0]))  # a numeric target: on a range of roots the quantity is constant
    spread = sorted_unique(np.linspace(0, len(exact) - 1, min(len(exact), RANGE_SAMPLES)).astype(int))
    covered = 0
    for i in spread:
        x = float(exact[i])
        if any(_close(x, r) for r in roots):
            continue
        if any(_holds(model, f.when, point, {**values, asked.variable: x}) for f in ranges):
            covered += 1
        elif _exactly(model, asked, point, x, float(np.asarray(target_of(np.asarray(x)), dtype=float))) and \
                (not fixed or _constant(model, asked, point, x, float(exact[i + 1 if i + 1 < len(exact) else i - 1]))):
            return x, 0
    return None, covered  # values that only looked exact (IEEE digits lost) are on no range and not counted


def _decimal_rounds_a_plateau(model: Model, asked: Asked, point: _Point, x: float) -> bool:
    """Is the quantity at ``x`` (on a range where it meets the target) exactly a value the target's decimal
    only rounds: equal within a few ulps (``EXACT_AGAIN``), different in exact arithmetic (interval_analysis's ``t_P`` plateau
    N_exec*d_iota/Theta_M = 32/80075 s, given as "399.6253512332188 us")?"""
    value = _exact_at(model, asked, point, x)
    target = float(np.asarray(_target_at(model, asked, point, np.asarray(x)), dtype=float))
    return value is not None and value.imag == 0 and abs(value.real - target) <= EXACT_AGAIN * max(abs(value.real), abs(target), 1e-300) \
        and _exact_gap(model, asked, point, x, target) not in (None, 0.0)


def _exactly(model: Model, asked: Asked, point: _Point, x: float, target: float) -> bool:
    """Does the quantity at ``x`` equal ``target`` in exact arithmetic too (the evaluate path's exact
    mode)? IEEE values can sit on one number over a range where cancellation ate every digit
    (Volkov's latency root at ``n = 1000``, flat to 1e-12 over decades of ``alu_lat``); that is no range
    of roots. True where it cannot tell."""
    value = _exact_at(model, asked, point, x)
    if value is None:
        return True
    return value.imag == 0 and abs(value.real - target) <= EXACT_AGAIN * max(abs(value.real), abs(target), 1e-300)


def _constant(model: Model, asked: Asked, point: _Point, x: float, other: float) -> bool:
    """Has the quantity one exact value (to 1e-20) at ``x`` and at ``other``, two scan values where it
    looked equal to a numeric target? A range of roots is flat; a stretch that varies below the
    target's IEEE digits is not (Huang's printed CPI at ``alpha = 1e9`` varies by 1e-14 over decades of
    ``reqs_per_inst``; its one root is where the exact values cross the target). True where it cannot tell."""
    try:
        one, two = _exact_expr(model, asked, point, x), _exact_expr(model, asked, point, other)
        gap, size = complex((one - two).evalf(30)), max(abs(complex(one.evalf(30))), abs(complex(two.evalf(30))))
    except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return True
    return abs(gap) <= 1e-20 * max(size, 1e-300)  # the difference taken to 30 digits before rounding


def _on_edge(model: Model, asked: Asked, point: _Point, root: float) -> bool:
    """Is a root outside the ``valid_when`` domain by rounding only: does the domain hold within
    :data:`EDGE` (relative) of it? A root on a closed edge of the domain (MDM's ``W <= W_max`` with
    the target taken at ``W = W_max``) comes out of its closed form one unit in the last place outside."""
    step = EDGE * max(abs(root), 1e-300)
    return bool(np.any(_inside(model, asked, point, np.array([root - step, root + step]))))


def _exact_crossing(model: Model, asked: Asked, point: _Point, grid: np.ndarray, root: float, target_of: Callable[[Any], Any],
                    refine: bool) -> tuple[bool, float | None]:
    """The scan's sign change at ``root`` in exact arithmetic (the evaluate path's exact mode, the
    difference with the target taken to 30 digits before rounding): (known, crossing). ``known`` is
    False where the exact mode cannot tell; ``crossing`` is None where the quantity is on one side
    of the target at both scan points around ``root`` (rounding noise: a closed form that cancels
    keeps few IEEE digits, and Volkov's textbook latency root at ``alpha = 1e9`` crossed its target
    dozens of times over ``b``), else, with ``refine``, the crossing found by bisection on exact
    values (where the quantity is flat to 1e-14, Huang's printed CPI at ``alpha = 1e9``, the IEEE
    bisection places it 1e-5 off), else ``root``."""
    i = int(np.searchsorted(grid, root))
    if i == 0 or i >= len(grid):
        return False, None
    target = float(np.asarray(target_of(np.asarray(root)), dtype=float))

    def gap(x: float) -> float | None:
        return _exact_gap(model, asked, point, x, target)

    lo, hi = float(grid[i - 1]), float(grid[i])
    g_lo, g_hi = gap(lo), gap(hi)
    if g_lo is None or g_hi is None:
        return False, None
    if g_lo * g_hi > 0:
        return True, None
    if not refine:
        return True, root
    while hi - lo > 1e-13 * abs(hi):
        mid = 0.5 * (lo + hi)
        g_mid = gap(mid)
        if g_mid is None:
            return False, None
        if g_mid == 0:
            lo = hi = mid
        elif (g_mid > 0) == (g_lo > 0):
            lo, g_lo = mid, g_mid
        else:
            hi = mid
    return True, 0.5 * (lo + hi)


def _lacked(model: Model, asked: Asked, point: _Point, grid: np.ndarray, root: float, target_of: Callable[[Any], Any],
            roots: list[float]) -> bool:
    """Is the scan's root at ``root`` one that ``roots`` lack: none is close to it, and it is no
    rounding noise and no crossing one of them gives, in exact arithmetic (:func:`_exact_crossing`)?"""
    if any(_close(root, a) for a in roots):
        return False
    known, crossing = _exact_crossing(model, asked, point, grid, root, target_of, refine=bool(roots))
    return not known or crossing is not None and not any(_close(crossing, a) for a in roots)


def _ends_a_range(model: Model, asked: Asked, point: _Point, grid: np.ndarray, root: float, target_of: Callable[[Any], Any],
                  ranges: tuple[Any, ...], values: Mapping[str, Any]) -> bool:
    """Is the scan's root at ``root`` the end of a range of roots the answer gives: is a scan value
    beside it inside one of the answer's flat ranges that apply at the point, and the quantity there
    the target in exact arithmetic? On a plateau the evaluate path's doubles may sit an ulp off the
    target (m6_ext's t_kernel = t_launch + a 1 us floor, 19.3 us + 1 us summed in seconds:
    20.299999999999997 us against 20.3), so the scan sees the plateau's end as a sign change."""
    i = int(np.searchsorted(grid, root))
    if not ranges or not 0 < i < len(grid):
        return False
    target = float(np.asarray(target_of(np.asarray(root)), dtype=float))
    return any(any(_holds(model, f.when, point, {**values, asked.variable: float(x)}) for f in ranges)
               and _exact_gap(model, asked, point, float(x), target) == 0 for x in (grid[i - 1], grid[i]))


def _degenerate(model: Model, derivation: Derivation, point: _Point, extra: Mapping[str, Any]) -> bool:
    """Is a root of the closed form no number at the point (``0/0`` where an input is 0)?"""
    result = derivation.result
    unit = model.units[derivation.variable] if derivation.variable in model.units else None
    for part in result.args if isinstance(result, sympy.Tuple) else (result,):
        try:
            with np.errstate(all="ignore"):
                if not np.isfinite(_result_at(model, derivation, part, unit, point, extra)):
                    return True
        except (errors.SymgpuError, TypeError, ValueError):
            return True
    return False


def _holds(model: Model, condition: Any, point: _Point, values: Mapping[str, Any]) -> bool:
    """A range's condition at the point (one that cannot be evaluated there counts as holding)."""
    try:
        return bool(active.condition_true(model, condition, point.preset, values))
    except errors.SymgpuError:
        return True


def _answer_roots(model: Model, derivation: Derivation, asked: Asked, point: _Point, extra: Mapping[str, Any]) -> list[float]:
    """The closed form's roots that apply at the point, finite and real: each part of the result,
    left out only where it is the root of listed regimes (extra ``roots``) none of whose
    conditions hold there; a part that is no listed root is checked as it stands (the result is
    what is shown, so it is what is checked)."""
    listed = results.roots_of(derivation)
    if listed is None:
        return _roots_at(model, derivation, asked, point, extra)
    unit = model.units[asked.variable]
    values = kept_valued(model, asked, point, {**point.values, **extra}, [x for r in listed for x in (r.root, r.when, r.inside)])
    owners = []
    for record in listed:
        with np.errstate(all="ignore"):
            owners.append((_lost(model, record.root, asked.variable, point, values, _result_at(model, derivation, record.root, unit, point, extra)), record))
    found = []
    result = derivation.result
    for part in result.args if isinstance(result, sympy.Tuple) else (result,):
        with np.errstate(all="ignore"):
            number = _lost(model, part, asked.variable, point, values, _result_at(model, derivation, part, unit, point, extra))
        if not np.isfinite(number):
            continue
        mine = [record for value, record in owners if np.isfinite(value) and _close(value, number, 1e-9)]
        if not mine:
            found.append(number)
            continue
        refined = exact_roots.refined(model, mine[0].root, asked.variable, point.preset, values, number)  # as results.applying_roots shows it
        if results.admissible(model, asked.variable, refined) and any(_applies(model, record, point, values, asked.variable, refined)
                                                                      for record in mine):
            found.append(refined)
    return [x for x, held in zip(found, _assumed_hold(model, asked, point, np.asarray(found, dtype=float))) if held]  # --assume on the variable


def _applies(model: Model, record: RootRecord, point: _Point, values: Mapping[str, Any], variable: str, number: float) -> bool:
    """Do a listed root's regime conditions and domain hold at the point, as :func:`results.root_holds`
    decides them at the root's value ``number``? (Conditions that cannot be evaluated there count as
    holding: the root is then checked as it stands.)"""
    try:
        held = results.root_holds(model, record, point.preset, values, variable, number)[0]
    except errors.SymgpuError:
        held = results.inside_domain(model, record.inside, point.preset, values)
    lost = None if held else exact_roots.recovered(model, record, variable, point.preset, values)  # no number in IEEE arithmetic
    return held or lost is not None and lost.holds


def _lost(model: Model, root: sympy.Basic, variable: str, point: _Point, values: Mapping[str, Any], number: float) -> float:
    """``number``, a root's IEEE value at the point, or where that is no number its exact value where that is a finite real
    one (:mod:`symgpu.derive.exact_roots`: the discriminant of a double root cancels), as :func:`results.applying_roots` reads it."""
    if np.isfinite(number):
        return number
    exact = exact_roots.exact_number(model, root, model.units[variable], point.preset, values)
    return exact.real if exact is not None and exact.imag == 0 and np.isfinite(exact.real) else number


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
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(_quantity(model, asked, point, mid)), np.abs(np.asarray(target_of(mid), dtype=float)))
        gap = np.maximum(np.abs(g(lo)), np.abs(g(hi)))  # both sides: a one-sided pole (a Min's branch that falls to -oo) is no root
        real = np.isfinite(gap) & np.isfinite(scale) & (gap <= 1e-4 * np.maximum(scale, 1e-300))  # a pole is no root
    return exact + [float(r) for r in mid[real]]


def _ranges(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """An answer on ranges (every value, flat regimes, a range of a regime): at values spread over
    the scan, where the answer (its ``holds_for``) says the relation holds it does, inside every
    ``valid_when`` domain; where the relation holds exactly the answer says so."""
    stated = derivation.extra.holds_for
    claim = sympy.true if derivation.result is sympy.true else (derivation.result if stated is None else stated)
    scan = _scan_grid(model, asked.variable, [])
    probed = range_lines.probes(model, derivation, point.preset, {**point.values, **results.result_values(derivation, {})})
    grid = np.concatenate([scan, probed])  # each flat range's ends, beside them and inside, after the scan: tested too
    given = _target_value(model, asked, point)
    with np.errstate(all="ignore"):
        if not given and asked.target is None:  # no target: the value the quantity has at a variable value
            given = {asked.quantity: float(_quantity(model, asked, point, np.asarray(8.0)))}
        along = np.broadcast_to(np.asarray(_quantity(model, asked, point, grid), dtype=float), grid.shape)
        targets = np.broadcast_to(np.asarray(given[asked.quantity] if given else _target_at(model, asked, point, grid), dtype=float), grid.shape)
    inside = _inside(model, asked, point, grid)
    finite = np.isfinite(along) & np.isfinite(targets)
    scale = np.maximum(np.maximum(np.abs(along), np.abs(targets)), 1e-300)
    near = finite & (np.abs(along - targets) <= RESIDUAL * scale)
    exact = finite & (np.abs(along - targets) <= EXACT * scale)
    extra = {**results.result_values(derivation, {}), **given}
    claimed = probes_claimed = 0
    for i in [*sorted_unique(np.linspace(0, len(scan) - 1, RANGE_SAMPLES).astype(int)), *range(len(scan), len(grid))]:
        x = float(grid[i])
        says = active.condition_true(model, claim, point.preset, {**_with(model, asked, point, x), **extra})
        if says and not inside[i]:
            raise _fail(model, asked, point, f"the answer says {asked.variable} = {x:.10g} is a root, but it lies outside the model's "
                        f"valid_when domain (the model gives {asked.quantity} no value there)")
        if says and finite[i] and not near[i]:
            raise _fail(model, asked, point, f"the answer says {asked.variable} = {x:.10g} is a root, but the quantity there is "
                        f"{along[i]:.10g}, not {targets[i]:.10g}")
        if not says and inside[i] and exact[i]:
            raise _fail(model, asked, point, f"the relation holds at {asked.variable} = {x:.10g} (the quantity is {along[i]:.10g}), "
                        "which the answer's ranges leave out")
        claimed += bool(says) and i < len(scan)
        probes_claimed += bool(says) and i >= len(scan)
    if probes_claimed and not claimed:  # a narrow range between the scanned values (a staircase's step)
        return (f"the relation holds at the {probes_claimed} values of {asked.variable} tested inside the answer's ranges (beside "
                f"their ends and between), at none of the {len(probed) - probes_claimed} beside them outside, nor at a scanned value")
    if claimed:
        return (f"the relation holds at the {claimed} of {RANGE_SAMPLES} scanned values of {asked.variable} that the answer's ranges "
                "cover, inside the domain, and at no other")
    return _no_range_here(model, asked, point, scan[inside[:len(scan)]], given,
                          lambda x: active.condition_true(model, claim, point.preset, {**_with(model, asked, point, x), **extra}))


def _no_range_here(model: Model, asked: Asked, point: _Point, grid: np.ndarray, given: Mapping[str, float],
                   claims: Callable[[float], bool]) -> str:
    """A range answer whose ranges hold at no scanned value says there is no root at the point: a
    scan finds none outside its ranges (a root there is one the answer lacks). The target is the
    numeric one, else the value the point gives the quantity (``given``), else the one it has at a
    probe value of the variable (:func:`_ranges` fills ``given`` then)."""
    target_of: Callable[[Any], Any] = (lambda v: given[asked.quantity]) if given else (lambda v: _target_at(model, asked, point, v))
    missing = [r for r in _brute_roots(model, asked, point, grid, target_of)
               if not claims(r) and _lacked(model, asked, point, grid, r, target_of, [])]
    if missing:
        raise _fail(model, asked, point, f"a scan of {asked.variable} finds root(s) {', '.join(f'{r:.10g}' for r in missing[:4])} that the "
                    "answer lacks (its ranges hold at none of the scanned values)")
    return f"the answer's ranges hold at none of the scanned values of {asked.variable}, and the scan finds no root off them"


def _target_value(model: Model, asked: Asked, point: _Point) -> dict[str, float]:
    """The quantity's value that its symbol stands for in a range answer: the numeric target, else
    the value the point gives it (none when neither is given)."""
    target = _target_free_of_the_variable(model, asked, point)
    return {asked.quantity: float(target)} if target is not None and np.ndim(target) == 0 and np.isfinite(target) else {}


def _target_free_of_the_variable(model: Model, asked: Asked, point: _Point) -> Any:
    """:func:`_target_at` with no value of the variable: None where the target needs one (a target naming a
    quantity that depends on the variable, Hong & Kim's ``--target CWP`` solved for ``N``: then it is read
    at each value of the variable checked, not taken as one number)."""
    with np.errstate(all="ignore"):
        try:
            return _target_at(model, asked, point, np.nan)
        except errors.EvaluationError:
            return None
