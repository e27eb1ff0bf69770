"""The differential tester's judge (issue 25): each question answered through the public API,
then compared with the brute force of :mod:`differential_oracle`.

Outcomes: ``agree``; ``declined`` (the API refused with a symgpu error: no closed form, regimes
that do not meet...); ``caught`` (the answer's own numeric certificate refused it: a wrong closed
form reported loudly, exit 1, never shown as a value); ``timeout`` (the symbolic answer took longer than the per-derivation limit);
``unchecked`` (the brute force has nothing to compare with, e.g. every value along a limit is
NaN); ``disagree`` (a returned answer that the numbers contradict, a NaN/None answer, or an
exception that is not a symgpu error).
"""

from __future__ import annotations

import dataclasses
import math
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import sympy
from sympy.core.parameters import distribute

import symgpu
from symgpu import derive, errors
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active, evaluator, input_values

import differential_bounds as bounds
import differential_fixed_points as fixed_points
import differential_inequalities as inequalities
import differential_oracle as oracle
from differential_questions import Question, value_at
from differential_verdicts import REL, Verdict
from differential_verdicts import admissible as _admissible
from differential_verdicts import expanded as _expanded
from differential_verdicts import numbers as _numbers
from differential_verdicts import short as _short
from differential_verdicts import show as _show
from differential_verdicts import stated_hold as _stated_hold
from differential_verdicts import values_of as _values


class Timeout(BaseException):
    """A derivation ran past its limit (a BaseException so that SymPy's ``except Exception`` lets it through)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout()


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Timeout` in the block after ``seconds`` of this process's CPU time (main
    thread, POSIX). CPU time, not wall time: on a loaded machine the same questions time out."""
    if seconds <= 0:
        yield
        return
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


#: symbolic answers, by :meth:`Question.symbolic_key`: (derivation or the exception, seconds)
_ANSWERS: dict[tuple[object, ...], tuple[Derivation | BaseException, float]] = {}


def ask(question: Question, limit: float) -> tuple[Derivation | BaseException, float]:
    """The API's answer to the question's symbolic part (memoised per symbolic key), and the
    seconds it took (0 when memoised)."""
    key = question.symbolic_key()
    if key in _ANSWERS:
        return _ANSWERS[key][0], 0.0
    model = symgpu.load(question.model)
    start = time.process_time()
    try:
        # a timeout raised inside ``sympy.evaluate(False).__enter__``, after the switch is set and before the block
        # starts, never reaches that block's ``__exit__``: these outer blocks put SymPy's switches back on leaving
        with sympy.evaluate(True), distribute(True), time_limit(limit):
            answer: Derivation | BaseException = _call(model, question)
    except (Timeout, Exception) as exc:  # judged by the caller: a symgpu error declines, anything else disagrees
        answer = exc
    seconds = time.process_time() - start
    _ANSWERS[key] = (answer, seconds)
    return answer, seconds


def _call(model: symgpu.Model, q: Question) -> Derivation:
    if q.op == "solve" and q.numeric_target:
        return model.solve(q.quantity, for_=q.variable, target=repr(q.target), preset=q.point.preset,
                           values=q.point.mapping(without=q.variable))
    if q.op == "solve":
        return model.solve(q.quantity, for_=q.variable)
    if q.op == "inequality":
        return inequalities.call(model, q)
    if q.op == "fixed_point":
        return fixed_points.call(model, q)
    if q.op == "boundary":
        return model.boundary(q.quantity, between=q.between, for_=q.variable)
    if q.op == "limit":
        return model.limit(q.quantity, q.variable, q.to)
    if q.op == "regimes":
        return model.regimes(q.quantity, over=q.variable)
    return model.extremum(q.quantity, over=q.variable, kind=q.kind or "max")


