"""An ``And`` refuted through its equalities (:meth:`symgpu.proofs.signs.SignReasoner.decide`): each ``symbol = value`` among
its parts put into its other parts and into the relations in force; where one of those is then false, the parts hold nowhere
together under the relations, though none is refuted alone. Hong & Kim's ``MWP_pw`` as ``Active_blocks_per_SM -> oo`` had a
branch ``Eq(Coal_Mem_insts, 0) & Eq(Uncoal_Mem_insts, 0)``, where its domain ``0 < Uncoal_Mem_insts + Coal_Mem_insts`` reads
``0 < 0``.

Sound whatever the equalities: each symbol is replaced by a value equal to it wherever the ``And`` holds, so every part and
relation so rewritten holds there too; one refuted leaves the ``And`` nowhere to hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import sympy

__all__ = ["refute", "solved"]


def solved(parts: Iterable[sympy.Basic]) -> dict[sympy.Symbol, sympy.Basic]:
    """Each equality among ``parts`` with a symbol alone on a side (not in the other side), as ``{symbol: other side}``: the
    first equality of each symbol."""
    put: dict[sympy.Symbol, sympy.Basic] = {}
    for part in parts:
        if not isinstance(part, sympy.Eq):
            continue
        for side, other in ((part.lhs, part.rhs), (part.rhs, part.lhs)):
            if isinstance(side, sympy.Symbol) and side not in put and side not in other.free_symbols:
                put[side] = other
                break
    return put


def refute(parts: Sequence[sympy.Basic], relations: Iterable[sympy.Basic], decide: Callable[[Any], bool | None]) -> bool:
    """Do ``parts`` (an ``And``'s) hold nowhere together under ``relations`` (the reasoner's extra relations), shown by putting
    their equalities (:func:`solved`) into the other parts and the relations: one of those false, or a relation among them
    refuted by ``decide`` (the reasoner's)? False where none is so (nothing claimed). Only relations are decided, so the
    reasoner's ``And``/``Or`` are not entered again from here."""
    put = solved(parts)
    if not put:
        return False
    for consequence in (*parts, *relations):
        rewritten = consequence.xreplace(put)
        if rewritten is sympy.false:
            return True
        if isinstance(rewritten, sympy.core.relational.Relational) and decide(rewritten) is False:
            return True
    return False
