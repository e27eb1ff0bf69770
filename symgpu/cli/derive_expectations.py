"""The FAIL line of ``symgpu derive``: each expectation of a ``[[derivations]]`` entry that does not hold, with what it
was compared with and that form's number at the entry's point."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from symgpu.derive import at_point, summary
from symgpu.model import printing

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.model.schema import DerivationRequest


def failed(request: DerivationRequest, derivation: Derivation) -> str:
    """The FAIL line's note: each expectation that does not hold, with what it was compared with (the closed form; an
    extremum's ``expect`` its location, ``expect_value`` its value) and, at the request's point, that form's number."""
    notes = []
    for e in derivation.extra.expectations or ():
        if e.holds:
            continue
        if e.name == "expect_regime":
            active = ", ".join(a.name for a in derivation.extra.active_regimes or ())
            notes.append(f"expect_regime = {e.expected}, active there: {active or 'none'}")
            continue
        located = request.op == "extremum" and e.name in ("expect", f"expect.{derivation.variable}")
        compared = derivation.location if located else derivation.result
        number = derivation.extra.location_at if located else derivation.extra.value_at
        unit = (derivation.extra.location_unit or "") if located else derivation.unit
        inputs = request.get("inputs") or {}
        at = f"; at {at_point.where_text(request.get('preset'), dict(inputs))} it is {float(number):.10g} {unit}".rstrip() \
            if isinstance(number, (int, float)) or (isinstance(number, sympy.Basic) and number.is_number) else ""
        shown = derivation.location if request.op == "extremum" else derivation.result  # the line shows it already
        derived = "" if compared is shown else f", derived {summary.shorten(printing.sstr(compared), 200, 'shortened')}"
        hint = (" (compared with the closed form symbolically, exactly: a number matches only a closed form that is that number; "
                "check a number at a preset with a [[validation]] case naming the derivation)"
                if isinstance(e.expected, sympy.Basic) and e.expected.is_number and not (isinstance(compared, sympy.Basic) and compared.is_number) else "")
        written = request.get(e.name)  # as the file writes it (75.6155, not 151231/2000)
        notes.append(f"{e.name} = {written if isinstance(written, str) else sympy.sstr(e.expected)}{derived}{at}{hint}")
    return "  expected " + "; ".join(notes)
