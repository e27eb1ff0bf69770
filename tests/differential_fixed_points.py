"""The differential tester's judge of fixed-point questions (``--ops fixed_point``): ``variable =
quantity(variable)`` for a variable of the quantity's own dimension, solved through the public API
(``Model.fixed_point``), compared with the roots of ``x - quantity(x)`` along a dense scan of the
variable on the evaluate path (:func:`scan`: the variable's grid at the point and one around the
answer, sign changes bisected by :func:`differential_oracle.zeros`).

What the engine promises (``symgpu/derive/fixed_points.py``): for ``quantity = Min(g(x), k...)``
the one fixed point in the variable's declared range (``Min(r, k...)`` in closed form where
``x - g(x)`` increases and ``x = g(x)`` is a polynomial of degree <= 2, else found numerically at a
point, the bounds included); where its scan at the point finds several, the one stable fixed point
(``|g'| < 1``: the iteration ``x <- g(x)`` settles there), refused where not exactly one is stable,
where every value of a range is one, or where none lies in the declared range. So the judge asks:

* the answer at the point is a finite admissible value of the variable where the quantity has a value
  and equals it within ``REL`` (for an integer variable, a real root between two whole values across
  which ``x - quantity(x)`` changes sign is one too);
* the fixed points the scan finds are the answer's alone; where there are several (the answer among
  them), the answer is stable and every other unstable (each slope by a central difference on the
  evaluate path; one within :data:`UNDECIDED` of 1 leaves the question unchecked);
* ``x = quantity(x)`` on a whole run of grid points (a range of fixed points) is no single answer;
* where the conditions the answer states it holds under (``valid when``: the declared range at a closed form the
  declared signs leave open) fail at the point, the scan finds no fixed point there.

Asked in symbols, an answer with no finite value at the point (a closed form that divides by an input
that is 0 there), or a refusal in symbols (``DerivationError``: ``x = g(x)`` has no closed form, and its
numeric root needs a point), is asked again at the point, as a user would (:func:`ask_at_point`, by the
judge, through the engine). A refusal (a symgpu error) at the point declines.
"""

from __future__ import annotations

import math

import numpy as np

import symgpu
from symgpu import derive, errors
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import scaling

import differential_oracle as oracle
from differential_questions import Question, value_at
from differential_verdicts import REL, Verdict, admissible, numbers, show, stated_hold, values_of

#: how far from 1 a fixed point's slope ``|quantity'(x)|`` must be for the scan to call it stable or unstable
UNDECIDED = 1e-3


def call(model: symgpu.Model, q: Question) -> Derivation:
    """The API call of a fixed-point question: at the point, or in symbols."""
    if q.numeric_target:
        return model.fixed_point(q.quantity, q.variable, preset=q.point.preset, values=q.point.mapping(without=q.variable))
    return model.fixed_point(q.quantity, q.variable)


def ask_at_point(q: Question, answer: object) -> bool:
    """Is this a fixed point asked in symbols that the engine refused in symbols (a ``DerivationError``: no closed
    form, the numeric root needs a point; not a refusal at the point, ``NoAnswerHere``, nor a caught certificate), or
    whose answer has no finite value at the point (a closed form that divides by an input that is 0 there)? Then the
    question is asked at its point, as the refusal tells a user to, and as a user would."""
    if q.op != "fixed_point" or q.numeric_target:
        return False
    if isinstance(answer, Derivation):
        try:
            return not math.isfinite(_value(symgpu.load(q.model), q, answer))
        except Exception:  # noqa: BLE001 - judged by the check: an answer that does not evaluate at the point disagrees
            return False
    return isinstance(answer, errors.DerivationError) and not isinstance(answer, errors.NoAnswerHere)


def _value(model: symgpu.Model, q: Question, d: Derivation) -> float:
    """The answer's number at the point, in the variable's declared unit (a number found at the point, extra
    ``declared_numbers``, is in that unit: read as the evaluator reads it)."""
    (value,) = values_of(model, derive.as_evaluated(model, d, d.result), q, model.unit_text(q.variable))
    return value


