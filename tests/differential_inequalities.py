"""The differential tester's judge of inequality questions (``--ops inequality``): ``quantity REL
target`` solved for the variable through the public API (``Model.solve(..., relation=REL)``),
compared with where the relation holds along a dense scan of the variable on the evaluate path
(:func:`differential_oracle.relation_holds`, its ends refined by bisection in
:func:`differential_oracle.holding_set`).

Three answers are judged:

* the bound (no ``kind``): the answer claims the relation holds at exactly the admissible values with
  ``VAR REL' b`` (``extra.relation``, ``b`` its result at the point). Every scanned point the model
  gives a value decides, except those within ``REL`` (relative) of ``b`` or whose quantity lies within
  ``REL`` of the target; the scan is the variable's grid around its value at the point, a grid around
  ``b`` and values beside ``b`` (where a bound shifted by less than a grid step shows);
* the largest or smallest admissible value (``kind="max"|"min"``): a finite admissible number (an
  integer for an integer variable) where the quantity has a value and the relation holds (within
  ``REL``; just inside it where the answer says it is a supremum, not attained), and no decided
  scanned value beyond it where the relation holds.

* the set (a condition on the variable, ``And``/``Or`` of relations: :func:`symgpu.derive.holds_on_ranges`):
  the relation holds at exactly the admissible values where the condition does, at every decided scanned point
  (as for the bound) but for those within ``REL`` of a number the condition compares the variable with; the
  scan adds a grid around each such number and values beside it.

A point outside the conditions an answer states it holds under (``extra.valid_when``) is declined,
as for an extremum: the answer claims nothing there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

import symgpu
from symgpu import derive
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active

import differential_oracle as oracle
from differential_questions import Question, value_at
from differential_verdicts import REL, Verdict, admissible, show, stated_hold, values_of

#: a relation read from its right-hand side: ``b > x`` is ``x < b``
FLIPPED = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}


def call(model: symgpu.Model, q: Question) -> Derivation:
    """The API call of an inequality question: at the point, or with the target alone."""
    at: dict[str, Any] = {"preset": q.point.preset, "values": q.point.mapping(without=q.variable)} if q.numeric_target else {}
    return model.solve(q.quantity, for_=q.variable, target=repr(q.target), relation=q.relation, kind=q.kind, **at)


def check(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    """The verdict on an inequality's answer at the question's point."""
    assert q.target is not None and q.relation is not None
    extra = derive.result_values(d, {}) or None  # a target kept as its quantity's value (a prefixed unit)
    stated = d.extra.valid_when or ()
    if stated and not stated_hold(model, stated, q, extra):
        return Verdict(q, "declined", "inequality: the point is outside the answer's stated conditions (valid when "
                       + " and ".join(map(sympy.sstr, stated)) + ")")
    if derive.holds_on_ranges(d.result):
        return _check_ranges(model, q, d)
    if isinstance(d.result, sympy.Tuple):
        return Verdict(q, "disagree", "inequality: the answer is no single number", show(d.result), "")
    # a number found at the point (extra declared_numbers) is in the variable's declared unit: read as the evaluator reads it
    (value,) = values_of(model, derive.as_evaluated(model, d, d.result), q, model.unit_text(q.variable), extra)
    if q.kind:
        return _check_extreme(model, q, d, value)
    return _check_bound(model, q, d, value)


def _brute(model: symgpu.Model, q: Question, xs: np.ndarray, ys: np.ndarray) -> str:
    """Where the brute force finds the relation holding, as text."""
    assert q.target is not None and q.relation is not None
    found = oracle.holding_set(model, q.quantity, q.point, q.variable, q.relation, q.target, xs, ys)
    where = ", ".join(f"[{low:.10g}, {high:.10g}]" for low, high in found) or "nowhere"
    return f"{q.quantity} {q.relation} {q.target:.10g} holds on {q.variable} in {where} (scan {xs[0]:.4g}..{xs[-1]:.4g})"


def _scan(model: symgpu.Model, q: Question, around: float) -> tuple[np.ndarray, np.ndarray]:
    """The variable's grid at the point, a grid around ``around`` and values beside it, with the quantity there."""
    centre = value_at(model, q.point, q.variable)
    parts = [oracle.grid(model, q.variable, centre)]
    if math.isfinite(around):
        parts += [oracle.grid(model, q.variable, around, size=61), oracle.near(model, q.variable, around, centre)]
    xs = np.unique(np.concatenate(parts))
    low, closed = oracle.lower_bound(model, q.variable)
    xs = xs[(xs > low) | (closed & (xs == low))]  # a grid around a value at the open end (an infimum 0) holds that end
    return xs, oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)


