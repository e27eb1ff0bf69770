"""Scalar evaluation equation by equation: the fast path of :func:`symgpu.evaluate.evaluator.evaluate`.

Each equation's right-hand side is compiled alone, once per model (small expressions, shared
by every quantity that uses them: :func:`symgpu.evaluate.compiler.equation_functions`), and a
quantity is computed by evaluating the equations it depends on in dependency order, in coherent
base units. This avoids building and compiling every quantity's fully expanded expression
(whose nested Min/Max SymPy re-examines as it substitutes: seconds for a large model).

NOTE: the expanded expression stays the reference. Whenever this path could differ from it,
:func:`value` returns ``None`` and the caller evaluates the expanded expression instead, so
results, errors and messages are the expanded path's:

* an input it needs has no value (the expansion may have cancelled the symbol, or it raises
  the "needs a value" error),
* an input is an array (the expansion decides the result's shape),
* a ``valid_when`` condition does not hold or cannot be checked (the expanded path raises
  the domain error with its message, or skips the check), or holds by less than ``EDGE``
  relative to its sides (within rounding of its edge, where the expanded expression's
  arithmetic might decide the other way),
* any step is not a finite number (SymPy may have cancelled what is 0/0 or inf - inf here).

Up to rounding (the order of floating-point operations differs) the value is the expanded
expression's; ``tests/test_compiled_vs_exact.py`` holds both to exact arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.evaluate import compiler, piece_select, rule, scaling, singular
from symgpu.evaluate.state import state_of
from symgpu.model import substitution
from symgpu.model.substitution import min_max
from symgpu.proofs import forms, whole_parts

#: a condition must hold by more than this, relative to its sides, for this path to decide it
EDGE = 1e-12

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class Plan:
    """How to compute one quantity (with some quantities given) equation by equation.

    Attributes:
        steps: defined quantities in dependency order (the quantity itself last).
        inputs: the symbols whose values the steps read (inputs, constants, given quantities).
        conditions: the ``valid_when`` conditions to check, in the order the expanded path
            checks them (the quantity's equation first).
        condition_steps: further quantities (not in ``steps``) that the conditions name.
        condition_inputs: the symbols whose values those further steps and conditions read.
        near_edge_checked: per condition, whether it names a computed quantity (then a point
            within rounding of its edge is left to the expanded expression).
    """

    steps: tuple[str, ...]
    inputs: frozenset[str]
    conditions: tuple[Any, ...]
    condition_steps: tuple[str, ...]
    condition_inputs: frozenset[str]
    near_edge_checked: tuple[bool, ...]


def plan(model: Model, name: str, given: frozenset[str]) -> Plan:
    """The :class:`Plan` of quantity ``name`` with the quantities ``given`` taken as given, cached."""
    key = ("plan", name, given)
    kept = state_of(model).compiled
    if key not in kept:
        steps: list[str] = []
        inputs: set[str] = set()
        _order(model, name, given, steps, inputs)
        conditions = tuple(c for equation in model.dependencies(name, stop_at=given) for c in equation.valid_when)
        extra: list[str] = []
        extra_inputs: set[str] = set()
        for condition in conditions:
            for sym in condition.free_symbols:
                if sym.name in model.defining and sym.name not in given:
                    if sym.name not in steps:
                        _order(model, sym.name, given, extra, extra_inputs, done=set(steps))
                else:
                    extra_inputs.add(sym.name)
        computed = tuple(any(s.name in model.defining and s.name not in given for s in c.free_symbols) for c in conditions)
        kept[key] = Plan(tuple(steps), frozenset(inputs), conditions, tuple(extra), frozenset(extra_inputs), computed)
    return kept[key]  # type: ignore[no-any-return]


def _order(model: Model, name: str, given: frozenset[str], steps: list[str], inputs: set[str], done: set[str] | None = None) -> None:
    """Append ``name`` and the defined quantities it needs (not ``given``) to ``steps``, each
    after what it needs, and the other symbols they read to ``inputs``."""
    done = set(steps) if done is None else done

    def visit(quantity: str) -> None:
        if quantity in done or quantity in steps:
            return
        for sym in model.defining[quantity].rhs.free_symbols:
            if sym.name in model.defining and sym.name not in given:
                visit(sym.name)
            else:
                inputs.add(sym.name)
        steps.append(quantity)

    visit(name)


#: what :func:`value` returns where a case condition of a step is within rounding of its edge
TIED = "tied"


def value(model: Model, name: str, given: frozenset[str], magnitudes: Mapping[str, Any], checks: bool,
          watch: singular.Watch | None = None) -> float | str | None:
    """Quantity ``name`` in its declared unit from scalar base-unit ``magnitudes``, equation
    by equation; ``None`` where the expanded expression must decide (see the module notes);
    :data:`TIED` where a case condition's sides differ only by rounding (the caller decides in
    exact arithmetic: :func:`near_tie`). ``watch`` records a division by zero or an overflow in
    the steps (:mod:`symgpu.evaluate.singular`: the caller decides whether to trust the value)."""
    how = plan(model, name, given)
    known: dict[str, Any] = {}
    if not _read(how.inputs, magnitudes, known) or not _run(model, how.steps, known, watch):
        return None
    if checks and how.conditions:
        if not _read(how.condition_inputs, magnitudes, known) or not _run(model, how.condition_steps, known):
            return None
        for condition, near_edge_checked in zip(how.conditions, how.near_edge_checked):
            args, check = compiler.condition_function(model, condition)
            with np.errstate(all="ignore"):
                if not bool(check(*[known[a] for a in args])):
                    return None
                if near_edge_checked:
                    # a condition on computed quantities, within rounding of its edge: the expanded
                    # expression decides, as before (on inputs alone both paths compute the same)
                    slack = compiler.condition_slack(model, condition)
                    if slack is None or not float(slack[1](*[known[a] for a in slack[0]])) > EDGE:
                        return None
    if near_tie(model, how.steps, known, given):  # after the domain checks: a point outside the domain is refused as ever
        return TIED
    result = float(known[name])
    scale = scaling.unit_scale(model.units[name])
    return result if scale == 1 else result / float(scale)


def _read(names: frozenset[str], magnitudes: Mapping[str, Any], known: dict[str, Any]) -> bool:
    """Copy the scalar values of ``names`` into ``known`` as NumPy floats (a nonnegative input
    may be 0 where an argument divides by it: +inf, not ZeroDivisionError); False if one is
    missing or an array."""
    for name in names:
        if name in known:
            continue
        found = magnitudes.get(name)
        if found is None or np.ndim(found):
            return False
        known[name] = np.float64(found)
    return True


def watched(model: Model, name: str, given: frozenset[str], magnitudes: Mapping[str, Any]) -> singular.Watch:
    """The IEEE flags of computing ``name``'s steps from ``magnitudes`` (no domain check)."""
    watch = singular.Watch()
    known: dict[str, Any] = {}
    if _read(plan(model, name, given).inputs, magnitudes, known) and _run(model, plan(model, name, given).steps, known, watch) \
            and name in known:
        watch.value = float(known[name]) / float(scaling.unit_scale(model.units[name]))
    return watch


