"""The records inside a derivation's :class:`~symgpu.derive.extras.Extras`, each a frozen record.

Each record is read by attribute (``row.name``, ``active.terms``), never by a string key. The
JSON of an answer and the derivation store write it as the dict it was before it was a record:
``as_dict()`` writes the same keys in the same order (lists where the dict had lists), and
``from_dict()`` reads such a dict back, refusing (``TypeError``) anything it did not write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

#: the Python types of a stored number
NUMBER = (int, float, sympy.Basic)


def _fields(data: Any, keys: tuple[str, ...], what: str) -> tuple[Any, ...]:
    """The values of ``data``, a dict with exactly ``keys`` in that order; ``TypeError`` else."""
    if not isinstance(data, dict) or tuple(data) != keys:
        raise TypeError(f"{what} record expected")
    return tuple(data[k] for k in keys)


def _texts(value: Any, what: str) -> tuple[str, ...]:
    """A stored list of texts as a tuple; ``TypeError`` for anything else."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"malformed {what} record")
    return tuple(value)


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise TypeError(f"malformed {what} record")


@dataclass(frozen=True)
class Expectation:
    """One expectation of a ``[[derivations]]`` request, checked against the answer.

    Attributes:
        name: ``expect``, ``expect.<name>`` (a field of an ``expect`` table), ``expect_value`` or ``expect_regime``.
        expected: the expected expression (the regime or limiter name for ``expect_regime``).
        holds: whether the answer agrees with it.
    """

    name: str
    expected: Any
    holds: bool

    def pairs(self) -> tuple[tuple[str, Any], ...]:
        """``(name, expected), (name_holds, holds)``, as the request records them."""
        return ((self.name, self.expected), (f"{self.name}_holds", self.holds))


@dataclass(frozen=True)
class RootRecord:
    """A root of a solve or boundary answer, with where it is one.

    Attributes:
        regime: whose value equation it solves: a regime, ``the equation``, or a case switch
            (``a|b where <condition> switches``).
        root: the root, a SymPy expression.
        when: the regime's conditions at the root (``True``: none).
        domain: the model's ``valid_when`` domain at the root (``None``: not recorded, a case switch).
        tie: a case switch's root where the two cases only tie (a point must confirm the switch).
        conditions: the regime's conditions in terms of the unknown, decided at the root's value
            (``None``: not recorded; ``when`` is decided instead). ``when`` is the same conditions
            with the root put in, which can cancel: written in the target's terms, Huang's printed
            CPI at ``alpha = 1e9`` has sides of 1e55 that tie in IEEE arithmetic, where at the
            root's value the regime is plain.
    """

    regime: str
    root: sympy.Basic
    when: sympy.Basic = sympy.true
    domain: sympy.Basic | None = None
    tie: bool = False
    conditions: sympy.Basic | None = None

    @property
    def inside(self) -> sympy.Basic:
        """The domain the root needs (``True`` where none is recorded)."""
        return sympy.true if self.domain is None else self.domain

    def as_dict(self) -> dict[str, Any]:
        """``{regime, root, when[, domain][, tie]}``, the record as the JSON and the store write it."""
        out: dict[str, Any] = {"regime": self.regime, "root": self.root, "when": self.when}
        if self.domain is not None:
            out["domain"] = self.domain
        if self.tie:
            out["tie"] = True
        if self.conditions is not None:
            out["conditions"] = self.conditions
        return out

    @classmethod
    def from_dict(cls, data: Any) -> RootRecord:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        if not isinstance(data, dict) or list(data)[:3] != ["regime", "root", "when"] \
                or not set(data) <= {"regime", "root", "when", "domain", "tie", "conditions"}:
            raise TypeError("root record expected")
        domain, tie, conditions = data.get("domain"), data.get("tie", False), data.get("conditions")
        if not isinstance(data["regime"], str) or not all(isinstance(v, sympy.Basic) for v in (data["root"], data["when"])) \
                or not all(v is None or isinstance(v, sympy.Basic) for v in (domain, conditions)) or tie not in (True, False) \
                or ("tie" in data and tie is not True):
            raise TypeError("malformed root record")
        return cls(data["regime"], data["root"], data["when"], domain, tie, conditions)


