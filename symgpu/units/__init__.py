"""Units: symgpu's own pint registry (cycles, bytes, warps, threads, instructions... kept
distinct) and the dimension walker that checks SymPy expressions against it."""

from __future__ import annotations

from symgpu.units.quantities import DEFINITIONS, format_dimension, number_text, quantity, registry, unit

__all__ = ["DEFINITIONS", "format_dimension", "number_text", "quantity", "registry", "unit"]
