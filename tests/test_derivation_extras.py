"""A derivation's further results are a typed record (:class:`symgpu.derive.extras.Extras`):
each a named field, written as (name, value) pairs in the order recorded, read back from those
pairs with every name and type checked; an unknown name is refused everywhere."""

from __future__ import annotations

import dataclasses
import json

import pytest
import sympy

import symgpu
from symgpu.derive import extras, stored
from symgpu.derive.derivation import Derivation, Step
from symgpu.derive.extra_records import (
    ActiveBranch, ActiveRegime, Boundary, CandidateRecord, Expectation, FlatRange, RegimeRow, RootRecord, TargetValue, ValueAt)
from symgpu.derive.extras import Extras


def test_every_field_has_the_types_a_stored_value_may_have():
    assert set(extras._TYPES) == set(extras.FIELDS)


def test_an_unknown_name_is_refused_when_recorded():
    with pytest.raises(TypeError, match="no field 'kind'"):
        Extras().with_(kind="min")
    with pytest.raises(TypeError, match="no field 'kind'"):
        Extras().without("kind")


def test_a_field_set_without_its_place_in_the_order_is_refused():
    with pytest.raises(ValueError, match="record them with with_"):
        Extras(note="a note")
    with pytest.raises(ValueError, match="record them with with_"):
        dataclasses.replace(Extras().with_(note="a"), dimension="time")


def test_pairs_keep_the_order_recorded_and_a_field_recorded_again_keeps_its_place():
    recorded = Extras().with_(undecided="two roots").with_(note="first").with_(dimension="time").with_(note="second")
    assert recorded.pairs() == (("undecided", "two roots"), ("note", "second"), ("dimension", "time"))
    assert recorded.without("note").pairs() == (("undecided", "two roots"), ("dimension", "time"))


def test_root_and_range_records_are_written_as_the_dicts_they_were_and_read_back():
    x, y = sympy.symbols("x y", positive=True)
    roots = (RootRecord("mem", 2 * x, x > y, y > 0), RootRecord("a|b where x switches", x, tie=True))
    ranges = (FlatRange("every regime", sympy.Eq(x, y), y > 1),)
    recorded = Extras().with_(ranges=ranges, roots=roots)
    pairs = recorded.pairs()
    assert pairs == (("ranges", [{"regime": "every regime", "equal": sympy.Eq(x, y), "when": y > 1}]),
                     ("roots", [{"regime": "mem", "root": 2 * x, "when": x > y, "domain": y > 0},
                                {"regime": "a|b where x switches", "root": x, "when": sympy.true, "tie": True}]))
    assert Extras.from_pairs(pairs) == recorded


@pytest.mark.parametrize("record", [
    {"regime": "r", "root": sympy.Integer(1), "when": sympy.true, "ties": True},  # an unknown field
    {"regime": "r", "root": sympy.Integer(1)},  # no conditions
    {"root": sympy.Integer(1), "regime": "r", "when": sympy.true},  # not as written
    {"regime": "r", "root": 1, "when": sympy.true},  # a root that is no expression
    {"regime": "r", "root": sympy.Integer(1), "when": sympy.true, "tie": False},  # tie is written only when true
])
def test_a_malformed_root_record_is_refused(record):
    with pytest.raises(TypeError):
        Extras.from_pairs((("roots", [record]),))


def test_a_malformed_flat_range_is_refused():
    with pytest.raises(TypeError, match="flat range record expected"):
        Extras.from_pairs((("ranges", [{"regime": "r", "equal": sympy.true, "when": sympy.true, "note": "x"}]),))