def _relation_op(d: Derivation, variable: str) -> str | None:
    """``REL'`` of the answer's ``VAR REL' bound`` (read from either side), None where it bounds no variable."""
    relation = d.extra.relation
    if not isinstance(relation, sympy.core.relational.Relational) or relation.rel_op not in FLIPPED:
        return None
    def named(side: Any) -> bool:  # the model's symbol carries its declared assumptions: compared by name
        return isinstance(side, sympy.Symbol) and side.name == variable
    if named(relation.lhs):
        return str(relation.rel_op)
    if named(relation.rhs):
        return FLIPPED[relation.rel_op]
    return None


# ================================================================================ the bound
def _check_bound(model: symgpu.Model, q: Question, d: Derivation, bound: float) -> Verdict:
    assert q.target is not None and q.relation is not None
    op = _relation_op(d, q.variable)
    shown = f"{q.variable} {op or '?'} {bound:.10g} (result {show(d.result, 80)}, relation {show(d.extra.relation, 60)})"
    if op is None:
        return Verdict(q, "disagree", "inequality: the answer states no relation bounding the variable", shown, "")
    if math.isnan(bound):
        return Verdict(q, "disagree", "inequality: the bound is NaN at the point", shown, "")
    xs, ys = _scan(model, q, bound)
    holds, decided = oracle.relation_holds(ys, q.target, q.relation)
    with np.errstate(invalid="ignore"):
        claimed = oracle.RELATIONS[op](xs, bound)
        decided &= ~(np.abs(xs - bound) <= REL * max(abs(bound), 1e-300))
    if not decided.any():
        return Verdict(q, "unchecked", "inequality: no scanned value decides the relation", shown, _brute(model, q, xs, ys))
    wrong = decided & (holds != claimed)
    if not wrong.any():
        return Verdict(q, "agree", answer=shown, brute=_brute(model, q, xs, ys))
    i = int(np.flatnonzero(wrong)[0])
    at = f"at {q.variable} = {xs[i]:.10g}: {q.quantity} = {ys[i]:.10g}; "
    if wrong[decided].all():
        reason = "inequality: the relation is flipped (it holds exactly where the bound says it fails)"
    elif holds[i]:
        reason = "inequality: the relation holds where the bound excludes it"
    else:
        reason = "inequality: the relation fails where the bound includes it"
    return Verdict(q, "disagree", reason, shown, at + _brute(model, q, xs, ys))


