"""Units: symgpu's own pint registry (cycles, bytes, warps, threads, instructions... kept
distinct) and the dimension walker that checks SymPy expressions against it. With
``symgpu.evaluate``, the only place that converts units (``convert``, ``magnitude_in``, ``factor``,
``in_base_units``, ``compact``; ``exact_convert``, ``exact_factor``, ``base_factor``: input values rounded once;
``exact_magnitude``: a quantity text's number, exactly)."""

from __future__ import annotations

from symgpu.units.quantities import (DEFINITIONS, base_factor, compact, convert, exact_convert, exact_factor, exact_magnitude, factor,
                                     format_dimension, in_base_units, magnitude_in, moved, moved_factor, number_text, quantity, registry, unit)

__all__ = ["DEFINITIONS", "base_factor", "compact", "convert", "exact_convert", "exact_factor", "exact_magnitude", "factor", "format_dimension", "in_base_units", "moved", "moved_factor",
           "magnitude_in", "number_text", "quantity", "registry", "unit"]
