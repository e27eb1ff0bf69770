"""A boundary between two named limiters of a quantity's own ``Min``/``Max`` that are staircases
(``floor``/``ceiling``) in the variable, asked at a point: found on the evaluate path, not as a
root of ``A = B``.

Two step functions switch where the binding one changes, which is a step's edge (a jump), not
where they are equal: they may be equal on a whole step (tied, the first in the model file's
order binding) or never equal (the occupancy register limit ``2*floor(R/2048)`` jumps from 56 to
58 over the shared-memory limit 57). Every argument of the ``Min``/``Max`` is evaluated along a
scan of the variable (every whole value from the low end of its declared range up to
:data:`SCAN_END`, and log-spaced values below 1 for a variable not declared integer), the binding argument taken by the model's own rule
(:func:`symgpu.evaluate.rule.binding_index`: the first within ``TIE`` of the extreme, in
:func:`symgpu.evaluate.active.argument_order`), and each place where it changes from one named
limiter to the other is a boundary: for an integer variable the last whole value of the lower
side, else the step's edge located by bisection (a simple fraction where one lies within
rounding), with the side it belongs to said in the derivation's steps. Where the pair never
switches the question is refused, naming the switches the scan does find.

The two limiters may also be those of an intermediate quantity's ``Min``/``Max`` that the asked
quantity reaches through no other ``Min``/``Max`` or case table (:func:`limiter_owner`: the kernel
time ``t_launch + t_body`` and ``t_body = Max(t_memory, t_latency)``): the terms around it never
change which argument binds, so the quantity switches between the two exactly where that
``Min``/``Max`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import declared_range
from symgpu.derive.at_point import meets_assumed, where_text
from symgpu.derive.derivation import Derivation, Step
from symgpu.derive.extra_records import RootRecord
from symgpu.derive.extras import Extras
from symgpu.evaluate import active, evaluator, rule
from symgpu.proofs import forms

if TYPE_CHECKING:
    from symgpu.model import Model

#: the scan runs over every whole value of the variable from the low end of its range to this one
SCAN_END = 2 ** 20
#: a variable that is not declared integer is also scanned at this many log-spaced values from FINE_START to 1
FINE_POINTS, FINE_START = 200_000, 1e-12


def _own_pair(model: Model, name: str, between: Sequence[str]) -> bool:
    """Does ``name``'s own equation have a Min/Max with both of ``between`` among its named limiters?"""
    equation = model.equation_for(name)
    return isinstance(equation.rhs, (sympy.Min, sympy.Max)) and set(between) <= set(dict(equation.limiters))


def limiter_owner(model: Model, quantity: str, between: Any) -> str | None:
    """The quantity whose own ``Min``/``Max`` has the two named limiters ``between``: ``quantity`` itself,
    else the one intermediate quantity with such a Min/Max that ``quantity``'s expression reaches, and
    reaches only through sums, products, powers and functions other than ``Min``/``Max``/``Piecewise``
    (which never change which of its arguments binds); None where there is no such quantity, or more than one."""
    if not isinstance(between, (tuple, list)) or len(between) != 2 or between[0] == between[1] or quantity not in model.defining:
        return None
    if _own_pair(model, quantity, between):
        return quantity
    owners = [name for name in model.defining if name != quantity and _own_pair(model, name, between)]
    reached = [name for name in owners if model.symbols[name] in model.expression(quantity, stop_at=(name,)).free_symbols]
    if len(reached) != 1:
        return None
    owner = model.symbols[reached[0]]
    around = model.expression(quantity, stop_at=(reached[0],))
    hidden = any(owner in node.free_symbols for node in sympy.preorder_traversal(around)
                 if isinstance(node, (sympy.Min, sympy.Max, sympy.Piecewise)))
    return None if hidden else reached[0]


def first_pair(model: Model, quantity: str) -> tuple[str, str] | None:
    """Two named limiters of the nearest ``Min``/``Max`` that ``quantity``'s equations reach (its own first, then its
    intermediate quantities breadth first), for a message that suggests a ``--between`` pair; None where there is none."""
    queue, seen = [quantity], {quantity}
    while queue:
        name = queue.pop(0)
        equation = model.equation_for(name)
        if isinstance(equation.rhs, (sympy.Min, sympy.Max)) and len(equation.limiters) >= 2:
            return equation.limiters[0][0], equation.limiters[1][0]
        for symbol in sorted(equation.rhs.free_symbols, key=str):
            if symbol.name in model.defining and symbol.name not in seen:
                seen.add(symbol.name)
                queue.append(symbol.name)
    return None


