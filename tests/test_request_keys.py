"""The derivation store's key of a request holds what the request reads and nothing else: any
change of a reachable equation, assumption, unit, constant or named preset value changes it,
a change elsewhere in the model does not; a variant reads its base's stored derivation, equal
step by step to the one derived fresh; and a stored derivation whose regime names would be
different in the reading model is derived again there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import symgpu
from symgpu import store
from symgpu.derive import request_keys, requests
from symgpu.entry_kinds import DERIVATIONS
from symgpu.model.operations import Question

#: a model whose quantity P reaches B_eff's equation and the constant k, and not Q's equation
_MODEL = """
schema_version = 1

[model]
id = "{id}"
title = "Keyed"
summary = "A quantity with an intermediate, a constant and an equation it does not reach."
references = ["toy2026"]

[references.toy2026]
authors = ["A. Author"]
title = "A toy"
venue = "tests"
year = 2026

[symbols.P]
description = "attainable throughput"
unit = "FLOP/s"
role = "output"

[symbols.Q]
description = "another throughput"
unit = "FLOP/s"
role = "output"

[symbols.B_eff]
description = "effective bandwidth"
unit = "{bandwidth}"
role = "intermediate"

[symbols.P_peak]
description = "peak throughput"
unit = "FLOP/s"
assumptions = ["positive"]

[symbols.B]
description = "bandwidth"
unit = "{bandwidth}"
assumptions = ["positive"]

[symbols.I]
description = "{intensity_text}"
unit = "{intensity_unit}"
assumptions = ["{intensity}"]

[symbols.k]
description = "sharing factor"
unit = "1"
role = "constant"
value = "{k}"

[[equations]]
id = "attainable"
defines = "P"
rhs = "Min(P_peak, I*B_eff)"
source = {{ ref = "toy2026", locator = "Eq. (1)" }}

[[equations]]
id = "effective"
defines = "B_eff"
rhs = "{effective}"
source = {{ ref = "toy2026", locator = "Eq. (2)" }}

[[equations]]
id = "other"
defines = "Q"
rhs = "{other}"
source = {{ ref = "toy2026", locator = "Eq. (3)" }}
{other_limiters}
[[derivations]]
id = "split"
op = "regimes"
quantity = "P"
variable = "I"

[presets.toy]
description = "round numbers"
source = {{ ref = "toy2026", locator = "Table 1" }}
[presets.toy.values]
P_peak = "100 TFLOP/s"
B = "{b_value}"
"""

_BASE = {"id": "keyed", "bandwidth": "B/s", "intensity": "positive", "intensity_text": "intensity", "intensity_unit": "FLOP/B", "k": "2",
         "effective": "B/k", "other": "P_peak/2", "other_limiters": "", "b_value": "2 TB/s"}
#: a request for P at the preset (the key reads the request's text: its names)
_PARTS = ("request", "regimes of P over I at preset toy")


def _model(tmp_path: Path, folder: str, **changes: str) -> symgpu.Model:
    (tmp_path / folder).mkdir()
    path = tmp_path / folder / f"{changes.get('id', 'keyed')}.toml"
    path.write_text(_MODEL.format(**{**_BASE, **changes}), encoding="utf-8")
    return symgpu.load(path)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    return tmp_path / "cache"


@pytest.mark.parametrize("change", [
    {"effective": "B/(2*k)"},                       # one reachable equation
    {"intensity": "nonnegative"},                   # one assumption
    {"intensity_unit": "FLOP/kB"},                  # one unit (of a symbol no preset gives)
    {"k": "3"},                                     # one constant's value
    {"b_value": "3 TB/s"},                          # one value of the preset the request names
], ids=["equation", "assumption", "unit", "constant", "preset_value"])
def test_a_change_of_what_the_request_reads_changes_its_key(tmp_path, change):
    base, changed = _model(tmp_path, "base", **{}), _model(tmp_path, "changed", **change)
    assert request_keys.request_key(base, _PARTS) != request_keys.request_key(changed, _PARTS)


@pytest.mark.parametrize("change", [
    {"other": "P_peak/3"},                 # an equation P does not reach
    {"intensity_text": "arithmetic intensity"},  # a description (no derivation reads it)
    {"id": "renamed"},                     # the model's id (the entry's model field is the reader's)
], ids=["unreachable_equation", "description", "model_id"])
def test_a_change_the_request_cannot_read_keeps_its_key(tmp_path, change):
    base, changed = _model(tmp_path, "base"), _model(tmp_path, "changed", **change)
    assert request_keys.request_key(base, _PARTS) == request_keys.request_key(changed, _PARTS)


def test_the_view_reaches_the_intermediates_equation_and_the_constant_but_not_the_other_equation(tmp_path):
    symbols, equations = request_keys.reached(_model(tmp_path, "base"), repr(_PARTS))
    assert equations == {"attainable", "effective"}
    assert symbols == {"P", "P_peak", "I", "B_eff", "B", "k"}


def test_regime_names_from_an_unreached_equation_are_checked_where_an_entry_is_reused(cache, tmp_path):
    # Q = Min(P_peak, I*B_eff) with named limiters names P's regimes too (P's own equation has
    # none): the key of "split" is the same in both models, the names are not
    base = _model(tmp_path, "base")
    named = _model(tmp_path, "named", other="Min(P_peak, I*B_eff)",
                   other_limiters='limiters = { compute = "P_peak", memory = "I*B_eff" }\n')
    request = next(r for r in base.definition.derivations if r.id == "split")
    parts = ("request", repr(request), Question.read(base, request).omit)
    assert request_keys.request_key(base, parts) == request_keys.request_key(named, parts)
    stored_first = requests.request(base, "split")
    reused = requests.request(named, "split")
    with store.using(store.Settings(enabled=False)):
        fresh = requests.request(named, "split")
    assert {r.name for r in stored_first.regimes} == {"min_arg1", "min_arg2"}
    assert {r.name for r in fresh.regimes} == {"compute", "memory"}
    assert reused == fresh and reused.regimes == fresh.regimes and reused.to_dict() == fresh.to_dict()


@pytest.mark.parametrize("variant", ["volkov_2016_ilp", "volkov_2016_h100"])
@pytest.mark.parametrize("request_id", ["alpha_memory_issue", "cusp_full", "s6_5_fixed_point"])
def test_a_variant_reads_its_base_stored_derivation_equal_to_its_own_fresh_one(cache, variant, request_id):
    base, other = symgpu.load("volkov_2016"), symgpu.load(variant)
    requests.request(base, request_id)
    store.flush()
    entries = sorted((store.folder() / DERIVATIONS.name).rglob("*.txt"))
    assert entries  # the request's (and a boundary's inner search's)
    reused = requests.request(other, request_id)
    store.flush()
    # not derived again: no entry was added, and the request's entry is still the base's (a
    # derivation of the variant's own would have been written over it with the variant's id)
    assert sorted((store.folder() / DERIVATIONS.name).rglob("*.txt")) == entries
    request = next(r for r in other.definition.derivations if r.id == request_id)
    key = request_keys.request_key(other, ("request", repr(request), Question.read(other, request).omit))
    assert json.loads(store.get(DERIVATIONS, key) or "{}")["model"] == "volkov_2016"
    with store.using(store.Settings(enabled=False)):
        fresh = requests.request(other, request_id)
    assert reused.model == variant
    assert reused.steps == fresh.steps  # step by step: operation, expression, justification
    assert reused == fresh and reused.regimes == fresh.regimes and reused.to_dict() == fresh.to_dict()