def ratio(model: symgpu.Model, q: Question) -> float:
    """The factor taking the quantity's declared unit to the variable's (same dimension: 1 where the units agree)."""
    return float(scaling.unit_scale(model.units[q.quantity]) / scaling.unit_scale(model.units[q.variable]))


def residual(model: symgpu.Model, q: Question, x: float) -> float:
    """``x - quantity(x)`` at the point, in the variable's unit (NaN where the model gives no value)."""
    return x - ratio(model, q) * oracle.scalar(model, q.quantity, q.point, q.variable, x)


def scan(model: symgpu.Model, q: Question, around: float) -> tuple[np.ndarray, list[oracle.Bracket], list[oracle.Bracket]]:
    """The grid (the variable's at the point, and one around ``around`` where finite and admissible) and
    the fixed points on it: (grid, isolated fixed points, plateaus where ``x = quantity(x)`` on a run of points).
    A value counts as a fixed point where ``|x - quantity(x)|`` is within 1e-12 of ``max(|x|, |quantity(x)|)``;
    a sign change only where, bisected, it is within 1e-6 of the bracket's size at both ends (not a pole); a
    plateau only where it spans more than ``REL`` (relative)."""
    centre = value_at(model, q.point, q.variable)
    parts = [oracle.grid(model, q.variable, centre)]
    if math.isfinite(around) and admissible(model, q.variable, around):
        parts.append(oracle.grid(model, q.variable, around, size=61))
    xs = np.unique(np.concatenate(parts))
    ys = ratio(model, q) * oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    g = xs - ys
    with np.errstate(invalid="ignore"):
        zero = np.isfinite(g) & (np.abs(g) <= 1e-12 * np.maximum(np.abs(xs), np.abs(ys)))
    isolated, plateaus = oracle.zeros(lambda x: residual(model, q, x), xs, g, zero,
                                      lambda b: 1e-6 * max(abs(b.low), abs(b.high), 1e-300), oracle.is_integer(model, q.variable))
    # a run of grid values within REL of each other is one fixed point, not a range: the grids around the point's value
    # and around the answer may hold the same value twice, a unit in the last place apart (seed 300)
    narrow = [p for p in plateaus if p.high - p.low <= REL * max(abs(p.low), abs(p.high))]
    return xs, sorted(isolated + narrow, key=lambda b: b.low), [p for p in plateaus if p not in narrow]


def slope(model: symgpu.Model, q: Question, x: float, scale: float) -> float:
    """``quantity'(x)`` (the variable's unit over itself) by a central difference on the evaluate path
    (one-sided at the end of the declared range; NaN where the model gives no value beside ``x``)."""
    step = 1e-6 * (abs(x) or scale)
    low = x - step if admissible(model, q.variable, x - step) else x
    high = x + step
    k = ratio(model, q)
    values = [k * oracle.scalar(model, q.quantity, q.point, q.variable, v) for v in (low, high)]
    return (values[1] - values[0]) / (high - low)


