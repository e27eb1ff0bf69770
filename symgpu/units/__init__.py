"""Units: symgpu's own pint registry (cycles, bytes, warps, threads, instructions... kept
distinct) and the dimension walker that checks SymPy expressions against it. With
``symgpu.evaluate``, the only place that converts units (``convert``, ``magnitude_in``, ``factor``,
``in_base_units``, ``compact``)."""

from __future__ import annotations

from symgpu.units.quantities import (DEFINITIONS, compact, convert, factor, format_dimension, in_base_units, magnitude_in, number_text,
                                     quantity, registry, unit)

__all__ = ["DEFINITIONS", "compact", "convert", "factor", "format_dimension", "in_base_units", "magnitude_in", "number_text", "quantity",
           "registry", "unit"]
