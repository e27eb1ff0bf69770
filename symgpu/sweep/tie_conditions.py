"""A sweep's values with their case conditions decided by the tie rule, as its regime column and
``evaluate`` decide them.

A case condition such as Hong & Kim's ``CWP <= MWP`` can hold exactly at the model's numbers
(``1 + 55/(4*1.1) = 13.5``) while IEEE arithmetic computes one side a unit in the last place off
(13.499999999999998). ``evaluate`` decides such a point in exact arithmetic
(:func:`symgpu.evaluate.stepwise.near_tie`), and the sweep's regime column by the tie rule of
:func:`symgpu.evaluate.rule.relation_number` (sides within :data:`~symgpu.evaluate.rule.TIE` of
the larger magnitude are equal); a value compiled from the Piecewise as written compares the
floats, and took the other case: the value of one case beside the regime column naming another.

:func:`tie_aware` rewrites every relation in the Piecewise conditions of an expression into that
rule, in the operations a compiled sweep already uses (subtraction, ``Max``/``Min``, comparisons,
``Eq``): ``l > r`` is ``not equal and l > r``, ``l >= r`` is ``equal or l > r`` and
so on, where ``equal`` is ``l == r`` or ``|l - r| <= TIE * min(scale, LARGEST)``, ``scale`` the
larger magnitude of the two sides (of the side that is no number where the other is a literal, as
:func:`symgpu.sweep.regimes` reads it), capped at the largest double (:data:`LARGEST`) so that an
infinite side makes no tie. NaN on a side makes every relation but ``!=`` false, as in the rule.

Away from ties the rule is a plain comparison: numba's loop computes the values a first time with each
relation written ``fast`` (``d > 0``, ``d >= 0``, ``d == 0``, ...: no magnitudes) and, in the same pass,
:func:`clear_of_ties`, which holds only where every relation's fast form is the rule's and no near-tie
flag is raised; the few points where it does not hold are computed again with the rule
(:mod:`symgpu.sweep.fused`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.evaluate import stepwise, ties
from symgpu.evaluate.rule import TIE
from symgpu.model.substitution import min_max

if TYPE_CHECKING:
    from symgpu.model import Model

#: a tie's width is capped at ``TIE`` times the largest double (an infinite side ties nothing), its
#: 17 significant digits kept so that the printed literal reads back as that double, not as infinity
LARGEST = sympy.Float("1.7976931348623157e308", 17)
#: beyond this relative difference (of the sum of the sides' magnitudes) a relation is clear of ties: twice the near-tie
#: test's width, so that the products and sums SymPy regroups (``|a*b|`` as ``|a|*b``) may round a few ulps lower and
#: still exceed it
CLEAR = 2 * stepwise.NEAR


def tie_aware(expr: sympy.Basic, fast: bool = False) -> sympy.Basic:
    """``expr`` with the relations in its Piecewise conditions decided by the tie rule (module doc; ``fast``:
    their fast forms, the rule's wherever :func:`clear_of_ties` holds)."""
    if not isinstance(expr, sympy.Basic) or not expr.has(sympy.Piecewise):
        return expr
    return expr.replace(lambda e: isinstance(e, sympy.Piecewise),
                        lambda p: sympy.Piecewise(*[(value, _condition(condition, fast)) for value, condition in p.args]))


def rewritten_relations(exprs: Iterable[sympy.Basic], conditions: Iterable[sympy.Basic] = ()) -> list[sympy.Basic]:
    """The relations :func:`tie_aware` rewrites in ``exprs`` and :func:`case_code` in ``conditions``, each once."""
    found: dict[sympy.Basic, None] = {}
    for expr in exprs:
        for piecewise in expr.atoms(sympy.Piecewise) if isinstance(expr, sympy.Basic) else ():
            for _, condition in piecewise.args:
                _relations(condition, found)
    for condition in conditions:
        _relations(condition, found)
    return list(found)


def clear_of_ties(model: Model, relations: Iterable[sympy.Basic], values: Mapping[str, Any] | None = None) -> sympy.Basic:
    """Where every one of ``relations`` is decided alike by the tie rule and by its fast form, and none is within
    ``NEAR`` of a tie as :func:`symgpu.evaluate.ties.near_condition` tests it: for each relation, with ``d = l - r``
    and ``s = |l| + |r|``, ``A > s``, where ``A`` is ``|d| / CLEAR`` (``d`` beyond ``CLEAR * s``: at least both ties'
    widths, so that the products and sums SymPy regroups may round a few ulps lower and still exceed them), or, at
    ``d == 0`` between sides that are surely equal decimals, a bound (:func:`_clear_of_tie`). NaN or an infinite side is
    never clear. ``d == 0`` is ``l == r`` with both finite: with gradual underflow (numba flushes no subnormal without
    fastmath) a difference of two doubles is 0 only where they are equal, and ``inf - inf`` is NaN; so the fast forms
    and this test share ``d``'s comparisons and no ``l == r`` is computed. ``values``: every value each input takes
    (a sweep's, declared units), which decide the decimal test's tests of the inputs (:func:`ties.for_inputs`).
    Compiled by numba as it is (``compiler.fused_function``'s ``unfolded``): a select and one comparison of floats per
    relation, no ``Or`` of ``And``s of truth values (which LLVM computes in mask registers, a few at a time)."""
    return sympy.And(*[_clear_of_tie(model, relation, values) for relation in relations])


def _clear_of_tie(model: Model, relation: sympy.Basic, values: Mapping[str, Any] | None) -> sympy.Basic:
    """One relation's clear-of-ties test ``A > s`` (:func:`clear_of_ties`), at least as strict as the test it replaced,
    ``far or exact``: ``far`` is ``|d| / CLEAR > s``; ``exact`` is ``d == 0 and not doubt``, ``doubt`` the decimal
    test :func:`stepwise.may_be_unequal` with ``s`` as the magnitude.

    ``A`` is ``bound`` where ``d == 0 and not rest``, else ``|d| / CLEAR`` (the product ``far`` compares: there the test
    is ``far``). Where ``doubt`` tests the magnitude, ``s > WHOLE_LIMIT``, ``rest`` is ``doubt`` with that test read as
    false and ``bound`` is ``WHOLE_LIMIT``; else ``rest`` is ``doubt`` and ``bound`` infinity. Whatever else ``doubt``
    reads, it implies ``s > WHOLE_LIMIT or rest`` (where the magnitude test is false, ``doubt`` is ``rest``), so at
    ``d == 0 and not rest``, ``bound > s`` (``s < WHOLE_LIMIT``; or ``s`` finite, where ``doubt`` has no magnitude test)
    gives ``not doubt``: ``exact``. The two literals ``WHOLE_LIMIT`` are one number in base units too: each sits beside
    an expression in the sides' unit (:func:`symgpu.evaluate.scaling.base_expression`). ``A > s`` is false at NaN, as
    ``far`` is. Stricter only at ``d == 0`` with ``s`` at least ``WHOLE_LIMIT`` (or, without a magnitude test,
    overflowing) where ``rest``'s shared-argument test would have cleared it: such a point is computed by the tie rule.

    Hong & Kim's inputs are whole numbers (:func:`ties.for_inputs`), so its ``rest`` is false: no ``Min``/``Max``
    shared-argument test (:func:`stepwise.shared_tie`, three ties' tests) is computed per point for ``CWP`` against
    ``MWP``; the fast pass of its numba sweep (2x10^6 points, one thread, ``benchmarks/numba_check_cost.py``) took
    2.2 ms, 1.68x the hand numba loop, and takes 1.3 ms (about 1.0x; the value alone 0.57 ms)."""
    left, right = relation.lhs, relation.rhs
    gap = left - right
    size = sympy.Add(_absolute(left), _absolute(right), evaluate=False)
    far = sympy.Mul(1 / CLEAR, _absolute(gap), evaluate=False)
    rest, tested = stepwise.may_be_unequal_apart(model, left, right, relation.free_symbols, size)
    bound: sympy.Basic = stepwise.WHOLE_LIMIT if tested else sympy.oo
    if values is not None:
        rest = ties.for_inputs(model, rest, values)
    if rest is sympy.true:  # never exact: far alone
        return sympy.StrictGreaterThan(far, size, evaluate=False)
    exact = sympy.Eq(gap, 0, evaluate=False)
    if rest is not sympy.false:
        exact = sympy.And(exact, sympy.Not(rest), evaluate=False)
    chosen = sympy.Piecewise((bound, exact), (far, True), evaluate=False)
    return sympy.StrictGreaterThan(chosen, size, evaluate=False)


def _absolute(expr: sympy.Basic) -> sympy.Basic:
    """``|expr|`` as written (numba's ``abs``), a number's evaluated."""
    return sympy.Abs(expr) if expr.is_number else sympy.Abs(expr, evaluate=False)


def case_code(conditions: list[sympy.Basic], fast: bool = False) -> sympy.Basic:
    """The index of the first of ``conditions`` that holds by the tie rule, -1 where none does: a case table's
    regime as one expression (numba's loop reads it as one more output of the fused function, whose case
    conditions the value's own share). Each condition is written by the rule before the Piecewise is made, so
    SymPy takes no later condition as the complement of an earlier one (``x <= y`` after ``x > y`` is not
    ``True``: at a NaN side neither holds, and the regime is none, as :mod:`symgpu.sweep.decide` has it)."""
    return sympy.Piecewise(*[(index, _condition(c, fast)) for index, c in enumerate(conditions)], (-1, True))


def _rewritten(condition: sympy.Basic) -> bool:
    return isinstance(condition, sympy.core.relational.Relational) and condition.rel_op in ("==", "!=", ">=", ">", "<=", "<")


def _condition(condition: sympy.Basic, fast: bool = False) -> sympy.Basic:
    """A Piecewise condition with each relation in it written by the tie rule (``fast``: its fast form)."""
    if isinstance(condition, (sympy.And, sympy.Or)):
        return type(condition)(*[_condition(c, fast) for c in condition.args])
    if isinstance(condition, sympy.Not):
        return sympy.Not(_condition(condition.args[0], fast))
    if _rewritten(condition):
        return _fast(condition) if fast else _relation(condition)
    return condition


def _relations(condition: sympy.Basic, found: dict[sympy.Basic, None]) -> None:
    """Add to ``found`` the relations :func:`_condition` rewrites in ``condition``."""
    if isinstance(condition, (sympy.And, sympy.Or, sympy.Not)):
        for c in condition.args:
            _relations(c, found)
    elif _rewritten(condition):
        found[condition] = None


def _fast(relation: sympy.core.relational.Relational) -> sympy.Basic:
    """``relation`` as the tie rule (:func:`_relation`) decides it where :func:`clear_of_ties` holds (``|d| > t``,
    ``d = l - r``, ``t`` the tie; or ``d`` 0, sides equal and finite): ``d`` against 0 (``>`` is ``d > 0``, ``>=`` is
    ``d >= 0``, ``==`` is ``d == 0``, ``!=`` its negation, ...; tests/test_sweep_fused_relations.py checks them)."""
    gap = relation.lhs - relation.rhs
    op = relation.rel_op
    made = {">": sympy.StrictGreaterThan, "<": sympy.StrictLessThan, ">=": sympy.GreaterThan, "<=": sympy.LessThan,
            "==": sympy.Eq, "!=": sympy.Eq}[op](gap, 0, evaluate=False)
    return sympy.Not(made, evaluate=False) if op == "!=" else made


def _relation(relation: sympy.core.relational.Relational) -> sympy.Basic:
    """``relation`` as :func:`symgpu.evaluate.rule.relation_number` decides it, in a few
    comparisons on ``d = l - r`` and the tie ``t`` (tests/test_sweep_fused_relations.py checks them against
    ``relation_number`` at NaN, infinities, signed zeros, overflowing gaps, subnormals and near ties):
    ``>`` is ``d > t``, ``<`` is ``d < -t``, ``>=`` is ``l == r or d >= -t``, ``<=`` is
    ``l == r or d <= t``, ``==`` is ``l == r or |d| <= t``, ``!=`` its negation."""
    left, right = relation.lhs, relation.rhs
    if left.is_number or right.is_number:  # a bare literal: the other side's magnitude is the scale
        scale = _magnitude(right if left.is_number else left)
    else:
        scale = min_max(sympy.Max, (_magnitude(left), _magnitude(right)))
    gap = left - right
    tie = TIE * min_max(sympy.Min, (scale, LARGEST))
    same = sympy.Eq(left, right, evaluate=False)
    op = relation.rel_op
    if op == ">":
        return sympy.StrictGreaterThan(gap, tie, evaluate=False)
    if op == "<":
        return sympy.StrictLessThan(gap, -tie, evaluate=False)
    if op == ">=":
        return sympy.Or(same, sympy.GreaterThan(gap, -tie, evaluate=False), evaluate=False)
    if op == "<=":
        return sympy.Or(same, sympy.LessThan(gap, tie, evaluate=False), evaluate=False)
    equal = sympy.Or(same, sympy.LessThan(_magnitude(gap), tie, evaluate=False), evaluate=False)
    return equal if op == "==" else sympy.Not(equal, evaluate=False)


def _magnitude(expr: sympy.Expr) -> sympy.Expr:
    """``|expr|`` as ``Max(expr, -expr)``: a NumPy ufunc (``maximum``) in the compiled sweep, where
    ``Abs`` prints as Python's ``abs``, which the buffered grid code does not rewrite.

    Each Min/Max here is :func:`symgpu.model.substitution.min_max`'s: the node ``sympy.Max(...)`` builds, its search for
    dominated arguments done once per argument tuple (or proved needless) and shared with the value's case conditions,
    the regime's (:func:`case_code`) and the near-tie flag's (:func:`symgpu.evaluate.ties.near_condition`), which
    build the same magnitudes: a first Hong & Kim sweep built each of them three times, SymPy's search for
    dominated arguments each time (tests/test_sweep_tie_conditions_min_max.py compares the nodes)."""
    return min_max(sympy.Max, (expr, -expr))