def check(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    """The verdict on a fixed point's answer at the question's point."""
    stated = d.extra.valid_when or ()
    if stated and not stated_hold(model, stated, q):  # the answer says: no fixed point in the declared range here
        _, isolated, plateaus = scan(model, q, math.nan)
        brute = "fixed points " + numbers([b.middle for b in isolated]) + (f" and the ranges {[(p.low, p.high) for p in plateaus]}" if plateaus else "")
        said = "no fixed point: valid when " + " and ".join(map(show, stated)) + " fails here"
        if isolated or plateaus:
            return Verdict(q, "disagree", "fixed_point: the answer's stated conditions fail at the point, but the scan finds a fixed point", said, brute)
        return Verdict(q, "agree", answer=said, brute=brute)
    value = _value(model, q, d)
    shown = f"{q.variable} = {value:.10g} (result {show(d.result, 80)})"
    xs, isolated, plateaus = scan(model, q, value)
    brute = "fixed points " + numbers([b.middle for b in isolated]) + (f" and the ranges {[(p.low, p.high) for p in plateaus]}" if plateaus else "")
    if not math.isfinite(value):
        return Verdict(q, "disagree", "fixed_point: the answer is NaN or infinite at the point", shown, brute)
    if not admissible(model, q.variable, value):
        return Verdict(q, "disagree", "fixed_point: the answer is outside the variable's declared range", shown, brute)
    shown_at = d.extra.value_at
    if q.numeric_target and shown_at is not None and not oracle.close(float(shown_at), value, REL):
        return Verdict(q, "disagree", "fixed_point: the value it gives at the point is not its result there", f"{shown}; value_at {shown_at}", brute)
    if oracle.is_integer(model, q.variable) and value != round(value):  # a real root of an integer variable, as solve's
        if not _integer_bracket(model, q, value):
            return Verdict(q, "disagree", "fixed_point: an integer variable's answer is no whole number, and x - quantity(x) "
                           "does not change sign between the whole values beside it", shown, brute)
        return _unique(model, q, value, shown, xs, isolated, plateaus, brute)
    there = oracle.scalar_near_edge(model, q.quantity, q.point, q.variable, value)
    if math.isnan(there):
        return Verdict(q, "disagree", "fixed_point: the quantity is undefined (NaN) at the answer", shown, f"{q.quantity}({value:.10g}) = nan; {brute}")
    there *= ratio(model, q)
    if abs(value - there) > REL * max(abs(value), abs(there), 1e-300):
        return Verdict(q, "disagree", "fixed_point: the answer is no fixed point", shown, f"{q.quantity}({value:.10g}) = {there:.10g}; {brute}")
    return _unique(model, q, value, shown, xs, isolated, plateaus, brute)


def _unique(model: symgpu.Model, q: Question, value: float, shown: str, xs: np.ndarray, isolated: list[oracle.Bracket],
            plateaus: list[oracle.Bracket], brute: str) -> Verdict:
    """The answer, a fixed point, against the others the scan finds: none, or the answer the one stable among them."""
    if plateaus:
        return Verdict(q, "disagree", "fixed_point: x = quantity(x) on a whole range; the answer gives one value", shown, brute)
    scale = abs(value_at(model, q.point, q.variable)) or 1.0
    step = oracle.Bracket(value, value).step(xs)
    others = [b for b in isolated if not b.contains(value, scale=step)]
    if not others:
        return Verdict(q, "agree", answer=shown, brute=brute)
    # several fixed points: the engine answers the stable one, and refuses where not exactly one is stable
    slopes = {"answer": slope(model, q, value, scale)} | {f"{b.middle:.10g}": slope(model, q, b.middle, scale) for b in others}
    seen = brute + "; slopes " + ", ".join(f"{k}: {v:.4g}" for k, v in slopes.items())
    if any(not math.isfinite(s) or abs(abs(s) - 1) <= UNDECIDED for s in slopes.values()):
        return Verdict(q, "unchecked", "fixed_point: several fixed points, a slope too near 1 (or undefined) to call stable or not", shown, seen)
    stable = [k for k, s in slopes.items() if abs(s) < 1]
    if "answer" not in stable:
        return Verdict(q, "disagree", "fixed_point: the scan finds another fixed point; the answer is not a stable one", shown, seen)
    if len(stable) > 1:
        return Verdict(q, "disagree", "fixed_point: the scan finds another stable fixed point; the answer picks one", shown, seen)
    return Verdict(q, "agree", answer=shown + " (the stable one)", brute=seen)


def _integer_bracket(model: symgpu.Model, q: Question, root: float) -> bool:
    """For an integer variable, a real root between two whole values across which ``x - quantity(x)`` changes sign
    (no change where either has no value: a whole value outside the declared range)."""
    below, above = residual(model, q, math.floor(root)), residual(model, q, math.ceil(root))
    if not (math.isfinite(below) and math.isfinite(above)):
        return False
    return below == 0 or above == 0 or (below > 0) != (above > 0)

