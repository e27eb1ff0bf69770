"""Every [[derivations]] entry of every bundled model runs, and every stated expectation holds."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import derive

REQUESTS = [(m, r.id) for m in symgpu.list_models() for r in symgpu.load(m).definition.derivations]


@pytest.mark.parametrize("model_id, request_id", REQUESTS, ids=[f"{m}:{r}" for m, r in REQUESTS])
def test_derivation_request_runs_and_meets_its_expectation(model_id, request_id):
    model = symgpu.load(model_id)
    request = next(r for r in model.definition.derivations if r.id == request_id)
    derivation = derive.run_request(model, request)
    assert derivation.steps, "a derivation records its steps"
    holds = derive.expect_holds(derivation)
    if any(request.get(key) is not None for key in ("expect", "expect_value", "expect_regime")):
        assert holds is True, f"{model_id}:{request_id}: expectation does not hold; result {derivation.result}"


def test_an_unknown_operation_is_refused_with_the_operations_listed(ia):
    request = symgpu.model.schema.DerivationRequest("q", "integrate", (("quantity", "P_K0"),))
    with pytest.raises(symgpu.UsageError, match=r"^interval_analysis: derivation q: operation 'integrate' is not supported "
                                                 r"by the engine \(operations: boundary, extremum, fixed_point, limit, regimes, "
                                                 r"simplify, solve, substitute\)$"):
        derive.run_request(ia, request)


def test_a_misspelt_field_is_refused_instead_of_ignored(ia):
    request = symgpu.model.schema.DerivationRequest("q", "solve", (("quantity", "P_K0"), ("varaible", "N")))
    with pytest.raises(symgpu.UsageError, match=r"^interval_analysis: derivation q: unknown field 'varaible' \(fields: "):
        derive.run_request(ia, request)


def test_every_operation_a_model_file_may_name_has_a_handler():
    assert set(derive.OPERATIONS) == set(symgpu.model.schema.DERIVATION_OPS)
