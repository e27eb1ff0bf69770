"""A boundary over a variable declared integer, at a point: the two whole values its switch lies between.

The closed form's boundary is a real number; where the variable is declared integer and that number is no
whole one, the regime switches between its floor and its ceiling (:func:`symgpu.evaluate.active.boundary_sides`,
where :func:`symgpu.derive.results.applying_boundaries` and the boundary's certificate check the switch). Little's
law ``Min(n*ilp*bytes*SMs/L, peak)`` on an H100 switches at ``n = 58.0086`` warps: latency-bound at ``n <= 58``,
peak-bound at ``n >= 59`` (an outside tester's finding, round 15a U3: the value was refused as no whole number,
with a reason that did not apply).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from symgpu.derive import declared_range, results
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class WholeSides:
    """A boundary value between two whole values of an integer variable.

    Attributes:
        value: the boundary, in the variable's declared unit.
        below: the last whole value on its lower side.
        above: the first whole value on its upper side.
        regime_below: the regimes binding at ``below`` (" = "-joined; "" where the quantity's own equation names none).
        regime_above: those binding at ``above``.
    """

    value: float
    below: float
    above: float
    regime_below: str
    regime_above: str

    def text(self, variable: str) -> str:
        """The line the command line prints."""
        said = (f": {self.regime_below} at {variable} <= {self.below:g}, {self.regime_above} at {variable} >= {self.above:g}"
                if self.regime_below and self.regime_above else "")
        return (f"{variable} is declared integer: the switch at {self.value:.10g} lies between the whole values {self.below:g} "
                f"and {self.above:g}{said} (the model evaluated at both)")

    def as_dict(self) -> dict[str, Any]:
        """The JSON's entry."""
        return {"value": self.value, "below": self.below, "above": self.above, "regime_below": self.regime_below,
                "regime_above": self.regime_above}


def of(model: Model, derivation: Derivation, found: Sequence[float], preset: str | None,
       values: Mapping[str, Any]) -> tuple[WholeSides, ...]:
    """For a boundary over a variable declared integer, each value of ``found`` (those the answer gives at the point) that
    is no whole number, with the whole values beside it and the regimes there; empty for another question."""
    variable = derivation.variable
    if derivation.operation != "boundary" or variable is None or not declared_range.of(model, variable).integer:
        return ()
    named = {s.value: s for s in results.switches_beside(model, derivation, preset, values)}
    out = []
    for b in found:
        if not math.isfinite(b) or b == round(b):
            continue
        below, above = active.boundary_sides(model, variable, b)
        if below != round(below):  # nothing admissible below it (a positive integer under 1): not between two
            continue
        switch = named.get(b)
        out.append(WholeSides(b, below, above, " = ".join(sorted(switch.below)) if switch else "",
                              " = ".join(sorted(switch.above)) if switch else ""))
    return tuple(out)