def _run(model: Model, steps: tuple[str, ...], known: dict[str, Any], watch: singular.Watch | None = None) -> bool:
    """Compute ``steps`` in order into ``known``; False if one is not a finite number."""
    for step, (args, function) in zip(steps, compiler.equation_functions(model, steps)):
        with np.errstate(all="ignore") if watch is None else watch.errstate():
            try:
                out = function(*[known[a] for a in args])
            except (ArithmeticError, TypeError, ValueError):
                return False
        if np.ndim(out) or not math.isfinite(out):
            return False
        known[step] = np.float64(out)
    return True


#: relative distance of a case condition's sides within which IEEE rounding may have decided it
NEAR = 4 * rule.TIE

#: whole numbers up to this are doubles, one each; beyond it they are not (2**53 + 1 rounds to 2**53)
WHOLE_LIMIT = sympy.Float(2**53, 17)  # a float: scaled to base units it is no integer too large for numba


def near_tie(model: Model, steps: tuple[str, ...], known: Mapping[str, Any], given: frozenset[str] = frozenset()) -> bool:
    """Are the sides of a relation in a step's case conditions (a ``Piecewise``), or of a ``floor``/``ceiling``'s
    argument and its nearest whole number (:func:`whole_part_relations`), within :data:`NEAR` of their size of
    each other? Hong & Kim's ``MWP == N`` at 71.68 GB/s, 300-cycle loads and 14
    SMs has MWP = 21504/1792 = 12 exactly and 11.999999999999998 in IEEE arithmetic, which takes the
    other case: a jump of 6 % in the value. Sides equal as doubles count too where equal doubles may be
    unequal decimals there (:func:`may_be_unequal`: ``0.1*3 >= z`` at z = 0.30000000000000004: both
    0.30000000000000004, yet 0.3 < z as the decimals given), the relation's inputs counted with the
    quantities ``given`` as inputs: the rule of the sweep's near-tie condition
    (:func:`symgpu.evaluate.ties.near_condition`), so a sweep re-decides every point that this decides exactly."""
    for step in steps:
        sides = _case_sides(model, step)
        if sides is None:
            continue
        args, function, relations = sides
        with np.errstate(all="ignore"):
            try:
                numbers = function(*[known[a] for a in args])
            except (ArithmeticError, TypeError, ValueError, KeyError):
                continue
        for left, right, relation in zip(numbers[0::2], numbers[1::2], relations):
            left, right = float(left), float(right)
            if not (math.isfinite(left) and math.isfinite(right)) or abs(left - right) > NEAR * max(abs(left), abs(right)):
                continue
            # sides equal as doubles: a doubt only where they may be unequal decimals (asked only here, for such a relation)
            if left != right or (not equal_is_exact(model, relation.lhs, relation.rhs) and _holds(model, relation, given, known, left)):
                return True
    return False


