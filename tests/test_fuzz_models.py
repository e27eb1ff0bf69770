"""Issue 12: random and mutated model files are either used or refused with a symgpu error.

A small Hypothesis profile runs here; ``benchmarks/fuzz_models.py`` runs at least 10**4
examples and reports the counts (README, "Reliability").
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings

import fuzzing

SMALL = settings(max_examples=40, deadline=None, database=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])


def test_serialiser_round_trips_every_bundled_model():
    for model_id, data in fuzzing.BUNDLED.items():
        assert tomllib.loads(fuzzing.toml_text(data)) == data, model_id


def test_unmutated_bundled_models_load_through_the_fuzz_harness(tmp_path: Path):
    assert {fuzzing.exercise(tmp_path, m, fuzzing.toml_text(d)) for m, d in fuzzing.BUNDLED.items()} == {"ok"}


@SMALL
@given(fuzzing.mutated_models())
def test_mutated_bundled_model_is_used_or_refused_with_a_symgpu_error(tmp_path: Path, case: tuple[str, str]):
    fuzzing.exercise(tmp_path, *case)


@SMALL
@given(fuzzing.generated_models())
def test_generated_model_is_built_evaluated_or_refused_with_a_symgpu_error(tmp_path: Path, case: tuple[str, str]):
    fuzzing.exercise(tmp_path, *case, evaluate=True)
