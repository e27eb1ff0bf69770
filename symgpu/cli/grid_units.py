"""``extremum --grid`` with units: ``1KiB/block:64KiB/block:1KiB/block`` read as ``sweep --grid`` reads an axis (its
grammar, :func:`symgpu.sweep.grid.parse_axis`, and its exact conversion to the symbol's declared unit at the point,
:func:`symgpu.sweep.plan.in_declared_units`: across the clock or warp size as ``--set`` is), then handed to the grid
search as the whole numbers it takes (``1:64:1`` in KiB/block). A grid that is no run of whole numbers in the declared
unit is refused, saying what it is there (the grid search evaluates whole values of a staircase's variable).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from symgpu import errors
from symgpu.sweep.grid import Grid, parse_axis
from symgpu.sweep.plan import in_declared_units


def whole_grid(model: Any, over: str, text: str, preset: str | None, values: Mapping[str, Any] | None) -> str:
    """``text`` (``START:STOP[:STEP]``, numbers with or without one unit) as whole numbers in ``over``'s declared unit;
    ``text`` itself where its numbers are bare (the grid search reads them, and refuses a fraction)."""
    parts = text.split(":")
    if all(p.strip().lstrip("+-").isdigit() for p in parts) or over not in model.units:
        return text
    axis = in_declared_units(model, Grid((parse_axis(f"{over}={text}", "--grid"),), "--grid"), preset, values).axes[0]
    declared = model.unit_text(over)
    found = axis.values
    if len(parts) not in (2, 3) or not len(found) or not np.all(found == np.round(found)):
        shown = ", ".join(f"{v:.10g}" for v in found[:4]) + (", …" if len(found) > 4 else "")
        raise errors.UsageError(f"--grid {text!r}: in {over}'s declared unit {declared} that is {shown or 'no value'}: --grid searches "
                                f"whole values START:STOP[:STEP] of {declared} (a staircase's variable); give a grid whose values "
                                f"are whole in {declared}, or sweep it: symgpu sweep ... -g {over}={text}")
    start, stop = int(found[0]), int(found[-1])
    step = int(found[1] - found[0]) if len(found) > 1 else 1
    if not np.array_equal(found, np.arange(start, stop + 1, step)):  # not evenly spaced once rounded: refused as above
        raise errors.UsageError(f"--grid {text!r}: in {declared} its values are not evenly spaced whole numbers; give the grid in {declared}")
    if axis.across:
        print(f"symgpu: note: --grid {text!r} read in {declared} at {axis.across}", file=sys.stderr)
    return f"{start}:{stop}:{step}"
