"""Declaring a symbol in another unit of its dimension changes no value (F10 of the sixth outside test).

Before, a bare literal in a sum took the unit of whichever sibling came first: with interval
analysis's L_M declared in kcycle (its preset values converted: 400 cycle = 0.4 kcycle),
``L_perthd = L_M + N*L_F + 1`` became 400 + 96 + 1000 = 1496 cycles instead of 497. Now a literal
whose siblings' units differ in scale is refused where it is written, naming it, and every value
the variant still gives is the base model's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import errors, units

from conftest import FIXTURES

#: (bundled model, the presets compared): a few, so the test stays fast
MODELS = [("interval_analysis", ("gtx1080", "v100")), ("perez_piccoli", ("gtx470",))]


def scaled_unit(text: str) -> str | None:
    """A unit of the same dimension as ``text`` but another scale (a prefix on its first name)."""
    for other in ["k" + text, "m" + text] + (["M" + text[1:]] if text.startswith("G") else []):
        try:
            candidate = units.unit(other)
        except ValueError:
            continue
        if candidate.dimensionality == units.unit(text).dimensionality:
            return other
    return None


def variant(tmp_path: Path, model: symgpu.Model, name: str, unit: str) -> Path:
    """A variant of ``model`` that only declares ``name`` in ``unit`` (presets keep their units)."""
    declared = model.symbol_definitions[name]
    lines = ["schema_version = 1", "[model]", f'id = "{model.id}_{name}"', f'extends = "{model.id}"',
             'title = "t"', 'summary = "s"', f"references = {json.dumps([r.key for r in model.definition.references][:1])}",
             f"[symbols.{name}]", f"description = {json.dumps(declared.description)}", f'unit = "{unit}"',
             f"assumptions = {json.dumps(list(declared.assumptions))}", f'role = "{declared.role}"']
    if declared.role == "constant":
        lines.append(f"value = {json.dumps(str(units.convert(model.constants[name], units.unit(declared.unit))))}")
    path = tmp_path / f"{model.id}_{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def base_input(model: symgpu.Model, name: str, preset: str) -> float | None:
    value = model.presets[preset].get(name, model.constants.get(name))
    return None if value is None else float(units.in_base_units(value).magnitude)


def base_value(model: symgpu.Model, quantity: str, preset: str) -> float | None:
    try:
        return float(units.in_base_units(model.evaluate(quantity, preset=preset)).magnitude)
    except errors.SymgpuError:
        return None


def test_the_reported_case_is_refused_naming_the_literal_not_tripled(tmp_path: Path) -> None:
    ia = symgpu.load("interval_analysis")
    with pytest.raises(errors.UnitMismatchError) as info:
        symgpu.load(variant(tmp_path, ia, "L_M", "kcycle"))
    assert "equation L_perthd: the bare literal 1 in 'L_M + N*L_F + 1'" in str(info.value)
    assert "'L_M' in kcy" in str(info.value) and "'N*L_F' in cy" in str(info.value)


@pytest.mark.parametrize("model_id, presets", MODELS)
def test_every_value_of_a_variant_in_other_units_is_the_base_models_or_refused(tmp_path: Path, model_id: str, presets: tuple[str, ...]) -> None:
    model = symgpu.load(model_id)
    base = {(q, p): base_value(model, q, p) for q in model.quantities for p in presets}
    compared = refused = 0
    for name, declared in model.symbol_definitions.items():
        unit = scaled_unit(declared.unit)
        if unit is None or declared.role not in ("input", "constant"):
            continue
        try:
            other = symgpu.load(variant(tmp_path, model, name, unit))
        except errors.UnitMismatchError as exc:
            assert "the bare literal" in str(exc) and f"'{name}' in " in str(exc), str(exc)
            refused += 1
            continue
        if any(base_input(other, name, p) != pytest.approx(base_input(model, name, p), rel=1e-12) for p in presets):
            continue  # a preset gives the value as a bare number, read in the declared unit: another input
        for (quantity, preset), expected in base.items():
            found = base_value(other, quantity, preset)
            if expected is None or found is None:
                continue
            assert math.isclose(found, expected, rel_tol=1e-9), f"{name} in {unit}: {quantity} at {preset} is {found}, base {expected}"
            compared += 1
    assert compared > 0
    print(model_id, 'values compared', compared, 'variants refused', refused)


CHAIN = """schema_version = 1
[model]
id = "chain"
title = "t"
summary = "s"
references = ["r"]
[references.r]
authors = ["A"]
title = "t"
venue = "v"
year = 2026
[symbols.A]
description = "a latency in kilocycles"
unit = "kcycle"
assumptions = ["positive"]
[symbols.B]
description = "a latency in cycles"
unit = "cycle"
assumptions = ["positive"]
[symbols.X]
description = "their sum"
unit = "cycle"
role = "intermediate"
[symbols.Y]
description = "one cycle more"
unit = "cycle"
role = "output"
[[equations]]
id = "X"
defines = "X"
rhs = "A + B"
source = { ref = "r", locator = "1" }
[[equations]]
id = "Y"
defines = "Y"
rhs = "X + 1"
source = { ref = "r", locator = "2" }
"""


def test_a_literal_that_substitution_puts_beside_terms_of_another_scale_keeps_the_unit_it_is_written_in(tmp_path: Path) -> None:
    """Each equation alone is clear (Y = X + 1 cycle), and a scalar point, read equation by equation,
    gives it: 2 kcycle + 3 cycle + 1 cycle = 2004 cycles by hand. Expanded (the array path), Y is
    A + B + 1 with A in kcycle and B in cycle: the 1 keeps the cycle it is written in (a constant of the
    model, the model's units giving cycles two scales), so the array gives the scalar values (before
    this was refused, and before that 3004 cycles came out: 1 kcycle)."""
    path = tmp_path / "chain.toml"
    path.write_text(CHAIN, encoding="utf-8")
    model = symgpu.load(path)
    assert model.evaluate("Y", values={"A": 2, "B": 3}).to("cycle").magnitude == pytest.approx(2004, rel=1e-12)
    together = model.evaluate("Y", values={"A": np.array([2.0, 3.0]), "B": np.array([3.0, 3.0])}).to("cycle").magnitude
    assert np.allclose(together, [2004.0, 3004.0], rtol=1e-12)  # by hand: 2000 + 3 + 1, 3000 + 3 + 1 cycles


def test_a_literal_zero_case_beside_cases_of_another_scale_is_zero_and_a_nonzero_one_is_refused(tmp_path: Path) -> None:
    # tests/fixtures/zcase.toml at preset p (L_M = 2 kcycle, L_F = 3 cycle, N = 4): T = 2000 cycles where x > 1,
    # N*L_F = 12 cycles where x > 0.5, else 0 (0 in any unit: no scale to choose)
    model = symgpu.load(str(FIXTURES / "zcase.toml"))
    got = [float(model.evaluate("T", "p", x=x).to("cycle").magnitude) for x in (0.25, 0.75, 2)]
    assert got == [0.0, 12.0, 2000.0]
    # the same table with 5 in place of the 0: 5 kcycle or 5 cycle, so the check refuses it, naming the cases
    path = tmp_path / "zcase.toml"
    path.write_text((FIXTURES / "zcase.toml").read_text(encoding="utf-8").replace('value = "0" }', 'value = "5" }'), encoding="utf-8")
    with pytest.raises(errors.UnitMismatchError, match=r"equation T cases: the bare literal 5 .* units of different scale"):
        symgpu.load(str(path))
