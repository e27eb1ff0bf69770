"""The tie rule's relations (:mod:`symgpu.sweep.tie_conditions`) build their magnitudes and tie widths with
:func:`symgpu.model.substitution.min_max` (each Min/Max built once per argument tuple, SymPy's search skipped where
proved needless): node for node what ``sympy.Max``/``sympy.Min`` built before, on every case relation of the bundled
models that have them, and the value, regime and clear-of-ties expressions a sweep compiles are those nodes'."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.evaluate.rule import TIE
from symgpu.sweep import tie_conditions
from symgpu.sweep.plan import build_plan

#: the bundled models whose quantities have case relations
MODELS = ("hong_kim_2009", "hong_kim_2009_intended", "interval_analysis", "mdm_2019", "occupancy", "prior_hong_kim",
          "prior_hong_kim_fixed", "prior_sim", "volkov_2016_h100", "volkov_2016_ilp")
#: the relations of each model also tested under every operator
EVERY_OPERATOR = 2


def _magnitude(expr: sympy.Expr) -> sympy.Expr:
    return sympy.Max(expr, -expr)


def _relation_as_before(relation: sympy.Basic) -> sympy.Basic:
    """The tie rule's relation as ``tie_conditions`` built it before, with ``sympy.Max``/``sympy.Min`` called directly."""
    left, right = relation.lhs, relation.rhs
    if left.is_number or right.is_number:
        scale = _magnitude(right if left.is_number else left)
    else:
        scale = sympy.Max(_magnitude(left), _magnitude(right))
    gap = left - right
    tie = TIE * sympy.Min(scale, tie_conditions.LARGEST)
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


def _condition_as_before(condition: sympy.Basic) -> sympy.Basic:
    """A case condition with each relation in it written as :func:`_relation_as_before` writes it."""
    if isinstance(condition, (sympy.And, sympy.Or)):
        return type(condition)(*[_condition_as_before(c) for c in condition.args])
    if isinstance(condition, sympy.Not):
        return sympy.Not(_condition_as_before(condition.args[0]))
    if isinstance(condition, sympy.core.relational.Relational):
        return _relation_as_before(condition)
    return condition


def _case_relations(model: symgpu.Model) -> list[sympy.Basic]:
    """Every relation the tie rule rewrites in the model's expanded quantities and their case conditions."""
    exprs, conditions = [], []
    for name in sorted(model.defining):
        exprs.append(model.expression(name))
        conditions.extend(case.condition for case in model.equation_for(name).cases)
    return tie_conditions.rewritten_relations(exprs, conditions)


OPERATORS = (sympy.Eq, sympy.Ne, sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)


@pytest.mark.parametrize("model_id", MODELS)
def test_each_relation_by_the_tie_rule_is_the_node_sympys_min_and_max_built(model_id: str) -> None:
    model = symgpu.load(model_id)
    relations = _case_relations(model)
    assert relations
    for index, relation in enumerate(relations):
        ours = tie_conditions.tie_aware(sympy.Piecewise((1, relation), (0, True)))
        assert sympy.srepr(ours) == sympy.srepr(sympy.Piecewise((1, _relation_as_before(relation)), (0, True))), relation
        for op in OPERATORS if index < EVERY_OPERATOR else ():
            other = op(relation.lhs, relation.rhs, evaluate=False)
            assert sympy.srepr(tie_conditions.case_code([other])) == \
                sympy.srepr(sympy.Piecewise((0, _relation_as_before(other)), (-1, True))), other


def test_hong_kims_sweep_plan_compiles_the_rule_as_sympy_built_it() -> None:
    model = symgpu.load("hong_kim_2009")
    plan = build_plan(model, ["Exec_cycles_app"], preset="table2_example",
                      grid=("Active_blocks_per_SM=1:8", "Comp_insts=1:50", "Mem_LD=100:109"))
    assert plan.case_code is not None and plan.case_conditions
    expected = sympy.Piecewise(*[(i, _condition_as_before(c)) for i, c in enumerate(plan.case_conditions)], (-1, True))
    assert sympy.srepr(plan.case_code) == sympy.srepr(expected)
    value = plan.written[0].replace(lambda e: isinstance(e, sympy.Piecewise),
                                    lambda p: sympy.Piecewise(*[(v, _condition_as_before(c)) for v, c in p.args]))
    assert sympy.srepr(plan.exprs[0]) == sympy.srepr(value)
