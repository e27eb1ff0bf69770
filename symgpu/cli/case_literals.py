"""``symgpu check``'s note on a case table's bare number read in another scale than the quantity it defines.

A bare literal takes its siblings' unit (equations/README.md), and a case table's values are each other's siblings:
in ``cases(100 when ..., lat + 50 otherwise)`` with ``lat`` in us, the 100 is 100 us, even where the quantity the
table defines is declared in ns. A reader of the file (and its author) is likely to take the 100 for a value of that
quantity, 100 ns: the value is kept as the rule reads it, and the note names the equation, the case, the literal
and the unit it is read in, so the author can see which is meant.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import sympy

from symgpu import units

#: a case value that is a bare number alone (what a reader takes for the quantity's own value)
_NUMBER = re.compile(r"\s*\d+(?:\.\d*)?(?:[eE][-+]?\d+)?\s*|\s*\.\d+(?:[eE][-+]?\d+)?\s*")


def notes(model: Any) -> list[str]:
    """One line per case of a case table whose value is a bare nonzero number read in a unit other than the declared
    unit of the quantity the table defines (a sibling case's scaled unit, or the coherent base unit where the
    siblings are in it): where it is, what it is read as and what that is in the declared unit."""
    constants = {c.name: c for c in model.literal_constants}
    out = []
    for equation in model.equations.values():
        defines = equation.definition.defines
        declared = model.units[defines]
        for case, written in zip(equation.cases, equation.definition.cases):
            if not _NUMBER.fullmatch(written.value) or declared.dimensionless:
                continue
            value, literal, declared_text = case.value, written.value.strip(), model.unit_text(defines)
            if isinstance(value, sympy.Symbol) and value.name in constants:
                unit = constants[value.name].unit
            elif isinstance(value, sympy.Number) and units.base_factor(declared) != 1:  # siblings in base units
                unit = units.in_base_units(units.registry().Quantity(1, declared)).units
            else:
                continue
            number = Fraction(literal)
            if number == 0 or unit == declared or unit.dimensionality != declared.dimensionality:
                continue
            out.append(f"equation {equation.id}, case {case.id}: the bare {literal} is read as {literal} {unit:~}, the unit of "
                       f"the other cases' values (= {float(number * units.exact_factor(unit, declared)):.10g} {declared_text}), not as "
                       f"{literal} {declared_text} in {defines}'s declared unit; if {literal} {declared_text} is meant, give it "
                       f"through a constant symbol (role = \"constant\", value = \"{literal} {declared_text}\")")
    return out