def _holds(model: Model, relation: sympy.Basic, given: frozenset[str], known: Mapping[str, Any], side: float) -> bool:
    """Whether :func:`may_be_unequal` holds for ``relation`` (a step's, its inputs counted with the quantities
    ``given`` as inputs) at the base-unit magnitudes ``known``, where both sides are the double ``side``; compiled
    on first use (cached per model), unless :func:`_clear_of_doubt` gives its verdict (False) first."""
    kept = state_of(model).compiled
    key = ("may be unequal", relation, given)
    if key not in kept:
        if _clear_of_doubt(_doubt_bounds(model, relation, given), known, side):
            return False
        inputs = _relation_inputs(model, relation, given)
        condition = may_be_unequal(model, relation.lhs, relation.rhs, [model.symbols[a] for a in inputs])
        based = scaling.base_expression(model, condition)
        args = tuple(sorted(s.name for s in based.free_symbols))
        kept[key] = (args, compiler.base_function(model, [model.symbols[a] for a in args], based))
    args, function = kept[key]
    with np.errstate(all="ignore"):
        try:
            return bool(function(*[known[a] for a in args]))
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return True  # cannot tell: decided exactly


def _relation_inputs(model: Model, relation: sympy.Basic, given: frozenset[str]) -> set[str]:
    """The inputs of ``relation``'s sides (the symbols its defined quantities, not ``given``, are computed from)."""
    inputs: set[str] = set()
    for s in relation.free_symbols:
        if s.name in model.defining and s.name not in given:
            _order(model, s.name, given, [], inputs)
        else:
            inputs.add(s.name)
    return inputs


@dataclass(frozen=True)
class DoubtBounds:
    """What :func:`_clear_of_doubt` reads of one relation's :func:`may_be_unequal` test (see there).

    Attributes:
        inputs: per input of the relation, its name and half the base-unit value that :data:`WHOLE_LIMIT`
            stands for beside it (the compiled test's ``|s| > WHOLE_LIMIT``, scaled as it is scaled).
        sides: half the base-unit value :data:`WHOLE_LIMIT` stands for beside each side, the smaller.
        names: every symbol the compiled test may read (its inputs, its sides', and their expansions').
    """

    inputs: tuple[tuple[str, float], ...]
    sides: float
    names: frozenset[str]