#: the regime of a :class:`FlatRange` that is an inequality's set at a point (no single bound states it)
AT_THE_POINT = "the relation at the point"


@dataclass(frozen=True)
class FlatRange:
    """A solve's flat regime: where ``equal`` holds, the relation holds for every value of the
    unknown that meets ``when`` (a range of roots, not an isolated one).

    Attributes:
        regime: the regime (``every regime`` for an identity or a relation independent of the unknown).
        equal: the condition under which its two sides are equal.
        when: the regime's conditions (and the model's ``valid_when`` domain), the range.
    """

    regime: str
    equal: sympy.Basic
    when: sympy.Basic

    def as_dict(self) -> dict[str, Any]:
        """``{regime, equal, when}``, the record as the JSON and the store write it."""
        return {"regime": self.regime, "equal": self.equal, "when": self.when}

    @classmethod
    def from_dict(cls, data: Any) -> FlatRange:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        if not isinstance(data, dict) or list(data) != ["regime", "equal", "when"] or not isinstance(data["regime"], str) \
                or not all(isinstance(data[k], sympy.Basic) for k in ("equal", "when")):
            raise TypeError("flat range record expected")
        return cls(data["regime"], data["equal"], data["when"])


@dataclass(frozen=True)
class RegimeRow:
    """A row of a regimes table: one branch of a piecewise quantity, as printed.

    Attributes:
        name: the limiting term, a case id, or a generated name.
        conditions: the conditions under which the branch applies (all hold), as text.
        expression: the quantity's value on the branch, as text.
        terms: the names of the terms chosen at each ``Min``/``Max``/``Piecewise`` on the way.
        feasible: whether the conditions can all hold (``None``: not proved).
    """

    name: str
    conditions: tuple[str, ...]
    expression: str
    terms: tuple[str, ...]
    feasible: bool | None

    def as_dict(self) -> dict[str, Any]:
        """``{name, conditions, expression, terms, feasible}`` (lists), as the JSON and the store write it."""
        return {"name": self.name, "conditions": list(self.conditions), "expression": self.expression,
                "terms": list(self.terms), "feasible": self.feasible}

    @classmethod
    def from_dict(cls, data: Any) -> RegimeRow:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        name, conditions, expression, terms, feasible = _fields(data, ("name", "conditions", "expression", "terms", "feasible"), "regime")
        _check(isinstance(name, str) and isinstance(expression, str) and feasible in (True, False, None), "regime")
        return cls(name, _texts(conditions, "regime"), expression, _texts(terms, "regime"), feasible)


@dataclass(frozen=True)
class ActiveRegime:
    """A regime that holds at the given point.

    Attributes:
        name: the regime's name.
        terms: the names of the terms chosen on the way to it.
        expression: the quantity's value in the regime, a SymPy expression.
    """

    name: str
    terms: tuple[str, ...]
    expression: sympy.Basic

    def as_dict(self) -> dict[str, Any]:
        """``{name, terms, expression}`` (terms a list), as the JSON and the store write it."""
        return {"name": self.name, "terms": list(self.terms), "expression": self.expression}

    @classmethod
    def from_dict(cls, data: Any) -> ActiveRegime:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        name, terms, expression = _fields(data, ("name", "terms", "expression"), "active regime")
        _check(isinstance(name, str) and isinstance(expression, sympy.Basic), "active regime")
        return cls(name, _texts(terms, "active regime"), expression)


@dataclass(frozen=True)
class CandidateRecord:
    """A candidate of an extremum answer.

    Attributes:
        origin: what makes it a candidate (``critical point of md``, ``end W_max``).
        location: the variable's value there.
        value: the quantity's value there.
        when: where it is a candidate (conditions as text; none: everywhere).
    """

    origin: str
    location: sympy.Basic
    value: sympy.Basic
    when: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """``{origin, location, value, when}`` (when a list), as the JSON and the store write it."""
        return {"origin": self.origin, "location": self.location, "value": self.value, "when": list(self.when)}

    @classmethod
    def from_dict(cls, data: Any) -> CandidateRecord:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        origin, location, value, when = _fields(data, ("origin", "location", "value", "when"), "candidate")
        _check(isinstance(origin, str) and isinstance(location, sympy.Basic) and isinstance(value, sympy.Basic), "candidate")
        return cls(origin, location, value, _texts(when, "candidate"))


