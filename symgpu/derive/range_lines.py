"""What a solve at a point says beside its closed form where the relation holds on whole ranges of the
unknown (a flat regime: memory_throughput = mem_thru for every n past the knee): the "no isolated root here"
and "holds for every n where ..." lines (a range that SymPy reads as one interval at the point, with the numbers in:
``here that is every smem_block in (38, 45.6] KiB/block``). One text for the command line (printed after the summary) and the
API (:func:`at_point`, put into the derivation's ``extra.elsewhere`` so the notebook shows it too).
"""

from __future__ import annotations

import math
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import declared_range, results
from symgpu.derive.extra_records import AT_THE_POINT
from symgpu.evaluate import point, scaling
from symgpu.model import printing

if TYPE_CHECKING:
    from symgpu.derive.derivation import Derivation
    from symgpu.derive.extra_records import FlatRange
    from symgpu.model import Model


def texts(variable: str, no_root_here: Sequence[str], ranges: Sequence[Mapping[str, str]]) -> list[str]:
    """The lines, unshortened and unindented: ``no_root_here`` the regimes of closed-form roots that give none at
    the point, ``ranges`` each flat range as ``{"regime": ..., "where": ...}`` (and ``"here"``: the range at the point,
    where :func:`here` reads one)."""
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
        if flat.get("here"):
            out.append(f"here that is every {variable} in {flat['here']}")
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
            ranges = [d for d in (described(model, f, derivation.variable, derivation.unit, preset, merged) for f in found) if d]
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


def described(model: Model, flat: FlatRange, variable: str, unit: str, preset: str | None,
              values: Mapping[str, Any]) -> dict[str, str] | None:
    """A flat range as :func:`texts` reads it: its regime, its condition, and the range at the point (:func:`here`) where
    that is one interval; None where the range is empty there (a staircase's step that its regime's conditions exclude)."""
    out = {"regime": flat.regime, "where": printing.sstr(flat.when)}
    at = interval(model, flat.when, variable, preset, values)
    if at is sympy.S.EmptySet:
        return None
    return {**out, "here": _shown(at, unit)} if isinstance(at, sympy.Interval) else out


def probes(model: Model, derivation: Derivation, preset: str | None, values: Mapping[str, Any]) -> list[float]:
    """Values of a solve's unknown (its declared unit) that test its flat ranges at the point: a point just beside each
    finite end of each interval on either side (1e-9 relative), and a point inside (what a check of the answer evaluates
    beside its scan; a range narrower than the scan's spacing, a staircase's step, is tested so)."""
    declared = declared_range.of(model, derivation.variable)
    # an integer variable has values at integers only: the whole values beside each end, a whole value inside
    below, above, middle = (math.floor, math.ceil, round) if declared.integer else (float, float, float)
    out: list[float] = []
    for flat in results.applying_ranges(model, derivation, preset, values):
        at = interval(model, flat.when, derivation.variable, preset, values)
        if not isinstance(at, sympy.Interval):
            continue
        ends = [float(e) for e in (at.inf, at.sup) if e.is_finite]
        # not the end itself: IEEE decides it
        out += [float(v) for e in ends for v in (below(e - 1e-9 * max(abs(e), 1e-300)), above(e + 1e-9 * max(abs(e), 1e-300)))]
        out.append(float(middle(float((at.inf + at.sup) / 2) if len(ends) == 2 else ends[0] * 2 + 1 if ends else 1.0)))
    admitted = np.asarray(out, dtype=float)
    return [float(v) for v in admitted[declared.holds(admitted)]]


def interval(model: Model, when: sympy.Basic, variable: str, preset: str | None, values: Mapping[str, Any]) -> sympy.Set | None:
    """``when`` (a flat range's condition) at the point, every input but ``variable`` put in as an exact number, as the set
    of ``variable``'s values in its declared unit, inside its declared sign (SymPy's ``solveset`` of each condition); None
    where an input has no value there, or a condition holds a staircase of ``variable`` or is one ``solveset`` does not
    read."""
    var = next((s for s in when.free_symbols if s.name == variable), None)
    if var is None or variable not in model.units:
        return None
    plain = sympy.Symbol(variable)  # no assumption: its declared sign is a relation beside the others, not taken as known
    declared = [r.xreplace({s: plain for s in r.free_symbols if s.name == variable}) for r in declared_range.of(model, variable).relations]
    based = scaling.base_expression(model, sympy.And(when.xreplace({var: plain}), *declared))
    var = plain
    numbers = point.exact_base_values(model, based.free_symbols - {var}, preset, values)
    if numbers is None:
        return None
    x = sympy.Dummy("x", real=True)
    span: sympy.Set = sympy.S.Reals
    try:
        put = based.xreplace(numbers).xreplace({var: x * scaling.unit_scale(model.units[variable])})
        for relation in sympy.And.make_args(put):
            if relation is sympy.false:
                return sympy.S.EmptySet
            if relation is sympy.true:
                continue
            if relation.has(sympy.floor, sympy.ceiling) or relation.free_symbols != {x}:
                return None
            span = sympy.Intersection(span, sympy.solveset(relation, x, sympy.S.Reals))
    except (TypeError, ValueError, NotImplementedError, ArithmeticError):
        return None
    return span


def _shown(span: sympy.Interval, unit: str) -> str:
    """``(38, 45.6] KiB/block``: an interval of numbers in ``unit``, ten significant digits."""
    low = "(-oo" if span.inf == -sympy.oo else f"{'(' if span.left_open else '['}{float(span.inf):.10g}"
    high = "oo)" if span.sup == sympy.oo else f"{float(span.sup):.10g}{')' if span.right_open else ']'}"
    return f"{low}, {high}" + ("" if unit in ("", "1", "dimensionless") else f" {unit}")
