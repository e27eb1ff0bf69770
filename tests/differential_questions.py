"""Random questions for the differential tester (issue 25): which quantity, variable, point and
operation each question asks, drawn deterministically from a seed over every bundled model.

Used by ``benchmarks/differential.py`` and ``tests/test_differential.py``; the brute-force side
is :mod:`differential_oracle`.

A question is asked at a *point*: a preset (or preset combination) and the inputs of one
validation case on it, every other input the quantity needs taken from the other presets and
cases of the same model. Questions are drawn in groups that share one symbolic derivation (one
model, quantity and variable): the symbolic work is done once per group and checked at many
points and targets, which is what makes 10,000 questions affordable.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import symgpu
from symgpu import errors

#: the kinds of question a run asks by default (a seed's questions stay those it always drew)
OPS = ("solve", "boundary", "limit", "extremum")
#: every kind of question, as ``--ops`` names them: ``regimes`` (the regime table over the variable,
#: compared with the model along a scan), ``inequality`` (``quantity REL target`` solved for the
#: variable: its bound, or its largest or smallest value) and ``fixed_point`` (``variable =
#: quantity(variable)`` for a variable of the quantity's own dimension) only when asked for
ALL_OPS = OPS + ("regimes", "inequality", "fixed_point")
#: the relations an inequality question draws from
RELATIONS = ("<=", "<", ">=", ">")
#: what an inequality question asks for: the bound (None), or the largest or smallest admissible value
INEQUALITY_KINDS = (None, None, "max", "min")


@dataclass(frozen=True)
class Point:
    """Where a question is asked: a preset and values (magnitudes in the symbols' declared units).

    Attributes:
        preset: preset id (``a+b`` combinations allowed) or ``None``.
        values: symbol name -> magnitude in its declared unit, overriding the preset, sorted by name.
    """

    preset: str | None
    values: tuple[tuple[str, float], ...]

    def mapping(self, *, without: str = "", extra: dict[str, float] | None = None) -> dict[str, float]:
        """The values as a dict, ``without`` left out and ``extra`` added."""
        out = {k: v for k, v in self.values if k != without}
        out.update(extra or {})
        return out


@dataclass(frozen=True)
class Question:
    """One question the tester asks through the public API and answers by brute force.

    Attributes:
        op: ``solve``, ``boundary``, ``limit``, ``extremum``, ``regimes``, ``inequality`` or ``fixed_point``.
        model: model id.
        quantity: the quantity asked about.
        variable: the variable solved for, varied or taken to its limit.
        point: where the answer is checked.
        target: solve: the value (declared unit of ``quantity``) the quantity must take; inequality:
            the right-hand side of ``quantity REL target`` (passed as a number in that unit).
        numeric_target: solve: the target is passed as a number (``target=`` with ``preset``/``values``),
            else the equation is solved once with the quantity as a symbol and evaluated at the target;
            inequality: asked at the point (``preset``/``values``), else asked with the target alone
            (symbolic in the other inputs) and its answer evaluated at the point; fixed_point: asked at
            the point, else asked in symbols and its answer evaluated at the point.
        between: boundary: the two regimes.
        to: limit: ``"oo"`` or ``"0"``.
        kind: extremum: ``"max"`` or ``"min"``; inequality: the largest or smallest admissible value
            (``"max"``/``"min"``), or ``None`` for the bound.
        relation: inequality: ``"<="``, ``"<"``, ``">="`` or ``">"``.
    """

    op: str
    model: str
    quantity: str
    variable: str
    point: Point
    target: float | None = None
    numeric_target: bool = False
    between: tuple[str, str] | None = None
    to: str | None = None
    kind: str | None = None
    relation: str | None = None

    def symbolic_key(self) -> tuple[object, ...]:
        """What the symbolic derivation depends on (questions sharing it share the derivation)."""
        if self.op == "solve" and self.numeric_target:
            return (self.op, self.model, self.quantity, self.variable, self.target, self.point)
        if self.op == "fixed_point" and self.numeric_target:
            return (self.op, self.model, self.quantity, self.variable, self.point)
        if self.op == "inequality":  # a target of its own: no derivation is shared
            return (self.op, self.model, self.quantity, self.variable, self.relation, self.kind, self.target, self.numeric_target,
                    self.point if self.numeric_target else None)
        return (self.op, self.model, self.quantity, self.variable, self.between, self.to, self.kind)

    def api_call(self) -> str:
        """The public API call that this question makes (one line, for a reproduction)."""
        head = f"symgpu.load({self.model!r})"
        at = f"preset={self.point.preset!r}, values={self.point.mapping(without=self.variable)!r}"
        if self.op == "solve" and self.numeric_target:
            return f"{head}.solve({self.quantity!r}, for_={self.variable!r}, target={self.target!r}, {at})"
        if self.op == "inequality":
            asked = (f".solve({self.quantity!r}, for_={self.variable!r}, target={self.target!r}, relation={self.relation!r}"
                     + (f", kind={self.kind!r}" if self.kind else ""))
            if self.numeric_target:
                return f"{head}{asked}, {at})"
            return (f"symgpu.derive.evaluate_result(m, m{asked}), {self.point.preset!r}, "
                    f"**{self.point.mapping(without=self.variable)!r})  # m = {head}")
        if self.op == "fixed_point" and self.numeric_target:
            return f"{head}.fixed_point({self.quantity!r}, {self.variable!r}, {at})"
        if self.op == "solve":
            return (f"symgpu.derive.evaluate_result(m, m.solve({self.quantity!r}, for_={self.variable!r}), "
                    f"{self.point.preset!r}, **{self.point.mapping(without=self.variable, extra={self.quantity: self.target})!r})"
                    f"  # m = {head}")
        if self.op == "boundary":
            call = f"m.boundary({self.quantity!r}, between={self.between!r}, for_={self.variable!r})"
        elif self.op == "limit":
            call = f"m.limit({self.quantity!r}, {self.variable!r}, {self.to!r})"
        elif self.op == "regimes":
            call = f"m.regimes({self.quantity!r}, over={self.variable!r})"
        elif self.op == "fixed_point":
            call = f"m.fixed_point({self.quantity!r}, {self.variable!r})"
        else:
            call = f"m.extremum({self.quantity!r}, over={self.variable!r}, kind={self.kind!r})"
        return f"symgpu.derive.evaluate_result(m, {call}, {self.point.preset!r}, **{self.point.mapping(without=self.variable)!r})  # m = {head}"

    def cli(self) -> str:
        """The same question from the shell (the target of a solve given as a number in the quantity's unit)."""
        sets = " ".join(f"--set {k}={v!r}" for k, v in self.point.mapping(without=self.variable).items())
        preset = f" --preset {self.point.preset}" if self.point.preset else ""
        if self.op == "inequality":
            text = (f"symgpu solve {self.model} {self.quantity} --for {self.variable} --target {self.target!r} --relation '{self.relation}'"
                    + (f" --kind {self.kind}" if self.kind else ""))
            if not self.numeric_target:  # the symbolic answer; the API call above evaluates it at the point
                return f"{text}  # then at{preset} {sets}".rstrip()
        elif self.op == "fixed_point":
            text = f"symgpu fixed-point {self.model} {self.quantity} --var {self.variable}"
            if not self.numeric_target:  # the symbolic answer; the API call above evaluates it at the point
                return f"{text}  # then at{preset} {sets}".rstrip()
        elif self.op == "solve":
            text = f"symgpu solve {self.model} {self.quantity} --for {self.variable} --target {self.target!r}"
        elif self.op == "boundary":
            assert self.between is not None
            text = f"symgpu boundary {self.model} {self.quantity} --for {self.variable} --between {' '.join(self.between)}"
        elif self.op == "limit":
            text = f"symgpu limit {self.model} {self.quantity} --var {self.variable} --to {self.to}"
        elif self.op == "regimes":
            text = f"symgpu regimes {self.model} {self.quantity} --over {self.variable}"
        else:
            text = f"symgpu extremum {self.model} {self.quantity} --over {self.variable} --{self.kind}"
        return f"{text}{preset} {sets}".strip()


@dataclass(frozen=True)
class Subject:
    """A (model, quantity, variable) with the points where the quantity evaluates."""

    model: str
    quantity: str
    variable: str
    points: tuple[Point, ...]
    regimes: tuple[str, ...]


def declared_magnitude(model: symgpu.Model, name: str, value: object) -> float:
    """``value`` (number, quantity or quantity string) in ``name``'s declared unit."""
    from symgpu.evaluate import input_values
    return float(input_values.to_magnitude(model, name, value, check=False))


@lru_cache(maxsize=None)
def scenarios(model_id: str) -> tuple[tuple[str | None, tuple[tuple[str, float], ...]], ...]:
    """Every preset alone, then every validation case's preset with its inputs (magnitudes in declared units)."""
    model = symgpu.load(model_id)
    found: list[tuple[str | None, tuple[tuple[str, float], ...]]] = [(p, ()) for p in model.presets]
    for case in model.definition.validation:
        if any(name in model.defining for name, _ in case.inputs):
            continue
        try:
            values = tuple(sorted((n, declared_magnitude(model, n, v)) for n, v in case.inputs))
        except errors.SymgpuError:
            continue
        found.append((case.preset or None, values))
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=None)
def fill_values(model_id: str) -> dict[str, float]:
    """For each input symbol, a value some preset or validation case of the model gives it
    (the first in file order): what a point lacking that input takes."""
    model = symgpu.load(model_id)
    out: dict[str, float] = {}
    for preset in model.presets:
        for name, value in model.preset(preset).items():
            out.setdefault(name, declared_magnitude(model, name, value))
    for _, values in scenarios(model_id):
        for name, value in values:
            out.setdefault(name, value)
    return out


def regime_names(model: symgpu.Model, quantity: str) -> tuple[str, ...]:
    """Names of the top-level limiters or cases of ``quantity``'s equation, as
    :func:`symgpu.evaluate.active.active_regime` names them (only named ones)."""
    equation = model.equation_for(quantity)
    if equation.cases:
        return tuple(c.id for c in equation.cases)
    return tuple(name for name, _ in equation.limiters)


@lru_cache(maxsize=None)
def subjects(model_id: str) -> tuple[Subject, ...]:
    """Every (quantity, variable) of a model with the points that give every input of the
    quantity (whether it is finite there is decided when a question is drawn: :func:`finite_at`)."""
    model = symgpu.load(model_id)
    fill = fill_values(model_id)
    out = []
    for quantity in model.quantities:
        inputs = model.inputs(quantity)
        needed = list(inputs) + [n for n in domain_inputs(model, quantity) if n not in inputs]
        points = []
        for preset, values in scenarios(model_id):
            given = dict(model.constants) | (model.preset(preset) if preset else {}) | dict(values)
            lacking = [n for n in needed if n not in given]
            if any(n not in fill for n in lacking):
                continue
            point_values = dict(values) | {n: fill[n] for n in lacking}
            points.append(Point(preset, tuple(sorted(point_values.items()))))
        if not points:
            continue
        for variable in inputs:
            if model.symbol_definitions[variable].role == "constant":
                continue
            out.append(Subject(model_id, quantity, variable, tuple(dict.fromkeys(points)), regime_names(model, quantity)))
    return tuple(out)


def domain_inputs(model: symgpu.Model, quantity: str) -> list[str]:
    """The inputs that only the ``valid_when`` domains on the way to ``quantity`` read
    (``N >= L_F/t_issue`` of a quantity without ``L_F``): a point gives them too, so that the
    domain is decided there as an answer's conditions are."""
    out: list[str] = []
    for equation in model.dependencies(quantity):
        for condition in equation.valid_when:
            for symbol in sorted(condition.free_symbols, key=str):
                names = model.inputs(symbol.name) if symbol.name in model.defining else [symbol.name]
                out.extend(n for n in names if n not in out and model.symbol_definitions[n].role != "constant")
    return out


@lru_cache(maxsize=None)
def finite_at(model_id: str, quantity: str, point: Point) -> bool:
    """Does the quantity evaluate to a finite number at the point?"""
    try:
        value = symgpu.load(model_id).evaluate(quantity, point.preset, values=dict(point.values)).magnitude
    except errors.SymgpuError:
        return False
    return bool(np.ndim(value) == 0 and np.isfinite(value))


def value_at(model: symgpu.Model, point: Point, name: str) -> float:
    """The value the point gives ``name`` (declared unit)."""
    given = dict(point.values)
    if name in given:
        return given[name]
    merged = dict(model.constants) | (model.preset(point.preset) if point.preset else {})
    return declared_magnitude(model, name, merged[name])


def zeroed_point(model: symgpu.Model, subject: Subject, point: Point, rng: random.Random) -> Point | None:
    """``point`` with one nonnegative (not positive) input other than the variable set to 0 —
    the boundary of its declared range (``M_Write = 0``) — or None if there is none or the
    quantity is not finite there."""
    names = [n for n in model.inputs(subject.quantity)
             if n != subject.variable and "nonnegative" in model.symbol_definitions[n].assumptions
             and "positive" not in model.symbol_definitions[n].assumptions
             and model.symbol_definitions[n].role != "constant"]
    if not names:
        return None
    name = rng.choice(sorted(names))
    values = dict(point.values) | {name: 0.0}
    try:
        value = model.evaluate(subject.quantity, point.preset, values=values).magnitude
    except errors.SymgpuError:
        return None
    if np.ndim(value) or not np.isfinite(value):
        return None
    return Point(point.preset, tuple(sorted(values.items())))


def _ops_for(model: symgpu.Model, subject: Subject, ops: Sequence[str]) -> list[str]:
    """The operations that make sense for a subject (boundary needs named regimes; solve a
    variable that is not declared integer: its roots are real numbers; a fixed point a variable
    of the quantity's own dimension)."""
    integer = "integer" in model.symbol_definitions[subject.variable].assumptions
    out = []
    for op in ops:
        if op in ("boundary", "regimes") and len(subject.regimes) < 2:
            continue
        if op == "solve" and integer:
            continue
        if op == "fixed_point" and model.dimension(subject.variable) != model.dimension(subject.quantity):
            continue
        out.append(op)
    return out


def generate(count: int, seed: int, *, models: Sequence[str] | None = None, ops: Sequence[str] = OPS,
             per_group: int = 5, zero_share: float = 0.15) -> list[Question]:
    """``count`` questions drawn from ``seed``, in groups of up to ``per_group`` questions that
    share one symbolic derivation (same op, model, quantity, variable; different points and
    targets). The target of a solve is the quantity's value at a random admissible value of the
    variable (:mod:`differential_oracle` draws it); the group's first solve passes it as a
    number (``target=``), the others evaluate the symbolic root at it. The group's first fixed
    point is asked at its point, the others in symbols and evaluated at theirs.
    """
    from differential_oracle import draw_variable_value  # the admissible range lives with the grid

    rng = random.Random(seed)
    pool = [s for m in (models or symgpu.list_models()) for s in subjects(m)]
    if not pool:
        raise ValueError("no quantity of the chosen models evaluates at any preset")
    loaded = {m: symgpu.load(m) for m in dict.fromkeys(s.model for s in pool)}  # each model once, not once per subject and op
    by_op = {op: [s for s in pool if op in _ops_for(loaded[s.model], s, (op,))] for op in ops}
    kinds = [op for op in ops if by_op[op]]
    questions: list[Question] = []
    while len(questions) < count:
        op = rng.choice(kinds)  # each kind equally often, then a subject it applies to
        subject = rng.choice(by_op[op])
        model = symgpu.load(subject.model)
        shared = _shared_fields(op, subject, rng)
        if op == "limit" and "integer" in model.symbol_definitions[subject.variable].assumptions:
            shared["to"] = "oo"  # an integer variable does not approach 0
        usable = [p for p in subject.points if finite_at(subject.model, subject.quantity, p)]
        if not usable:
            continue
        for index in range(min(per_group, count - len(questions))):
            point = rng.choice(usable)
            if rng.random() < zero_share:
                point = zeroed_point(model, subject, point, rng) or point
            if op == "inequality":
                drawn = draw_variable_value(model, subject, point, rng)
                if drawn is None:
                    continue
                questions.append(Question("inequality", subject.model, subject.quantity, subject.variable, point, target=drawn[1],
                                          numeric_target=index == 0, relation=rng.choice(RELATIONS),
                                          kind=rng.choice(INEQUALITY_KINDS)))
            elif op == "fixed_point":  # the group's first asked at its point, the others in symbols once
                questions.append(Question("fixed_point", subject.model, subject.quantity, subject.variable, point,
                                          numeric_target=index == 0))
            elif op == "solve":
                drawn = draw_variable_value(model, subject, point, rng)
                if drawn is None:
                    continue
                at, target = drawn
                questions.append(Question("solve", subject.model, subject.quantity, subject.variable, point,
                                          target=target, numeric_target=index == 0))
            else:
                questions.append(Question(op, subject.model, subject.quantity, subject.variable, point, **shared))
    return questions


def _shared_fields(op: str, subject: Subject, rng: random.Random) -> dict[str, object]:
    if op == "boundary":
        a, b = rng.sample(subject.regimes, 2)
        return {"between": (a, b)}
    if op == "limit":
        return {"to": rng.choice(("oo", "0"))}
    if op == "extremum":
        return {"kind": rng.choice(("max", "min"))}
    return {}


def groups(questions: Sequence[Question]) -> Iterator[list[Question]]:
    """Consecutive questions sharing a symbolic key, as lists (the unit of work of ``--jobs``)."""
    current: list[Question] = []
    for q in questions:
        if current and (q.op, q.model, q.quantity, q.variable, q.between, q.to, q.kind) != \
                (current[0].op, current[0].model, current[0].quantity, current[0].variable, current[0].between, current[0].to, current[0].kind):
            yield current
            current = []
        current.append(q)
    if current:
        yield current