def every_pair_owner(model: Model, quantity: str, variable: str) -> str | None:
    """The quantity whose ``Min``/``Max`` a boundary of ``quantity`` asked without ``between`` scans (every pair of its
    named limiters): the owner of :func:`first_pair`'s limiters (:func:`limiter_owner`), where a limiter of it is a
    staircase in ``variable``; None where there is no such one (kernel_gemm's t_body = Max(t_compute, t_dram) over K_red,
    t_compute a staircase through ceiling(K_red/split_k): its closed form finds no root)."""
    pair = first_pair(model, quantity)
    owner = None if pair is None or variable not in model.symbols or variable in model.defining else limiter_owner(model, quantity, pair)
    if owner is None:
        return None
    equation = model.equation_for(owner)
    var = model.symbols[variable]
    return owner if any(forms.has_staircase(active._expanded(model, owner, term, {}), var) for _, term in equation.limiters) else None


@dataclass(frozen=True)
class LimiterPair:
    """Two named limiters of a boundary question, expanded once (:func:`expanded_pair`).

    Attributes:
        owner: the quantity whose own Min/Max has them (:func:`limiter_owner`).
        pair: the two limiters' expressions, every quantity in them expanded.
        var: the variable's symbol.
    """

    owner: str
    pair: tuple[sympy.Basic, ...]
    var: sympy.Symbol


def expanded_pair(model: Model, quantity: str, between: Any, variable: str) -> LimiterPair | None:
    """The quantity owning the two named limiters (:func:`limiter_owner`), the two expanded, and the variable's symbol;
    None where no quantity owns them or the variable is no input."""
    owner = limiter_owner(model, quantity, between)
    if owner is None or variable not in model.symbols or variable in model.defining:
        return None
    terms = dict(model.equation_for(owner).limiters)
    return LimiterPair(owner, tuple(active._expanded(model, owner, terms[label], {}) for label in between), model.symbols[variable])


def applies(model: Model, found: LimiterPair | None) -> bool:
    """Are the named limiters ``found`` (:func:`expanded_pair`, None: no such pair) two of a Min/Max, at least one of them
    a staircase (``floor``/``ceiling``) in the variable once its quantities are expanded, or neither depending on it
    while another argument is one?"""
    if found is None:
        return False
    if any(forms.has_staircase(expr, found.var) for expr in found.pair):
        return True
    # neither depends on the variable: they never switch where another argument is a staircase in it
    return not any(found.var in expr.free_symbols for expr in found.pair) and forms.has_staircase(
        active._expanded(model, found.owner, model.equation_for(found.owner).rhs, {}), found.var)


def case_steps(found: LimiterPair | None) -> bool:
    """Are the named limiters ``found`` (:func:`expanded_pair`) step functions of the variable through case tables'
    conditions (the variable in them only inside a ``Piecewise`` condition or a ``floor``/``ceiling``, and in one of them
    at all): occupancy's register limit over ``max_regs_per_thread``, 0 blocks (too many registers per thread) below
    ``regs_per_thread``? A closed form of such a pair that its certificate catches is answered by the scan at a point instead."""
    if found is None:
        return False
    return any(found.var in expr.free_symbols for expr in found.pair) and not any(_outside_steps(expr, found.var) for expr in found.pair)


def _outside_steps(expr: sympy.Basic, var: sympy.Symbol) -> bool:
    """Does ``var`` occur in ``expr`` other than inside a ``floor``/``ceiling`` or a ``Piecewise`` condition?"""
    if expr == var:
        return True
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return False
    if isinstance(expr, sympy.Piecewise):
        return any(_outside_steps(value, var) for value, _ in expr.args)
    return any(_outside_steps(arg, var) for arg in expr.args)