def test_the_records_inside_the_fields_are_written_as_the_dicts_they_were_and_read_back():
    x = sympy.Symbol("x", positive=True)
    recorded = Extras().with_(
        target_value=TargetValue("T", sympy.Integer(500)),
        values_at=(ValueAt("mem", 2.5), ValueAt("issue", 7.0)),
        boundaries=(Boundary("mem|issue", 3 * x), Boundary("mem|alu", sympy.Tuple(x, 2 * x))),
        regimes=(RegimeRow("mem", ("x > 1", "x < 4"), "2*x", ("mem", "mem"), True), RegimeRow("issue", (), "8", (), None)),
        active_regimes=(ActiveRegime("mem", ("mem",), 2 * x),),
        candidates=(CandidateRecord("critical point of mem", x, 2 * x, ("x > 1",)), CandidateRecord("end x_max", 4 * x, 8 * x, ())),
        active_branch=ActiveBranch(1, "branch 2", 2 * x, "x = 2 > 1"))
    pairs = recorded.pairs()
    assert pairs == (
        ("target_value", {"T": sympy.Integer(500)}),
        ("values_at", [{"regime": "mem", "value": 2.5}, {"regime": "issue", "value": 7.0}]),
        ("boundaries", {"mem|issue": 3 * x, "mem|alu": sympy.Tuple(x, 2 * x)}),
        ("regimes", [{"name": "mem", "conditions": ["x > 1", "x < 4"], "expression": "2*x", "terms": ["mem", "mem"], "feasible": True},
                     {"name": "issue", "conditions": [], "expression": "8", "terms": [], "feasible": None}]),
        ("active_regimes", [{"name": "mem", "terms": ["mem"], "expression": 2 * x}]),
        ("candidates", [{"origin": "critical point of mem", "location": x, "value": 2 * x, "when": ["x > 1"]},
                        {"origin": "end x_max", "location": 4 * x, "value": 8 * x, "when": []}]),
        ("active_branch", {"index": 1, "name": "branch 2", "expression": 2 * x, "because": "x = 2 > 1"}))
    assert Extras.from_pairs(pairs) == recorded


@pytest.mark.parametrize("name, value", [
    ("regimes", [{"name": "m", "conditions": [], "expression": "1", "terms": []}]),  # no feasible
    ("regimes", [{"name": "m", "conditions": (), "expression": "1", "terms": [], "feasible": True}]),  # a tuple, not as written
    ("regimes", [{"name": "m", "conditions": [], "expression": sympy.Integer(1), "terms": [], "feasible": True}]),  # not text
    ("active_regimes", [{"terms": [], "name": "m", "expression": sympy.Integer(1)}]),  # not in the order written
    ("active_regimes", [{"name": "m", "terms": [1], "expression": sympy.Integer(1)}]),  # a term that is no name
    ("candidates", [{"origin": "o", "location": 1, "value": sympy.Integer(1), "when": []}]),  # a location that is no expression
    ("values_at", [{"regime": "m", "value": "2.5"}]),
    ("values_at", [{"regime": "m", "value": 2.5, "unit": "s"}]),  # an unknown key
    ("boundaries", {"a|b": 2}),
    ("active_branch", {"index": True, "name": "b", "expression": sympy.Integer(1), "because": "c"}),  # a bool is no index
    ("target_value", {"T": sympy.Integer(1), "U": sympy.Integer(2)}),  # one target only
    ("target_value", {"T": "500"}),
])
def test_a_malformed_record_inside_a_field_is_refused(name, value):
    with pytest.raises(TypeError):
        Extras.from_pairs(((name, value),))


def test_expectations_are_written_as_expect_and_verdict_pairs_and_read_back():
    x = sympy.Symbol("x")
    recorded = Extras().with_(request="r1").with_(
        expectations=(Expectation("expect.W", 2 * x, True), Expectation("expect_regime", "mem", False)), expectations_hold=False)
    pairs = recorded.pairs()
    assert pairs == (("request", "r1"), ("expect.W", 2 * x), ("expect.W_holds", True), ("expect_regime", "mem"),
                     ("expect_regime_holds", False), ("expectations_hold", False))
    assert Extras.from_pairs(pairs) == recorded


def test_a_plain_expects_own_verdict_is_kept_apart_from_the_overall_verdict():
    # ``expect`` checks as ``expect_holds``; the overall verdict is ``expectations_hold``: where the plain expect
    # fails and the overall verdict is read, the JSON shows both (they used to share a name, and a dict kept one)
    recorded = Extras().with_(request="r", expectations=(Expectation("expect", sympy.Integer(1), False),
                                                         Expectation("expect_regime", "mem", True)), expectations_hold=False)
    pairs = recorded.pairs()
    assert pairs == (("request", "r"), ("expect", sympy.Integer(1)), ("expect_holds", False), ("expect_regime", "mem"),
                     ("expect_regime_holds", True), ("expectations_hold", False))
    assert Extras.from_pairs(pairs) == recorded
    shown = Derivation("m", "solve", "q", "x", (), sympy.Integer(1), extra=recorded).to_dict()["extra"]
    assert shown["expect_holds"] is False and shown["expect_regime_holds"] is True and shown["expectations_hold"] is False