@dataclass(frozen=True)
class ValueAt:
    """A root of a solve that applies at the given point, as a number.

    Attributes:
        regime: whose root it is.
        value: its magnitude in the unknown's unit.
    """

    regime: str
    value: float

    def as_dict(self) -> dict[str, Any]:
        """``{regime, value}``, as the JSON and the store write it."""
        return {"regime": self.regime, "value": self.value}

    @classmethod
    def from_dict(cls, data: Any) -> ValueAt:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        regime, value = _fields(data, ("regime", "value"), "value at a point")
        _check(isinstance(regime, str) and isinstance(value, float), "value at a point")
        return cls(regime, value)


@dataclass(frozen=True)
class ActiveBranch:
    """The branch of a piecewise answer selected at the given point.

    Attributes:
        index: its place among the branches (0 first).
        name: its name (``branch N`` where the branches have none).
        expression: its value, a SymPy expression.
        because: the numbers that show its condition holds there.
    """

    index: int
    name: str
    expression: sympy.Basic
    because: str

    def as_dict(self) -> dict[str, Any]:
        """``{index, name, expression, because}``, as the JSON and the store write it."""
        return {"index": self.index, "name": self.name, "expression": self.expression, "because": self.because}

    @classmethod
    def from_dict(cls, data: Any) -> ActiveBranch:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        index, name, expression, because = _fields(data, ("index", "name", "expression", "because"), "active branch")
        _check(isinstance(index, int) and not isinstance(index, bool) and isinstance(name, str)
               and isinstance(expression, sympy.Basic) and isinstance(because, str), "active branch")
        return cls(index, name, expression, because)


@dataclass(frozen=True)
class Boundary:
    """Where two regimes (or two cases) meet.

    Attributes:
        pair: the two, ``a|b``.
        root: where they meet (a SymPy Tuple where at several places).
    """

    pair: str
    root: sympy.Basic


def boundaries_dict(records: tuple[Boundary, ...]) -> dict[str, sympy.Basic]:
    """``{pair: root}``, the boundaries as the JSON and the store write them."""
    return {b.pair: b.root for b in records}


def boundaries_from_dict(data: Any) -> tuple[Boundary, ...]:
    """The records :func:`boundaries_dict` wrote; ``TypeError`` for anything else."""
    _check(isinstance(data, dict) and all(isinstance(k, str) and isinstance(v, sympy.Basic) for k, v in data.items()), "boundary")
    return tuple(Boundary(k, v) for k, v in data.items())


@dataclass(frozen=True)
class TargetValue:
    """A solve's numeric target kept as the value of its quantity.

    Attributes:
        name: the quantity.
        number: the target, in the quantity's declared unit.
    """

    name: str
    number: int | float | sympy.Basic

    def as_dict(self) -> dict[str, Any]:
        """``{name: number}``, as the JSON and the store write it."""
        return {self.name: self.number}

    @classmethod
    def from_dict(cls, data: Any) -> TargetValue:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        _check(isinstance(data, dict) and len(data) == 1, "target value")
        (name, number), = data.items()
        _check(isinstance(name, str) and isinstance(number, NUMBER) and not isinstance(number, bool), "target value")
        return cls(name, number)


@dataclass(frozen=True)
class GivenConstant:
    """A number a solve's target gave in a unit as a constant of the model (``lit_6000_cy``, a target across the clock
    written over the clock symbol: :mod:`symgpu.derive.targets`), so the result can be evaluated on the model it was
    asked of, which does not hold the constant.

    Attributes:
        number: the number, exactly (``"6000"``, ``"1/33"``).
        unit: the unit it was given in, as pint writes it.
    """

    number: str
    unit: str

    def as_dict(self) -> dict[str, Any]:
        """``{"number": ..., "unit": ...}``, as the JSON and the store write it."""
        return {"number": self.number, "unit": self.unit}

    @classmethod
    def from_dict(cls, data: Any) -> GivenConstant:
        """The record :meth:`as_dict` wrote; ``TypeError`` for anything else."""
        _check(isinstance(data, dict) and set(data) == {"number", "unit"} and all(isinstance(v, str) for v in data.values()),
               "given constant")
        return cls(data["number"], data["unit"])
