"""Brute-force numerics for the differential tester (issue 25), on the evaluate path only.

Every number here comes from ``Model.evaluate`` (a quantity at a point, the variable an array
for a dense grid) and :func:`symgpu.evaluate.active.active_regime` (which limiter or case holds):
a grid over the variable's admissible range around its value at the point, sign changes refined
by bisection. Nothing here calls the derivation engine; :mod:`differential_checks` compares.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy

import symgpu
from symgpu import errors
from symgpu.evaluate import active, evaluator

if TYPE_CHECKING:
    from differential_questions import Point, Subject

#: grid points per scan (log-spaced over six decades each side of the point's value)
GRID = 241
#: decades the scan reaches below and above the variable's value at the point
DECADES = 3.0
#: bisection steps (relative bracket width about 2**-60 of the starting one)
BISECT = 60


@dataclass(frozen=True)
class Bracket:
    """Where the brute force found a root or a switch: ``low <= x <= high`` (``low == high``: exact)."""

    low: float
    high: float

    def contains(self, x: float, rel: float = 1e-6, scale: float = 1e-300) -> bool:
        """Is ``x`` in the bracket, within ``rel`` of its size (of ``scale`` where that is larger: a bracket at 0
        has no size of its own)?"""
        pad = rel * max(abs(self.low), abs(self.high), scale)
        return self.low - pad <= x <= self.high + pad

    def step(self, xs: np.ndarray) -> float:
        """The grid's step beside the bracket: the nearest other grid value's distance from its ends (0 where
        ``xs`` has no other value)."""
        others = xs[(xs < self.low) | (xs > self.high)]
        if not len(others):
            return 0.0
        return float(min(np.min(np.abs(others - self.low)), np.min(np.abs(others - self.high))))

    @property
    def middle(self) -> float:
        return 0.5 * (self.low + self.high)


def is_integer(model: symgpu.Model, name: str) -> bool:
    return "integer" in model.symbol_definitions[name].assumptions


def lower_bound(model: symgpu.Model, name: str) -> tuple[float, bool]:
    """The variable's declared lower end and whether it is included: (0, False) positive, (0, True)
    nonnegative, (-inf, False) otherwise."""
    assumptions = model.symbol_definitions[name].assumptions
    if "positive" in assumptions:
        return 0.0, False
    if "nonnegative" in assumptions:
        return 0.0, True
    return -math.inf, False


def grid(model: symgpu.Model, name: str, centre: float, *, size: int = GRID, decades: float = DECADES) -> np.ndarray:
    """A dense grid over ``name``'s admissible range around ``centre`` (its value at the point):
    log-spaced from ``centre``/10**decades to ``centre``*10**decades, with 0 where the range
    includes it and the mirror image where negative values are admissible; integers only for
    an integer variable. Sorted, unique."""
    scale = abs(centre) if centre != 0 else 1.0
    positive = scale * np.logspace(-decades, decades, size)
    low, closed = lower_bound(model, name)
    parts = [positive, np.array([centre])]
    if closed or low == -math.inf:
        parts.append(np.array([0.0]))
    if low == -math.inf:
        parts.append(-positive)
    values = np.concatenate(parts)
    if is_integer(model, name):
        values = np.round(values)
        values = values[values > 0] if low == 0 and not closed else values
    return np.unique(values)


def evaluate_on(model: symgpu.Model, quantity: str, point: Point, name: str, xs: np.ndarray) -> np.ndarray:
    """The quantity (declared unit) at each of ``xs`` for ``name``, NaN where the model gives no
    value (outside a ``valid_when`` domain): one vectorised call, point by point only where the array as a whole is
    refused (a domain, or a literal the equations put into each other bring beside another scale: scalars read them one by one)."""
    values = point.mapping(without=name)
    try:
        out = model.evaluate(quantity, point.preset, values=values | {name: xs}).magnitude
        return np.broadcast_to(np.asarray(out, dtype=float), xs.shape).copy()
    except (errors.DomainError, errors.EvaluationError):
        pass
    result = np.full(xs.shape, np.nan)
    for i, x in enumerate(xs):
        result[i] = scalar(model, quantity, point, name, float(x))
    return result


def scalar(model: symgpu.Model, quantity: str, point: Point, name: str, x: float) -> float:
    """The quantity at one value of ``name`` (NaN where the model refuses the point)."""
    try:
        return float(model.evaluate(quantity, point.preset, values=point.mapping(without=name) | {name: x}).magnitude)
    except (errors.DomainError, errors.EvaluationError):
        return math.nan


#: how far (relative) outside a closed edge of the domain a computed root may lie by rounding alone
EDGE = 1e-12


def scalar_near_edge(model: symgpu.Model, quantity: str, point: Point, name: str, x: float) -> float:
    """:func:`scalar` at ``x``, or, where the model gives no value there, at the nearest of
    ``x*(1 -+ EDGE)`` where it gives one: a root on a closed edge of a ``valid_when`` domain
    (MDM's ``W <= W_max``, the target taken at ``W = W_max``) comes out of its closed form one
    unit in the last place outside. NaN where neither has a value."""
    value = scalar(model, quantity, point, name, x)
    step = EDGE * max(abs(x), 1e-300)
    for near in (x - step, x + step):
        if not math.isnan(value):
            break
        value = scalar(model, quantity, point, name, near)
    return value


def draw_variable_value(model: symgpu.Model, subject: Subject, point: Point, rng: random.Random) -> tuple[float, float] | None:
    """A random grid value of the variable where the quantity is finite, and the quantity there
    (the target of a solve question: inside the quantity's range by construction)."""
    from differential_questions import value_at
    xs = grid(model, subject.variable, value_at(model, point, subject.variable))
    ys = evaluate_on(model, subject.quantity, point, subject.variable, xs)
    finite = np.flatnonzero(np.isfinite(ys))
    if not len(finite):
        return None
    index = int(finite[rng.randrange(len(finite))])
    return float(xs[index]), float(ys[index])


def close(a: float, b: float, rel: float = 1e-6, scale: float = 0.0) -> bool:
    """``a`` equals ``b`` within ``rel`` of the larger magnitude (or of ``scale``); infinities equal themselves."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b), scale) or a == b


def bisect(f: Callable[[float], float], low: float, high: float, f_low: float, integer: bool) -> Bracket:
    """Shrink ``[low, high]`` (``f`` changes sign across it) to a tight bracket (adjacent integers
    for an integer variable). NaN values of ``f`` stop the refinement where they are."""
    for _ in range(BISECT):
        if integer and high - low <= 1:
            break
        mid = 0.5 * (low + high)
        if integer:
            mid = math.floor(mid)
        if mid in (low, high):
            break
        value = f(mid)
        if not math.isfinite(value):
            break
        if value == 0:
            return Bracket(mid, mid)
        if (value > 0) == (f_low > 0):
            low, f_low = mid, value
        else:
            high = mid
    return Bracket(low, high)


def roots(model: symgpu.Model, quantity: str, point: Point, name: str, target: float, xs: np.ndarray,
          ys: np.ndarray) -> tuple[list[Bracket], list[Bracket]]:
    """Where the quantity equals ``target`` on the grid: (isolated roots, plateaus where it equals
    the target on a whole run of grid points). A sign change refined by bisection counts as a
    root only where the quantity is within 1e-6 of the target on both sides of its bracket (else it
    is a jump, or a pole: Huang's printed bandwidth delay at ``alpha = 1e9`` sits 2e-7 above its
    target left of its pole at ``rho = 1`` and far below right of it)."""
    g = ys - target
    finite = np.isfinite(ys)  # an infinity (W_threshold = MSHRs/M_Read at M_Read = 0) must not make every point a root
    scale = max(abs(target), float(np.max(np.abs(ys[finite]))) * 1e-12 if finite.any() else 0.0, 1e-300)
    zero = np.isfinite(g) & (np.abs(g) <= 1e-12 * scale)

    def f(x: float) -> float:
        return scalar(model, quantity, point, name, x) - target

    return zeros(f, xs, g, zero, lambda bracket: 1e-6 * max(abs(target), 1e-300), is_integer(model, name))


def zeros(f: Callable[[float], float], xs: np.ndarray, g: np.ndarray, zero: np.ndarray, tolerance: Callable[[Bracket], float],
          integer: bool) -> tuple[list[Bracket], list[Bracket]]:
    """Where ``f`` (``g`` its values on the sorted grid ``xs``, ``zero`` where they count as 0) vanishes:
    (isolated zeros, plateaus where it is 0 on a whole run of grid points). A sign change between
    neighbouring finite values, refined by bisection, counts only where ``|f|`` is within ``tolerance``
    (of the bracket) at both ends of its bracket (else it is a jump or a pole)."""
    isolated: list[Bracket] = []
    plateaus: list[Bracket] = []
    i = 0
    while i < len(xs):
        if zero[i]:
            j = i
            while j + 1 < len(xs) and zero[j + 1]:
                j += 1
            (plateaus if j > i else isolated).append(Bracket(float(xs[i]), float(xs[j])))
            i = j + 1
            continue
        if i + 1 < len(xs) and not zero[i + 1] and np.isfinite(g[i]) and np.isfinite(g[i + 1]) and (g[i] > 0) != (g[i + 1] > 0):
            bracket = bisect(f, float(xs[i]), float(xs[i + 1]), float(g[i]), integer)
            ends = [abs(f(bracket.low)), abs(f(bracket.high))]
            if max(ends) <= tolerance(bracket) or integer and bracket.high - bracket.low <= 1:
                isolated.append(bracket)
        i += 1
    return isolated, plateaus


def flat_in_exact_arithmetic(model: symgpu.Model, quantity: str, point: Point, name: str, target: float, isolated: list[Bracket],
                             plateaus: list[Bracket], xs: np.ndarray) -> tuple[list[Bracket], list[Bracket]]:
    """The plateaus of :func:`roots` that are flat in exact arithmetic too (the quantity less the
    target, taken to 30 digits, is the same at both ends to 1e-20 of the target), and ``isolated`` with the roots inside the others: a stretch
    that only looks flat in IEEE (Huang's printed CPI at ``alpha = 1e9`` varies by 1e-14 over
    decades of ``reqs_per_inst``, below its IEEE digits) is no range of roots, and its root is where
    the exact values cross the target. A plateau the exact mode cannot evaluate is kept."""
    kept: list[Bracket] = []
    found = list(isolated)
    for plateau in plateaus:
        inside = xs[(xs >= plateau.low) & (xs <= plateau.high)]
        ends = exact_on(model, quantity, point, name, np.array([inside[0], inside[-1]]), minus=target)  # differences kept to 30 digits
        if not np.all(np.isfinite(ends)) or abs(ends[0] - ends[1]) <= 1e-20 * max(abs(target), 1e-300):
            kept.append(plateau)
            continue
        below = xs[xs < plateau.low][-1:]
        above = xs[xs > plateau.high][:1]
        run = np.concatenate([below, inside, above])
        gap = exact_on(model, quantity, point, name, run, minus=target)
        for i in range(len(run) - 1):
            if gap[i] == 0:
                found.append(Bracket(float(run[i]), float(run[i])))
            elif np.isfinite(gap[i]) and np.isfinite(gap[i + 1]) and gap[i + 1] != 0 and (gap[i] > 0) != (gap[i + 1] > 0):
                found.append(Bracket(float(run[i]), float(run[i + 1])))
    return found, kept


def rounding_noise(model: symgpu.Model, quantity: str, point: Point, name: str, target: float, bracket: Bracket,
                   xs: np.ndarray) -> bool:
    """Is a root :func:`roots` found rounding noise, no root in exact arithmetic (the evaluate path's exact
    mode)? A grid point where the IEEE value meets the target is none where the exact value is off it by
    more than 1e-12 relative; a sign change between two grid points is none where the exact values at both
    lie on one side of the target. A closed form that cancels keeps few IEEE digits, and where it varies by
    less than those its IEEE values cross the target at random (Volkov's textbook latency root at
    ``alpha = 1e9`` kept 6 of its 16 digits and crossed its target dozens of times over ``b``). False where
    the exact mode gives no number. For the roots an answer lacks only: each costs exact evaluations."""
    if bracket.low == bracket.high:
        exact = float(exact_on(model, quantity, point, name, np.array([bracket.low]))[0])
        return math.isfinite(exact) and abs(exact - target) > 1e-12 * max(abs(target), 1e-300)
    below = xs[xs <= bracket.low]
    above = xs[xs >= bracket.high]
    if not len(below) or not len(above):
        return False
    exact = exact_on(model, quantity, point, name, np.array([below[-1], above[0]]), minus=target)
    return bool(np.all(np.isfinite(exact)) and exact[0] * exact[1] > 0)


def regime_at(model: symgpu.Model, quantity: str, point: Point, name: str, x: float) -> str | None:
    """The limiter or case of ``quantity`` that holds at ``name = x`` (None where it cannot be told)."""
    try:
        return active.active_regime(model, quantity, point.preset, **(point.mapping(without=name) | {name: x}))[0]
    except (errors.DomainError, errors.EvaluationError, errors.DerivationError):
        return None


def regime_labels(model: symgpu.Model, quantity: str, point: Point, name: str, xs: np.ndarray) -> list[str | None]:
    """:func:`regime_at` at every grid value, vectorised over the Min/Max arguments by the rule
    ``active_regime`` applies (:func:`symgpu.evaluate.active.binding_index`: ties within ``TIE``,
    the first in :func:`symgpu.evaluate.active.argument_order`); cases point by point."""
    equation = model.equation_for(quantity)
    rhs = equation.rhs
    if not isinstance(rhs, (sympy.Min, sympy.Max)):
        return [regime_at(model, quantity, point, name, float(x)) for x in xs]
    prefix = "min" if isinstance(rhs, sympy.Min) else "max"
    given = frozenset(k for k in point.mapping() if k in model.defining)
    columns = []
    for arg in rhs.args:
        expanded = _in_inputs(model, arg, given)
        try:
            value = evaluator.evaluate_expression(model, expanded, model.units[equation.definition.defines], preset=point.preset,
                                                  values=point.mapping(without=name) | {name: xs}).magnitude
        except errors.SymgpuError:
            return [regime_at(model, quantity, point, name, float(x)) for x in xs]
        columns.append(np.broadcast_to(np.asarray(value, dtype=float), xs.shape))
    # the one rule (evaluate.active): arguments within TIE of the extreme one are equal, the first of
    # them in the equation's argument order binds; none where an argument is NaN
    order = active.argument_order(equation)
    index = np.broadcast_to(active.binding_index([columns[i] for i in order], prefix), xs.shape)
    labels = active.argument_labels(equation)
    # outside a valid_when domain the model gives no value, so no regime (as regime_at: None)
    inside = evaluator.inside_domain(model, quantity, point.preset, point.mapping(without=name) | {name: xs}, len(xs), check=False)
    return [labels[order[i]] if i >= 0 and ok else None for i, ok in zip(index, inside)]


def _in_inputs(model: symgpu.Model, expr: sympy.Basic, given: frozenset[str]) -> sympy.Basic:
    """``expr`` with the quantities it reads replaced by their equations, except those the point gives."""
    mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols if s.name in model.defining and s.name not in given}
    return expr.xreplace(mapping) if mapping else expr


def tied_labels(model: symgpu.Model, quantity: str, point: Point, name: str, x: float) -> frozenset[str]:
    """The limiters that bind ``quantity``'s own Min/Max at ``name = x``: each argument within ``TIE`` of
    the extreme one (:func:`symgpu.evaluate.active.tied`), so every one of equal arguments, where the
    engine's rule names only the first. Empty where the quantity is no Min/Max or an argument has no value there."""
    equation = model.equation_for(quantity)
    rhs = equation.rhs
    if not isinstance(rhs, (sympy.Min, sympy.Max)):
        return frozenset()
    values = point.mapping(without=name) | {name: x}
    given = frozenset(k for k in values if k in model.defining)
    numbers = []
    for arg in rhs.args:
        try:
            numbers.append(float(evaluator.evaluate_expression(model, _in_inputs(model, arg, given), model.units[equation.definition.defines],
                                                               preset=point.preset, values=values).magnitude))
        except errors.SymgpuError:
            return frozenset()
    if any(math.isnan(v) for v in numbers):
        return frozenset()
    extreme = min(numbers) if isinstance(rhs, sympy.Min) else max(numbers)
    return frozenset(label for label, v in zip(active.argument_labels(equation), numbers) if active.tied(v, extreme))


def tied_pair(model: symgpu.Model, quantity: str, point: Point, name: str, x: float, pair: tuple[str, str]) -> frozenset[str]:
    """The regimes of ``pair`` among :func:`tied_labels` at ``name = x`` (both where their arguments are equal)."""
    return tied_labels(model, quantity, point, name, x) & frozenset(pair)


def named_by_order(model: symgpu.Model, quantity: str, point: Point, name: str, bracket: Bracket, pair: tuple[str, str]) -> bool:
    """Is a switch the scan found between the regimes of ``pair`` one the engine's first-of-ties rule
    alone names so: at an end of its bracket a regime of the pair binds tied with one outside it, so
    that end may as well be named the other (Hong & Kim's MWP over Active_SMs: ``MWP_Without_BW`` capped
    at ``N`` ties with ``N``; the switch into ``bandwidth_bound`` is from ``warp_bound``, and the
    departure limit binds nowhere)?"""
    return any(len(tied) > 1 and tied & frozenset(pair) and tied - frozenset(pair)
               for tied in (tied_labels(model, quantity, point, name, x) for x in (bracket.low, bracket.high)))


def switch_at_tie(model: symgpu.Model, quantity: str, point: Point, name: str, sides: tuple[float, float], pair: tuple[str, str]) -> bool:
    """Do the regimes of ``pair`` switch between the two ``sides`` when two tied arguments may be named
    either way: on one side one of the pair binds alone, on the other the other binds (alone or tied
    with it)? The engine's rule names the first of tied arguments; a boundary where one regime stops
    binding strictly and the other's argument meets it, and then stays equal to it (Hong & Kim's MWP:
    ``MWP_Without_BW`` is itself capped at ``N``, so above the departure boundary it equals ``N``), is
    where the other binds. Tied on both sides, or neither binding on one, is no switch."""
    low, high = (tied_pair(model, quantity, point, name, x, pair) for x in sides)
    a, b = pair
    return any(one == {first} and second in other for one, other in ((low, high), (high, low)) for first, second in ((a, b), (b, a)))


def switches(model: symgpu.Model, quantity: str, point: Point, name: str, xs: np.ndarray,
             pair: tuple[str, str]) -> list[Bracket]:
    """Where the regime switches between the two of ``pair`` along the grid, each refined by
    bisection on the regime ``active_regime`` names."""
    labels = regime_labels(model, quantity, point, name, xs)
    found = []
    for i in range(len(xs) - 1):
        a, b = labels[i], labels[i + 1]
        if a != b and {a, b} == set(pair):
            low, high = float(xs[i]), float(xs[i + 1])
            integer = is_integer(model, name)
            for _ in range(BISECT):
                if integer and high - low <= 1:
                    break
                mid = math.floor(0.5 * (low + high)) if integer else 0.5 * (low + high)
                if mid in (low, high):
                    break
                here = regime_at(model, quantity, point, name, mid)
                if here == a:
                    low = mid
                elif here == b:
                    high = mid
                else:
                    break
            found.append(Bracket(low, high))
    return found


def approach(model: symgpu.Model, quantity: str, point: Point, name: str, centre: float, to: str, *,
             exact: bool = False, powers: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The quantity along ``to`` (``"oo"``: centre*10**k, k = 1..15 or ``powers``; ``"0"``: centre*10**-k), NaN left
    out; ``exact``: in exact mode (:func:`exact_on`)."""
    scale = abs(centre) if centre else 1.0
    powers = np.arange(1, 16, dtype=float) if powers is None else powers
    with np.errstate(over="ignore"):
        xs = scale * (10.0 ** powers if to == "oo" else 10.0 ** -powers)
    xs = xs[np.isfinite(xs) & (xs > 0)]
    if is_integer(model, name):
        xs = np.unique(np.maximum(np.round(xs), 1.0))
    ys = exact_on(model, quantity, point, name, xs) if exact else evaluate_on(model, quantity, point, name, xs)
    keep = ~np.isnan(ys)
    return xs[keep], ys[keep]


def exact_on(model: symgpu.Model, quantity: str, point: Point, name: str, xs: np.ndarray, minus: float = 0.0) -> np.ndarray:
    """The quantity at each of ``xs`` on the evaluate path's exact mode (:func:`evaluator.exact`:
    SymPy rationals, no rounding), less ``minus`` (read as its shortest decimal) before rounding to
    a float, NaN where the model refuses the point or gives no real number. Slow: for a short
    sequence whose IEEE values lose their digits to cancellation (``n + A*C - sqrt((A*C + n)**2 -
    ...)`` with ``C`` near 1e15), or that is flat below them (its difference with a target then
    keeps its sign only when taken before rounding)."""
    values = point.mapping(without=name)
    out = np.full(xs.shape, np.nan)
    offset = sympy.Rational(repr(float(minus)))
    for i, x in enumerate(xs):
        try:
            number = complex((evaluator.exact(model, quantity, preset=point.preset, values=values | {name: float(x)}) - offset).evalf(30))
        except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError):
            continue
        if number.imag == 0:
            out[i] = number.real
    return out


# ------------------------------------------------------------------ inequalities
#: the relations of an inequality question, as NumPy comparisons (``quantity REL target``)
RELATIONS = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal, ">": np.greater}
#: relative distance of the quantity from the target inside which a scanned point decides nothing
#: (on the edge of the set, or within rounding of it)
NEAR_TARGET = 1e-6


def relation_holds(ys: np.ndarray, target: float, relation: str) -> tuple[np.ndarray, np.ndarray]:
    """Where ``quantity REL target`` holds along a scan (``ys`` the quantity), and where the scan
    decides it: the quantity finite and farther than :data:`NEAR_TARGET` (relative) from the target."""
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(ys)
        decided = finite & (np.abs(ys - target) > NEAR_TARGET * np.maximum(np.abs(ys), abs(target)))
        holds = finite & RELATIONS[relation](ys, target)
    return holds, decided


def holding_set(model: symgpu.Model, quantity: str, point: Point, name: str, relation: str, target: float,
                xs: np.ndarray, ys: np.ndarray) -> list[tuple[float, float]]:
    """Where ``quantity REL target`` holds along the sorted scan ``xs``, as closed intervals (low, high):
    runs of decided points where it holds (:func:`relation_holds`; a point within rounding of the target
    inside a run does not break it). An end between a holding and a failing decided point with values
    between them is refined by bisection on the evaluate path (the quantity less the target changes
    sign across it): the bracket's middle, or for an integer variable the integer on the holding side;
    an end at the model's domain (no value beyond it) or the scan's end is the last grid point."""
    holds, decided = relation_holds(ys, target, relation)
    index = np.flatnonzero(decided)
    integer = is_integer(model, name)

    def f(x: float) -> float:
        return scalar(model, quantity, point, name, x) - target

    out: list[tuple[float, float]] = []
    low: float | None = None
    previous: int | None = None
    for i in index:
        if previous is None or not np.all(np.isfinite(ys[previous:i + 1])):  # the first point, or past a gap in the domain
            if low is not None and previous is not None:
                out.append((low, float(xs[previous])))
            low = float(xs[i]) if holds[i] else None
        elif holds[i] != holds[previous]:
            bracket = bisect(f, float(xs[previous]), float(xs[i]), float(ys[previous]) - target, integer)
            if integer:
                edge = bracket.high if holds[i] else bracket.low
            else:
                edge = bracket.middle
            if holds[i]:
                low = edge
            elif low is not None:
                out.append((low, edge))
                low = None
        previous = int(i)
    if low is not None and previous is not None:
        out.append((low, float(xs[previous])))
    return out


def near(model: symgpu.Model, name: str, x: float, scale: float) -> np.ndarray:
    """Admissible values of ``name`` close to ``x`` on both sides (relative steps 1e-1 to 1e-5 of
    ``x``, of ``scale`` where ``x`` is 0; the three integers each side for an integer variable):
    where a bound or an extreme value shifted by less than a grid step shows."""
    if is_integer(model, name):
        centre = round(x)
        values = centre + np.arange(-3.0, 4.0)
    else:
        size = abs(x) if x != 0 else abs(scale) or 1.0
        steps = size * 10.0 ** -np.arange(1.0, 6.0)
        values = np.concatenate([x - steps, x + steps])
    low, closed = lower_bound(model, name)
    keep = (values > low) | (closed & (values == low))
    return np.unique(values[keep & np.isfinite(values)])
