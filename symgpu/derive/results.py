"""Numeric evaluation of derivation results at a preset and/or values, with units."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.derive import at_point, declared_range, exact_roots, point_switches, solve_outside, targets
from symgpu.derive import switch_sides
from symgpu.derive.derivation import Derivation, as_evaluated
from symgpu.derive.extra_records import FlatRange, RootRecord
from symgpu.evaluate import evaluator, input_values
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.derive.rewritten_switch import Rewritten
    from symgpu.model import Model


def _base_magnitudes(model: Model, preset: str | None, values: Mapping[str, Any]) -> dict[str, float]:
    return {k: input_values.base_magnitude(model, k, v) for k, v in input_values.merge_values(model, preset, values).items()}


def _evaluate(model: Model, expr: Any, preset: str | None, values: Mapping[str, Any], unit: str | None = None) -> Any:
    """Magnitude of ``expr`` in ``unit`` (the declared unit it stands for) at a preset / values."""
    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    return evaluator.evaluate_expression(model, expr, unit or None, preset=preset, values=values).magnitude


def result_values(derivation: Derivation, values: Mapping[str, Any] | None) -> dict[str, Any]:
    """``values`` with the derivation's own: a numeric solve target kept as the value of its
    quantity (extra ``target_value``, numbers in the quantity's declared unit) wins over them."""
    merged = dict(values or {})
    target = derivation.extra.target_value
    if target is not None:
        merged[target.name] = float(target.number)
    return merged


def holds_on_ranges(result: Any) -> bool:
    """Is a solve's result a condition on the unknown (``True``, a relation, ``And``/``Or`` of
    them: the relation holds on ranges of it), not a value? A bare symbol is a value (the root
    ``mem_thru = memory_throughput``), although SymPy's ``Symbol`` is also a ``Boolean``."""
    return isinstance(result, (sympy.logic.boolalg.BooleanAtom, sympy.logic.boolalg.BooleanFunction, sympy.core.relational.Relational))


def evaluate_result(model: Model, derivation: Derivation, preset: str | None = None, *, which: str = "result",
                    **values: Any) -> pint.Quantity:
    """Evaluate a derivation's result (or ``which="location"``) numerically, with units.

    Values are numbers in the symbols' declared units, pint quantities or quantity strings;
    they override the preset's values. A solve target kept as its quantity's value
    (:func:`result_values`) is given too, and a quantity the result keeps as a symbol is valued
    at the point from its equation.

    A solve or boundary whose roots each hold in a regime (extra ``roots``) gives only the roots
    that hold at the point, as the command line shows them (:func:`applying_roots`,
    :func:`applying_boundaries`): an array where the result is a tuple of roots, else the one
    value; :class:`symgpu.errors.NoAnswerHere` where none holds there.

    ``values={...}`` (a mapping, as :meth:`Model.evaluate` takes them) is read as those values, not as a symbol named
    ``values`` (round 34g: a notebook user's ``values=`` was refused as "unknown symbol 'values'").
    """
    values, model = result_values(derivation, _spread(model, values)), targets.holding(model, derivation.extra.given_constants)
    if which != "location" and isinstance(derivation.result, (sympy.Basic, dict)) and not holds_on_ranges(derivation.result) \
            and (derivation.operation == "boundary" or _records_of_result(derivation)):
        return _applying_value(model, derivation, preset, values)
    if which == "location":
        expr = derivation.location
        unit_name = derivation.variable
        unit = model.unit_text(unit_name) if unit_name in model.symbols else ""
    else:
        expr = derivation.result
        unit = derivation.unit
    if expr is None and which == "location":  # an extremum approached, not attained; other operations have none
        raise errors.EvaluationError(f"{model.id}: the {derivation.operation} of {derivation.quantity} over {derivation.variable} has no "
                                     + (f"location: {derivation.method}; its result is the value approached"
                                        if derivation.operation == "extremum" else "location; ask for which='result'"))
    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    expr = as_evaluated(model, derivation, expr, "location" if which == "location" else "result")
    return evaluator.evaluate_expression(model, expr, unit or None, preset=preset, values=evaluator.with_kept(model, expr, preset, values))


def _spread(model: Model, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with a mapping given as ``values=`` spread into it; a name given both ways is refused."""
    given = values.get("values")
    if not isinstance(given, Mapping):
        return values
    rest = {k: v for k, v in values.items() if k != "values"}
    twice = sorted(set(rest) & set(given))
    if twice:
        raise errors.UsageError(f"{model.id}: {', '.join(twice)} given both in values= and as a keyword: give each once")
    return {**given, **rest}


def _records_of_result(derivation: Derivation) -> list[RootRecord]:
    """The root records of a solve whose roots are its result (all of them, or those the result
    still holds where a caller replaced it by one of its roots); empty where there are none."""
    records = derivation.extra.roots or ()
    result = derivation.result
    if isinstance(result, sympy.Tuple) or not isinstance(result, sympy.Basic):
        return list(records)
    return [r for r in records if r.root == result]


def _applying_value(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> pint.Quantity:
    """:func:`evaluate_result` of a solve or boundary with regime roots: the roots that hold at the point."""
    records = _records_of_result(derivation)
    if derivation.operation == "boundary":
        found = applying_boundaries(model, derivation, preset, values)
    else:
        found = applying_roots(model, records, preset, values, derivation.unit, derivation.variable)
    flat = applying_ranges(model, derivation, preset, values) if not found and derivation.operation == "solve" else ()
    if flat:  # the command line says so too: a range of roots, no isolated one (a plateau at the target)
        raise errors.NoAnswerHere(f"{model.id}: {derivation.quantity}: no isolated root for {derivation.variable} at "
                                  f"{at_point.where_text(preset, values)}: the relation holds on a range there, for every "
                                  f"{derivation.variable} where {sympy.sstr(flat[0].when)} (regime {flat[0].regime}); its end: solve "
                                  "with relation='>=' or '<=' and kind='min' or 'max'")
    if not found and derivation.operation == "solve" and exact_roots.all_complex(model, records, derivation.variable, preset, values):
        raise errors.NoAnswerHere(f"{model.id}: {derivation.quantity}: no root for {derivation.variable} is a real number at "
                                  f"{at_point.where_text(preset, values)} (each is complex in exact arithmetic, the inputs as the "
                                  "decimals given): no value gives the target there in the regime(s) they solve")
    outside = solve_outside.excluded(model, derivation.quantity, derivation.variable, records, preset, values) \
        if not found and derivation.operation == "solve" and derivation.variable else []
    if outside:  # each root with the condition that excludes it there (its declared sign, regime, valid_when)
        raise errors.NoAnswerHere(f"{model.id}: {derivation.quantity}: no root for {derivation.variable} holds at "
                                  f"{at_point.where_text(preset, values)}: {'; '.join(outside)}")
    if not found:
        raise errors.NoAnswerHere(f"{model.id}: {derivation.quantity}: no root for {derivation.variable} lies in its regime at "
                                  f"{at_point.where_text(preset, values)}: the regime conditions, or the model's domain there, fail for each "
                                  "(print the derivation to see them)")
    if isinstance(derivation.result, (sympy.Tuple, dict)) or len(found) > 1:
        return np.array([float(r.value.magnitude) for r in found]) * found[0].value.units
    return found[0].value


@dataclass(frozen=True)
class RootValue:
    """One root of a solve or boundary that applies at a point.

    Attributes:
        regime: the regime (or case switch) the root belongs to.
        root: the root, symbolic.
        value: its value at the point, in the variable's declared unit.
        because: the conditions of the regime, evaluated at the point (why it applies).
    """

    regime: str
    root: sympy.Expr
    value: pint.Quantity
    because: str


def roots_of(derivation: Derivation) -> list[RootRecord] | None:
    """The root records of a solve or boundary (None where it has none)."""
    roots = derivation.extra.roots
    return None if roots is None else list(roots)


def applying_roots(model: Model, roots: Sequence[RootRecord], preset: str | None, values: Mapping[str, Any],
                   unit: str | None, variable: str | None = None, *, whole: bool = True) -> tuple[RootValue, ...]:
    """The roots whose regime conditions (and ``valid_when`` domain: :func:`inside_domain`) hold at the preset / values, each evaluated there
    (the conditions decided numerically by :func:`symgpu.evaluate.active.condition_holds`, the
    rule every regime question uses: :func:`root_holds`); a root found in two regimes with the
    same value at the point is given once, under the first. A root that is not a finite number
    there (0/0 where an input is 0), or that breaks the declared sign of ``variable`` (a negative
    latency), or (``whole``) is no whole number where ``variable`` is declared integer, is no root at the point
    (a boundary's value may lie between two whole values: ``whole=False``). Its value is :func:`exact_roots.refined` where IEEE arithmetic cancelled; one IEEE
    arithmetic gives no number at all (near a double root) is decided in exact arithmetic (:func:`exact_roots.recovered`)."""
    out: list[RootValue] = []
    exact_unit = variable is not None and unit == model.unit_text(variable)
    # the quantities the roots and their conditions keep as symbols (Volkov's Latency in the boundary
    # n = Latency*mem_thru, a --target naming one), valued at the point where they can be
    values = evaluator.with_kept(model, sympy.Tuple(*[x for r in roots for x in (r.root, r.when, r.inside) if isinstance(x, sympy.Basic)]),
                                 preset, values, free_of=variable, where_valued=True)
    side = active.sides_at(model, preset, values)  # each distinct side evaluated once for all the records
    for record in roots:
        holds, shown = active.condition_verdict(record.when, side, model.id)
        again = exact_unit and record.conditions is not None and _tied(record.when, side)
        lost = None  # a root IEEE arithmetic gives no number, decided in exact arithmetic (exact_roots.recovered)
        if not again and (not holds or not inside_domain(model, record.inside, preset, values)):
            lost = exact_roots.recovered(model, record, variable, preset, values) if exact_unit and variable is not None else None
            if lost is None or not lost.holds:
                continue
            shown = lost.shown
        value = evaluator.evaluate_expression(model, record.root, unit or None, preset=preset, values=values)
        number = float(value.magnitude) if lost is None else lost.value
        if exact_unit:
            assert variable is not None
            number = exact_roots.refined(model, record.root, variable, preset, values, number)
            value = number * value.units
        if not admissible(model, variable, number) or whole and exact_unit and not _whole_if_integer(model, variable, number):
            continue
        if again:
            assert variable is not None
            holds, shown = root_holds(model, record, preset, values, variable, number, side)
            if not holds:
                continue
        if any(abs(value.magnitude - o.value.magnitude) <= 1e-12 * max(abs(value.magnitude), abs(o.value.magnitude)) for o in out):
            continue
        out.append(RootValue(record.regime, record.root, value, shown))
    return tuple(out)


def _whole_if_integer(model: Model, variable: str | None, number: float) -> bool:
    """Is ``number`` (in ``variable``'s declared unit) a whole number where ``variable`` is declared integer
    (Perez & Piccoli's SP_count: a root of 136.17 processors is no root)? Within 1e-9, relative."""
    assumptions = model.symbol_definitions[variable].assumptions if variable in model.symbol_definitions else ()
    return "integer" not in assumptions or abs(number - round(number)) <= 1e-9 * max(abs(number), 1.0)


def admissible(model: Model, variable: str | None, number: float) -> bool:
    """Is ``number`` a finite value that keeps ``variable``'s declared sign (none: any finite value)?"""
    assumptions = set(model.symbol_definitions[variable].assumptions) if variable in model.symbol_definitions else set()
    return math.isfinite(number) and not ("positive" in assumptions and number <= 0) and not ("nonnegative" in assumptions and number < 0)


def root_holds(model: Model, record: RootRecord, preset: str | None, values: Mapping[str, Any], variable: str,
               number: float, side: Any = None) -> tuple[bool, str]:
    """Do a root's regime conditions and domain hold at the point? (verdict, shown numbers.) Its
    conditions with the root put in (``when``) decide, unless the sides of one of them tie in IEEE
    arithmetic and the regime's conditions in the unknown (``conditions``), decided at the root's
    value ``number`` (declared unit of ``variable``), do not tie: written in the target's terms,
    Huang's printed CPI at ``alpha = 1e9`` has sides of 1e55 that tie, while at the root's value the
    regime is plain. A boundary's root lies where its regime's conditions tie by construction, and
    there ``when`` (tidied symbolically) decides. ``side``: the point's :func:`active.sides_at`, shared
    with a caller that decided other conditions there."""
    side = side or active.sides_at(model, preset, values)
    holds, shown = active.condition_verdict(record.when, side, model.id)
    if record.conditions is not None and _tied(record.when, side):
        at = active.sides_at(model, preset, {**values, variable: number})
        if not _tied(record.conditions, at):
            holds, shown = active.condition_verdict(record.conditions, at, model.id)
    return holds and inside_domain(model, record.inside, preset, values), shown


def _tied(condition: Any, side: Any) -> bool:
    """Do the two sides of one of ``condition``'s relations tie (within :data:`active.TIE`) by ``side``?"""
    relations = condition.atoms(sympy.core.relational.Relational) if isinstance(condition, sympy.Basic) else ()
    return any(_tie(r, side) for r in relations)


def _tie(relation: Any, side: Any) -> bool:
    try:
        return bool(active.condition_verdict(sympy.Eq(relation.lhs, relation.rhs, evaluate=False), side, shown=False)[0])
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):
        return False


def boundary_candidates(model: Model, derivation: Derivation, preset: str | None,
                        values: Mapping[str, Any]) -> list[RootValue]:
    """A ``boundary`` answer's values at the preset / values before any switch is checked: the
    per-case roots whose conditions hold there, else every value of the result."""
    variable = derivation.variable
    unit = model.unit_text(variable) if variable in model.symbols else None
    records = roots_of(derivation)
    if records is not None:  # a switch over a variable declared integer may lie between two whole values
        return list(applying_roots(model, records, preset, values, unit, variable, whole=False))
    result = derivation.result
    items = list(result.items()) if isinstance(result, dict) else [(derivation.quantity, result)]
    return [RootValue(r.regime, r.root, r.value, r.because) for r in applying_roots(
        model, [RootRecord(str(label), part) for label, item in items
                for part in (item.args if isinstance(item, sympy.Tuple) else (item,))], preset, values, unit, variable, whole=False)]


def inside_domain(model: Model, domain: Any, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Do a root's ``valid_when`` conditions (extra ``roots``' ``domain``) hold at the preset /
    values? As :func:`symgpu.evaluate.evaluator.evaluate` checks them: a condition lacking a value
    there (``W <= W_max`` with no ``W_max``) is not checked."""
    return active.conditions_hold(model, sympy.And.make_args(domain), preset, values)


def applying_boundaries(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any],
                        rewritten: Rewritten | None = None) -> tuple[RootValue, ...]:
    """The boundary values of a ``boundary`` answer where, at the preset / values, the quantity
    really switches between the two named regimes; none named, every value where its regime changes
    (:func:`symgpu.derive.point_switches.switches`, the answer's values and a scan), labelled ``below|above``. Each candidate (the per-case roots whose conditions hold, else every value of the result) is kept
    where the active regime (:func:`symgpu.evaluate.active.active_regime`) just below and just above
    (:func:`symgpu.evaluate.active.boundary_sides`), or at the value itself where both sides agree, is
    the named pair (regimes of the quantity's own equation), or otherwise (``rewritten``: the quantity as
    ``--substitute``/``--omit`` rewrote it, :func:`symgpu.derive.rewritten_switch.expression`) where
    :func:`symgpu.evaluate.active.binding` differs on the two sides or, where they agree, at the value itself."""
    variable, between = derivation.variable, derivation.extra.between
    name = model.equation_for(derivation.quantity).definition.defines if derivation.quantity in model.defining or \
        derivation.quantity in model.equations else None
    equation = model.equation_for(name) if name is not None else None
    own = set()
    if equation is not None and rewritten is None:
        own = set(active.argument_labels(equation)) if isinstance(equation.rhs, (sympy.Min, sympy.Max)) else {c.id for c in equation.cases}
    expr = rewritten.expression if rewritten is not None else \
        model.expression(name, stop_at=tuple(n for n in (variable,) if n in model.defining)) if name is not None else None
    kept: list[RootValue] = []
    scanned = rewritten is None and expr is not None and name is not None and not declared_range.of(model, variable).integer
    if between is None and scanned:  # none named: every change of regime (F3, F4, F13)
        return _scanned(model, derivation, preset, values, name, expr)
    for candidate in boundary_candidates(model, derivation, preset, values):
        b = float(candidate.value.magnitude)
        around = active.boundary_sides(model, variable, b)
        if not all(rewritten.has_value(model, variable, x, preset, values) if rewritten else point_switches.has_value(model, name, variable, x, preset, values) for x in {b, *around}):
            continue  # at or beside it outside a valid_when domain (MDM's W <= W_max) or the declared sign: no switch the model makes
        sides = [{**values, variable: x} for x in around]
        pair = set(between) if between is not None else set(candidate.regime.split("|")) if "|" in candidate.regime else set()
        try:
            if own and name is not None:  # regimes of the quantity's own equation: the active one must switch (to the named pair)
                regimes = switch_sides.regimes_beside(model, name, variable, b, preset, values)
                composite = switch_sides.composite_switch(model, name, pair, preset, sides)
                if regimes[0] != regimes[1] and (composite if composite is not None else
                                                 not pair or not pair <= own or switch_sides.switches_between(regimes[0], regimes[1], pair)
                                                 or switch_sides.first_named_switch(model, name, preset, sides, pair, regimes)):
                    kept.append(candidate)
            elif expr is not None:  # the binding argument differs on the two sides, or at the value itself (holding there only)
                below, above = (active.binding(model, expr, preset, side) for side in sides)
                if below != above or (around[0] != b and active.binding(model, expr, preset, {**values, variable: b}) != below):
                    kept.append(candidate)
        except errors.DomainError:  # outside a valid_when domain the model gives no value: no boundary there
            continue
        except errors.EvaluationError:  # the point lacks an input the regimes need (not the boundary): not decided here
            if name is None or rewritten is not None or not switch_sides.undefined_beside(model, name, preset, sides):
                kept.append(candidate)
    if not kept and between is not None and scanned and not set(between) <= own:  # a nested pair may change places inside a limiter (F3)
        return _scanned(model, derivation, preset, values, name, expr, tuple(between))
    return tuple(kept)


def _scanned(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any], name: str | None,
             expr: sympy.Basic | None, pair: Sequence[str] | None = None) -> tuple[RootValue, ...]:
    """The switches :func:`symgpu.derive.point_switches.switches` finds at the point (of ``pair`` where named), the answer's
    values among them as given; none without the quantity's name and expression."""
    if name is None or expr is None:
        return ()
    found, variable = boundary_candidates(model, derivation, preset, values), derivation.variable
    return tuple(dataclasses.replace(found[s.candidate], regime=s.label) if s.candidate is not None else RootValue(
        s.label, sympy.Float(s.value), units.registry().Quantity(s.value, model.unit_text(variable)), "a change of regime the scan finds")
        for s in point_switches.switches(model, name, expr, variable, [(float(c.value.magnitude), c.regime) for c in found], preset,
                                         values, pair))


@dataclass(frozen=True)
class Switch:
    """The regimes of a quantity's own equation that bind on the two sides of a value the boundary
    answer gives (:func:`symgpu.evaluate.active.boundary_sides`), at a point.

    Attributes:
        value: the answer's value of the variable, in its declared unit.
        below: the regimes binding just below it (at the value itself where both sides agree).
        above: those binding just above it.
    """

    value: float
    below: frozenset[str]
    above: frozenset[str]

    def between(self, pair: Sequence[str]) -> bool:
        """Is it a switch between the two regimes of ``pair`` (each binding on one side only)?"""
        return switch_sides.switches_between(self.below, self.above, set(pair))


def switches_beside(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> tuple[Switch, ...]:
    """At each value a ``boundary`` answer gives at the point (:func:`boundary_candidates`), the
    regimes of the quantity's own equation binding on its two sides, where they differ: what does
    switch there, for a refusal to name when it is not the pair asked for. Values where the
    regimes cannot be read are left out."""
    name = derivation.quantity
    if name not in model.defining or not isinstance(model.equation_for(name).rhs, (sympy.Min, sympy.Max)) and not model.equation_for(name).cases:
        return ()
    found = []
    try:
        candidates = boundary_candidates(model, derivation, preset, values)
    except errors.SymgpuError:
        return ()
    for candidate in candidates:
        b = float(candidate.value.magnitude)
        try:
            below, above = switch_sides.regimes_beside(model, name, derivation.variable, b, preset, values)
        except errors.SymgpuError:
            continue
        if below != above:
            found.append(Switch(b, below, above))
    return tuple(found)


@dataclass(frozen=True)
class Tie:
    """Two named limiters of a boundary question that bind together (equal within
    :data:`symgpu.evaluate.active.TIE`): no boundary separates them there.

    Attributes:
        binding: the one reported as binding (the first of the two in the model file's order).
        other: the other one.
        value: their common value, in the quantity's declared unit.
        at: the variable's value where they were found tied (a candidate boundary's side), None at the point itself.
    """

    binding: str
    other: str
    value: float
    at: float | None = None


def tied_limiters(model: Model, derivation: Derivation, between: Sequence[str], preset: str | None,
                  values: Mapping[str, Any]) -> Tie | None:
    """The two limiters ``between`` of the quantity's own ``Min``/``Max`` where they bind together
    (the active one and the runner-up equal within ``TIE``: Hong & Kim's ``MWP_pw`` at
    ``ind_mem_req = mem_req/2``, where ``N_pw = N`` and the departure bound is capped at ``N``):
    at the point when it gives the variable, else just beside a value the answer gives. None where
    they are nowhere tied there (or the point lacks an input)."""
    variable = derivation.variable
    if derivation.quantity not in model.defining or not isinstance(model.equation_for(derivation.quantity).rhs, (sympy.Min, sympy.Max)):
        return None
    # every value the answer gives, its conditions aside (at a tie they are tied too)
    roots = derivation.extra.roots
    unconditioned = derivation if roots is None else dataclasses.replace(
        derivation, extra=derivation.extra.with_(roots=tuple(dataclasses.replace(r, when=sympy.true) for r in roots)))
    tried: list[tuple[float | None, dict[str, Any]]] = [(None, dict(values))]
    try:
        tried += [(x, {**values, variable: x}) for c in boundary_candidates(model, unconditioned, preset, values)
                  for x in active.boundary_sides(model, variable, float(c.value.magnitude))]
    except errors.SymgpuError:
        pass
    for x, at in tried:
        try:
            name, value, runner_up, ratio = active.active_regime(model, derivation.quantity, preset, **at)
        except errors.SymgpuError:
            continue
        if runner_up is not None and ratio is not None and {name, runner_up} == set(between) and active.tied(ratio, 1.0):
            return Tie(name, runner_up, value, x)
    return None


def applying_ranges(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> tuple[FlatRange, ...]:
    """The flat regimes of a solve (extra ``ranges``: a regime whose value does not depend on the
    unknown) whose two sides are equal at the preset / values: there the relation holds for every
    value of the unknown that meets the regime's conditions (``when``), a range of roots."""
    merged = result_values(derivation, values)
    return tuple(f for f in derivation.extra.ranges or () if active.condition_true(
        model, f.equal, preset, evaluator.with_kept(model, f.equal, preset, merged, free_of=derivation.variable)))
