"""The built records of a model: one equation's :class:`Equation` (SymPy right-hand side, limiters,
domain conditions) and its piecewise :class:`Case` branches; a validation case read once,
:class:`ValidationInputs`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import pint
import sympy

from symgpu.model import schema


@dataclass(frozen=True)
class Case:
    """One branch of a piecewise equation, built: ``value`` applies when ``condition`` holds."""

    id: str
    condition: sympy.Basic
    value: sympy.Expr
    note: str = ""


@dataclass(frozen=True)
class Equation:
    """An equation built into SymPy, unit-checked.

    Attributes:
        definition: the record read from the file.
        lhs: the defined symbol.
        rhs: the right-hand side (a ``Piecewise`` for equations given by ``cases``).
        cases: the piecewise branches (empty for ``rhs`` equations).
        limiters: regime name -> argument of the top-level ``Min``/``Max``.
        valid_when: domain conditions.
        assumes: the conditions the source assumes (a value outside them is given, with a note).
    """

    definition: schema.EquationDefinition
    lhs: sympy.Symbol
    rhs: sympy.Expr
    cases: tuple[Case, ...] = ()
    limiters: tuple[tuple[str, sympy.Expr], ...] = ()
    valid_when: tuple[sympy.Basic, ...] = ()
    assumes: tuple[sympy.Basic, ...] = ()

    @property
    def id(self) -> str:
        """The equation id."""
        return self.definition.id

    @property
    def relation(self) -> sympy.Eq:
        """``Eq(lhs, rhs)`` (unevaluated)."""
        return sympy.Eq(self.lhs, self.rhs, evaluate=False)


@dataclass(frozen=True)
class ValidationInputs:
    """A validation case with its values read once, when the model is built (the one parse that
    ``validation``, the reports and ``compare`` use).

    Attributes:
        case: the case as the file gives it (texts).
        inputs: symbol -> its input value, a quantity in the symbol's declared unit (file order).
        expect: quantity (or ``result``/``location`` of a derivation) -> the printed value as a
            quantity in the unit it is printed in (the comparison's unit); ``None`` for a case that
            expects a domain error.
    """

    case: schema.ValidationCase
    inputs: tuple[tuple[str, pint.Quantity], ...]
    expect: tuple[tuple[str, pint.Quantity | None], ...]

    def values(self) -> dict[str, pint.Quantity]:
        """The inputs as a mapping (to pass to an evaluation)."""
        return dict(self.inputs)


class LazyEquations(Mapping[str, Equation]):
    """A model's equations by a key (equation id, or the symbol each defines), in file order, each built
    by ``build`` when first read and kept in ``built`` (by equation id, shared by the two views), so a
    question builds only the equations it uses. Used where a record says the model's definition passed
    every check before (:mod:`symgpu.model.check_record`): each equation is then built exactly as the
    checked build would build it."""

    def __init__(self, by_key: Mapping[str, schema.EquationDefinition], built: dict[str, Equation],
                 build: Callable[[schema.EquationDefinition], Equation]) -> None:
        self._by_key = by_key
        self._built = built
        self._build = build

    def __getitem__(self, key: str) -> Equation:
        definition = self._by_key[key]
        found = self._built.get(definition.id)
        if found is None:
            found = self._built.setdefault(definition.id, self._build(definition))
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_key)

    def __len__(self) -> int:
        return len(self._by_key)

    def __reduce__(self) -> tuple[type[dict[str, Equation]], tuple[dict[str, Equation]]]:
        """Pickled as a plain mapping of every equation, each built (and checked) now: the build it holds may be a
        closure over a cold load (:mod:`symgpu.model.lazy_build`), which pickle cannot carry to another process."""
        return dict, (dict(self.items()),)
