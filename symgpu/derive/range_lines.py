"""What a solve at a point says beside its closed form where the relation holds on whole ranges of the
unknown (a flat regime: memory_throughput = mem_thru for every n past the knee): the "no isolated root here"
and "holds for every n where ..." lines. One text for the command line (printed after the summary) and the
API (:func:`at_point`, put into the derivation's ``extra.elsewhere`` so the notebook shows it too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import results
from symgpu.derive.extra_records import AT_THE_POINT
from symgpu.model import printing

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.model import Model


def texts(variable: str, no_root_here: Sequence[str], ranges: Sequence[Mapping[str, str]]) -> list[str]:
    """The lines, unshortened and unindented: ``no_root_here`` the regimes of closed-form roots that give none at
    the point, ``ranges`` each flat range as ``{"regime": ..., "where": ...}``."""
    out = []
    if no_root_here:
        many = len(no_root_here) > 1
        out.append(f"no isolated root here: the closed-form root{'s' if many else ''} above (regime{'s' if many else ''} "
                   f"{', '.join(no_root_here)}) give{'' if many else 's'} no root at this point (its regime's conditions fail there, or "
                   "it is no finite value in the variable's declared range); the relation holds on the range below")
    for flat in ranges:
        if flat["regime"] == "every regime" and flat["where"] in ("any value", "True"):
            out.append(f"holds for every {variable}: the relation does not depend on {variable} here")
        elif flat["regime"] == "every regime":
            out.append(f"holds for every {variable} where {flat['where']} (the model's valid_when domain: it gives no value outside it)")
        elif flat["regime"] == AT_THE_POINT:
            out.append(f"holds for every {variable} where {flat['where']} (at no other admissible {variable}: declared range, "
                       "valid_when domain)")
        else:
            out.append(f"holds for every {variable} where {flat['where']} (regime {flat['regime']}: its value does not depend on "
                       f"{variable})")
    return out


def at_point(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> Derivation:
    """``derivation``, a solve asked at a point, with :func:`texts` in ``extra.elsewhere`` where the relation holds on
    whole ranges there (as the command line prints them); unchanged elsewhere."""
    if derivation.operation != "solve":
        return derivation
    merged = results.result_values(derivation, values)
    try:
        if derivation.result is sympy.true:
            ranges = [{"regime": "every regime", "where": "any value"}]
            no_root: list[str] = []
        else:
            found = results.applying_ranges(model, derivation, preset, merged)
            ranges = [{"regime": f.regime, "where": printing.sstr(f.when)} for f in found]
            records = results.roots_of(derivation)
            no_root = []
            if ranges and records and not results.holds_on_ranges(derivation.result) and not results.applying_roots(
                    model, records, preset, merged, derivation.unit, derivation.variable):
                no_root = sorted({r.regime for r in records})
    except errors.SymgpuError:
        return derivation
    lines = texts(derivation.variable, no_root, ranges)
    if not lines:
        return derivation
    note = "; ".join(lines)
    return dataclasses.replace(derivation, extra=derivation.extra.with_(
        elsewhere=note if not derivation.extra.elsewhere else f"{derivation.extra.elsewhere}; {note}"))
