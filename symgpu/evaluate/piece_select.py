"""At one point, a large ``Piecewise`` narrowed to the piece its compiled evaluation selects there.

A regime table of hundreds of pieces (``regimes occupancy ...``: 284) costs most of a second to
print as one NumPy function, nearly all of it in the conditions, and that function is used for
one point. At a point only one piece's value is read, so :func:`narrowed` gives the same
expression with the ``Piecewise`` replaced by ``Piecewise((chosen, True))``; the rest of the
expression is left as it is.

Why the value is the full evaluation's, bit for bit (the compiled code is NumPy's, printed by
:mod:`symgpu.evaluate.compiler` with the same printer and settings either way):

- the full function computes ``select([c1, ..., cn], [v1, ..., vn], default=nan)``: the value of
  the first piece whose condition is true, each ``ci`` printed from the condition's tree as
  ``logical_and.reduce``/``logical_or.reduce``/``logical_not`` of relations, each relation
  ``less(lhs, rhs)`` (and so on) of its sides' printed code. The printer prints a node the same
  wherever it sits, so each distinct relation is compiled here once, in one function returning
  them all, evaluated on the same inputs (the same IEEE operations: the same booleans; a NaN
  side is false in both), and the condition trees are folded in Python in the same order
  (``and``/``or``/``not`` of booleans agree with the NumPy reductions);
- the chosen piece's value is printed by the same code in ``select([True], [vk], default=nan)``:
  the same operations on the same inputs; ``select`` casts it to ``result_type`` of its choices
  and the NaN default, float64 in both cases, since every piece is a real expression whose value
  is a float64 or an integer of 64 bits (complex numbers and big integer literals are refused);
- the enclosing node (the expression itself, or a product with a number: the unit's scale) is
  the same ``Mul`` with the same arguments in the same order, printed the same way.

Not narrowed (``None``: compile the whole): array inputs, a ``Piecewise`` of few pieces, none
where the code would be printed otherwise (infinities or ``zoo``, which the compiler rewrites or
prints on a second path; ``ITE`` in a condition; a relation with a ``Piecewise`` side; an unknown
boolean), and points where no condition holds (NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy
from sympy.functions.elementary.piecewise import ExprCondPair

from symgpu.evaluate import compiler
from symgpu.memo import memoised

#: the fewest pieces worth narrowing: smaller tables compile in milliseconds, once for every point
MIN_PIECES = 17
#: a piece that is an integer literal this large or larger could change ``select``'s result type
_INT64 = 2**63


def narrowed(base: sympy.Basic, symbols: Sequence[sympy.Symbol], inputs: Sequence[Any]) -> sympy.Basic | None:
    """``base`` (a base-unit expression, compiled over ``symbols``) with its large ``Piecewise``
    reduced to the piece the compiled ``base`` selects at ``inputs`` (NumPy scalars, in
    ``symbols``' order); None where :mod:`this module <symgpu.evaluate.piece_select>` does not apply."""
    if any(np.ndim(v) for v in inputs):
        return None
    table, rebuild = _table(base)
    if table is None or len(table.args) < MIN_PIECES:
        return None
    relations = _relations(table)
    if relations is None:
        return None
    truths = compiler.relations_function(symbols, relations)(*inputs) if relations else ()
    if any(not isinstance(t, (bool, np.bool_)) for t in truths):
        return None
    known = dict(zip(relations, (bool(t) for t in truths)))
    for value, cond in table.args:
        if _holds(cond, known):
            return rebuild(_only(value))
    return None


def _only(value: sympy.Expr) -> sympy.Piecewise:
    """``Piecewise((value, True))`` kept as a ``Piecewise`` node.

    NOTE: built with ``Basic.__new__``: ``Piecewise(...)`` returns ``value`` itself for a single
    ``True`` pair even with ``evaluate=False``, and the enclosing product must keep printing a
    ``select(...)`` in that place (a bare piece could print otherwise inside the ``Mul``)."""
    return sympy.Basic.__new__(sympy.Piecewise, ExprCondPair(value, sympy.true))  # type: ignore[no-any-return]


def _table(base: sympy.Basic) -> tuple[sympy.Piecewise | None, Any]:
    """The ``Piecewise`` to narrow and a function putting a replacement in its place: ``base``
    itself, or the one non-number factor of a product with a number."""
    if isinstance(base, sympy.Piecewise):
        return base, lambda new: new
    if isinstance(base, sympy.Mul) and len(base.args) == 2 and base.args[0].is_Number and isinstance(base.args[1], sympy.Piecewise):
        return base.args[1], lambda new: sympy.Mul(base.args[0], new, evaluate=False)
    return None, None


@memoised("evaluate.piece_select.relations", 64)
def _relations(table: sympy.Piecewise) -> tuple[sympy.Basic, ...] | None:
    """The distinct relations of ``table``'s conditions, in order; None where the narrowed code
    would not be printed as the whole is (see the module docstring).

    NOTE: the conditions are walked down to their relations only, and what is checked node by
    node (infinities, ``I``, a ``Piecewise`` side) is checked once per distinct relation and
    value: the rows of a regime table share most of them."""
    found: dict[sympy.Basic, None] = {}
    values: dict[sympy.Basic, None] = {}
    for value, cond in table.args:
        if not isinstance(value, sympy.Expr) or (value.is_Integer and abs(int(value)) >= _INT64):
            return None
        values[value] = None
        if not collect_relations(cond, found):
            return None
    unusual = (sympy.zoo, sympy.oo, -sympy.oo, sympy.I)
    if any(v.has(*unusual) for v in values) or any(r.has(sympy.Piecewise, *unusual) for r in found):
        return None
    return tuple(found)


def collect_relations(cond: Any, found: dict[sympy.Basic, None]) -> bool:
    """Add the relations of ``cond`` (``And``/``Or``/``Not`` of relations) to ``found``; False
    where it is made of anything else (``ITE``, ``Xor``, ...: printed otherwise)."""
    if isinstance(cond, sympy.logic.boolalg.BooleanAtom):
        return True
    if isinstance(cond, (sympy.And, sympy.Or, sympy.Not)):
        return all(collect_relations(c, found) for c in cond.args)
    if isinstance(cond, sympy.core.relational.Relational):
        found[cond] = None
        return True
    return False


def _holds(cond: Any, known: dict[Any, bool]) -> bool:
    """``cond`` folded from its relations' truth values (as NumPy's logical reductions do)."""
    if cond is sympy.true:
        return True
    if cond is sympy.false:
        return False
    if isinstance(cond, sympy.And):
        return all(_holds(c, known) for c in cond.args)
    if isinstance(cond, sympy.Or):
        return any(_holds(c, known) for c in cond.args)
    if isinstance(cond, sympy.Not):
        return not _holds(cond.args[0], known)
    return known[cond]


__all__ = ["MIN_PIECES", "collect_relations", "narrowed"]
