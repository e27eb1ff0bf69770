"""``symgpu validate`` tells a number the source prints from one worked out by hand (or derived,
or measured): such a value is labelled by its ``source.kind`` and counted apart, so "15
reproduced" never reads as "15 published numbers reproduced" (outside round 12a, D2)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

EQUATIONS = Path(__file__).resolve().parent.parent / "equations"
UNPRINTED = {"hand-computed", "derived", "measured"}


def _cases(model: str) -> list[dict]:
    with open(EQUATIONS / f"{model}.toml", "rb") as handle:
        return tomllib.load(handle).get("validation", [])


def _unprinted_values(model: str) -> int:
    """Expected values whose case's source declares a kind the reference does not print, read from the TOML."""
    return sum(len(case["expect"]) for case in _cases(model)
               if isinstance(case["source"], dict) and case["source"].get("kind") in UNPRINTED)


@pytest.mark.parametrize("model", ["mdm_2019", "prior_hong_kim", "hong_kim_2009"])
def test_values_not_printed_are_labelled_and_counted_apart(cli, model):
    total = sum(len(case["expect"]) for case in _cases(model))
    unprinted = _unprinted_values(model)
    code, out, _ = cli("validate", model)
    assert code == 0
    header = out.splitlines()[0]
    assert header.startswith(f"{model}: {total} values, ")
    if unprinted:
        assert f"({unprinted} of the values not printed in the source" in header
    assert len(re.findall(r": (hand-computed|derived|measured) ", out)) == unprinted
    refusals = sum(str(text).strip().lower() == "domain error" for case in _cases(model) for text in case["expect"].values())
    assert len(re.findall(r": printed ", out)) == total - unprinted - refusals
    code, out, _ = cli("validate", "--json", model)
    rows = json.loads(out)
    assert sum(row["origin"] != "printed" for row in rows) == unprinted


def test_mdm_letter_prints_no_worked_number_so_every_case_is_hand_computed(cli):
    # the MDM letter gives Eqs. 4-8 and Table 1 only: every expected value of the model file is worked out by hand
    assert _unprinted_values("mdm_2019") == sum(len(case["expect"]) for case in _cases("mdm_2019")) > 0
    code, _, err = cli("validate", "mdm_2019")
    assert code == 0 and re.search(r"\b0 of the \d+ values printed in a source", err)


def test_every_case_whose_note_says_it_was_computed_declares_its_kind():
    for path in sorted(EQUATIONS.glob("*.toml")):
        with open(path, "rb") as handle:
            cases = tomllib.load(handle).get("validation", [])
        for case in cases:
            note = case.get("note", "").lstrip()
            if re.match(r"(Hand-computed|Computed)\b", note):
                source = case["source"]
                assert isinstance(source, dict) and source.get("kind") in UNPRINTED, f"{path.name}: {case['id']}"
