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
"""

from __future__ import annotations

import sympy

from symgpu.evaluate.rule import TIE

#: a tie's width is capped at ``TIE`` times the largest double (an infinite side ties nothing), its
#: 17 significant digits kept so that the printed literal reads back as that double, not as infinity
LARGEST = sympy.Float("1.7976931348623157e308", 17)


def tie_aware(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with the relations in its Piecewise conditions decided by the tie rule (module doc)."""
    if not isinstance(expr, sympy.Basic) or not expr.has(sympy.Piecewise):
        return expr
    return expr.replace(lambda e: isinstance(e, sympy.Piecewise),
                        lambda p: sympy.Piecewise(*[(value, _condition(condition)) for value, condition in p.args]))


def case_code(conditions: list[sympy.Basic]) -> sympy.Basic:
    """The index of the first of ``conditions`` that holds by the tie rule, -1 where none does: a case table's
    regime as one expression (numba's loop reads it as one more output of the fused function, whose case
    conditions the value's own share). Each condition is written by the rule before the Piecewise is made, so
    SymPy takes no later condition as the complement of an earlier one (``x <= y`` after ``x > y`` is not
    ``True``: at a NaN side neither holds, and the regime is none, as :mod:`symgpu.sweep.decide` has it)."""
    return sympy.Piecewise(*[(index, _condition(c)) for index, c in enumerate(conditions)], (-1, True))


def _condition(condition: sympy.Basic) -> sympy.Basic:
    """A Piecewise condition with each relation in it written by the tie rule."""
    if isinstance(condition, (sympy.And, sympy.Or)):
        return type(condition)(*[_condition(c) for c in condition.args])
    if isinstance(condition, sympy.Not):
        return sympy.Not(_condition(condition.args[0]))
    if isinstance(condition, sympy.core.relational.Relational) and condition.rel_op in ("==", "!=", ">=", ">", "<=", "<"):
        return _relation(condition)
    return condition


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
        scale = sympy.Max(_magnitude(left), _magnitude(right))
    gap = left - right
    tie = TIE * sympy.Min(scale, LARGEST)
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
    ``Abs`` prints as Python's ``abs``, which the buffered grid code does not rewrite."""
    return sympy.Max(expr, -expr)
