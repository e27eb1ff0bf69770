"""The built records of a model: one equation's :class:`Equation` (SymPy right-hand side, limiters,
domain conditions) and its piecewise :class:`Case` branches; a validation case read once,
:class:`ValidationInputs`."""

from __future__ import annotations

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
    """

    definition: schema.EquationDefinition
    lhs: sympy.Symbol
    rhs: sympy.Expr
    cases: tuple[Case, ...] = ()
    limiters: tuple[tuple[str, sympy.Expr], ...] = ()
    valid_when: tuple[sympy.Basic, ...] = ()

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