# ================================================================================ the set
def _check_ranges(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    assert q.target is not None and q.relation is not None
    shown = f"{q.variable} where {show(d.result, 160)}"
    ends = _ends(d.result, q.variable)
    centre = value_at(model, q.point, q.variable)
    xs, ys = _scan(model, q, math.nan)
    extra = [oracle.grid(model, q.variable, e, size=61) for e in ends] + [oracle.near(model, q.variable, e, centre) for e in ends]
    if extra:
        xs = np.unique(np.concatenate([xs, *extra]))
        low, closed = oracle.lower_bound(model, q.variable)
        xs = xs[(xs > low) | (closed & (xs == low))]
        ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    holds, decided = oracle.relation_holds(ys, q.target, q.relation)
    for e in ends:
        decided &= ~(np.abs(xs - e) <= REL * max(abs(e), 1e-300))
    if not decided.any():
        return Verdict(q, "unchecked", "inequality: no scanned value decides the relation", shown, _brute(model, q, xs, ys))
    claimed = np.zeros(xs.shape, dtype=bool)
    for i in np.flatnonzero(decided):
        claimed[i] = _in_set(model, q, d.result, float(xs[i]))
    wrong = decided & (holds != claimed)
    if not wrong.any():
        return Verdict(q, "agree", answer=shown, brute=_brute(model, q, xs, ys))
    i = int(np.flatnonzero(wrong)[0])
    reason = "inequality: the relation holds outside the set the answer gives" if holds[i] else \
        "inequality: the relation fails inside the set the answer gives"
    return Verdict(q, "disagree", reason, shown, f"at {q.variable} = {xs[i]:.10g}: {q.quantity} = {ys[i]:.10g}; " + _brute(model, q, xs, ys))


def _ends(condition: sympy.Basic, variable: str) -> list[float]:
    """The finite numbers a set answer compares the variable with (its ranges' ends)."""
    out = []
    for relation in condition.atoms(sympy.core.relational.Relational):
        sides = [side for side in relation.args if not (isinstance(side, sympy.Symbol) and side.name == variable)]
        if len(sides) == 1 and sides[0].is_number:
            value = float(sides[0])
            if math.isfinite(value):
                out.append(value)
    return sorted(set(out))


def _in_set(model: symgpu.Model, q: Question, condition: sympy.Basic, x: float) -> bool:
    """Whether the answer's condition holds at ``x`` (the point's other values, the target as its quantity's)."""
    values: dict[str, Any] = q.point.mapping(without=q.variable) | {q.variable: x}
    if not q.numeric_target:
        values[q.quantity] = q.target
    return bool(active.condition_holds(model, condition, q.point.preset, values)[0])


# ================================================================================ the largest or smallest value
def _check_extreme(model: symgpu.Model, q: Question, d: Derivation, value: float) -> Verdict:
    assert q.target is not None and q.relation is not None
    word = f"{q.kind}imum"
    supremum = bool(d.extra.supremum)
    shown = f"{q.kind} {q.variable} = {value:.10g}" + (" (not attained)" if supremum else "") + f" (result {show(d.result, 80)})"
    if not math.isfinite(value):
        return Verdict(q, "disagree", f"inequality: the {word} is no finite number at the point", shown, "")
    low, _ = oracle.lower_bound(model, q.variable)
    if not admissible(model, q.variable, value) and not (supremum and value == low):
        return Verdict(q, "disagree", f"inequality: the {word} is outside the variable's declared range", shown, "")
    if oracle.is_integer(model, q.variable) and value != round(value):
        return Verdict(q, "disagree", f"inequality: the {word} of an integer variable is no integer", shown, "")
    inward = -1.0 if q.kind == "max" else 1.0
    scale = abs(value) or abs(value_at(model, q.point, q.variable)) or 1.0
    at = value + inward * 1e-9 * scale if supremum else value
    there = oracle.scalar_near_edge(model, q.quantity, q.point, q.variable, at)
    xs, ys = _scan(model, q, value)
    brute = f"{q.quantity}({at:.10g}) = {there:.10g}; " + _brute(model, q, xs, ys)
    if math.isnan(there):
        return Verdict(q, "disagree", f"inequality: the quantity has no value at the {word}", shown, brute)
    holds, decided = oracle.relation_holds(np.array([there]), q.target, q.relation)
    if decided[0] and not holds[0]:
        return Verdict(q, "disagree", f"inequality: the relation fails at the {word}", shown, brute)
    step = 1.0 if oracle.is_integer(model, q.variable) else REL * max(abs(value), 1e-300)
    holds, decided = oracle.relation_holds(ys, q.target, q.relation)
    beyond = decided & holds & ((xs - value) * -inward >= step)
    if beyond.any():
        i = int(np.flatnonzero(beyond)[-1 if q.kind == "max" else 0])
        return Verdict(q, "disagree", f"inequality: an admissible value {'above' if q.kind == 'max' else 'below'} the {word} "
                       "satisfies the relation", shown, f"{q.quantity}({xs[i]:.10g}) = {ys[i]:.10g}; " + brute)
    if supremum:
        exact = oracle.scalar(model, q.quantity, q.point, q.variable, value)
        holds, decided = oracle.relation_holds(np.array([exact]), q.target, q.relation)
        if decided[0] and holds[0]:
            said = f"{q.quantity}({value:.10g}) = {exact:.10g}; " + brute
            if not _the_double_is_the_bound(d, value) and not _holds_one_double_beyond(model, q, value, -inward):
                # the bound lies inside the gap between two doubles: the one inside holds, the one beyond does not (Huang's
                # CPI over reqs_per_inst at rho = 1, whose valid_when is rho < 1: 4823525/4603904 read as a double below
                # it); whether the bound itself is attained is a question of exact arithmetic the scan cannot answer
                return Verdict(q, "unchecked", f"inequality: the {word} lies between two doubles, the relation holding at the one "
                               "inside and not beyond", shown, said)
            return Verdict(q, "disagree", f"inequality: the {word} is attained, the answer says it is not", shown, said)
    return Verdict(q, "agree", answer=shown, brute=brute)


def _the_double_is_the_bound(d: Derivation, value: float) -> bool:
    """Is ``value`` the answer's bound exactly (a rational result whose double is itself)?"""
    result = d.result
    return isinstance(result, sympy.Rational) and sympy.Rational(value) == result


def _holds_one_double_beyond(model: symgpu.Model, q: Question, value: float, outward: float) -> bool:
    """Does the relation hold (decided) at the next double beyond ``value``, away from the admissible set?"""
    beyond = float(np.nextafter(value, math.copysign(math.inf, outward)))
    there = oracle.scalar(model, q.quantity, q.point, q.variable, beyond)  # no nudge back inside a domain's edge
    if math.isnan(there):
        return False
    holds, decided = oracle.relation_holds(np.array([there]), q.target, q.relation)
    return bool(decided[0] and holds[0])
