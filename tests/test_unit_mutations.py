"""Issue 12: every dimension-changing single mutation of an equation fails the unit check.

A sample (two small bundled models); ``benchmarks/mutate_units.py`` runs every bundled model.
"""

from __future__ import annotations

import pytest

import symgpu
import unit_mutations


@pytest.mark.parametrize("model_id", ["mdm_2019", "perez_piccoli"])
def test_every_dimension_changing_mutation_is_caught(model_id):
    mutants = list(unit_mutations.mutants(symgpu.load(model_id)))
    changing = [m for m in mutants if m.changes]
    assert {m.kind for m in changing} == {"drop", "invert", "replace", "unit"}
    missed = [f"{m.equation}: {m.description}" for m in changing if not unit_mutations.caught(m)]
    assert missed == []


def test_oracle_calls_a_dimension_keeping_mutation_keeping_and_the_checker_accepts_it():
    # 2*x -> x keeps the dimension (a bare number is a pure number); the checker must accept it
    model = symgpu.load("perez_piccoli")
    keeping = [m for m in unit_mutations.mutants(model) if not m.changes]
    assert keeping and all(not unit_mutations.caught(m) for m in keeping)