def judge(question: Question, *, limit: float = 10.0,
          answer_of: Callable[[Question, float], tuple[Derivation | BaseException, float]] | None = None) -> Verdict:
    """Answer ``question`` through the API (or ``answer_of``, for the self-test) and compare.

    Args:
        limit: seconds allowed to one symbolic derivation.
        answer_of: replaces :func:`ask` (a test feeds a deliberately wrong derivation).
    """
    answer, seconds = (answer_of or ask)(question, limit)
    if fixed_points.ask_at_point(question, answer):  # refused in symbols, or degenerate at the point: asked there (the engine)
        return judge(dataclasses.replace(question, numeric_target=True), limit=limit)
    if isinstance(answer, Timeout):
        return Verdict(question, "timeout", f"{question.op}: over {limit:g} s", seconds=seconds)
    if isinstance(answer, errors.CertificateError):
        return Verdict(question, "caught", f"{question.op}: {_short(answer)}", seconds=seconds)
    if isinstance(answer, errors.SymgpuError):
        return Verdict(question, "declined", f"{question.op}: {type(answer).__name__}: {_short(answer)}", seconds=seconds)
    if isinstance(answer, BaseException):
        return Verdict(question, "disagree", f"{question.op}: raised {type(answer).__name__}", _short(answer), "", seconds)
    model = symgpu.load(question.model)
    check = {"solve": _check_solve, "boundary": _check_boundary, "limit": _check_limit, "extremum": _check_extremum,
             "regimes": _check_regimes, "inequality": inequalities.check,
             "fixed_point": fixed_points.check}[question.op]
    try:
        verdict = check(model, question, answer)
    except errors.SymgpuError as exc:
        verdict = Verdict(question, "disagree", f"{question.op}: the answer does not evaluate at the point",
                          f"{_show(answer.result)} -> {type(exc).__name__}: {_short(exc)}", "")
    except Exception as exc:  # noqa: BLE001 - a traceback on the evaluate path is a finding, not a tester crash
        verdict = Verdict(question, "disagree", f"{question.op}: evaluating the answer raised {type(exc).__name__}",
                          f"{_show(answer.result)} -> {_short(exc)}", "")
    return Verdict(verdict.question, verdict.outcome, verdict.reason, verdict.answer, verdict.brute, seconds)