def _doubt_bounds(model: Model, relation: sympy.Basic, given: frozenset[str]) -> DoubtBounds | None:
    """The :class:`DoubtBounds` of ``relation`` (cached per model); None where an input is declared not
    to be an integer (SymPy then decides its test ``s != floor(s)`` true, whatever its value)."""
    kept = state_of(model).compiled
    key = ("doubt bounds", relation, given)
    if key not in kept:
        inputs = sorted(_relation_inputs(model, relation, given))
        if any(model.symbols[name].is_integer is False for name in inputs):
            kept[key] = None
        else:
            def half(expr: sympy.Basic) -> float:
                return float(WHOLE_LIMIT * scaling.literal_scale(model, expr)) / 2
            names = set(inputs)
            for side in (relation.lhs, relation.rhs):
                names |= {s.name for s in side.free_symbols} | {s.name for s in _expanded(model, side).free_symbols}
            kept[key] = DoubtBounds(tuple((name, half(model.symbols[name])) for name in inputs),
                                    min(half(relation.lhs), half(relation.rhs)), frozenset(names))
    return kept[key]  # type: ignore[no-any-return]


def _clear_of_doubt(bounds: DoubtBounds | None, known: Mapping[str, Any], side: float) -> bool:
    """True where the compiled :func:`may_be_unequal` test of a relation whose sides are both the double ``side``
    is False at ``known`` by its rule, with room: every input a whole double and every input and the side within half
    of what :data:`WHOLE_LIMIT` stands for beside it, so none of its ``Or``'s tests holds, and its ``And`` with the
    :func:`shared_tie` test is False too; every symbol it reads has a value (a missing one would make it True). A
    test SymPy decided as it built the condition is decided so only where the symbols' declarations prove it
    (``s != floor(s)`` false for an integer ``s``; true only for one declared not an integer, which has no
    bounds), so where it agrees with the rule at any point the declarations admit. False means only "not shown":
    the compiled test decides."""
    if bounds is None or not bounds.names.issubset(known) or not abs(side) <= bounds.sides:
        return False
    for name, limit in bounds.inputs:
        value = float(known[name])
        if not math.isfinite(value) or value != math.floor(value) or not abs(value) <= limit:
            return False
    return True


def may_be_unequal(model: Model, left: sympy.Basic, right: sympy.Basic, inputs: Iterable[sympy.Symbol],
                   magnitude: sympy.Basic | None = None) -> sympy.Basic:
    """Where sides ``left`` and ``right`` of a relation that are equal as doubles may be unequal as the
    decimals given (a condition on the relation's own ``inputs``, declared units): never where
    :func:`equal_is_exact`; else where one of ``inputs`` is not a whole number, or it or a side is beyond
    :data:`WHOLE_LIMIT` (``x + 1 > y`` at x = y = 1e16: true, yet both sides are 1e16 as doubles).
    Sides made from smaller whole numbers by the model's arithmetic that round to one double are
    taken as one number: the exact decision, some 50 ms of SymPy at Hong & Kim's size, would
    otherwise run at every integer tie of a sweep (88 thousand of its benchmark's 10 million points).
    The one rule of the scalar path (:func:`near_tie`) and of the sweep's and array evaluation's
    near-tie condition (:func:`symgpu.evaluate.ties.near_condition`).
    ``magnitude``: an expression whose value is beyond :data:`WHOLE_LIMIT` exactly where a side's magnitude
    is (the larger magnitude of the two, which a compiled near-tie test already computes), tested in
    place of each side's.
    Where both sides are a ``Min``/``Max`` with arguments in common (prior_sim's ``CWP > MWP``, ``Min(n, ...)``
    and ``Min(n, ...)``, tied wherever both take ``n``), equal doubles are no doubt where they are a shared
    argument's and every other argument is clear of it (:func:`shared_tie`): both sides are that argument exactly.
    NOTE: two distinct values within an ulp of each other from whole inputs up to :data:`WHOLE_LIMIT`
    (a quotient, or a step beyond it inside sides that are not) are then taken as equal."""
    if equal_is_exact(model, left, right):
        return sympy.false
    if magnitude is None:  # a sum or product beyond it
        tests = [scaling.relation(sympy.StrictGreaterThan, min_max(sympy.Max, (side, -side)), WHOLE_LIMIT) for side in (left, right)]
    else:
        tests = [_beyond(magnitude)]
    for s in sorted(set(inputs), key=str):
        tests.append(sympy.Ne(s, sympy.floor(s), evaluate=False))
        tests.append(sympy.StrictGreaterThan(sympy.Max(s, -s), WHOLE_LIMIT, evaluate=False))
    tests = [t for t in tests if t is not sympy.false]
    if not tests:
        return sympy.false
    doubt = sympy.Or(*tests, evaluate=False)
    shared = shared_tie(model, left, right)
    return doubt if shared is sympy.false else sympy.And(doubt, sympy.Not(shared), evaluate=False)


