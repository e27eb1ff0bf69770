"""The form a derivation's result is shown in, settled as the derivation finishes: a Min/Max among constants of known
value compared by those values (``Min(lit_200_ns, lit_500_ns)`` is ``lit_200_ns``: 200 ns < 500 ns, which SymPy, seeing two
positive symbols, cannot tell), and the unit the formula is written in (:func:`symgpu.evaluate.scaling.written_unit`).
Each change is said as a step."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import pint
import sympy

from symgpu import errors, units
from symgpu.memo import MemoFamily
from symgpu.evaluate import scaling
from symgpu.model import substitution
from symgpu.proofs import forms, rational_value

if TYPE_CHECKING:
    from symgpu.derive.extras import Extras
    from symgpu.model import Model


def settled(model: Model, result: sympy.Basic, unit: str) -> tuple[sympy.Basic, str, list[tuple[str, sympy.Basic, str]]]:
    """``result`` with its Min/Max of known constants folded and the unit it is written in, with a step
    (operation, expression, why) for each change."""
    steps: list[tuple[str, sympy.Basic, str]] = []
    folded = known_constants_folded(model, result)
    if folded is not result and folded != result:
        steps.append(("known constants", folded, "a Min/Max of constants of the model compared by their values, exactly"))
        result = folded
    decided = known_cases_decided(model, result)
    if decided is not result and decided != result:
        steps.append(("known constants", decided, "each case condition that compares constants of the model alone decided "
                      "by their values, exactly: a false case dropped, the cases after a true one too"))
        result = decided
    if unit not in ("", "1") and (written := scaling.written_unit(model, result, unit)) != unit:
        steps.append(("unit of the result", result, f"its bare numbers are in {written} (the terms' beside them), not in "
                      f"{unit}: the result is written, and its value given, in {written}"))
        unit = written
    elif unit not in ("", "1") and (own := scaling.symbols_unit(model, result, unit)) != unit:
        read = sorted((s for s in forms.free_symbols(result) if s.name in model.units), key=lambda s: s.name)
        said = ", ".join(f"{s.name} in {model.unit_text(s.name)}" for s in read[:MAX_NAMED])
        steps.append(("unit of the formula", result, f"with each symbol in its declared unit ({said}"
                      f"{', ...' if len(read) > MAX_NAMED else ''}) the formula gives {own}, not {unit}: it is shown in "
                      f"{own}; its value is given in {unit}"))
    return result, unit, steps


def of_constants(model: Model, names: Iterable[str]) -> bool:
    """Whether ``names`` (what an expression or a question reads beside the variable asked about and the names it
    substitutes) are one or more constants of the model (a ``[constants]`` entry, a literal made one: ``lit_500_ns``): what
    reads only them has a value with no preset and no values given, the constants' own. The one rule by which a result is
    shown with its value at no point (``lit_100_ns + lit_500_ns``), a limit's case edge is decided by the constants' values
    (``L < lit_500_ns``) and a question is certified at the model's constants alone."""
    listed = set(names)
    return bool(listed) and listed <= set(model.constants)


def exact_value(model: Model, symbol: Any) -> tuple[Any, Fraction] | None:
    """(dimension, exact base-unit value) of a constant of the model, or None for anything else."""
    if not isinstance(symbol, sympy.Symbol) or symbol.name not in model.constants:
        return None
    value = model.constants[symbol.name]
    magnitude = value.magnitude
    if isinstance(magnitude, bool) or not isinstance(magnitude, (int, float)) or magnitude != magnitude or abs(magnitude) == float("inf"):
        return None
    unit = cast(pint.Unit, value.units)
    return unit.dimensionality, Fraction(repr(magnitude)) * units.base_factor(unit)


