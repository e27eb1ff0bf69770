"""The differential tester's verdict record and the helpers every judge shares (issue 25): how an
answer's numbers at a question's point are read (:func:`values_of`, an answer's intermediate
quantities put in by :func:`expanded`, its stated conditions by :func:`stated_hold`), whether a value
lies in the variable's declared range, and how numbers and expressions are shown in a verdict.

Used by :mod:`differential_checks` (solve, boundary, limit, extremum, regimes),
:mod:`differential_inequalities` (inequality) and :mod:`differential_fixed_points` (fixed_point).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy

import symgpu
from symgpu.evaluate import active, evaluator

import differential_oracle as oracle
from differential_questions import Question

#: relative tolerance of every numeric comparison
REL = 1e-6


@dataclass(frozen=True)
class Verdict:
    """The outcome of one question.

    Attributes:
        question: the question.
        outcome: ``agree``, ``declined``, ``caught``, ``timeout``, ``unchecked`` or ``disagree``.
        reason: for a disagreement, its class (``solve: misses a root``); else why it was
            declined or unchecked ("" for an agreement).
        answer: the answer's numbers at the point, as text.
        brute: the brute force's numbers, as text.
        seconds: CPU time spent on the symbolic answer (0 when it was shared with an earlier question).
    """

    question: Question
    outcome: str
    reason: str = ""
    answer: str = ""
    brute: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        """One line: what disagrees, the reproduction, the answer and the brute-force value."""
        q = self.question
        return (f"[{self.reason}] {q.model}.{q.quantity} over {q.variable}: answer {self.answer}; brute force {self.brute}"
                f"\n    reproduce: {q.api_call()}\n    shell:     {q.cli()}")


def short(exc: BaseException, width: int = 160) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def show(expr: Any, width: int = 120) -> str:
    text = sympy.sstr(expr) if isinstance(expr, sympy.Basic) else repr(expr)
    return text if len(text) <= width else text[:width - 1] + "…"


def numbers(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.10g}" for v in values) + "]"


def values_of(model: symgpu.Model, expr: Any, q: Question, unit: str, extra: dict[str, float] | None = None) -> list[float]:
    """The numbers an answer (an expression, a Tuple of them, a first-match Piecewise) stands for
    at the question's point. A Tuple element that is a Piecewise with no branch applying here is
    no root here (left out); any other NaN stays, and is judged."""
    values = q.point.mapping(without=q.variable, extra=extra)
    expr = expanded(model, expr, frozenset(k for k in values if k in model.defining))
    parts = list(expr.args) if isinstance(expr, sympy.Tuple) else [expr]
    out = []
    for part in parts:
        if not isinstance(part, sympy.Basic):
            out.append(math.nan)
            continue
        number = float(evaluator.evaluate_expression(model, part, unit or None, preset=q.point.preset, values=values).magnitude)
        if math.isnan(number) and isinstance(part, sympy.Piecewise) and len(parts) > 1:
            continue
        out.append(number)
    return out


def expanded(model: symgpu.Model, expr: Any, given: frozenset[str]) -> Any:
    """``expr`` with the intermediate quantities it keeps as symbols (a boundary in terms of
    ``throughput_bound``) replaced by their equations, except those the point gives."""
    if not isinstance(expr, sympy.Basic):
        return expr
    mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols
               if s.name in model.defining and s.name not in given}
    return expr.xreplace(mapping) if mapping else expr


def admissible(model: symgpu.Model, name: str, x: float) -> bool:
    low, closed = oracle.lower_bound(model, name)
    if not math.isfinite(x):
        return False
    if oracle.is_integer(model, name) and x != round(x):
        return True  # a real root of an integer variable: judged by the relation
    return x > low or (closed and x == low) or low == -math.inf


def stated_hold(model: symgpu.Model, stated: tuple[Any, ...], q: Question, extra: dict[str, float] | None = None) -> bool:
    """Whether the conditions an answer states it is valid under (``extra["valid_when"]``, the
    engine's SymPy relations) hold at the question's point (with ``extra``: a solve target kept as
    its quantity's value)."""
    values = q.point.mapping(without=q.variable, extra=extra)
    given = frozenset(k for k in values if k in model.defining)
    condition = expanded(model, sympy.And(*stated), given)
    return active.condition_holds(model, condition, q.point.preset, values)[0]