def may_be_unequal_apart(model: Model, left: sympy.Basic, right: sympy.Basic, inputs: Iterable[sympy.Symbol],
                         magnitude: sympy.Basic) -> tuple[sympy.Basic, bool]:
    """:func:`may_be_unequal` with ``magnitude``, in two parts: the condition with its test of ``magnitude`` beyond
    :data:`WHOLE_LIMIT` read as false, and whether it had that test (the sweep's clear-of-ties test bounds the
    magnitude by a number instead: :func:`symgpu.sweep.tie_conditions.clear_of_ties`)."""
    doubt = may_be_unequal(model, left, right, inputs, magnitude)
    test = _beyond(magnitude)
    if isinstance(test, sympy.core.relational.Relational) and doubt.has(test):
        return doubt.xreplace({test: sympy.false}), True
    return doubt, False


def _beyond(magnitude: sympy.Basic) -> sympy.Basic:
    """:func:`may_be_unequal`'s test of ``magnitude`` beyond :data:`WHOLE_LIMIT`."""
    return sympy.StrictGreaterThan(magnitude, WHOLE_LIMIT)


def shared_tie(model: Model, left: sympy.Basic, right: sympy.Basic) -> sympy.Basic:
    """Where sides ``left`` and ``right`` that are equal as doubles are equal exactly because both are one
    argument ``b`` that their ``Min``/``Max`` forms (defined quantities replaced by their expressions) share:
    ``left`` is ``b`` as a double, and every other argument ``a`` of either is clear of ``b`` (``|a - b|`` beyond
    :data:`NEAR` of the larger magnitude), so each ``Min``/``Max`` takes ``b`` in exact arithmetic too; false where
    the sides share no argument. Built once per model and pair of sides."""
    kept = state_of(model).compiled
    key = ("shared tie", left, right)
    if key not in kept:
        wide, narrow = _expanded(model, left), _expanded(model, right)
        ties: list[sympy.Basic] = []
        if isinstance(wide, (sympy.Min, sympy.Max)) and isinstance(narrow, (sympy.Min, sympy.Max)):
            arguments = set(wide.args) | set(narrow.args)
            for b in sorted(set(wide.args) & set(narrow.args), key=sympy.default_sort_key):
                clear = [sympy.StrictGreaterThan(min_max(sympy.Max, (a - b, b - a)), NEAR * min_max(sympy.Max, (a, -a, b, -b)),
                                                 evaluate=False) for a in sorted(arguments - {b}, key=sympy.default_sort_key)]
                ties.append(sympy.And(sympy.Eq(left, b, evaluate=False), *clear, evaluate=False))
        kept[key] = sympy.Or(*ties, evaluate=False) if ties else sympy.false
    return kept[key]  # type: ignore[no-any-return]


def equal_is_exact(model: Model, left: sympy.Basic, right: sympy.Basic) -> bool:
    """Whether sides equal as doubles are equal as the decimals given (so an exact decision is not
    needed): both are :func:`as_given`, or one is a ``Min``/``Max`` with the other among its arguments
    (Hong & Kim's ``MWP == N``, ``MWP`` a ``Min`` of ``N`` and bounds: equal doubles where the ``Min``
    takes ``N``; a near tie of ``N`` and a bound is the ``Min``'s own, which its rule decides).
    Decided once per model and pair of sides (the scalar path and the near-tie conditions ask it again).
    NOTE: a bound whose double equals ``N``'s while its exact value is below is taken as equal."""
    if as_given(model, left) and as_given(model, right):
        return True
    kept = state_of(model).compiled
    key = ("equal is exact", left, right)
    if key not in kept:
        wide, narrow = _expanded(model, left), _expanded(model, right)
        kept[key] = any(isinstance(a, (sympy.Min, sympy.Max)) and b in a.args for a, b in ((wide, narrow), (narrow, wide)))
    return bool(kept[key])


