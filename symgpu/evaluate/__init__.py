"""Numeric evaluation: the one place that merges values, converts to base units, compiles
and evaluates quantities, expressions and regime conditions at a point."""
