"""The numeric certificates of an inequality: its bound (``solve ... --relation REL``: :func:`bound_set`,
the relation holds exactly on the bound's side at a scan of the variable; a set at a point, where no single bound states it:
exactly inside the set) and its largest or smallest
admissible value (:func:`bound`, ``solve ... --relation REL --kind max|min``): at each point where the answer states it holds (its
``valid_when``), the value is a finite number inside the variable's declared sign (an integer where it
is declared one) and inside every ``valid_when`` domain of the quantity; unless the evaluate path
answers another question (one case chosen, a limiter omitted), the relation holds there and no
admissible value of a scan beyond it satisfies the relation too. A value outside the domain is
never shown: the check fails (exit 1) and says so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors
from symgpu.derive import declared_range, results
from symgpu.derive.certify_path import RESIDUAL, Asked, _exact_gap, _fail, _with, at_a_point, _inside, _Point, _quantity, _result_at, _scan_grid, sorted_unique
from symgpu.derive.certify_solve import _target_at
from symgpu.derive.derivation import Derivation, as_evaluated
from symgpu.evaluate import active, one_sided, point as exact_point, scaling

if TYPE_CHECKING:
    from symgpu.model import Model

#: relative distance inside an open end of the domain at which a supremum is checked
EDGE = 1e-12
#: integers beyond an integer answer scanned for a value that also satisfies the relation
NEXT_INTEGERS = 64

_HOLDS = {">=": lambda q, t, slack: q >= t - slack, ">": lambda q, t, slack: q > t - slack,
          "<=": lambda q, t, slack: q <= t + slack, "<": lambda q, t, slack: q < t + slack}


def _stated_hold(model: Model, derivation: Derivation, point: _Point, extra: dict[str, Any]) -> bool:
    """Do the conditions the answer states it is admissible under hold at the point? (True where one
    cannot be evaluated there: the value is then checked.)"""
    for condition in derivation.extra.valid_when or ():
        try:
            if not active.condition_true(model, condition, point.preset, {**point.values, **extra}):
                return False
        except (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError):
            continue
    return True


def bound(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """The check at one point (None where the answer states it claims nothing there)."""
    variable = asked.variable
    extra = results.result_values(derivation, {})
    if not _stated_hold(model, derivation, point, extra):
        return None
    value = _result_at(model, derivation, derivation.result, model.units[variable], point, extra)
    if not np.isfinite(value):
        raise _fail(model, asked, point, f"the {asked.kind}imum {variable} = {value} is no finite number")
    declared = declared_range.of(model, variable)
    inward = -1.0 if asked.kind == "max" else 1.0
    step = EDGE * max(abs(value), 1e-300)
    # a value only approached (a strict end binds: the relation's, or the declared sign's, as 0 for a positive variable)
    # is admissible just inside it
    approached = bool(derivation.extra.supremum) and not declared.integer
    if not results.admissible(model, variable, value + inward * step if approached else value):
        raise _fail(model, asked, point, f"the {asked.kind}imum {variable} = {value:.10g} is outside its declared range ({variable} is "
                    f"declared {declared.word})")
    if declared.integer and abs(value - round(value)) > 1e-9 * max(abs(value), 1.0):
        raise _fail(model, asked, point, f"the {asked.kind}imum {variable} = {value:.10g} is no integer, but {variable} is declared integer")
    if not np.any(_inside(model, asked, point, np.array([value, value + inward * step]))):
        raise _fail(model, asked, point, f"the {asked.kind}imum {variable} = {value:.10g} lies outside the model's valid_when domain "
                    f"or an --assume on {variable} (the model gives {asked.quantity} no value there, or the question excludes it)")
    said = (f"{variable} just {'below' if asked.kind == 'max' else 'above'} {value:.10g} (approached) is admissible" if approached
            else f"{variable} = {value:.10g} is admissible") + " (declared range, valid_when domain)"
    if asked.skip:
        return f"{said}; the relation is not checked at points: {asked.skip}"
    return said + "; " + _relation(model, derivation, asked, point, value, declared.integer, inward)


def _admissible_inside(model: Model, asked: Asked, point: _Point, grid: np.ndarray) -> np.ndarray:
    """The values of ``grid`` in the variable's declared range and inside the model's domain (:func:`_inside`)."""
    if not len(grid):
        return grid
    grid = grid[np.array([results.admissible(model, asked.variable, float(x)) for x in grid], dtype=bool)]
    return grid[_inside(model, asked, point, grid)] if len(grid) else grid


def _relation(model: Model, derivation: Derivation, asked: Asked, point: _Point, value: float, integer: bool, inward: float) -> str:
    """The relation holds at ``value`` (a supremum: just inside it) and at no admissible value of a scan beyond it."""
    holds = _HOLDS[asked.relation]
    target = float(np.asarray(_target_at(model, asked, point, np.asarray(value)), dtype=float))
    at = value if integer or not derivation.extra.supremum else value + inward * EDGE * max(abs(value), 1e-300)
    got = float(_quantity(model, asked, point, np.asarray(at)))
    if not holds(got, target, RESIDUAL * max(abs(got), abs(target), 1e-300)) and not (at == value and _holds_exactly(
            model, derivation, asked, point, target)):
        raise _fail(model, asked, point, f"at the {asked.kind}imum {asked.variable} = {value:.10g} the quantity is {got:.10g}: "
                    f"{asked.quantity} {asked.relation} {target:.10g} fails there")
    if at != value and value == 0 and results.admissible(model, asked.variable, 0.0) and _inside(model, asked, point, np.zeros(1))[0]:
        _not_attained(model, asked, point, target)
    grid = _scan_grid(model, asked.variable, [value])
    if integer:
        grid = np.concatenate([np.round(grid), value - inward * np.arange(1, NEXT_INTEGERS + 1)])
    beyond = grid[(grid - value) * -inward > 1e-9 * max(abs(value), 1.0)]
    beyond = _admissible_inside(model, asked, point, beyond)
    if len(beyond):
        with np.errstate(all="ignore"):
            along = np.broadcast_to(np.asarray(_quantity(model, asked, point, beyond), dtype=float), beyond.shape)
            targets = np.broadcast_to(np.asarray(_target_at(model, asked, point, beyond), dtype=float), beyond.shape)
        clear = np.isfinite(along) & np.isfinite(targets)
        slack = -RESIDUAL * np.maximum(np.maximum(np.abs(along), np.abs(targets)), 1e-300)  # holds clearly, not by rounding
        also = beyond[clear & np.asarray(holds(along, targets, slack), dtype=bool)]
        if len(also):
            x = float(also[0] if asked.kind == "max" else also[-1])
            raise _fail(model, asked, point, f"{asked.variable} = {x:.10g}, {'beyond' if asked.kind == 'max' else 'below'} the {asked.kind}imum "
                        f"{value:.10g}, is admissible and satisfies {asked.quantity} {asked.relation} target too")
    return f"the relation holds there and at no admissible scanned value {'beyond' if asked.kind == 'max' else 'below'} it"



def _not_attained(model: Model, asked: Asked, point: _Point, target: float) -> None:
    """An infimum 0 said to be approached, not attained, where 0 is admissible (a nonnegative variable): the relation must not
    hold at 0 itself, where the evaluator gives the quantity a value (Volkov's ``alu_thru/alpha`` is +oo inside a Min at alpha = 0)."""
    with np.errstate(all="ignore"):
        got = float(_quantity(model, asked, point, np.asarray(0.0)))
    gap = abs(got - target)
    if np.isfinite(got) and (gap == 0 or gap > NEAR * max(abs(got), abs(target))) and _HOLDS[asked.relation](got, target, 0.0):
        raise _fail(model, asked, point, f"{asked.variable} = 0 is admissible and satisfies {asked.quantity} {asked.relation} target there "
                    f"({got:.10g}): the {asked.kind}imum is attained at 0, not only approached")


def _holds_exactly(model: Model, derivation: Derivation, asked: Asked, point: _Point, target: float) -> bool:
    """Does the relation hold at the answer in exact arithmetic, the answer an exact number (a staircase's edge:
    ceiling(4096/split_k) at split_k = 4096/817 is 817, but 818 in IEEE doubles, where 4096/(4096/817) is
    817.0000000000001)? False where the answer or the quantity there is no exact number."""
    edge = as_evaluated(model, derivation, derivation.result)  # in base units, as the evaluator reads it
    if not isinstance(edge, sympy.Basic) or not edge.is_Rational:
        return False
    variable = model.symbols[asked.variable]
    values = {k: v for k, v in _with(model, asked, point, 1.0).items() if k not in (asked.variable, asked.quantity) and np.ndim(v) == 0}
    given = frozenset(k for k in values if k in model.defining)
    try:
        expr = scaling.base_expression(model, model.expression(asked.quantity, stop_at=given)) / \
            scaling.unit_scale(model.units[asked.quantity])
        numbers = exact_point.exact_base_values(model, [s for s in expr.free_symbols if s != variable], point.preset, values)
        if numbers is None:
            return False
        gap = complex((one_sided.substitute(expr, {**numbers, variable: edge}) - sympy.Rational(repr(target))).evalf(30))
    except (errors.SymgpuError, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return False
    return gap.imag == 0 and bool(_HOLDS[asked.relation](gap.real, 0.0, 0.0))


#: relative distance from the bound (and of the quantity from the target, unless equal) inside which a scanned point decides nothing
NEAR = 1e-9
_SIDES = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal, ">": np.greater}


def bound_set(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """The check of an inequality's bound (``solve ... --relation REL`` without ``--kind``): at the point,
    ``quantity REL target`` holds at exactly the admissible scanned values of the variable where the
    answer's ``variable REL' bound`` holds (points within :data:`NEAR` of the bound, or whose quantity lies
    within it of the target without equalling it, decide nothing). None where the answer states it claims nothing there."""
    variable = asked.variable
    extra = results.result_values(derivation, {})
    relation = derivation.extra.relation
    if relation is None and derivation.extra.holds_for is not None and derivation.extra.declared_numbers:
        return _the_set(model, derivation, asked, point)
    if relation is None or not _stated_hold(model, derivation, point, extra):
        return None
    value = _result_at(model, derivation, derivation.result, model.units[variable], point, extra)
    if not np.isfinite(value):
        raise _fail(model, asked, point, f"the bound {variable} {relation.rel_op} {value} is no finite number")
    declared = declared_range.of(model, variable)
    # a bound that the declared sign leaves no value on the side of describes an empty set: asked at a point, the answer
    # must say no admissible value satisfies the relation (an outside tester's finding: alpha <= -108501, alpha positive)
    left = declared.bounded(relation, int(np.sign(value)))
    if left == "none" and at_a_point(asked):
        raise _fail(model, asked, point, f"the bound {variable} {relation.rel_op} {value:.10g} leaves no admissible value ({variable} is declared "
                    f"{declared.word}): no admissible {variable} satisfies {asked.quantity} {asked.relation} target, which the answer must say")
    grid = _scan_grid(model, variable, [value])
    integer = declared.integer
    if integer:  # the scan's values rounded, and the integers beside the bound
        grid = sorted_unique(np.concatenate([np.round(grid), np.floor(value) + np.arange(-NEXT_INTEGERS, NEXT_INTEGERS + 1)]))
    grid = _admissible_inside(model, asked, point, grid)
    with np.errstate(all="ignore"):
        along = np.broadcast_to(np.asarray(_quantity(model, asked, point, grid), dtype=float), grid.shape)
        targets = np.broadcast_to(np.asarray(_target_at(model, asked, point, grid), dtype=float), grid.shape)
        gap = np.abs(along - targets)  # equal sides decide the relation; nearly equal ones (rounding) do not
        clear = np.isfinite(along) & np.isfinite(targets) & ((gap == 0) | (gap > NEAR * np.maximum(np.abs(along), np.abs(targets))))
        # the bound itself decides only as an integer's (exact there; a real bound's quantity is the target within rounding)
        clear &= ((grid == value) & integer) | (np.abs(grid - value) > NEAR * max(abs(value), 1e-300))
    holds = _SIDES[asked.relation](along, targets)
    claimed = _SIDES[relation.rel_op](grid, value)
    wrong = grid[clear & (holds != claimed)]
    if len(wrong):
        x = float(wrong[0])
        said = "holds" if _SIDES[asked.relation](float(_quantity(model, asked, point, np.asarray(x))), float(targets[grid == x][0])) else "fails"
        raise _fail(model, asked, point, f"at {variable} = {x:.10g} the relation {asked.quantity} {asked.relation} target {said}, but the "
                    f"answer {variable} {relation.rel_op} {value:.10g} says it {'fails' if said == 'holds' else 'holds'}")
    finite = targets[np.isfinite(targets)]
    target = f"{finite[0]:.10g}" if len(finite) and np.all(finite == finite[0]) else "target"
    decided = int(np.count_nonzero(clear))
    if len(grid) and not _inside(model, asked, point, np.array([value]))[0]:
        # the bound is where the model gives no value: the relation holds on all or none of the domain
        held = holds[clear]
        where = "every" if len(held) and held.all() else "no" if len(held) and not held.any() else "some"
        return (f"the bound {variable} {relation.rel_op} {value:.10g} lies outside the model's valid_when domain (no value there); "
                f"{asked.quantity} {asked.relation} {target} holds at {where} admissible scanned value inside it ({decided} decided)")
    if left:  # the bound lies beyond the declared range: the relation holds at every admissible value, or at none
        return (f"{asked.quantity} {asked.relation} {target} holds at {left.replace('none', 'no')} admissible scanned value ({decided} of "
                f"{len(grid)} decided): the bound {variable} {relation.rel_op} {value:.10g} lies {'at the edge of' if value == 0 else 'beyond'} the "
                f"declared range ({variable} "
                f"{declared.word})")
    return (f"{asked.quantity} {asked.relation} {target} holds at exactly the admissible scanned values with {variable} "
            f"{relation.rel_op} {value:.10g} ({decided} of {len(grid)} decided)")


def _the_set(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str:
    """The check of an inequality's set at a point (extra ``holds_for``, its ends numbers in the declared unit): ``quantity REL
    target`` holds at exactly the admissible scanned values of the variable inside the set (a scan around each end, the integers
    beside it for an integer variable; points within :data:`NEAR` of an end, or whose quantity lies within it of the target
    without equalling it, decide nothing)."""
    variable = asked.variable
    stated = derivation.extra.holds_for
    assert stated is not None
    found = stated.as_set()
    found = sympy.S.Reals if found is sympy.S.UniversalSet else found  # every real value (round 13, F9: a variable of no sign)
    parts = list(found.args) if isinstance(found, sympy.Union) else [found]
    spans: list[tuple[float, float, bool, bool]] = []  # (low, high, low end open, high end open)
    for part in parts:
        if isinstance(part, sympy.Interval):
            spans.append((float(part.start), float(part.end), bool(part.left_open), bool(part.right_open)))
        elif isinstance(part, sympy.FiniteSet):
            spans.extend((float(p), float(p), False, False) for p in part)
        else:
            raise _fail(model, asked, point, f"the answer's set {sympy.sstr(found)} is no union of intervals and points")
    ends = sorted({e for s in spans for e in s[:2] if np.isfinite(e)})
    integer = declared_range.of(model, variable).integer
    grid = _scan_grid(model, variable, ends)
    if integer:
        grid = sorted_unique(np.concatenate([np.round(grid), *(np.floor(e) + np.arange(-NEXT_INTEGERS, NEXT_INTEGERS + 1) for e in ends)]))
    grid = _admissible_inside(model, asked, point, grid)
    with np.errstate(all="ignore"):
        along = np.broadcast_to(np.asarray(_quantity(model, asked, point, grid), dtype=float), grid.shape)
        targets = np.broadcast_to(np.asarray(_target_at(model, asked, point, grid), dtype=float), grid.shape)
        gap = np.abs(along - targets)
        clear = np.isfinite(along) & np.isfinite(targets) & ((gap == 0) | (gap > NEAR * np.maximum(np.abs(along), np.abs(targets))))
        for end in ends:  # an end decides only as an integer's or as 0 (exact there; a real end's quantity is the target within rounding)
            clear &= ((grid == end) & (integer or end == 0)) | (np.abs(grid - end) > NEAR * max(abs(end), 1e-300))
    holds = _SIDES[asked.relation](along, targets)
    claimed = np.zeros(grid.shape, dtype=bool)
    for low, high, left_open, right_open in spans:
        claimed |= (grid > low if left_open else grid >= low) & (grid < high if right_open else grid <= high)
    wrong = grid[clear & (holds != claimed)]
    if len(wrong):
        x = float(wrong[0])
        said = bool(holds[grid == x][0])
        raise _fail(model, asked, point, f"at {variable} = {x:.10g} the relation {asked.quantity} {asked.relation} target "
                    f"{'holds' if said else 'fails'}, but the answer's set {sympy.sstr(stated)} {'leaves it out' if said else 'holds it'}")
    inside = int(np.count_nonzero(clear & claimed))
    own = _own_points(model, asked, point, parts, stated) if not inside else 0  # a set narrower than the scan: its own points
    if not inside and not own:
        raise _fail(model, asked, point, f"no admissible scanned value of {variable} inside the answer's set {sympy.sstr(stated)} is decided")
    if own:
        return (f"{asked.quantity} {asked.relation} target holds at the answer's set's own {own} point(s) in exact arithmetic and at "
                f"none of the {int(np.count_nonzero(clear))} decided scanned values of {variable} outside it")
    return (f"{asked.quantity} {asked.relation} target holds at exactly the admissible scanned values of {variable} inside the "
            f"answer's set ({inside} inside, {int(np.count_nonzero(clear)) - inside} outside, of {len(grid)} scanned)")


def _own_points(model: Model, asked: Asked, point: _Point, parts: list[Any], stated: Any) -> int:
    """Where no scanned value inside the answer's set is decided (a one-point set ``{6}``, a span ``[5.00004, 5.00006]``
    narrower than the scan's spacing there, the quantity within rounding of the target at its ends: an outside tester's
    finding, round 14b F7; a span [5342/111, 70927/1473] of rational ends, round 15b F1), the set's own points decided
    exactly: each point of it and a bounded span's closed ends, read as their shortest decimal (one whose decimal is not
    exactly it decides nothing), and three points inside each bounded span (its quarters, each read as the shortest decimal
    of its double where that still lies strictly inside), admissible and inside the
    domain, the quantity there in exact arithmetic against the target (:func:`_exact_gap`). How many hold; a check failure
    where one fails (the answer's set holds a point where the relation does not)."""
    samples: list[Any] = []  # (a point of the set, whether only a double strictly inside its span stands for it)
    for part in parts:
        if isinstance(part, sympy.FiniteSet):
            samples.extend((p, None) for p in part)
        elif isinstance(part, sympy.Interval) and part.start.is_finite and part.end.is_finite:
            samples.extend((e, None) for e, is_open in ((part.start, part.left_open), (part.end, part.right_open)) if not is_open)
            samples.extend((part.start + k * (part.end - part.start) / 4, part) for k in (1, 2, 3))
    held = 0
    for exact, span in samples:
        x = float(exact)
        decimal = sympy.Rational(repr(x))
        stands = decimal == exact if span is None else bool(span.start < decimal) and bool(decimal < span.end)
        if not stands or not len(_admissible_inside(model, asked, point, np.array([x]))):
            continue  # an end whose decimal is not exactly it decides nothing; an inside point: its double, if still inside
        target = float(np.asarray(_target_at(model, asked, point, np.asarray(x)), dtype=float))
        gap = _exact_gap(model, asked, point, x, target)
        if gap is None:
            continue
        if not _HOLDS[asked.relation](gap, 0.0, 0.0):
            raise _fail(model, asked, point, f"at {asked.variable} = {x:.10g} the relation {asked.quantity} {asked.relation} target fails "
                        f"in exact arithmetic, but the answer's set {sympy.sstr(stated)} holds it")
        held += 1
    return held
