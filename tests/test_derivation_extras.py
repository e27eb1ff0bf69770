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
from symgpu.derive.extras import Expectation, Extras, FlatRange, RootRecord


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


def test_expectations_are_written_as_expect_and_verdict_pairs_and_read_back():
    x = sympy.Symbol("x")
    recorded = Extras().with_(request="r1").with_(
        expectations=(Expectation("expect.W", 2 * x, True), Expectation("expect_regime", "mem", False)), expect_holds=False)
    pairs = recorded.pairs()
    assert pairs == (("request", "r1"), ("expect.W", 2 * x), ("expect.W_holds", True), ("expect_regime", "mem"),
                     ("expect_regime_holds", False), ("expect_holds", False))
    assert Extras.from_pairs(pairs) == recorded


def test_a_plain_expect_and_the_overall_verdict_both_write_expect_holds_the_overall_one_last():
    # ``expect`` checks as ``expect_holds``, the name of the request's overall verdict too: the
    # pairs keep both, and the JSON (a dict) the overall verdict in the first one's place
    recorded = Extras().with_(request="r", expectations=(Expectation("expect", sympy.Integer(1), False),), expect_holds=True)
    pairs = recorded.pairs()
    assert pairs == (("request", "r"), ("expect", sympy.Integer(1)), ("expect_holds", False), ("expect_holds", True))
    assert Extras.from_pairs(pairs) == recorded
    shown = Derivation("m", "solve", "q", "x", (), sympy.Integer(1), extra=recorded).to_dict()["extra"]
    assert list(shown.items()) == [("request", "r"), ("expect", "1"), ("expect_holds", True)]


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