def known_constants_folded(model: Model, expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with, in each Min/Max, the constants of known value of one dimension reduced to the one that wins (the
    smallest for Min, the largest for Max); the Min/Max rebuilt as :mod:`symgpu.model.substitution` builds it. A fold
    inside a fold (a Min in a Max) is found on the next pass."""
    if not model.constants or not expr.has(sympy.Min, sympy.Max):
        return expr
    for _ in range(MAX_PASSES):
        folded = _one_pass(model, expr)
        if folded is expr:
            break
        expr = folded
    return expr


def known_cases_decided(model: Model, expr: Any) -> Any:
    """``expr`` with each ``Piecewise`` case whose condition reads constants of the model alone (and numbers) decided by
    their exact values in base units (``lit_2_us >= lit_2p5_us`` is false): a false case dropped, the cases after a true one
    too (the first that holds is the value); a Piecewise whose every case is decided false is left as it is. An outside
    tester's finding (round 13, F5, F6): such conditions, opaque to SymPy, made a 7000-character answer and a false one."""
    if not isinstance(expr, sympy.Basic) or not model.constants or not expr.has(sympy.Piecewise):
        return expr
    memo = _constants_memo(model)
    known = {s for s, v in memo.items() if v is not None}

    def decided(node: sympy.Basic) -> sympy.Basic:
        if not node.has(sympy.Piecewise):
            return node
        if not isinstance(node, sympy.Piecewise):
            args = [decided(a) for a in node.args]
            return node if all(a is b for a, b in zip(args, node.args)) else node.func(*args)
        kept: list[tuple[Any, Any]] = []
        for value, condition in node.args:
            holds = rational_value.truth(condition, memo) if forms.free_symbols(condition) <= known else None
            if holds is not False:
                kept.append((decided(value), sympy.true if holds else condition))
            if holds:
                break
        if not kept:
            return node
        if len(kept) == len(node.args) and all(v is a[0] and c is a[1] for (v, c), a in zip(kept, node.args)):
            return node  # nothing decided: the table as it was, not rebuilt (SymPy's rebuild of a regime table of hundreds
            # of cases distributes And over Or for minutes: occupancy's limiting_resource)
        return kept[0][0] if kept[0][1] is sympy.true else sympy.Piecewise(*kept)

    return decided(expr)


def _constants_memo(model: Model) -> rational_value.Memo:
    """The exact base-unit value of each constant of the model that has one, as :mod:`symgpu.proofs.rational_value` reads it:
    made once per model and set of constants (a copy for a request adds its own), not per result."""
    kept = _CONSTANTS.of(model)
    key = frozenset(model.constants)
    if key not in kept:
        known = ((model.symbols[name], exact_value(model, model.symbols[name])) for name in model.constants)
        kept[key] = rational_value.inputs({s: sympy.Rational(v[1].numerator, v[1].denominator) for s, v in known if v is not None})
    return kept[key]


#: :func:`_constants_memo`'s, per model and set of its constants
_CONSTANTS: MemoFamily[frozenset[str], rational_value.Memo] = MemoFamily("derive.result_form.constants", 8)


def settled_where(model: Model, location: Any, extra: Extras, asked: str) -> tuple[Any, Extras]:
    """An answer's location with its cases on constants alone decided (:func:`known_cases_decided`), and its extras with
    the conditions it holds under (``valid_when``) so decided (:func:`settled_conditions`)."""
    location = known_cases_decided(model, location)
    if not extra.valid_when:
        return location, extra
    when = settled_conditions(model, extra.valid_when, asked)
    return location, (extra.with_(valid_when=when) if when else extra.without("valid_when"))


def settled_conditions(model: Model, conditions: Sequence[sympy.Basic], asked: str) -> tuple[sympy.Basic, ...]:
    """``conditions`` (an answer's ``valid when``) without those that read constants of the model alone and hold by their
    exact values. One that fails by them makes the answer hold nowhere: refused, never printed (an outside tester's finding,
    round 13, F5: a minimum shown under ``lit_2_us >= lit_2p001_us``).

    Raises:
        errors.DerivationError: a condition fails by the constants' values (``asked``: what was asked, for the message)."""
    memo = _constants_memo(model) if model.constants else {}
    known = {s for s, v in memo.items() if v is not None}
    out: list[sympy.Basic] = []
    for condition in conditions:
        holds = rational_value.truth(condition, memo) if known and condition.free_symbols <= known else None
        if holds is False:
            raise errors.DerivationError(
                f"{model.id}: the {asked} found holds only where {' and '.join(map(sympy.sstr, conditions))}, but "
                f"{sympy.sstr(condition)} is false by the values of the model's constants; it is not shown: please report it "
                "with the command line")
        if holds is not True:
            out.append(condition)
    return tuple(out)


def settled_extras(model: Model, extra: Extras, asked: tuple[str, str, str], result: Any, location: Any, unit: str) -> Extras:
    """``extra`` with what the answer's form says recorded: ``written_in``, the unit the formula ``result`` gives with each
    symbol in its declared unit where that is not ``unit`` (:func:`symgpu.evaluate.scaling.symbols_unit`: Theta_M in
    GB/s over bytes is in ns, not s), and ``held_fixed`` (:func:`with_held_fixed`)."""
    if isinstance(result, sympy.Basic) and unit not in ("", "1") and (own := scaling.symbols_unit(model, result, unit)) != unit:
        extra = extra.with_(written_in=own)
    return with_held_fixed(model, extra, asked, result, location)


def with_held_fixed(model: Model, extra: Extras, asked: tuple[str, str, str], result: Any, location: Any) -> Extras:
    """``extra`` with ``held_fixed`` recorded where the answer (``result``, ``location``) to ``asked`` (operation, quantity,
    variable) reads a quantity kept as a symbol (``stop_at``, ``--keep``) whose own equation reads the variable
    (``--keep L_K0 --for M``, ``L_K0 = L_M + (M*N + M)*t_issue``): held fixed while the variable changes, it makes a solve's
    answer an implicit equation in the variable, and an extremum's or limit's that of the quantity with it held constant.
    The quantity asked about itself (a solve's target kept as its symbol) is no such quantity."""
    operation, quantity, variable = asked
    if not variable:
        return extra
    parts = [*(result.values() if isinstance(result, dict) else [result]), location]
    read = {s.name for part in parts if isinstance(part, sympy.Basic) for s in forms.free_symbols(part)}
    unknown = (variable,) if variable in model.defining else ()
    moving = [name for name in sorted(read) if name in model.defining and name not in (variable, quantity)
              and variable in model.inputs(name, stop_at=unknown)]
    if not moving:
        return extra
    shown = "; ".join(f"{name} = {sympy.sstr(model.expression(name, stop_at=unknown))}" for name in moving)
    shown = shown if len(shown) <= MAX_SHOWN else shown[:MAX_SHOWN] + " ..."
    names, one = ", ".join(moving), len(moving) == 1
    effect = f"an implicit equation in {variable}, not a solution" if operation in ("solve", "boundary") else \
        f"that of {quantity} with {names} held constant, not the model's"
    return extra.with_(held_fixed=(
        f"implicit: {names}, kept as a symbol, {'depends' if one else 'depend'} on {variable} ({shown}) but "
        f"{'is' if one else 'are'} held fixed here as {variable} varies: this answer is {effect}; drop --keep {moving[0]} "
        "(API: stop_at) to have its equation substituted"))


#: the most characters of the kept quantities' equations :func:`with_held_fixed` quotes
MAX_SHOWN = 240
#: the most symbols the step that changes a result's unit names with their declared units
MAX_NAMED = 8
#: the most passes of :func:`known_constants_folded` (each folds the outermost Min/Max it changes)
MAX_PASSES = 8


def _one_pass(model: Model, expr: sympy.Basic) -> sympy.Basic:
    rule: dict[sympy.Basic, sympy.Basic] = {}
    for node in sympy.preorder_traversal(expr):
        if not isinstance(node, (sympy.Min, sympy.Max)):
            continue
        best: dict[Any, tuple[Fraction, Any]] = {}
        for arg in node.args:
            known = exact_value(model, arg)
            if known is None:
                continue
            dimension, number = known
            held = best.get(dimension)
            if held is None or (number < held[0] if node.func is sympy.Min else number > held[0]):
                best[dimension] = (number, arg)
        kept = {arg for _, arg in best.values()}
        dropped = [arg for arg in node.args if exact_value(model, arg) is not None and arg not in kept]
        if dropped:
            rest = tuple(arg for arg in node.args if arg not in dropped)
            rule[node] = rest[0] if len(rest) == 1 else substitution.min_max(node.func, rest)
    return substitution.xreplace(expr, rule) if rule else expr
