"""An unknown unit (``KB``) is refused naming the one file that lists the units (where it is installed, so a user
can open it), once, with the units it may mean and the prefixes; the units it suggests are accepted (an outside
tester's finding, round 13c F10: two different paths, 'symgpu/units/units.txt' and 'symgpu/units.txt')."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import symgpu
from conftest import tiny_text
from symgpu import units


def test_a_symbol_in_kb_is_refused_naming_the_unit_file_once_and_suggesting_kb_or_kib(write_model, cli) -> None:  # type: ignore[no-untyped-def]
    path = write_model(tiny_text().replace('unit = "B/s"', 'unit = "KB/s"'))
    code, out, err = cli("check", path)
    assert code != 0
    message = out + err
    named = re.findall(r"\S*units\.txt", message)
    assert len(named) == 1 and Path(named[0]).is_file()  # the real file, named once
    assert "did you mean kB or KiB?" in message
    assert "k M G T P m u n p (powers of 10) and Ki Mi Gi (powers of 2" in message
    assert "[symbols.B].unit" in message and str(path) in message


@pytest.mark.parametrize(("unit", "bytes_per_unit"), [("kB/s", 1000), ("KiB/s", 1024)])
def test_the_suggested_units_are_accepted_with_their_own_scale(write_model, unit, bytes_per_unit) -> None:  # type: ignore[no-untyped-def]
    path = write_model(tiny_text().replace('unit = "B/s"', f'unit = "{unit}"'))
    model = symgpu.load(path)
    # P = Min(P_peak, I*B) with I = 1 FLOP/B, B = 3 of the unit: 3 x bytes_per_unit FLOP/s (P_peak = 100 TFLOP/s is larger)
    assert model.evaluate("P", "toy", values={"I": 1, "B": 3}).to("FLOP/s").magnitude == 3 * bytes_per_unit


@pytest.mark.parametrize(("text", "meant"), [("3 GHZ", "GHz"), ("1 KIB", "KiB"), ("2 US", "us")])
def test_a_unit_in_the_wrong_case_is_answered_with_the_right_one(text: str, meant: str) -> None:
    with pytest.raises(ValueError, match=f"did you mean {meant}\\?"):
        units.quantity(text)
    assert units.quantity(text.split()[0] + " " + meant).magnitude == float(text.split()[0])


def test_an_unknown_unit_without_a_near_one_still_names_the_prefixes() -> None:
    with pytest.raises(ValueError) as caught:
        units.quantity("3 furlong")
    assert "did you mean" not in str(caught.value) and "prefixes are k M G" in str(caught.value)
