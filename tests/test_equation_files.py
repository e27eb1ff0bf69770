"""Every bundled model file loads, passes the unit checker and reproduces its validation cases."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import validation

MODELS = symgpu.list_models()
CASES = [(m, c.id) for m in MODELS for c in symgpu.load(m).definition.validation]


@pytest.mark.parametrize("model_id", MODELS)
def test_model_file_loads_and_is_dimensionally_consistent(model_id):
    model = symgpu.load(model_id)
    assert model.equations, f"{model_id} declares no equations"
    for equation in model.equations.values():
        assert equation.definition.source.locator, f"{model_id}: equation {equation.id} has no source locator"


@pytest.mark.parametrize("model_id", MODELS)
def test_every_declared_symbol_is_used(model_id):
    model = symgpu.load(model_id)
    used = set()
    for equation in model.equations.values():
        used |= {s.name for s in equation.rhs.free_symbols} | {equation.lhs.name}
        for condition in equation.valid_when:
            used |= {s.name for s in condition.free_symbols}
    unused = sorted(set(model.symbols) - used)
    assert not unused, f"{model_id}: declared but unused symbols: {unused}"


@pytest.mark.parametrize("model_id, case_id", CASES, ids=[f"{m}:{c}" for m, c in CASES])
def test_published_number_is_reproduced_or_recorded_as_erratum(model_id, case_id):
    model = symgpu.load(model_id)
    results = validation.validate(model, (case_id,))
    bad = [r.message for r in results if not r.ok]
    assert not bad, "\n".join(bad)


def test_printed_tolerance_follows_printed_digits():
    assert validation.printed_tolerance("971.9 thread") == pytest.approx(0.05)
    assert validation.printed_tolerance("4320") == pytest.approx(0.5)
    assert validation.printed_tolerance("0.00542 warp/cycle") == pytest.approx(5e-6)
    assert validation.printed_tolerance("1.2e3 B") == pytest.approx(50)


def test_erratum_that_suddenly_reproduces_fails(ia):
    import dataclasses

    case = next(c for c in ia.definition.validation if c.id == "mxv_lcs_threads_gtx1080")
    widened = dataclasses.replace(case, abs_tol=1.0)
    (result,) = validation.run_case(ia, widened)
    assert result.status == validation.ERRATUM_REPRODUCED and not result.ok
    assert "recorded as an erratum but now reproduces" in result.message


def test_case_expecting_a_domain_error_fails_when_the_model_gives_a_number(write_model):
    text = write_model().read_text() + '''
[[validation]]
id = "refused"
preset = "toy"
inputs = { I = "10 FLOP/B" }
expect = { P = "domain error" }
source = { ref = "toy2026", locator = "Fig. 1" }
'''
    model = symgpu.load(write_model(text))
    (result,) = validation.validate(model)
    assert result.status == validation.FAIL and "expected a domain error, but the model gives 2e+13 FLOP / s" in result.message
