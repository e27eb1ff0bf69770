"""A variable's declared range, read once: its declared sign (``positive``: ``x > 0``,
``nonnegative``: ``x >= 0``) as relations on the variable, each with the reason a refusal gives,
whether it is declared integer, and the job's assumptions (``--assume 'alpha <= 40'``) that bound it.

The one reading of the declared sign: the extremum's domain and open ends
(:mod:`symgpu.derive.extremum_domain`), a limit's sides in closed form
(:func:`symgpu.derive.limit_domain.refused`) and on the evaluate path
(:func:`symgpu.derive.limit_sides.direction`), a solve's roots and ranges
(:mod:`symgpu.derive.solve_domain`, :mod:`symgpu.derive.solve_kind`, :mod:`symgpu.derive.jobs`),
a fixed point's domain (:mod:`symgpu.derive.fixed_points`) and the certificates
(:mod:`symgpu.derive.certify`, :mod:`symgpu.derive.certify_bound`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sympy

if TYPE_CHECKING:
    from symgpu.model import Model

#: the numeric test of each relation a declared sign reads as (``x > 0``, ``x >= 0``)
_NUMERIC: dict[type, Callable[[np.ndarray, float], np.ndarray]] = {sympy.StrictGreaterThan: np.greater,
                                                                    sympy.GreaterThan: np.greater_equal}


@dataclass(frozen=True)
class DeclaredRange:
    """What bounds a variable before any ``valid_when`` condition does.

    Attributes:
        variable: the variable the relations are on.
        relations: its declared sign as relations (``x > 0`` or ``x >= 0``; none where no sign is declared).
        reasons: for each relation, why the model gives no value where it fails (``x is declared positive``).
        assumed: the assumptions handed in (the job's) that are relations on the variable, in their order.
        integer: whether the variable is declared integer.
    """

    variable: sympy.Symbol
    relations: tuple[sympy.Basic, ...]
    reasons: tuple[str, ...]
    assumed: tuple[sympy.Basic, ...] = ()
    integer: bool = False

    @property
    def word(self) -> str:
        """The declared sign as the model file writes it (``positive``, ``nonnegative``), or "" for none."""
        if not self.relations:
            return ""
        return "positive" if isinstance(self.relations[0], sympy.StrictGreaterThan) else "nonnegative"

    @property
    def as_set(self) -> sympy.Set:
        """The declared sign as the set of the variable's values: (0, oo), [0, oo), or every real where none is declared."""
        if not self.relations:
            return sympy.S.Reals
        return sympy.Interval.open(0, sympy.oo) if self.word == "positive" else sympy.Interval(0, sympy.oo)

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Per value, whether every declared relation holds there (NaN fails)."""
        out = np.ones(np.shape(values), dtype=bool)
        for relation in self.relations:
            out &= _NUMERIC[type(relation)](values, float(relation.rhs))
        return out

    def failing(self, values: np.ndarray) -> str:
        """The reason of the first declared relation that fails at one of ``values`` (NaN fails), or ""."""
        for relation, reason in zip(self.relations, self.reasons):
            holds = _NUMERIC[type(relation)](values, float(relation.rhs))
            if not np.all(holds):
                return reason
        return ""

    def bounded(self, relation: sympy.Basic, sign: int | None) -> str:
        """What the variable's declared sign leaves of ``relation`` (``x < b``, ``x <= b``, ``x > b``,
        ``x >= b``) given the sign (-1, 0, +1; None: unknown) of its bound ``b``: "none" where no
        value of the declared sign meets it, "every" where every one does, else ""."""
        if not self.relations or sign is None or sign > 0:
            return ""
        at_zero_excluded = self.word == "positive"
        if isinstance(relation, (sympy.LessThan, sympy.StrictLessThan)):
            return "none" if sign < 0 or at_zero_excluded or isinstance(relation, sympy.StrictLessThan) else ""
        if isinstance(relation, (sympy.GreaterThan, sympy.StrictGreaterThan)):
            return "every" if sign < 0 or at_zero_excluded or isinstance(relation, sympy.GreaterThan) else ""
        return ""


def of(model: Model, variable: sympy.Symbol | str, assumed: Iterable[sympy.Basic] = ()) -> DeclaredRange:
    """``variable``'s declared range in ``model`` (a name not declared there has none), with those
    of ``assumed`` that are relations on it."""
    symbol = variable if isinstance(variable, sympy.Symbol) else sympy.Symbol(variable)
    definition = model.symbol_definitions.get(symbol.name)
    words = set(definition.assumptions) if definition is not None else set()
    relations: tuple[sympy.Basic, ...] = ()
    reasons: tuple[str, ...] = ()
    if "positive" in words:
        relations, reasons = (sympy.StrictGreaterThan(symbol, 0, evaluate=False),), (f"{symbol.name} is declared positive",)
    elif "nonnegative" in words:
        relations, reasons = (sympy.GreaterThan(symbol, 0, evaluate=False),), (f"{symbol.name} is declared nonnegative",)
    on_it = tuple(c for c in assumed if isinstance(c, sympy.core.relational.Relational) and symbol in c.free_symbols)
    return DeclaredRange(symbol, relations, reasons, on_it, "integer" in words)
