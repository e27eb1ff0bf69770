"""The boundary check (:mod:`.certify` runs it at each point): at each boundary the answer gives,
two named limiters of the quantity's Min/Max (or of the one it reaches through sums and products) cross (their difference changes sign), or else the
regime :func:`symgpu.evaluate.active.binding` names differs on the two sides
(:func:`symgpu.evaluate.active.boundary_sides`) or at the boundary itself, and between the regimes
named (:func:`symgpu.derive.switch_sides.composite_switch`). Where two arguments that do not bind cross
the certificate says so. One rule for a boundary of a regime pair where the regime is the same on both sides: it is
left aside where the two are tied on both sides (:func:`_tied_beside`), said so, or where one regime of the pair
holds on neither side (:func:`_absent`), and refused otherwise. Brute force on :mod:`symgpu.evaluate` only."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.derive import declared_range, point_switches, regime_split, results, solving, staircase_boundary, switch_sides
from symgpu import errors
from symgpu.derive.certify_path import Asked, _fail, _inside, _Point, _result_at, _roots_at, _with, at_a_point
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active, evaluator, regime_path

if TYPE_CHECKING:
    from symgpu.model import Model


def boundary(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> str | None:
    """Check the boundaries at ``point``: each switches the regime there (module doc); None where none could be checked."""
    keep = tuple(n for n in (asked.variable,) if n in model.defining)  # a defined quantity as the variable stays a symbol
    expr = model.expression(asked.quantity, stop_at=keep)
    pair = _limiter_pair(model, asked.quantity, derivation.extra.between, keep)
    checked = 0
    ends: list[float] = []  # boundaries at an end of the variable's declared range: checked from the side inside it
    crossings: list[float] = []  # two arguments' order switches, but the binding argument does not
    ties: list[float] = []  # two regimes of a pair equal on both sides: no switch between them
    pairs = _pairs_at(model, derivation, asked, point)
    table = _regime_table(model, asked)
    for number in _roots_at(model, derivation, asked, point, {}):
        if not declared_range.of(model, asked.variable).holds(np.asarray([number]))[0]:
            continue  # outside the variable's declared sign (Hong & Kim's -0 cycle/txn where Coal_Mem_insts = 0): no boundary here
        around = active.boundary_sides(model, asked.variable, number)
        if not _inside(model, asked, point, np.asarray([number, *around])).all():  # no value there or beside it: no switch here
            continue
        if pair is not None:  # two named arguments of the quantity's Min/Max: their difference changes sign here
            gaps = [float(evaluator.evaluate_expression(model, pair, None, preset=point.preset,
                                                        values=_with(model, asked, point, x)).magnitude) for x in around]
            if any(np.isnan(gaps)):  # no number on one side (0/0 at the end of a range): nothing to check there
                continue
            if not (gaps[0] * gaps[1] < 0 or (gaps[0] == 0) != (gaps[1] == 0)):  # a sign change, or a tie on one side only
                raise _fail(model, asked, point, f"the two named limiters do not cross at {asked.variable} = {number:.10g} "
                            f"(their difference is {gaps[0]:.6g} below and {gaps[1]:.6g} above)")
        else:
            sides = [active.binding(model, expr, point.preset, _with(model, asked, point, x)) for x in around]
            if sides[0] == sides[1] and around[0] != number:  # a regime that holds at the boundary only (Eq(x, 1))
                sides[1] = active.binding(model, expr, point.preset, _with(model, asked, point, number))
            if sides[0] == sides[1] and number in pairs:  # no switch here: left aside where the pair's regimes cannot switch here
                if all(_tied_beside(model, asked, point, key, around) for key in pairs[number]):
                    ties.append(number)  # two regimes equal on both sides here (Baghsorkhi's alu = Max(4, 20/n) at n = 5): no switch
                    continue
                if all(_absent(model, asked, point, key, around, table) for key in pairs[number]):
                    continue  # one of them holds on neither side (module doc, _absent)
            tie_end = sides[0] == sides[1] and _tie_ends(model, asked, point, derivation.extra.between, around)
            if sides[0] == sides[1] and not tie_end:
                raise _fail(model, asked, point, f"the regime is the same just below and just above the boundary {asked.variable} = {number:.10g}")
            values = [_with(model, asked, point, x) for x in around]  # at the declared range's end: the end and the side inside
            if switch_sides.composite_switch(model, asked.quantity, derivation.extra.between, point.preset, values) is False:
                if at_a_point(asked):  # the command line refuses it, naming the switch there (results.applying_boundaries)
                    continue
                raise _fail(model, asked, point, f"the regime switches at {asked.variable} = {number:.10g}, but not between the named regimes")
            if not tie_end and len({active.binding(model, expr, point.preset, v, binding_only=True) for v in values}) == 1:
                crossings.append(number)
                continue
        checked += 1
        if around[0] == number:
            ends.append(number)
    scan = _scanned(model, derivation, asked, point, expr, _roots_at(model, derivation, asked, point, {}))
    if scan is not None:  # at a point with no pair named, the answer shown is the scan's (results.applying_boundaries)
        return scan
    if not checked and not crossings and not ties:
        return None
    if ends and checked == 1 and not crossings and not ties:  # no side below: the switch is between the end and the side inside
        return (f"the regime switches at the boundary, the end of {asked.variable}'s declared range ({asked.variable} = "
                f"{_numbers(ends)}): between its value there and just inside the range")
    if not crossings and not ties:
        return f"the regime switches at {'each of ' + str(checked) + ' boundaries' if checked > 1 else 'the boundary'}"
    said = [f"the regime switches at {checked} of {checked + len(crossings) + len(ties)} boundaries"]
    if crossings:
        said.append(f"at {asked.variable} = {_numbers(crossings)} arguments that do not bind there cross")
    if ties:
        said.append(f"at {asked.variable} = {_numbers(ties)} the two regimes are equal on both sides (a tie, not a switch)")
    return "; ".join(said)


def _scanned(model: Model, derivation: Derivation, asked: Asked, point: _Point, expr: sympy.Basic, closed: list[float]) -> str | None:
    """At a point with no pair named (no substitution, a continuous variable), what the answer shown there is and how it was
    checked: the values where a scan of the regime (the binding argument of every reached Min/Max, the case of every case table,
    :func:`symgpu.derive.point_switches.switches`) changes, each change bisected, the answer's own values (``closed``) among the
    scan's candidates; each checked here again to differ on its two sides (:func:`symgpu.evaluate.active.boundary_sides`) or at
    the value itself. None for another question (its closed form's values are the answer)."""
    if not at_a_point(asked) or derivation.extra.between is not None or asked.substitute or declared_range.of(model, asked.variable).integer:
        return None
    values = dict(point.values)
    try:
        found = [float(r.value.magnitude) for r in results.applying_boundaries(model, derivation, point.preset, values)]
        lo, hi, n = point_switches.scanned(model, asked.variable, [float(c.value.magnitude) for c in
                                                                    results.boundary_candidates(model, derivation, point.preset, values)])
    except (errors.SymgpuError, ArithmeticError, TypeError, ValueError):  # no scan of the regime there: the closed form's check
        return None
    for b in found:
        around = active.boundary_sides(model, asked.variable, b)
        below, above, at = regime_path.codes(model, expr, asked.variable, [*around, b], point.preset, values)
        if below == above and (around[0] == b or at == below):
            raise _fail(model, asked, point, f"the regime is the same just below and just above the switch {asked.variable} = {b:.10g} the scan found")
    closed = [x for x in closed if declared_range.of(model, asked.variable).holds(np.asarray([x]))[0]]  # -0 aside (no value there)
    others = [x for x in closed if not any(abs(x - b) <= point_switches.NEAR * max(abs(b), 1e-12) for b in found)]
    said = (f"a {n}-point scan of the regime over {asked.variable} = {_short(lo)} .. {_short(hi)}, each change bisected: "
            + (f"it switches at {asked.variable} = {_numbers(found)}, the regime differing on the two sides" if found else "no switch"))
    return said + (f"; the closed form's {_numbers(others)} {'is no switch' if len(others) == 1 else 'are no switches'} here" if others else "")


def _short(x: float) -> str:
    """``x`` to 3 digits, its exponent without leading zeros (``6.9e-7``: no ``-0`` that reads as a value)."""
    return f"{x:.3g}".replace("e-0", "e-").replace("e+0", "e+")


def _numbers(found: list[float]) -> str:
    """The distinct numbers of ``found``, ascending, to 6 digits."""
    return ", ".join(dict.fromkeys(f"{x:.6g}" for x in sorted(found)))


def _limiter_pair(model: Model, quantity: str, between: Any, keep: tuple[str, ...]) -> sympy.Expr | None:
    """``A - B`` (expanded) for two named limiters of the quantity's own Min/Max, or of the one it reaches
    through no other Min/Max or case table (:func:`symgpu.derive.staircase_boundary.limiter_owner`), else None."""
    owner = staircase_boundary.limiter_owner(model, quantity, between) or quantity
    pair = solving.named_limiters(model, owner, tuple(between) if between else None)
    if pair is None:
        return None
    a, b = pair
    expanded = {s: model.expression(s.name, stop_at=keep) for s in (a - b).free_symbols if s.name in model.defining and s.name not in keep}
    return (a - b).xreplace(expanded)


def _pairs_at(model: Model, derivation: Derivation, asked: Asked, point: _Point) -> dict[float, list[str]]:
    """Each value of an answer given per regime pair (``A|B``: a dict) at the point, with the pairs that give it."""
    if not isinstance(derivation.result, dict):
        return {}
    found: dict[float, list[str]] = {}
    for key, item in derivation.result.items():
        for root in item.args if isinstance(item, sympy.Tuple) else (item,):
            try:
                number = _result_at(model, derivation, root, model.units[asked.variable], point, {})
            except errors.SymgpuError:
                continue
            found.setdefault(number, []).append(str(key))
    return found


def _owners(model: Model) -> dict[str, list[str]]:
    """Each limiter name of a Min/Max equation of the model, with the quantities whose equation names it."""
    owners: dict[str, list[str]] = {}
    for name in model.defining:
        equation = model.equation_for(name)
        if isinstance(equation.rhs, (sympy.Min, sympy.Max)) and equation.limiters:
            for label in active.argument_labels(equation):
                owners.setdefault(label, []).append(name)
    return owners


def _binds_beside(model: Model, asked: Asked, point: _Point, key: str, around: Any) -> list[list[bool]] | None:
    """For each limiter of the two regimes of pair ``key`` (``A|B``, each ``limiter+limiter...``) that exactly one
    Min/Max of the model names, whether it binds just below and just above the boundary; None where a value is missing."""
    owners = _owners(model)
    found: list[list[bool]] = []
    for regime in key.split("|"):
        for part in regime.split("#")[0].split("+"):
            if len(owners.get(part, [])) != 1:
                continue
            try:
                found.append([part in active.binding_names(model, owners[part][0], point.preset, **_with(model, asked, point, x))
                              for x in around])
            except errors.SymgpuError:
                return None
    return found


def _tie_ends(model: Model, asked: Asked, point: _Point, between: Any, around: Any) -> bool:
    """Does a limiter of the two named regimes bind on one side of the boundary and not on the other, where the regime
    the Min/Max's order names is the same on both (the end of a tie of two staircases: both bind below, one alone
    above, :mod:`symgpu.derive.regime_switch`'s convention)? False where a name is generated or a value missing."""
    if not isinstance(between, (tuple, list)) or len(between) != 2:
        return False
    binds = _binds_beside(model, asked, point, "|".join(between), around)
    return binds is not None and len(binds) >= 2 and any(b[0] != b[1] for b in binds)


def _tied_beside(model: Model, asked: Asked, point: _Point, key: str, around: Any) -> bool:
    """Whether the two regimes of pair ``key`` differ only in limiters that bind together on both sides of the boundary
    (a tie over the whole neighbourhood, not a switch). False where a name is generated or a value missing."""
    regimes = key.split("|")
    if len(regimes) != 2:
        return False
    parts = [set(r.split("#")[0].split("+")) for r in regimes]
    differing = "|".join("+".join(sorted(p - parts[1 - i])) for i, p in enumerate(parts))
    if not all(differing.split("|")):
        return False
    binds = _binds_beside(model, asked, point, differing, around)
    return binds is not None and len(binds) == len(parts[0] ^ parts[1]) > 0 and all(all(b) for b in binds)


def _absent(model: Model, asked: Asked, point: _Point, key: str, around: Any, table: Callable[[], dict[str, Any]]) -> bool:
    """Whether one of the two regimes of pair ``key`` (``A|B``, each ``limiter+limiter...``) holds on neither side of the
    boundary, by either reading of a regime: one of its limiters, named by exactly one Min/Max of the model, binds on
    neither side (an inner ``Min`` the variable does not move: kernel_gemm's clock bound where its power bound binds), or
    its conditions in the quantity's regime table (``table``, :func:`_regime_table`, built once per check and only where the
    limiters do not tell) fail on both sides (Zhang & Owens' latency-bound arithmetic at n = 32). False where neither
    reading decides it (a generated name such as ``max_arg1``, a regime the table does not name, a condition undecided there)."""
    binds = _binds_beside(model, asked, point, key, around)
    if binds is not None and any(not any(b) for b in binds):
        return True
    try:
        for name in key.split("|"):
            regime = table().get(name)
            if regime is None:  # a regime the table does not name: the table does not tell
                return False
            if not any(
                    all(active.condition_true(model, c, point.preset, _with(model, asked, point, x)) for c in regime.conditions)
                    for x in around):
                return True
    except errors.SymgpuError:
        return False
    return False


def _regime_table(model: Model, asked: Asked) -> Callable[[], dict[str, Any]]:
    """The quantity's regime table over the variable, with the question's substitutions and assumptions
    (:func:`symgpu.derive.regime_split.regimes`), by name: built on the first call only (a refusal's path needs it)."""
    built: list[dict[str, Any]] = []

    def table() -> dict[str, Any]:
        if not built:
            built.append({r.name: r for r in regime_split.regimes(model, asked.quantity, over=asked.variable,
                                                                   substitute=dict(asked.substitute), assume=asked.assume).regimes})
        return built[0]
    return table
