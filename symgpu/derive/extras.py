"""What a derivation records beside its result: :class:`Extras`, each named result a typed field.

A derivation's further results (a solve's root records, a regimes table, an extremum's
candidates, a request's expectations...) are fields of one frozen record, read by attribute
(``derivation.extra.roots``), never by a string key. A field not recorded is ``None``. The
record keeps the order its fields were recorded in (:attr:`Extras.order`): the JSON of an
answer (``Derivation.to_dict``) and the derivation store (:mod:`.stored`) write the fields as
``(name, value)`` pairs in that order, exactly as they were written when the extras were a
tuple of pairs, and :meth:`Extras.from_pairs` reads such pairs back, refusing an unknown name,
a value of the wrong type or a name given twice.

Fields are recorded with :meth:`Extras.with_` (a new record; a field recorded again keeps its
place and takes the new value, as the pairs read into a dict did). The records inside a field
(a root, a regimes table row, a candidate...) are the frozen records of :mod:`.extra_records`,
written as the dicts they were before they were records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from symgpu.derive.extra_records import (
    NUMBER as _NUMBER, ActiveBranch, ActiveRegime, Boundary, CandidateRecord, Expectation, FlatRange, GivenConstant, RegimeRow,
    RootRecord, TargetValue, ValueAt, boundaries_dict, boundaries_from_dict)


def _is_expectation_name(name: str) -> bool:
    return name in ("expect", "expect_value", "expect_regime") or (name.startswith("expect.") and len(name) > len("expect."))


@dataclass(frozen=True)
class Extras:
    """The named results a derivation records beside its result (``None``: not recorded).

    Attributes:
        substituted: every operation: the quantities whose equations were substituted, in order.
        target_value: solve: a numeric target kept as the value of its quantity (a :class:`TargetValue`,
            the number in the quantity's declared unit) where putting the number in would change its meaning.
        given_constants: solve: the numbers a target across a rate gave as constants of the model (:class:`GivenConstant`),
            where the derivation was asked of a model that does not hold them (the API's).
        ranges: solve: the flat regimes, :class:`FlatRange` records.
        holds_for: solve: the condition on the unknown where the relation holds on a whole range.
        note: solve: a sentence about a range answer.
        roots: solve, boundary: :class:`RootRecord` s, each root with the conditions under which it is one.
        undecided: solve: why several roots remain (their signs are not decided).
        values_at: solve: :class:`ValueAt` s, the roots that apply at the given point, in the
            variable's unit.
        boundaries: boundary: a :class:`Boundary` (``regime a|regime b``, where) for each pair of regimes that meet.
        between: boundary: the two regimes or cases asked about.
        regimes: regimes: the table, a :class:`RegimeRow` for each regime.
        active_regimes: regimes: the regimes that hold at the given point, :class:`ActiveRegime` s.
        candidates: extremum: every candidate, :class:`CandidateRecord` s.
        valid_when: extremum: the conditions (SymPy relations) a single closed form holds under.
        elsewhere: extremum: what happens where no branch of a Piecewise answer holds.
        approached: extremum: cusps whose value is approached but not attained (another case gives
            the value at the point itself), :class:`CandidateRecord` s.
        flat_where: extremum: where a factor of the slope free of the variable vanishes, the quantity
            (or a regime) does not change with the variable: every point is an extremum there.
        written_in: every operation: the unit the result's formula gives with each symbol read in its declared unit, where
            that is not the result's unit (the value's): ``N_exec*d_iota/Theta_M``, Theta_M in GB/s, is in ns where the
            quantity is in s (:func:`symgpu.derive.result_form.settled_extras`).
        held_fixed: solve, boundary, extremum, limit: the sentence saying that the answer reads a quantity kept as a
            symbol whose own equation reads the variable asked about (held fixed as the variable varies: an implicit
            answer), from :meth:`symgpu.derive.jobs._Job.finish`.
        active_branch: extremum: the branch selected at the given point, an :class:`ActiveBranch`.
        value_at: extremum, fixed_point: the value at the given point (the quantity's unit).
        location_at: extremum: the location at the given point (the variable's unit).
        location_unit: extremum: the unit of the location.
        supremum: solve of an inequality asking for its largest or smallest value: True where the
            bound is strict (a supremum or infimum, not attained).
        relation: solve of an inequality: the relation inverted for the variable.
        bound: solve of an inequality asked for no largest or smallest value: True, the result being
            the bound of ``relation`` (``variable REL result``), not a value the variable takes.
        grid: extremum over a grid: the grid text (``START:STOP[:STEP]``).
        refused: extremum over a grid: the grid points outside the model's domain.
        values: extremum over a grid: ``(point, value)`` at every grid point inside the domain.
        declared_numbers: extremum over a grid, fixed_point found numerically: True, the result (and
            location) being numbers in the declared unit of the quantity (of the variable for the location,
            a solve's bound and a fixed point), as
            printed, not bare numbers in base units, which is how an expression's numbers are read
            (:mod:`symgpu.evaluate.scaling`): :func:`symgpu.derive.derivation.as_evaluated` scales them.
        above: limit ratio: the limit from the ``above`` side.
        below: limit ratio: the limit from the ``below`` side.
        root_of_g: fixed_point: the root of ``x = g(x)`` (a number where it was found numerically).
        rejected_root: fixed_point: the root of the quadratic that lies outside the domain.
        dimension: simplify: the dimension of the simplified expression.
        request: a ``[[derivations]]`` request's id.
        expectations: the request's expectations, each with its verdict (recorded as
            ``expect...``/``expect..._holds`` pairs).
        expectations_hold: the request's overall verdict (all expectations hold); named apart from
            a plain ``expect``'s own verdict (``expect_holds``), which it used to share a name with,
            so the JSON (a dict) lost that one where a request had other expectations too.
        order: the fields recorded, in the order they were recorded (the pairs keep it).
    """

    substituted: tuple[str, ...] | None = None
    target_value: TargetValue | None = None
    given_constants: tuple[GivenConstant, ...] | None = None
    ranges: tuple[FlatRange, ...] | None = None
    holds_for: sympy.Basic | None = None
    note: str | None = None
    roots: tuple[RootRecord, ...] | None = None
    undecided: str | None = None
    values_at: tuple[ValueAt, ...] | None = None
    boundaries: tuple[Boundary, ...] | None = None
    between: tuple[str, ...] | None = None
    regimes: tuple[RegimeRow, ...] | None = None
    active_regimes: tuple[ActiveRegime, ...] | None = None
    candidates: tuple[CandidateRecord, ...] | None = None
    valid_when: tuple[sympy.Basic, ...] | None = None
    elsewhere: str | None = None
    approached: tuple[CandidateRecord, ...] | None = None
    flat_where: str | None = None
    held_fixed: str | None = None
    written_in: str | None = None
    active_branch: ActiveBranch | None = None
    value_at: float | sympy.Basic | None = None
    location_at: float | sympy.Basic | None = None
    location_unit: str | None = None
    supremum: bool | None = None
    relation: sympy.Basic | None = None
    bound: bool | None = None
    grid: str | None = None
    refused: int | None = None
    values: tuple[tuple[int, float], ...] | None = None
    declared_numbers: bool | None = None
    above: sympy.Basic | None = None
    below: sympy.Basic | None = None
    root_of_g: float | sympy.Basic | None = None
    rejected_root: sympy.Basic | None = None
    dimension: str | None = None
    request: str | None = None
    expectations: tuple[Expectation, ...] | None = None
    expectations_hold: bool | None = None
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        recorded = {f for f in FIELDS if getattr(self, f) is not None}
        if len(set(self.order)) != len(self.order) or set(self.order) != recorded:
            raise ValueError(f"Extras: order {self.order} does not list the recorded fields {sorted(recorded)}: record them with with_()")

    def with_(self, **changes: Any) -> Extras:
        """A copy with ``changes`` recorded: a new field after the others, a field recorded again
        in its place. An unknown name is a ``TypeError``; ``None`` is refused (nothing to record)."""
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise TypeError(f"Extras: no field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
        if any(v is None for v in changes.values()):
            raise TypeError("Extras: None is not a recorded value")
        order = self.order + tuple(k for k in changes if k not in self.order)
        return dataclasses.replace(self, order=order, **changes)

    def without(self, *names: str) -> Extras:
        """A copy with the fields ``names`` no longer recorded."""
        unknown = sorted(set(names) - set(FIELDS))
        if unknown:
            raise TypeError(f"Extras: no field {unknown[0]!r}")
        return dataclasses.replace(self, order=tuple(k for k in self.order if k not in names), **{n: None for n in names})

    def pairs(self) -> tuple[tuple[str, Any], ...]:
        """The recorded fields as ``(name, value)`` pairs in their order (the expectations as
        their ``expect...``/``expect..._holds`` pairs): what the JSON and the store write."""
        out: list[tuple[str, Any]] = []
        for name in self.order:
            if name == "expectations":
                out.extend(p for e in self.expectations or () for p in e.pairs())
            elif name in _WRITE:
                out.append((name, _WRITE[name](getattr(self, name))))
            else:
                out.append((name, getattr(self, name)))
        return tuple(out)

    @classmethod
    def from_pairs(cls, pairs: Any) -> Extras:
        """The record of ``(name, value)`` pairs as :meth:`pairs` writes them.

        Raises:
            TypeError: not a tuple of pairs, an unknown name, a name given twice, a value of the
                wrong type, or an expectation without its verdict right after it.
        """
        if not isinstance(pairs, tuple) or not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
            raise TypeError("(name, value) pairs expected")
        fields: dict[str, Any] = {}
        expectations: list[Expectation] = []
        index, previous = 0, ""
        while index < len(pairs):
            name, value = pairs[index]
            if _is_expectation_name(name):
                if index + 1 >= len(pairs) or pairs[index + 1][0] != f"{name}_holds" or not isinstance(pairs[index + 1][1], bool):
                    raise TypeError(f"expectation {name!r} without its verdict")
                if expectations and previous != "expectations":
                    raise TypeError("expectations not recorded together")
                if not isinstance(value, (str, sympy.Basic)):
                    raise TypeError(f"expectation {name!r}: expression expected")
                fields.setdefault("expectations", expectations)
                expectations.append(Expectation(name, value, pairs[index + 1][1]))
                index, previous = index + 2, "expectations"
                continue
            if name not in _TYPES or name == "expectations":
                raise TypeError(f"unknown extra {name!r}")
            if name in fields:
                raise TypeError(f"extra {name!r} given twice")
            if not isinstance(value, _TYPES[name]) or (isinstance(value, bool) and bool not in _TYPES[name]):
                raise TypeError(f"extra {name!r}: {type(value).__name__} is not a recorded type")
            fields[name] = _READ[name](value) if name in _READ else value
            index, previous = index + 1, name
        if "expectations" in fields:
            fields["expectations"] = tuple(expectations)
        return cls(order=tuple(fields), **fields)


#: the recorded fields, in declaration order (``order`` aside)
FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Extras) if f.name != "order")

#: the types a stored value of each field may have (:meth:`Extras.from_pairs`); ``bool`` only where listed
_TYPES: dict[str, tuple[type, ...]] = {
    "substituted": (tuple,), "target_value": (dict,), "given_constants": (list,), "ranges": (list,), "holds_for": (sympy.Basic,), "note": (str,),
    "roots": (list,), "undecided": (str,), "values_at": (list,), "boundaries": (dict,), "between": (tuple,),
    "regimes": (list,), "active_regimes": (list,), "candidates": (list,), "valid_when": (tuple,), "elsewhere": (str,), "approached": (list,), "flat_where": (str,), "held_fixed": (str,), "written_in": (str,),
    "active_branch": (dict,), "value_at": _NUMBER, "location_at": _NUMBER, "location_unit": (str,), "supremum": (bool,),
    "relation": (sympy.Basic,), "bound": (bool,), "grid": (str,), "refused": (int,), "values": (tuple,), "declared_numbers": (bool,), "above": (sympy.Basic,),
    "below": (sympy.Basic,), "root_of_g": _NUMBER, "rejected_root": (sympy.Basic,), "dimension": (str,), "request": (str,),
    "expectations": (tuple,), "expectations_hold": (bool,),
}

#: fields whose records are written as a list of dicts (as they were before they were records), and read back
def _each(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda dicts: tuple(read(d) for d in dicts)


def _as_dicts(records: Any) -> list[dict[str, Any]]:
    return [r.as_dict() for r in records]


_WRITE: dict[str, Callable[[Any], Any]] = {
    "roots": _as_dicts, "ranges": _as_dicts, "regimes": _as_dicts, "active_regimes": _as_dicts, "candidates": _as_dicts,
    "approached": _as_dicts, "given_constants": _as_dicts,
    "values_at": _as_dicts, "boundaries": boundaries_dict, "target_value": TargetValue.as_dict, "active_branch": ActiveBranch.as_dict}
_READ: dict[str, Callable[[Any], Any]] = {
    "roots": _each(RootRecord.from_dict), "ranges": _each(FlatRange.from_dict), "regimes": _each(RegimeRow.from_dict),
    "active_regimes": _each(ActiveRegime.from_dict), "candidates": _each(CandidateRecord.from_dict),
    "approached": _each(CandidateRecord.from_dict), "given_constants": _each(GivenConstant.from_dict), "values_at": _each(ValueAt.from_dict),
    "boundaries": boundaries_from_dict, "target_value": TargetValue.from_dict, "active_branch": ActiveBranch.from_dict}
