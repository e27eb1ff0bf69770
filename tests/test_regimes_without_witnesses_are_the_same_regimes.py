"""A regime split that seeks no feasibility witnesses (``regime_split._regimes(witnessed=False)``, case_boundary's: it reads
no regime's feasibility) gives the same regimes, each with ``feasible`` None: the witnesses decide nothing else."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu.derive import jobs, regime_split

#: (model, quantity, variable): Hong & Kim's case table and its MWP Min, Volkov's limiters, and the separating relation
#: ``N = MWP`` whose switch case_boundary solves (its h = N - Min(...))
SPLITS = [
    ("hong_kim_2009", "Exec_cycles_app", "Active_blocks_per_SM"),
    ("hong_kim_2009", "MWP", "N"),
    ("volkov_2016", "n_needed", "alpha"),
]


def _split(model_id: str, quantity: str, variable: str, witnessed: bool, separating: bool = False) -> list[regime_split.Regime]:
    model = symgpu.load(model_id)
    job, _ = jobs.start(model, "boundary", quantity, variable)
    expr, _ = job.quantity_expression(quantity, None, ())
    var = job.symbol(variable)
    if separating:  # the first relation of a case condition in the variable, as case_boundary differences it
        atom = next(r for p in sympy.preorder_traversal(expr) if isinstance(p, sympy.Piecewise)
                    for _, c in p.args for r in c.atoms(sympy.Eq) if var in r.free_symbols)
        expr = atom.lhs - atom.rhs
    return regime_split._regimes(job, expr, var, frozenset(), record=False, simplified=False, witnessed=witnessed)


@pytest.mark.parametrize("model_id, quantity, variable", SPLITS)
def test_the_regimes_are_the_same_without_witnesses_and_none_is_said_feasible(model_id: str, quantity: str, variable: str) -> None:
    for separating in (False, True) if quantity == "Exec_cycles_app" else (False,):
        witnessed = _split(model_id, quantity, variable, True, separating)
        bare = _split(model_id, quantity, variable, False, separating)
        assert [(r.name, r.conditions, r.expression, r.terms, r.raw) for r in bare] == \
            [(r.name, r.conditions, r.expression, r.terms, r.raw) for r in witnessed]
        assert all(r.feasible is None for r in bare)
        assert any(r.feasible is True for r in witnessed)  # the witnesses were sought there


def test_a_recorded_split_seeks_its_witnesses() -> None:
    model = symgpu.load("hong_kim_2009")
    job, _ = jobs.start(model, "regimes", "MWP", "N")
    expr, _ = job.quantity_expression("MWP", None, ())
    with pytest.raises(AssertionError):
        regime_split._regimes(job, expr, job.symbol("N"), frozenset(), record=True, witnessed=False)
