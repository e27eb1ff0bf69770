"""Case conditions that IEEE rounding may decide at one point, decided again in exact arithmetic.

A relation whose sides are equal in exact arithmetic may come out either way in doubles: prior_sim's
``CWP = MWP`` at 13.5 is ``13.500000000000002 > 13.5`` in IEEE arithmetic, and a condition written as
a difference (``-MWP + CWP > 0``: ``1.8e-15 > 0``) hides from the tie rule the size of the terms it
cancels. As :func:`evaluator.evaluate` does for a quantity's own cases (:mod:`.stepwise`), a relation
within :data:`stepwise.NEAR` of a tie at the point, measured against the largest of its sides and of
the terms of their difference, is decided with the inputs as the decimals given
(:func:`point.exact_base_values`), and a ``Piecewise`` with such a relation is evaluated exactly. A
``floor``/``ceiling`` whose argument is within :data:`stepwise.NEAR` of a whole number is one more such
relation (:func:`stepwise.whole_part_relations`): ``floor(T/tw)`` at 0.3 us / 100 ns is 3, not the doubles' 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors
from symgpu.evaluate import compiler, input_values, one_sided, piece_select, point, scaling, stepwise, stored_tests
from symgpu.evaluate.state import state_of
from symgpu.model.substitution import min_max
from symgpu.proofs import forms, rational_value
from symgpu.memo import Tally

#: a tie's width is capped at ``NEAR`` times the largest double (an infinite side ties nothing)
LARGEST = sympy.Float("1.7976931348623157e308", 17)

if TYPE_CHECKING:
    from symgpu.model import Model

#: near-tie verdicts and tie values left to SymPy's substitution (a part that is no rational arithmetic: :mod:`symgpu.proofs.rational_value`)
_SYMPY_SUBSTITUTIONS = Tally("evaluate.ties.sympy_substitutions")
#: near-tie tests built in SymPy (:func:`near_condition`): a test read back from the store builds none
_NEAR_BUILT = Tally("evaluate.ties.near_conditions")

#: :func:`one_sided.substitute`'s memo of one point's substitution
_Memo = dict[sympy.Basic, tuple[sympy.Basic, bool]]


def near_relations(model: Model, relations: Iterable[sympy.Basic], preset: str | None,
                   values: Mapping[str, Any]) -> dict[sympy.Basic, bool]:
    """Of ``relations`` (declared units), those within :data:`stepwise.NEAR` of a tie at the point,
    each with its verdict in exact arithmetic; empty where the point gives no exact value (an array,
    a missing or non-finite input)."""
    based = {r: scaling.base_expression(model, r) for r in relations}
    mapping = _exact_point(model, set().union(*[b.free_symbols for b in based.values()]) if based else set(), preset, values)
    if mapping is None:
        return {}
    out = {}
    memo: _Memo = {}  # one point: the relations' shared subexpressions substituted once
    rational = rational_value.inputs(mapping)
    for relation, rewritten in based.items():
        verdict = _near_verdict(rewritten, mapping, memo, rational)
        if verdict is not None:
            out[relation] = verdict
    return out


def tie_value(model: Model, expr: sympy.Basic, target: pint.Unit, preset: str | None, values: Mapping[str, Any]) -> float | None:
    """``expr`` (in ``target``) at a scalar point in exact arithmetic where a relation of its
    ``Piecewise`` conditions is within :data:`stepwise.NEAR` of a tie; None elsewhere (or where the
    exact value is no finite real number: the compiled value stands)."""
    if not expr.has(*stepwise.TIE_SOURCES):
        return None
    based = compiler.expression_base(model, expr, target)
    relations, symbols = _relations(model, based)
    mapping = _exact_point(model, symbols, preset, values)
    if mapping is None:
        return None
    memo: _Memo = {}  # one point: the relations are subexpressions of the value, each substituted once
    rational = rational_value.inputs(mapping)
    if not any(_near_verdict(r, mapping, memo, rational) is not None for r in relations):
        return None
    exact = rational_value.value(based, rational)  # the number SymPy's substitution gives, where it is rational arithmetic
    if exact is None:
        _SYMPY_SUBSTITUTIONS.add()
    try:
        value = complex(one_sided.substitute(based, mapping, memo) if exact is None else sympy.Rational(exact.numerator, exact.denominator))
    except (TypeError, ValueError, ArithmeticError):
        return None
    return value.real if value.imag == 0 and np.isfinite(value.real) else None


def _relations(model: Model, based: sympy.Basic) -> tuple[tuple[sympy.Basic, ...], tuple[sympy.Symbol, ...]]:
    """The relations of ``based``'s ``Piecewise`` conditions, and its free symbols in ``free_symbols``' order
    (cached per model and expression)."""
    kept = state_of(model).compiled
    key = ("tie relations", based)
    if key not in kept:
        found: dict[sympy.Basic, None] = {}
        for piecewise in forms.atoms(based, sympy.Piecewise):  # SymPy's atoms, each shared part walked once
            for _, condition in piecewise.args:
                piece_select.collect_relations(condition, found)
        stepwise.whole_part_relations(based, found)
        kept[key] = (tuple(found), forms.ordered_free_symbols(based))
    return kept[key]  # type: ignore[no-any-return]


def _exact_point(model: Model, symbols: Iterable[sympy.Symbol], preset: str | None,
                 values: Mapping[str, Any]) -> dict[sympy.Symbol, sympy.Expr] | None:
    if any(np.ndim(v) for v in values.values() if not isinstance(v, (str, pint.Quantity))) \
            or any(np.ndim(v.magnitude) for v in values.values() if isinstance(v, pint.Quantity)):
        return None
    try:
        return point.exact_base_values(model, symbols, preset, values)
    except (TypeError, ValueError, ArithmeticError):
        return None


def _near_verdict(relation: sympy.Basic, mapping: Mapping[sympy.Symbol, sympy.Expr], memo: _Memo,
                  rational: rational_value.Memo) -> bool | None:
    """The exact verdict of a base-unit ``relation`` where its sides are within :data:`stepwise.NEAR` of
    a tie (against the largest of the sides and of the terms of their difference); None where they
    are not, or a value is no finite real number. ``memo``: :func:`one_sided.substitute`'s, ``rational``:
    :func:`rational_value.value`'s, each shared by the point's calls (``mapping``'s alone). Where every
    part is rational arithmetic its value is computed as a ``Fraction``: the same exact number, so the same
    doubles and verdict, as SymPy's substitution gives (which decides every other relation)."""
    if not isinstance(relation, sympy.core.relational.Relational):
        return None
    difference = relation.lhs - relation.rhs
    parts = [relation.lhs, relation.rhs, *sympy.Add.make_args(difference)]
    exact = [rational_value.value(p, rational) for p in [*parts, difference]]
    compare = rational_value.COMPARE.get(type(relation))
    if compare is not None and all(e is not None for e in exact):
        try:
            sizes = [abs(float(e)) for e in exact[:-1]]  # type: ignore[arg-type]
            width = abs(float(exact[-1]))  # type: ignore[arg-type]
        except OverflowError:  # beyond the doubles (SymPy's float: inf, which is no finite magnitude either)
            return None
        if width > stepwise.NEAR * max(sizes):
            return None
        return compare(exact[0], exact[1])  # type: ignore[arg-type]
    _SYMPY_SUBSTITUTIONS.add()
    try:
        numbers = [one_sided.substitute(p, mapping, memo) for p in parts]
        magnitudes = [abs(float(n)) for n in numbers]
        gap = abs(float(one_sided.substitute(difference, mapping, memo)))
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not all(np.isfinite(magnitudes)) or gap > stepwise.NEAR * max(magnitudes):
        return None
    verdict = relation.func(numbers[0], numbers[1])
    return bool(verdict) if isinstance(verdict, sympy.logic.boolalg.BooleanAtom) else None


def near_condition(model: Model, exprs: Iterable[sympy.Basic]) -> sympy.Basic | None:
    """Whether a relation of the ``Piecewise`` conditions of ``exprs`` (in inputs, declared units) is
    within :data:`~symgpu.evaluate.stepwise.NEAR` of a tie: ``|l - r| <= NEAR * max(|l|, |r|)`` (a
    bare literal side: the other side's magnitude and the difference's, as the regime column reads it),
    the width capped so that an infinite side ties nothing, and sides equal as doubles counted only where
    equal doubles may be unequal decimals (:func:`stepwise.may_be_unequal`, the scalar path's one rule): the
    points where the scalar path (:func:`stepwise.near_tie`) may decide otherwise than the doubles or the
    tie rule; None where there is no such relation."""
    _NEAR_BUILT.add()
    magnitudes: dict[sympy.Basic, sympy.Expr] = {}  # a side shared by several relations (Hong & Kim's) built once
    tests = [_near(model, r, magnitudes) for r in tested_relations(exprs)]
    return sympy.Or(*tests) if tests else None


def tested_relations(exprs: Iterable[sympy.Basic]) -> list[sympy.core.relational.Relational]:
    """The relations :func:`near_condition` tests: those of the ``Piecewise`` conditions of ``exprs`` and of
    their whole parts (:func:`stepwise.whole_part_relations`), in order, each once."""
    found: dict[sympy.Basic, None] = {}
    for expr in exprs:
        for piecewise in forms.atoms(expr, sympy.Piecewise) if isinstance(expr, sympy.Basic) else ():
            for _, condition in piecewise.args:
                piece_select.collect_relations(condition, found)
        if isinstance(expr, sympy.Basic):
            stepwise.whole_part_relations(expr, found)  # a floor's or ceiling's argument near a whole number
    return [r for r in found if isinstance(r, sympy.core.relational.Relational)]


def _near(model: Model, relation: sympy.core.relational.Relational, magnitudes: dict[sympy.Basic, sympy.Expr]) -> sympy.Basic:
    left, right = relation.lhs, relation.rhs
    gap = left - right
    if left.is_number or right.is_number:
        scale = min_max(sympy.Max, (_magnitude(gap, magnitudes), _magnitude(right if left.is_number else left, magnitudes)))
    else:
        scale = min_max(sympy.Max, (_magnitude(left, magnitudes), _magnitude(right, magnitudes)))
    capped = min_max(sympy.Min, (scale, LARGEST))  # built once: each Min/Max compares its arguments afresh (0.1 s of Hong & Kim's)
    larger = None if left.is_number or right.is_number else capped  # the larger side's magnitude (capped: beyond WHOLE_LIMIT exactly where it is), shared by both tests
    near = sympy.LessThan(_magnitude(gap, magnitudes), stepwise.NEAR * capped, evaluate=False)
    unequal = sympy.Ne(left, right, evaluate=False)
    doubt = stepwise.may_be_unequal(model, left, right, relation.free_symbols, larger)  # equal doubles may be unequal decimals
    if doubt is sympy.false:
        return sympy.And(unequal, near, evaluate=False)
    return sympy.And(near, sympy.Or(unequal, doubt, evaluate=False), evaluate=False)


def for_inputs(model: Model, condition: sympy.Basic, values: Mapping[str, Any]) -> sympy.Basic:
    """``condition`` (a :func:`near_condition`) with each test of one input's wholeness (``s != floor(s)``,
    ``|s| > WHOLE_LIMIT``: :func:`stepwise.may_be_unequal`'s) decided where ``values`` gives every value the input
    takes (a number or an array, declared units): false where every one is a whole number within the limit, true
    where none is. A sweep's inputs are known before it runs: its near-tie flag then computes no test of them per
    point (Hong & Kim's, whose inputs are whole numbers, is left with the relations' own sides). Only an input
    declared in base units is decided here: the compiled condition reads a scaled one's floor in base units
    (:func:`scaling.base_expression`), so its tests stay in the condition, computed as the scalar path computes them."""
    mapping: dict[sympy.Basic, sympy.Basic] = {}
    for test in condition.atoms(sympy.Ne, sympy.StrictGreaterThan):
        left, right = test.args
        if isinstance(test, sympy.Ne) and isinstance(left, sympy.Symbol) and right == sympy.floor(left):
            symbol = left
        elif isinstance(test, sympy.StrictGreaterThan) and right == stepwise.WHOLE_LIMIT and isinstance(left, sympy.Symbol):
            symbol = left  # |s| where s is declared nonnegative
        elif (isinstance(test, sympy.StrictGreaterThan) and right == stepwise.WHOLE_LIMIT and isinstance(left, sympy.Max)
              and len(left.args) == 2 and any(isinstance(a, sympy.Symbol) and -a in left.args for a in left.args)):
            symbol = next(a for a in left.args if isinstance(a, sympy.Symbol))
        else:
            continue
        if symbol.name not in values or scaling.symbol_scale(model, symbol.name) != 1.0:
            continue
        given = np.asarray(values[symbol.name], dtype=float)
        with np.errstate(invalid="ignore"):
            holds = given != np.floor(given) if isinstance(test, sympy.Ne) else np.abs(given) > float(stepwise.WHOLE_LIMIT)
        if not holds.any():
            mapping[test] = sympy.false
        elif holds.all():
            mapping[test] = sympy.true
    return condition.xreplace(mapping) if mapping else condition


def _magnitude(expr: sympy.Expr, magnitudes: dict[sympy.Basic, sympy.Expr]) -> sympy.Expr:
    """``Max(expr, -expr)``, kept in ``magnitudes`` (one :func:`near_condition`'s)."""
    if expr not in magnitudes:
        magnitudes[expr] = min_max(sympy.Max, (expr, -expr))
    return magnitudes[expr]


def unsettled_points(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None) -> np.ndarray | None:
    """The flat indices of the points (of the inputs' broadcast shape) where :func:`evaluator.evaluate` with ``settle=False``
    may differ from :func:`evaluator.evaluate`: an array evaluation's points near a case tie (:func:`near_points`),
    empty where there are none or the inputs are scalars; None where that cannot be told (an input missing or
    refused: :func:`evaluator.evaluate` decides)."""
    try:
        given, magnitudes = input_values.gather_values(model, name, preset, values or {}, check=False)
        args, _, base = compiler.compiled(model, name, given)
        if any(a not in magnitudes for a in args):
            return None
        shape = np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args])
    except (errors.SymgpuError, ValueError, TypeError, ArithmeticError, pint.PintError):
        return None
    if not shape or not base.has(*stepwise.TIE_SOURCES):
        return np.empty(0, dtype=np.intp)
    expr = model.expression(model.equation_for(name).definition.defines, stop_at=given)
    return near_points(model, expr, magnitudes, shape)