def boundary(model: Model, quantity: str, between: Sequence[str] | None, variable: str, preset: str | None,
             values: Mapping[str, Any], assume: Sequence[Any] = ()) -> Derivation:
    """The switches between the two named staircase limiters along ``variable`` at the point (module doc); ``between``
    None: between any two named limiters of :func:`every_pair_owner`'s Min/Max.

    Raises:
        errors.NoAnswerHere: the pair does not switch anywhere in the scan (naming what does switch), or only
            where an ``assume`` relation on the variable fails.
    """
    owner = (limiter_owner(model, quantity, between) if between is not None else every_pair_owner(model, quantity, variable)) or quantity
    equation = model.equation_for(owner)
    pair = f"{between[0]} and {between[1]}" if between is not None else f"the limiters of {owner} ({', '.join(dict(equation.limiters))})"
    if owner != quantity and owner in values:
        raise errors.NoAnswerHere(f"{model.id}: {quantity}: at {where_text(preset, values)} {pair} are "
                                  f"limiters of {owner}, whose value is given: {quantity} does not depend on them, so they do not "
                                  f"switch along {variable}; leave {owner} out of the values (--set) to ask where they switch")
    labels = active.argument_labels(equation)
    order = active.argument_order(equation)
    kind = "min" if isinstance(equation.rhs, sympy.Min) else "max"
    integer = "integer" in model.symbol_definitions[variable].assumptions
    low = _low_end(model, variable, integer)
    whole = np.arange(max(low, 1.0) if not integer else low, SCAN_END + 1, dtype=float)
    xs = whole if integer else np.concatenate([np.geomspace(FINE_START, 1.0, FINE_POINTS, endpoint=False), whole])
    if not integer and low == 0:
        xs = np.concatenate([[0.0], xs])
    terms = [active._expanded(model, owner, equation.rhs.args[i], values) for i in order]  # a quantity given stays given
    names = [labels[i] for i in order]
    unit = model.units[owner]

    def rows(x: Any) -> list[Any]:
        return [np.broadcast_to(np.asarray(evaluator.evaluate_expression(
            model, t, unit, preset=preset, values={**values, variable: x}).magnitude, dtype=float), np.shape(x)) for t in terms]

    def binding(x: Any) -> Any:
        return rule.binding_index(rows(x), kind)

    scanned = rows(xs)
    index = rule.binding_index(scanned, kind)
    changes = np.flatnonzero(index[:-1] != index[1:])
    named = set(dict(equation.limiters))
    found: list[tuple[float, str, str, str]] = []
    others: list[str] = []
    for i in changes:
        lower, upper = int(index[i]), int(index[i + 1])
        below = names[lower] if lower >= 0 else "no limiter (not a number)"
        above = names[upper] if upper >= 0 else "no limiter (not a number)"
        if {below, above} != set(between or ()) and not (between is None and below != above and {below, above} <= named):
            if len(others) < 6:
                at = f"{xs[i]:.10g}..{xs[i + 1]:.10g}" if integer or lower < 0 or upper < 0 else \
                    f"{_edge(binding, float(xs[i]), float(xs[i + 1]), lower)[0]:.10g}"
                others.append(f"{variable} = {at} from {below} to {above}")
            continue
        tied = _tie_run(xs, rule.tied(scanned[lower], scanned[upper]), int(i), variable, between or (below, above),
                        names[min(lower, upper)])
        if integer:
            found.append((float(xs[i]), below, above, f"{below} binds up to and including {variable} = {xs[i]:.10g}, {above} "
                          f"from {xs[i + 1]:.10g} (a step's edge between the two whole values){tied}"))
            continue
        edge, closed_below = _edge(binding, float(xs[i]), float(xs[i + 1]), lower)
        side = f"{below} binds up to and including {variable} = {edge:.10g}, {above} above it" if closed_below else \
            f"{below} binds below {variable} = {edge:.10g}, {above} from it on"
        found.append((edge, below, above, f"{side} (a step's edge){tied}"))
    where = (f"{variable} in [{low:g}, {SCAN_END}] at whole values" if integer else
             f"{variable} in [{xs[0]:g}, {SCAN_END}] at whole values and {FINE_POINTS} log-spaced below 1, a step's edge bisected")
    outside = [x for x, *_ in found if not meets_assumed(model, [str(a) for a in assume], variable, preset, values, x)]
    if found and len(outside) == len(found):
        raise errors.NoAnswerHere(f"{model.id}: {quantity}: at {where_text(preset, values)} {pair} switch only at "
                                  f"{variable} = {', '.join(f'{x:.10g}' for x in outside)}, which --assume "
                                  f"{' and '.join(map(str, assume))} excludes ({found[0][3]})")
    found = [f for f in found if f[0] not in outside]
    if not found:
        switch = f" (the regime does switch at {'; '.join(others[:6])})" if others else " (the binding limiter does not change there)"
        raise errors.NoAnswerHere(f"{model.id}: {quantity}: at {where_text(preset, values)} {pair} do not switch "
                                  f"for {where}{switch}: the binding argument of the {kind.title()} (the first of equal ones in the "
                                  f"model file's order) never changes from one of them to the other; ask --between the pair that does switch")
    var = model.symbols[variable]
    steps = [Step("scan", sympy.Eq(var, _exact(x)), why) for x, _, _, why in found]
    steps.insert(0, Step("scan", sympy.Symbol(quantity), f"{pair} are staircases in {variable}: their switch is "
                         f"a step's edge, found where the binding argument of the {kind.title()} (the model's rule) changes, "
                         f"{where}"))
    if owner != quantity:
        steps.insert(1, Step("scan", sympy.Symbol(owner), f"{pair} are the limiters of {owner}'s own "
                             f"{kind.title()} (equation {equation.id}), which {quantity} reaches through no other Min, Max or case "
                             f"table: the terms around it never change which argument binds, so {quantity} switches where it does"))
    records = tuple(RootRecord(f"{b}|{a}", _exact(x)) for x, b, a, _ in found)
    result: Any = records[0].root if len(records) == 1 else sympy.Tuple(*(r.root for r in records))
    return Derivation(model=model.id, operation="boundary", quantity=quantity, variable=variable, steps=tuple(steps),
                      result=result, unit=model.unit_text(variable), method="; ".join(why.split(" (")[0] for *_, why in found[:3]) + f" (a scan of the evaluate path, {where})",
                      extra=Extras().with_(roots=records) if between is None else Extras().with_(roots=records, between=tuple(between)))


