"""The report's tables across presets (``[[tables]]``): one row per preset, one column per symbol, every cell from the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from symgpu import errors
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.numbers import number_text, round_sig
from symgpu.report.latex import latex, unit_latex
from symgpu.report.scenarios import Scenario, record, scrub


def _cell(model: Model, name: str, preset: str, columns: tuple[str, ...]) -> dict[str, Any]:
    """A symbol's value at a preset in its declared unit: a preset value, or the quantity evaluated
    (the record of the table's columns at the preset)."""
    try:
        value = record(model, Scenario(preset), columns).value(name)
    except (errors.EvaluationError, errors.UsageError) as exc:
        return {"value": None, "text": "n/a", "reason": scrub(str(exc))}
    return {"value": round_sig(float(value)), "text": number_text(value), "reason": ""}


def tables_section(model: Model) -> list[dict[str, Any]]:
    """Every ``[[tables]]`` entry of the model, its cells evaluated (JSON-ready; templates only lay it out)."""
    out = []
    for table in model.definition.tables:
        columns = [{"name": name, "latex": latex(model, model.symbols[name]), "unit": model.unit_text(name),
                    "unit_latex": unit_latex(model.unit_text(name)), "role": model.symbol_definitions[name].role,
                    "description": model.symbol_definitions[name].description} for name in table.columns]
        cells = {preset: [_cell(model, name, preset, tuple(table.columns)) for name in table.columns] for preset in table.presets}
        out.append({"id": table.id, "title": table.title, "caption": " ".join(table.caption.split()),
                    "source": {"ref": table.source.ref, "locator": table.source.locator}, "columns": columns,
                    "rows": [{"preset": preset, "cells": row} for preset, row in cells.items()],
                    "unavailable": [f"{preset}: {cell['reason']}" for preset, row in cells.items() for cell in row if cell["reason"]]})
    return out