def _expanded(model: Model, side: sympy.Basic) -> sympy.Basic:
    """``side`` in the model's inputs (its defined quantities replaced by their expressions)."""
    mapping = {s: model.expression(s.name) for s in side.free_symbols if s.name in model.defining}
    return substitution.xreplace(side, mapping) if mapping else side  # SymPy's xreplace, each Min/Max built once


def as_given(model: Model, side: sympy.Basic) -> bool:
    """Whether ``side`` (base units) is at a point the double of the decimal given: an input declared in
    base units, or a literal that its shortest double's decimal reads back as."""
    if isinstance(side, sympy.Symbol):
        return side.name not in model.defining and scaling.symbol_scale(model, side.name) == 1.0
    if side.is_Rational or side.is_Float:
        return bool(sympy.Rational(repr(float(side))) == side)
    return False


#: what may be decided by IEEE rounding at a point: a case condition, or the whole part of a ``floor``/``ceiling``
TIE_SOURCES = (sympy.Piecewise, sympy.floor, sympy.ceiling)


def whole_part_relations(expr: sympy.Basic, found: dict[sympy.Basic, None]) -> None:
    """Add to ``found``, for each ``floor``/``ceiling`` of ``expr``, the relation of its argument ``a`` and
    the whole number nearest it, ``a >= floor(2*a) - floor(a)``: within :data:`NEAR` of a tie exactly
    where IEEE rounding may have taken the whole part across a step (MDM's ``ceiling(M_Read*W/MSHRs)`` at
    1.12 x 50 / 28: 2.0000000000000004 in doubles, 2 as the decimals given, so 2 batches, not 3), a point
    every near-tie test (:func:`near_tie`, :func:`symgpu.evaluate.ties.near_condition`) then leaves to exact
    arithmetic as it does a case condition's. Only its sides are read, never its verdict; the nearest whole
    number is written with no literal (``floor(a + 1/2)`` would scale its 1/2 with ``a``'s unit)."""
    for atom in sorted(forms.atoms(expr, sympy.floor, sympy.ceiling), key=sympy.default_sort_key):
        argument = atom.args[0]
        # each floor as SymPy builds it, without its assumption queries where values prove it left as it is
        nearest = whole_parts.built(sympy.floor, 2 * argument) - whole_parts.built(sympy.floor, argument)
        found[sympy.GreaterThan(argument, nearest, evaluate=False)] = None


def _case_sides(model: Model, step: str) -> tuple[tuple[str, ...], Any, tuple[sympy.Basic, ...]] | None:
    """The sides of every relation in the case conditions of ``step``'s equation (and of its whole parts:
    :func:`whole_part_relations`), compiled as one function
    of base-unit magnitudes (left, right, left, right, ...), and the relations; None where the equation
    has no case (cached per model)."""
    kept = state_of(model).compiled
    key = ("case sides", step)
    if key not in kept:
        found: dict[sympy.Basic, None] = {}
        for piecewise in model.defining[step].rhs.atoms(sympy.Piecewise):
            for _, condition in piecewise.args:
                piece_select.collect_relations(condition, found)
        whole_part_relations(model.defining[step].rhs, found)
        relations = list(found)
        if not relations:
            kept[key] = None
        else:
            sides = sympy.Tuple(*[scaling.base_expression(model, x) for r in relations for x in (r.lhs, r.rhs)])
            args = tuple(sorted(s.name for s in sides.free_symbols))
            kept[key] = (args, compiler.base_function(model, [model.symbols[a] for a in args], sides), tuple(relations))
    return kept[key]  # type: ignore[no-any-return]