def _tie_run(xs: Any, tie: Any, i: int, variable: str, pair: Sequence[str], first: str) -> str:
    """Where the two named limiters are equal on a side of the switch between ``xs[i]`` and ``xs[i + 1]``:
    the run of scanned values they tie on, said with the one named there (the first in the file's order)."""
    if not (tie[i] or tie[i + 1]):
        return ""
    start = end = i if tie[i] else i + 1
    while start > 0 and tie[start - 1]:
        start -= 1
    while end + 1 < len(tie) and tie[end + 1]:
        end += 1
    return (f" ({pair[0]} and {pair[1]} are equal for {variable} = {xs[start]:.10g}..{xs[end]:.10g} of the scan, where {first}, "
            "the first in the model file's order, is named)")


def _low_end(model: Model, variable: str, integer: bool) -> float:
    """The smallest value the scan starts from: 0 for a nonnegative variable, 1 (integer) or
    a tiny positive value for a positive one."""
    declared = declared_range.of(model, variable)
    if declared.failing(np.asarray([0.0])):
        return 1.0 if integer else FINE_START
    return 0.0


def _edge(binding: Any, left: float, right: float, lower: int) -> tuple[float, bool]:
    """The step's edge in ``(left, right]`` where the binding index leaves ``lower``: bisected,
    then a simple fraction within rounding taken where there is one; whether the edge itself
    still belongs to the lower side."""
    for _ in range(80):
        middle = (left + right) / 2
        if middle in (left, right):
            break
        if int(binding(np.asarray([middle]))[0]) == lower:
            left = middle
        else:
            right = middle
    simple = float(Fraction(right).limit_denominator(1024))
    edge = simple if abs(simple - right) <= 1e-9 * max(1.0, abs(right)) else right
    return edge, int(binding(np.asarray([edge]))[0]) == lower


def _exact(x: float) -> sympy.Expr:
    """``x`` as an exact number: an integer or simple fraction where it is one, else the float."""
    fraction = Fraction(x).limit_denominator(1024)
    return sympy.Rational(fraction.numerator, fraction.denominator) if float(fraction) == x else sympy.Float(x)

