"""One evaluation record per scenario (``symgpu.evaluate.record``): the values of the asked symbols
in their declared units, each Min/Max or case-table quantity's regime by the one rule, and the
reason a value is missing, kept and raised again on use."""

from __future__ import annotations

import dataclasses

import pytest

import symgpu
from symgpu import errors
from symgpu.evaluate.record import evaluation_record


def test_the_record_holds_values_in_declared_units_and_the_binding_limit(write_model) -> None:
    model = symgpu.load(write_model())
    # preset toy: P_peak = 100 TFLOP/s = 1e14 FLOP/s, B = 2 TB/s = 2e12 B/s; I = 10 FLOP/B given
    # -> I*B = 2e13 FLOP/s binds, the peak 5x above it
    record = evaluation_record(model, "toy", (("I", "10 FLOP/B"),), ("P",))
    assert record.value("P") == pytest.approx(2e13)
    assert record.value("B") == pytest.approx(2e12)
    regime = record.regime("P")
    assert regime is not None and regime.kind == "min"
    assert regime.active is not None and regime.active.name == "min_arg2"
    assert regime.runner_up is not None and regime.runner_up.name == "min_arg1"
    assert regime.ratio == pytest.approx(1e14 / 2e13)


def test_the_record_is_frozen_and_built_once_per_scenario(write_model) -> None:
    model = symgpu.load(write_model())
    first = evaluation_record(model, "toy", (("I", "10 FLOP/B"),), ("P",))
    assert evaluation_record(model, "toy", (("I", "10 FLOP/B"),), ("P",)) is first
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.preset = "other"  # type: ignore[misc]


def test_a_missing_value_is_recorded_and_raised_on_use(write_model) -> None:
    model = symgpu.load(write_model())
    record = evaluation_record(model, "toy", (), ("P",))  # I has no value
    with pytest.raises(errors.EvaluationError, match="I"):
        record.value("P")
    assert record.regime("P") is None


def test_a_case_table_regime_is_the_first_case_whose_condition_holds(ia: symgpu.Model) -> None:
    # interval analysis, t_P: latency-bound when L/phi >= P*d/Theta; at these values
    # 672 cycles / 1.73 GHz = 388.4 ns against 100 threads * 128 B/thread / 320.3 GB/s = 39.96 ns
    values = {"L_iota": "672 cycle", "phi": "1.73 GHz", "P": "100 thread", "d_iota": "128 B/thread", "Theta_M": "320.3 GB/s", "N_exec": "1000"}
    given = tuple((k, v) for k, v in values.items() if k in ia.symbols)
    record = evaluation_record(ia, None, given, ("t_P",))
    regime = record.regime("t_P")
    assert regime is not None and regime.kind == "piecewise"
    assert regime.active is not None and regime.active.name == "latency_bound"
