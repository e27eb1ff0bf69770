"""A sweep plan expands quantities with :func:`symgpu.model.substitution.xreplace` (Min/Max kept from the model's own
expansion): the same expressions, node for node, as SymPy's ``xreplace`` that the plan used before."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.sweep import plan as sweep_plan

MODELS = ("volkov_2016", "hong_kim_2009", "kernel_streaming", "mdm_2019", "occupancy", "perez_piccoli", "prior_huang",
          "interval_analysis")


def _sympy_expanded(model: symgpu.Model, expr: sympy.Basic, given: frozenset[str]) -> sympy.Basic:
    """The plan's expansion as it was written before: SymPy's own ``xreplace``."""
    mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols
               if s.name in model.defining and s.name not in given}
    return expr.xreplace(mapping) if mapping else expr


@pytest.mark.parametrize("model_id", MODELS)
def test_plan_expansion_is_sympys_xreplace_node_for_node_on_every_equation(model_id: str) -> None:
    model = symgpu.load(model_id)
    names = sorted(model.defining)
    # nothing given, and each quantity given in turn (a --set of a defined quantity stops its expansion)
    for given in [frozenset()] + [frozenset({n}) for n in names[:6]]:
        for name in names:
            equation = model.equation_for(name)
            parts = [equation.rhs, *equation.valid_when, *(case.condition for case in equation.cases)]
            for expr in parts:
                ours = sweep_plan.expanded(model, expr, given)
                assert sympy.srepr(ours) == sympy.srepr(_sympy_expanded(model, expr, given)), (model_id, name, given, expr)


@pytest.mark.parametrize(("model_id", "quantity", "preset", "axes"), [
    ("volkov_2016", "memory_throughput", "maxwell", ("n=1:64", "alpha=0:99")),
    ("hong_kim_2009", "Exec_cycles_app", "table2_example", ("Active_blocks_per_SM=1:8", "Comp_insts=1:50")),
])
def test_a_plans_regime_expression_is_sympys_xreplace(model_id: str, quantity: str, preset: str | None,
                                                       axes: tuple[str, ...]) -> None:
    model = symgpu.load(model_id)
    built = sweep_plan.build_plan(model, [quantity], preset=preset, grid=axes)
    assert built.regime is not None
    target = model.equation_for(quantity).definition.defines
    assert sympy.srepr(built.written[-1]) == sympy.srepr(_sympy_expanded(model, model.equation_for(target).rhs, frozenset()))