@pytest.mark.parametrize("pairs, message", [
    ((("kind", "min"),), "unknown extra 'kind'"),
    ((("note", "a"), ("note", "b")), "given twice"),
    ((("refused", "2"),), "not a recorded type"),
    ((("refused", True),), "not a recorded type"),
    ((("expect", sympy.Integer(1)),), "without its verdict"),
    ((("expect", sympy.Integer(1)), ("expect_value_holds", True)), "without its verdict"),
    ((("expect", sympy.Integer(1)), ("expect_holds", "yes")), "without its verdict"),
    ((("expect", sympy.Integer(1)), ("expect_holds", True), ("note", "a"), ("expect_value", sympy.Integer(2))), "without its verdict"),
    ((("expect", sympy.Integer(1)), ("expect_holds", True), ("note", "a"), ("expect_value", sympy.Integer(2)),
      ("expect_value_holds", True)), "not recorded together"),
    ([("note", "a")], "pairs expected"),
])
def test_malformed_pairs_are_refused(pairs, message):
    with pytest.raises(TypeError, match=message):
        Extras.from_pairs(pairs)


def _entry_with_extras(model: symgpu.Model) -> Derivation:
    w = model.symbols["W"]
    return Derivation(model=model.id, operation="solve", quantity="S_Mem", variable="W", steps=(Step("solve", sympy.Eq(w, 2), "by hand"),),
                      result=sympy.Integer(2), extra=Extras().with_(note="two", roots=(RootRecord("r", sympy.Integer(2), w > 1, w < 64),)))


def test_a_stored_derivation_reads_back_into_the_typed_record_with_its_pairs_in_order():
    model = symgpu.load("mdm_2019")
    derivation = _entry_with_extras(model)
    w = model.symbols["W"]
    text = stored.dump(model, derivation)
    assert text is not None
    back = stored.load(model, text)
    assert back == derivation and back.extra.roots == (RootRecord("r", sympy.Integer(2), w > 1, w < 64),)
    assert list(back.to_dict()["extra"]) == ["note", "roots"]


def test_a_stored_entry_with_an_unknown_extra_name_is_a_cache_miss():
    model = symgpu.load("mdm_2019")
    body = json.loads(stored.dump(model, _entry_with_extras(model)) or "")
    pairs = body["extra"]["tuple"]
    assert pairs[0] == {"tuple": ["note", "two"]}
    pairs[0]["tuple"][0] = "kind"
    assert stored.load(model, json.dumps(body, sort_keys=True)) is None


@pytest.mark.parametrize("model_id, ask, fields", [
    ("occupancy", lambda m: m.regimes("active_blocks_per_SM", preset="cc_3_5", values={"threads_per_block": 256, "regs_per_thread": 40,
                                                                                      "smem_per_block": "3073 B/block"}),
     ("regimes", "active_regimes")),
    ("volkov_2016", lambda m: m.extremum("n_needed", "alpha", "max", preset="maxwell"), ("candidates", "active_branch")),
    ("volkov_2016", lambda m: m.boundary("memory_throughput", for_="alpha"), ("boundaries",)),
    ("interval_analysis", lambda m: m.solve("L_K0_time", "M", target="500 ns"), ("target_value",)),
], ids=["regimes", "extremum", "boundary", "target"])
def test_an_answer_with_typed_records_reads_back_from_the_store_the_same_and_prints_the_same_json(model_id, ask, fields):
    model = symgpu.load(model_id)
    # the store keeps answers before they are certified and before the API adds the model's declared LaTeX names
    derivation = dataclasses.replace(ask(model), certificate=None, latex_names=())
    assert all(getattr(derivation.extra, f) for f in fields)
    text = stored.dump(model, derivation)
    assert text is not None
    back = stored.load(model, text)
    assert back == derivation
    got, want = json.dumps(back.to_dict(), sort_keys=True), json.dumps(derivation.to_dict(), sort_keys=True)
    if got != want:  # not `assert got == want`: pytest's character diff of two long one-line texts runs for hours
        at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"the JSON read back differs at character {at}: {got[max(0, at - 80):at + 80]!r} "
                    f"vs {want[max(0, at - 80):at + 80]!r}")