def near_points(model: Model, expr: sympy.Basic, magnitudes: Mapping[str, Any], shape: tuple[int, ...]) -> np.ndarray:
    """The flat indices (of ``shape``) of the points of base-unit ``magnitudes`` (arrays) where ``expr``
    (declared units) has a case relation within :data:`stepwise.NEAR` of a tie (:func:`near_condition`)."""
    kept = state_of(model).compiled
    key = ("near points", expr)
    fresh = False
    if key not in kept:
        known, test = stored_tests.stored(model, expr)  # kept as data by an earlier process: no SymPy
        if not known:
            near = near_condition(model, [expr])
            fresh = True
            if near is None:
                stored_tests.keep(model, expr, None, None)
            else:
                based = scaling.base_expression(model, near)
                args = tuple(sorted(s.name for s in based.free_symbols))
                test = (args, compiler.base_function(model, [model.symbols[a] for a in args], based))
        kept[key] = test
    found = kept[key]
    if found is None or any(a not in magnitudes for a in found[0]):
        return np.empty(0, dtype=np.intp)
    inputs = compiler.broadcast([np.asarray(magnitudes[a], dtype=float) for a in found[0]])
    with np.errstate(all="ignore"):
        if callable(found[1]):
            flagged = np.asarray(found[1](*inputs), dtype=bool)
        else:
            flagged = np.asarray(stored_tests.run(found[1], inputs), dtype=bool)
        if fresh:  # kept as a tree where the tree gives the compiled test's flags here, bit for bit
            tree = stored_tests.record(found[1], len(found[0]))
            if tree is not None and np.array_equal(np.asarray(stored_tests.run(tree, inputs), dtype=bool), flagged):
                stored_tests.keep(model, expr, found[0], tree)
    return np.flatnonzero(np.broadcast_to(flagged, shape))
