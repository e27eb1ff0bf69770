"""Input sets of a report (a preset, alone or with a validation case's inputs) and the values of symbols in them."""

from __future__ import annotations


import os
from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
import pint
import sympy
from symgpu.model import loader
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.numbers import number_text, round_sig
from symgpu.report import printing
from symgpu.evaluate.record import EvaluationRecord, evaluation_record


def scrub(text: str) -> str:
    """One line, with the checkout's absolute path removed (reports must not depend on it)."""
    return " ".join(str(text).replace(str(loader.ROOT) + os.sep, "").replace(str(loader.ROOT), ".").split())


def _jsonable(value: Any) -> Any:
    """Frozen request fields (tuples of pairs) back to JSON-ready lists/dicts/strings."""
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value):
            return {k: _jsonable(v) for k, v in sorted(value)}
        return [_jsonable(v) for v in value]
    if isinstance(value, sympy.Basic):
        return printing.sstr(value)
    if isinstance(value, float):
        return round_sig(value)
    return value


# ============================================================================ scenarios
@dataclass(frozen=True)
class Scenario:
    """A set of input values: a preset plus, optionally, the inputs of one validation case.

    Attributes:
        preset: preset id.
        case: id of the validation case whose ``inputs`` are added ("" for the preset alone).
        inputs: symbol -> quantity added to the preset (case inputs, in file order).
    """

    preset: str
    case: str = ""
    inputs: tuple[tuple[str, pint.Quantity], ...] = ()

    @property
    def label(self) -> str:
        """Human-readable description of where the values come from."""
        if not self.case:
            return f"preset {self.preset}"
        shown = ", ".join(f"{k} = {number_text(float(v.magnitude))} {format(v.units, '~')}".strip() for k, v in self.inputs)
        return f"preset {self.preset} with the inputs of validation case {self.case} ({shown})"

    def values(self) -> dict[str, pint.Quantity]:
        """The case inputs as a dict (to pass to ``Model.evaluate``)."""
        return dict(self.inputs)


def scenarios(model: Model, preset: str) -> list[Scenario]:
    """Input sets available for a preset: the preset alone, then each distinct set of
    validation-case inputs on it (cases that override a defined quantity are left out:
    they do not show the model's own chain)."""
    out = [Scenario(preset)]
    seen: set[tuple[tuple[str, str], ...]] = {()}
    for case in model.definition.validation:
        if case.preset != preset or not case.inputs:
            continue
        if any(name in model.defining for name, _ in case.inputs):
            continue
        inputs = model.validation_case(case).inputs
        key = tuple(sorted((k, f"{v.magnitude!r}") for k, v in inputs))
        if key in seen:
            continue
        seen.add(key)
        out.append(Scenario(preset, case.id, inputs))
    return out


def supplied(model: Model, scenario: Scenario) -> set[str]:
    """Names whose values a scenario supplies (constants, preset values, case inputs)."""
    return set(model.constants) | set(model.preset(scenario.preset)) | {k for k, _ in scenario.inputs}


def record(model: Model, scenario: Scenario, names: Sequence[str]) -> EvaluationRecord:
    """The scenario evaluated once for ``names`` (:func:`symgpu.evaluate.record.evaluation_record`:
    values in declared units, regimes by the one rule); a missing input is reported with the
    scenario's label."""
    return evaluation_record(model, scenario.preset, scenario.inputs, tuple(names), scenario.label)


def magnitude(model: Model, name: str, scenario: Scenario) -> float:
    """Value of symbol ``name`` in its declared unit: an input's value, or a quantity evaluated
    (the scenario's record of ``name``).

    Raises:
        errors.EvaluationError: a value is missing or outside a domain.
    """
    return record(model, scenario, (name,)).value(name)


def headline_quantities(model: Model) -> list[str]:
    """Quantities reported per preset: every symbol with role ``output`` defined by an equation."""
    return [name for name in model.quantities if model.symbol_definitions[name].role == "output"]
