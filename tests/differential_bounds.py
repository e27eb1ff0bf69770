"""The differential tester's judging of an extremum answered as a bound approached at an end of the variable's range and
not attained (:mod:`symgpu.derive.extremum_monotone`, :mod:`symgpu.derive.extremum_supremum`), beside the checks of
``tests/differential_checks.py``, which calls it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import symgpu

import differential_oracle as oracle
from differential_questions import Question, value_at
from differential_verdicts import REL, Verdict


def check(model: symgpu.Model, q: Question, value: float, shown: str, tends: Callable[[np.ndarray, float], bool]) -> Verdict | str:
    """An answer whose value is a bound approached and not attained (no location: "no minimum: the infimum L is approached
    as x -> 0"): no point of the scan beats it, and the quantity tends to it towards an end (0 or oo), in IEEE or exact
    arithmetic (``tends``: the limit check's own test of a sequence): then it is the infimum (supremum). A disagreement
    where either fails, else where it tends to it (judged on as unattained)."""
    centre = value_at(model, q.point, q.variable)
    xs = oracle.grid(model, q.variable, centre)
    ys = oracle.evaluate_on(model, q.quantity, q.point, q.variable, xs)
    sign = 1.0 if q.kind == "max" else -1.0
    beaten = np.isfinite(ys) & (sign * (ys - value) > REL * max(abs(value), 1e-300))
    if beaten.any():
        i = int(np.argmax(np.where(beaten, sign * ys, -np.inf)))
        return Verdict(q, "disagree", "extremum: a point of the scan beats the bound it says is approached", shown,
                       f"{q.quantity}({xs[i]:.10g}) = {ys[i]:.10g}")
    for to in ("0", "oo"):
        for exact in (False, True):
            _, along = oracle.approach(model, q.quantity, q.point, q.variable, centre, to, exact=exact)
            if len(along) >= 4 and tends(along, value):
                return f"tends to {value:.10g} as {q.variable} -> {to}{' (exactly)' if exact else ''}"
    return Verdict(q, "disagree", "extremum: the bound it says is approached is the quantity's limit at neither end (0, oo)", shown, "")
