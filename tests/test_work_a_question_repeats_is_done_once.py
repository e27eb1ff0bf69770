"""Work a cold question used to repeat is done once, with the same result (issue 31): a model file's
``extends`` chain followed again without parsing its files again, an answer's free symbols walked once
for every check that reads them, a regime condition's relation built once for every branch that shares
it, and the Min/Max a limiter's omission leaves built through the model's one Min/Max builder."""

from __future__ import annotations

from pathlib import Path

import sympy

import symgpu
from symgpu import memo, store
from symgpu.derive import jobs, regime_conditions
from symgpu.evaluate import scaling
from symgpu.model import loader

FIXTURES = Path(__file__).parent / "fixtures"


def _counts(name: str) -> tuple[int, int]:
    (found,) = [s for s in memo.stats() if s.name == name]
    return found.hits, found.misses


def test_a_variants_extends_chain_is_followed_again_without_parsing_its_files_again():
    variant = FIXTURES / "tiny_capped.toml"  # extends "tiny", the file beside it
    memo.clear_all()
    with store.using(store.Settings(enabled=False)):
        loader.read_definition(variant)
        assert memo.tallies()["model.loader.toml_parses"] == 2  # the variant and its base
        chain = loader.bases_used(variant)
        assert memo.tallies()["model.loader.toml_parses"] == 2  # bases_used read both files, parsed neither again
    assert chain == (("tiny", FIXTURES / "tiny.toml"),)


def test_an_answers_free_symbols_are_walked_once_for_every_check_that_reads_them():
    model = symgpu.load(str(FIXTURES / "roofline.toml"))
    expr = next(iter(model.equations.values())).rhs
    memo.clear_all()
    first = scaling.in_base_units(model, expr)
    assert scaling.in_base_units(model, expr) == first
    assert _counts("proofs.forms.free_symbols") == (1, 1)  # walked by the first check, read back by the second


def test_a_regime_condition_is_one_relation_for_every_branch_that_shares_it():
    a, b = sympy.symbols("a b", positive=True)
    memo.clear_all()
    strict = [regime_conditions._Cond(a - b, True) for _ in range(3)]
    assert strict[0].relational == sympy.StrictGreaterThan(a - b, 0)
    assert all(c.relational is strict[0].relational for c in strict)
    weak = regime_conditions._Cond(a - b, False).relational
    assert weak == sympy.GreaterThan(a - b, 0) and weak is not strict[0].relational


def test_omitting_a_limiter_builds_the_min_it_leaves_through_the_models_min_max_builder():
    model = symgpu.load("volkov_2016")
    s = model.symbols
    job, _ = jobs.start(model, "extremum", "n_needed", "alpha", omit=["issue_bound"])
    expr = job.expand(s["n_needed"], frozenset(), record=False)
    built_before = sum(_counts("model.substitution.min_max"))
    pruned = job.without_omitted(expr, frozenset())
    assert sum(_counts("model.substitution.min_max")) > built_before
    # n_needed = Latency*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)), Latency = mem_lat + alpha*alu_lat
    # (equations/volkov_2016.toml); without issue_bound, issue_thru/(alpha + 1), the Min of the other two
    latency = s["mem_lat"] + s["alpha"] * s["alu_lat"]
    assert pruned == latency * sympy.Min(s["mem_thru"], s["alu_thru"] / s["alpha"])