# ================================================================================ solve
def _check_solve(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    assert q.target is not None
    centre = value_at(model, q.point, q.variable)
    xs = oracle.grid(model, q.variable, centre)
    ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    isolated, plateaus = oracle.roots(model, q.quantity, q.point, q.variable, q.target, xs, ys)
    if plateaus:
        isolated, plateaus = oracle.flat_in_exact_arithmetic(model, q.quantity, q.point, q.variable, q.target, isolated, plateaus, xs)
    brute = _numbers([b.middle for b in isolated]) + (f" and the ranges {[(p.low, p.high) for p in plateaus]}" if plateaus else "")
    # a numeric target kept as its quantity's value (a prefixed unit), as the command line evaluates it
    extra = derive.result_values(d, {}) or None if q.numeric_target else {q.quantity: q.target}
    values = q.point.mapping(without=q.variable, extra=extra)
    ranges = derive.applying_ranges(model, d, q.point.preset, values)
    def on_ranges(x: float) -> bool:
        return any(active.condition_holds(model, f.when, q.point.preset, {**values, q.variable: x})[0] for f in ranges)

    covered = all(on_ranges(p.middle) for p in plateaus)
    if d.result is sympy.true:  # every value of the unknown is a root
        return Verdict(q, "agree") if not isolated and plateaus else Verdict(q, "disagree", "solve: the answer says every value, the scan does not",
                                                                          _show(d.result), brute)
    if not q.numeric_target and (plateaus and not covered and not isolated or isolated and not _applying_any(model, d, q, model.unit_text(q.variable), extra)):
        # the symbolic answer is degenerate here (an input at 0 takes the unknown away): ask at the point, as a user would
        try:
            again = model.solve(q.quantity, for_=q.variable, target=repr(q.target), preset=q.point.preset,
                                values=q.point.mapping(without=q.variable))
        except errors.SymgpuError as exc:
            return Verdict(q, "declined", f"solve at the point: {type(exc).__name__}: {_short(exc)}")
        return _check_solve(model, dataclasses.replace(q, numeric_target=True), again)
    if derive.holds_on_ranges(d.result) and ranges:  # flat regimes: the relation holds on their ranges
        # a range may be a set of points (elem_size in {4, 8, 16}): an isolated root it holds at is on it
        if not covered or any(not on_ranges(b.middle) for b in isolated):
            return Verdict(q, "disagree", "solve: the ranges the answer gives miss a root", _show(d.result), brute)
        return Verdict(q, "agree")
    if derive.holds_on_ranges(d.result):  # the relation holds on a whole range (a bare symbol is a value, not a condition)
        inside = [oracle.is_integer(model, q.variable) or _holds(model, d.result, q, x) for p in plateaus + isolated for x in (p.low, p.high)]
        if not all(inside):
            return Verdict(q, "disagree", "solve: a root lies outside the range the answer gives", _show(d.result), brute)
        return Verdict(q, "agree")
    unit = model.unit_text(q.variable)
    found = _applying(model, d, q, unit, extra) if derive.roots_of(d) is not None else _values(model, d.result, q, unit, extra)
    shown = _numbers(found) + f" (result {_show(d.result, 80)})"
    if any(math.isnan(r) for r in found) or not found and (isolated or (plateaus and not covered)):
        return Verdict(q, "disagree", "solve: the answer is NaN or no root at the point", shown, brute)
    tolerance = REL * max(abs(q.target), 1e-300)
    for root in found:
        if not _admissible(model, q.variable, root):
            return Verdict(q, "disagree", "solve: a root outside the variable's declared range", shown, brute)
        value = oracle.scalar_near_edge(model, q.quantity, q.point, q.variable, root)
        if math.isnan(value):
            return Verdict(q, "disagree", "solve: a root where the quantity is undefined (NaN)", shown,
                           f"{q.quantity}({root:.10g}) = nan; roots {brute}")
        if not (abs(value - q.target) <= tolerance) and not _integer_bracket(model, q, root):
            return Verdict(q, "disagree", "solve: the relation fails at a root", shown,
                           f"{q.quantity}({root:.10g}) = {value:.10g}, target {q.target:.10g}; roots {brute}")
    for bracket in isolated:
        # a grid value where the IEEE value meets the target (within REL in exact arithmetic) and an answer's root
        # beside it, within 1e-6 of the grid's step there, are one root (a target of 8/301 rounded to a double: the
        # exact root is 1.25e-17 and the scan's is alpha = 0; seed 215)
        if not any(bracket.contains(r, scale=bracket.step(xs)) for r in found) and not oracle.rounding_noise(model, q.quantity, q.point, q.variable, q.target, bracket, xs) \
                and not any(bracket.contains(r, rel=1e-4) and _exact_root(model, q, r) for r in found):
            return Verdict(q, "disagree", "solve: misses a root the scan finds", shown, brute)
    if plateaus and not covered:  # isolated roots cannot describe a range (the target is a plateau's value)
        return Verdict(q, "disagree", "solve: the relation holds on a whole range; the answer gives isolated roots", shown, brute)
    return Verdict(q, "agree", answer=shown, brute=brute)


def _exact_root(model: symgpu.Model, q: Question, root: float) -> bool:
    """Is ``root`` a root to 1e-9 (relative) in exact arithmetic: the quantity less the target changes sign (or is
    0) across ``root*(1 -+ 1e-9)``? Where the quantity varies below its IEEE digits (``b0/u0 + w0``, the first term
    1e-13 of the second) the scan's bisection brackets rounding noise beside the root (seed 12 of ``--generated``)."""
    assert q.target is not None
    ends = oracle.exact_on(model, q.quantity, q.point, q.variable, np.array([root * (1 - 1e-9), root * (1 + 1e-9)]), minus=q.target)
    return bool(np.all(np.isfinite(ends)) and (ends[0] == 0 or ends[1] == 0 or (ends[0] > 0) != (ends[1] > 0)))


def _holds(model: symgpu.Model, condition: Any, q: Question, x: float) -> bool:
    values = q.point.mapping(without=q.variable) | {q.variable: x}
    if not q.numeric_target:
        values[q.quantity] = q.target  # type: ignore[assignment]
    return active.condition_holds(model, condition, q.point.preset, values)[0]


def _integer_bracket(model: symgpu.Model, q: Question, root: float) -> bool:
    """For an integer variable, a real root between two integers where the quantity crosses the target."""
    if not oracle.is_integer(model, q.variable) or root == round(root):
        return False
    assert q.target is not None
    below = oracle.scalar(model, q.quantity, q.point, q.variable, math.floor(root)) - q.target
    above = oracle.scalar(model, q.quantity, q.point, q.variable, math.ceil(root)) - q.target
    return below == 0 or above == 0 or (below > 0) != (above > 0)


def _applying_any(model: symgpu.Model, d: Derivation, q: Question, unit: str, extra: dict[str, float] | None) -> bool:
    """Does the symbolic answer give any finite root at the point? (None where it is degenerate
    there, e.g. 0/0 at an input's 0: then the question is asked at the point, as a user would.)"""
    try:
        found = _applying(model, d, q, unit, extra) if derive.roots_of(d) is not None else _values(model, d.result, q, unit, extra)
    except errors.SymgpuError:
        return False
    return any(math.isfinite(r) for r in found)


def _applying(model: symgpu.Model, d: Derivation, q: Question, unit: str, extra: dict[str, float] | None) -> list[float]:
    """The roots the API gives at the point (the per-regime roots whose conditions hold there,
    as the command line prints them): :func:`symgpu.derive.applying_roots`."""
    values = q.point.mapping(without=q.variable, extra=extra)
    given = frozenset(k for k in values if k in model.defining)
    records = [dataclasses.replace(r, root=_expanded(model, r.root, given), when=_expanded(model, r.when, given)) for r in derive.roots_of(d) or ()]
    return [float(r.value.magnitude) for r in derive.applying_roots(model, records, q.point.preset, values, unit, q.variable)]


# ================================================================================ boundary
def _check_boundary(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    assert q.between is not None
    # the boundaries the API gives at the point: where the named regimes really meet there
    values = q.point.mapping(without=q.variable)
    given = frozenset(k for k in values if k in model.defining)
    result = {k: _expanded(model, v, given) for k, v in d.result.items()} if isinstance(d.result, dict) else _expanded(model, d.result, given)
    extra = d.extra.with_(between=tuple(q.between))
    if d.extra.roots is not None:
        extra = extra.with_(roots=tuple(dataclasses.replace(r, root=_expanded(model, r.root, given), when=_expanded(model, r.when, given))
                                        for r in d.extra.roots))
    expanded = dataclasses.replace(d, result=result, extra=extra)
    found = [float(r.value.magnitude) for r in derive.applying_boundaries(model, expanded, q.point.preset, values)]
    shown = _numbers(found) + f" (result {_show(d.result, 80)})"
    centre = value_at(model, q.point, q.variable)
    xs = np.unique(np.concatenate([oracle.grid(model, q.variable, centre), [x for x in found if _admissible(model, q.variable, x)]]))
    scanned = oracle.switches(model, q.quantity, q.point, q.variable, xs, q.between)
    # a switch the scan names so only by the engine's first-of-ties rule (a regime of the pair tied there with one outside
    # it) need not be in the answer: that end may as well be named the other regime
    scanned = [b for b in scanned if any(b.contains(x) for x in found)
               or not oracle.named_by_order(model, q.quantity, q.point, q.variable, b, tuple(q.between))]
    brute = "switches " + _numbers([b.middle for b in scanned])
    if not found and scanned:
        return Verdict(q, "disagree", "boundary: no boundary at the point, while the scan finds the named regimes switching", shown, brute)
    if any(math.isnan(b) for b in found):
        return Verdict(q, "disagree", "boundary: the answer is NaN at the point", shown, brute)
    for b in found:
        if not _admissible(model, q.variable, b):
            if scanned:
                return Verdict(q, "disagree", "boundary: outside the variable's range, while the regimes switch inside it", shown, brute)
            continue
        below, above = _sides(model, q.variable, b)
        sides = (oracle.regime_at(model, q.quantity, q.point, q.variable, below),
                 oracle.regime_at(model, q.quantity, q.point, q.variable, above))
        if sides[0] == sides[1] and below != b and {sides[0], oracle.regime_at(model, q.quantity, q.point, q.variable, b)} == set(q.between):
            continue  # the other regime holds at the boundary itself only (Eq(index_stride, 1)): in and out of it there
        if set(sides) != set(q.between) and oracle.switch_at_tie(model, q.quantity, q.point, q.variable, (below, above), tuple(q.between)):
            continue  # the named pair tie on one side: that side may be named either (the engine's rule names the first)
        if set(sides) != set(q.between):
            reason = "the regime is the same on both sides" if sides[0] == sides[1] else "the regime switches there, but not between the named pair"
            return Verdict(q, "disagree", f"boundary: {reason}", shown,
                           f"{sides[0]} at {below:.10g}, {sides[1]} at {above:.10g}; {brute}")
    for bracket in scanned:
        if not any(bracket.contains(b) for b in found):
            return Verdict(q, "disagree", "boundary: misses a switch the scan finds", shown, brute)
    return Verdict(q, "agree", answer=shown, brute=brute)


def _sides(model: symgpu.Model, name: str, b: float) -> tuple[float, float]:
    """The values just below and just above a boundary ``b`` (neighbouring integers for an integer
    variable); a boundary at the end of the declared range is its own low side (nothing lies below it)."""
    low, closed = oracle.lower_bound(model, name)
    if oracle.is_integer(model, name):
        below, above = (b - 1, b + 1) if b == round(b) else (math.floor(b), math.ceil(b))
    else:
        step = 1e-7 * abs(b) if b else 1e-12
        below, above = b - step, b + step
    if below < low or (below == low and not closed):
        return b, above
    return below, above


# ================================================================================ limit
def _check_limit(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    assert q.to is not None
    (value,) = _values(model, d.result, q, d.unit) if not isinstance(d.result, sympy.Tuple) else (math.nan,)
    shown = f"{value:.10g} (result {_show(d.result, 80)})"
    xs, ys = oracle.approach(model, q.quantity, q.point, q.variable, value_at(model, q.point, q.variable), q.to)
    brute = "along " + ", ".join(f"{y:.8g}" for y in ys[-4:])
    if math.isnan(value):
        return Verdict(q, "disagree", "limit: the answer is NaN at the point", shown, brute)
    if len(ys) < 4:
        return Verdict(q, "unchecked", "limit: too few finite values along the sequence", shown, brute)
    if _tends(ys, value):
        return Verdict(q, "agree", answer=shown, brute=brute)
    # NOTE: IEEE arithmetic along 10**-15 or 10**15 can lose every digit to cancellation (Volkov's
    # latency root: n + A*C - sqrt((A*C + n)**2 - 4*(A - b)*n*C) with C ~ 1/bytes_per_inst); the
    # same sequence in exact arithmetic, still on the evaluate path, decides before a disagreement
    xs, exact = oracle.approach(model, q.quantity, q.point, q.variable, value_at(model, q.point, q.variable), q.to, exact=True)
    if len(exact) >= 4 and _tends(exact, value):
        return Verdict(q, "agree", answer=shown, brute=brute + "; exactly along " + ", ".join(f"{y:.10g}" for y in exact[-4:]))
    if len(exact) >= 4 and np.all(exact[-4:] == exact[-1]):
        # flat so far, not yet there: a Min/Max argument of tiny constant value binds until the moving one passes it
        # (Min(b2*k, 3.7e-16 cycle) as b2 -> 0 binds the constant down to b2 ~ 1e-19 of its value); further along, exactly
        _, far = oracle.approach(model, q.quantity, q.point, q.variable, value_at(model, q.point, q.variable), q.to, exact=True,
                                 powers=np.arange(20.0, 301.0, 20.0))
        if len(far) >= 4 and _tends(far, value):
            return Verdict(q, "agree", answer=shown, brute=brute + "; exactly, further along (10**-20..10**-300 of the value) "
                           + ", ".join(f"{y:.10g}" for y in far[-4:]))
    return Verdict(q, "disagree", "limit: the values do not tend to the answer", shown,
                   brute + ("; exactly along " + ", ".join(f"{y:.10g}" for y in exact[-4:]) if len(exact) else ""))


def _tends(ys: np.ndarray, value: float) -> bool:
    """Does the sequence tend to ``value`` (a number or an infinity)?"""
    tail = ys[-5:]
    if math.isinf(value):
        signed = tail * math.copysign(1.0, value)
        if np.isinf(signed[-1]) and signed[-1] > 0:
            return True
        growing = bool(np.all(np.diff(signed) > 0))
        return growing and signed[-1] >= 1e3 * max(abs(float(ys[0])), 1e-300)
    scale = max(abs(value), float(np.max(np.abs(ys[np.isfinite(ys)]))) if np.isfinite(ys).any() else 0.0, 1e-300)
    errs = np.abs(tail - value) / scale
    if not np.all(np.isfinite(errs)):
        return False
    return bool(errs[-1] <= REL or (np.all(np.diff(errs) <= 1e-15) and errs[-1] <= 1e-3))


# ================================================================================ extremum
def _check_extremum(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    stated = d.extra.valid_when or ()
    if stated and not _stated_hold(model, stated, q):
        return Verdict(q, "declined", "extremum: the point is outside the answer's stated conditions (valid when "
                       + " and ".join(map(sympy.sstr, stated)) + ")")
    (value,) = _values(model, d.result, q, d.unit) if not isinstance(d.result, sympy.Tuple) else (math.nan,)
    (where,) = _values(model, d.location, q, model.unit_text(q.variable)) if isinstance(d.location, sympy.Basic) \
        and not isinstance(d.location, sympy.Tuple) else (math.nan,)
    shown = f"{q.kind} {value:.10g} at {q.variable} = {where:.10g} (location {_show(d.location, 60)})"
    if math.isfinite(value) and math.isnan(where) and d.extra.elsewhere and not d.extra.approached:  # a bound at an end, not attained
        bound = bounds.check(model, q, value, shown, _tends)
        judged = bound if isinstance(bound, Verdict) else _check_unattained(model, q, shown)
        return dataclasses.replace(judged, brute=f"{bound}; {judged.brute}") if judged.outcome == "agree" else judged
    if (math.isnan(value) or math.isnan(where)) and d.extra.elsewhere:
        return _check_unattained(model, q, shown, tuple(_approached(model, q, d)))
    if math.isnan(value) or math.isnan(where):
        return Verdict(q, "disagree", "extremum: the answer is NaN at the point", shown, "")
    if not _admissible(model, q.variable, where):
        return Verdict(q, "disagree", "extremum: the location is outside the variable's declared range", shown, "")
    there = oracle.scalar(model, q.quantity, q.point, q.variable, where)
    if not oracle.close(there, value, REL):
        return Verdict(q, "disagree", "extremum: the value is not the quantity at the location", shown,
                       f"{q.quantity}({where:.10g}) = {there:.10g}")
    centre = value_at(model, q.point, q.variable)
    xs = np.unique(np.concatenate([oracle.grid(model, q.variable, centre), oracle.grid(model, q.variable, where, size=61)]))
    ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    sign = 1.0 if q.kind == "max" else -1.0
    finite = np.isfinite(ys)
    beaten = finite & (sign * (ys - value) > REL * max(abs(value), 1e-300))
    if beaten.any():
        i = int(np.argmax(np.where(beaten, sign * ys, -np.inf)))
        return Verdict(q, "disagree", "extremum: a point of the scan beats it", shown, f"{q.quantity}({xs[i]:.10g}) = {ys[i]:.10g}")
    return Verdict(q, "agree", answer=shown, brute=f"best of scan {float(np.max(sign * ys[finite])) * sign:.10g}" if finite.any() else "")


def _approached(model: symgpu.Model, q: Question, d: Derivation) -> list[tuple[float, float]]:
    """(location, value) of each point the answer says the quantity approaches and does not attain (extra
    ``approached``: a case's value at the edge where another case takes over), at the question's point; those that do
    not evaluate there left out."""
    out = []
    for record in d.extra.approached or ():
        try:
            (x,) = _values(model, record.location, q, model.unit_text(q.variable))
            (v,) = _values(model, record.value, q, d.unit)
        except (errors.SymgpuError, ValueError, TypeError):
            continue
        if math.isfinite(x) and math.isfinite(v):
            out.append((x, v))
    return out


def _check_unattained(model: symgpu.Model, q: Question, shown: str, approached: tuple[tuple[float, float], ...] = ()) -> Verdict:
    """The answer says no extremum exists at the point (no branch of its Piecewise holds: every
    candidate is beaten by a value approached at an open end). Brute force agrees when the best
    point of the scan is the scan's first or last admissible point (approaching an end), or none
    is finite; it disagrees when the best lies strictly inside, attained."""
    centre = value_at(model, q.point, q.variable)
    xs = oracle.grid(model, q.variable, centre)
    ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    finite = np.flatnonzero(np.isfinite(ys))
    if not len(finite):
        return Verdict(q, "agree", answer="no extremum (stated)", brute="no finite value on the scan")
    sign = 1.0 if q.kind == "max" else -1.0
    best = finite[int(np.argmax(sign * ys[finite]))]
    edge = {int(finite[0]), int(finite[-1])}
    beaten_inside = sign * (ys[best] - ys[sorted(edge)]).min() > REL * max(abs(ys[best]), 1e-300)
    if best in edge or not beaten_inside:
        return Verdict(q, "agree", answer=shown + "; no extremum here (stated)", brute=f"best of scan at the scan's end x = {xs[best]:.10g}")
    for x, v in approached:  # an infimum (supremum) approached at a case edge x inside: the scan's best lies beside x
        between = finite[(xs[finite] > min(x, xs[best])) & (xs[finite] < max(x, xs[best]))]
        if not len(between) and not np.any(sign * (ys[finite] - v) > REL * max(abs(v), 1e-300)):
            return Verdict(q, "agree", answer=shown + f"; approaches {v:.10g} as {q.variable} -> {x:.10g}, not attained (stated)",
                           brute=f"best of scan {ys[best]:.10g} at the scanned value beside it, {xs[best]:.10g}; none past {v:.10g}")
    return Verdict(q, "disagree", "extremum: the answer says there is none here, but a point inside the scan is the extreme",
                   shown, f"{q.quantity}({xs[best]:.10g}) = {ys[best]:.10g}")


# ================================================================================ regimes
def _check_regimes(model: symgpu.Model, q: Question, d: Derivation) -> Verdict:
    """The regime table (the first regime whose conditions hold) against the model along a grid of
    the variable at the point: equal wherever the model has a value, no gap. Where the table is
    undefined and an input is 0 (the variable, or one the point gives: conditions cleared of a
    denominator in it cancel there, and the engine says so), the question is asked at that value,
    as a user would: an answer must give the model's value through its active regimes, or refuse
    with a symgpu error."""
    centre = value_at(model, q.point, q.variable)
    xs = oracle.grid(model, q.variable, centre)
    ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    values = q.point.mapping(without=q.variable)
    with np.errstate(all="ignore"):
        table = np.broadcast_to(np.asarray(evaluator.evaluate_expression(
            model, d.result, d.unit or None, preset=q.point.preset, values=values | {q.variable: xs}).magnitude, dtype=float), xs.shape)
    finite = np.isfinite(ys)
    if not finite.any():
        return Verdict(q, "unchecked", "regimes: the model gives no value along the grid")
    scale = float(np.max(np.abs(ys[finite])))
    same = np.abs(table - ys) <= np.maximum(REL * np.maximum(np.abs(table), np.abs(ys)), 1e-12 * scale)
    for i in np.flatnonzero(finite & ~same):
        x, y = float(xs[i]), float(ys[i])
        shown, brute = f"{table[i]:.10g} at {q.variable} = {x:.10g}", f"{y:.10g}"
        if not math.isnan(table[i]):
            return Verdict(q, "disagree", "regimes: a regime's value differs from the model's", shown, brute)
        if x != 0 and not _zero_input(model, q, d):
            return Verdict(q, "disagree", "regimes: no regime holds where the model has a value", shown, brute)
        try:
            at = model.regimes(q.quantity, over=q.variable, preset=q.point.preset, values=values | {q.variable: x})
        except errors.SymgpuError:
            continue  # refused loudly at that value: no wrong number shown
        here = values | {q.variable: x}
        active_values = [float(evaluator.evaluate_expression(model, r.expression, d.unit or None, preset=q.point.preset, values=here).magnitude)
                         for r in at.extra.active_regimes or ()]
        if not active_values or not all(oracle.close(v, y, REL, 1e-12 * scale) for v in active_values):
            return Verdict(q, "disagree", "regimes: asked where an input is 0, the active regimes do not give the model's value",
                           shown, f"{brute}; asked there: {active_values}")
    return Verdict(q, "agree", answer=f"{len(d.extra.regimes or ())} regimes over {int(finite.sum())} values")


def _zero_input(model: symgpu.Model, q: Question, d: Derivation) -> bool:
    """Is an input of the table other than the variable 0 at the point (given or from the preset)?"""
    merged = input_values.merge_values(model, q.point.preset, q.point.mapping(without=q.variable))
    names = {s.name for s in d.result.free_symbols} if isinstance(d.result, sympy.Basic) else set()
    return any(float(input_values.base_magnitude(model, n, merged[n])) == 0 for n in names if n in merged and n != q.variable)
