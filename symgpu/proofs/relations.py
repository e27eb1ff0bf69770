"""Whether two relations state the same thing: ``x > y`` and ``y < x`` are one relation.

:func:`same_relation` compares two conditions by their canonical forms (either way round);
:func:`add_new_relation` keeps a list of conditions free of such repeats. Pure SymPy, no
assumptions used: the sign reasoner (:mod:`symgpu.proofs.signs`) and the derivations' condition
lists rely on it.
"""

from __future__ import annotations

import sympy

from symgpu.memo import Memo

__all__ = ["add_new_relation", "same_relation"]

#: canonical forms of relationals and of their reversals (``Relational.canonical`` is not cached by SymPy)
_CANONICAL: Memo[sympy.Basic, tuple[sympy.Basic, sympy.Basic]] = Memo("proofs.relations.canonical", 20000)


def _canonical(rel: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic]:
    if rel not in _CANONICAL:
        _CANONICAL[rel] = (rel.canonical, rel.reversed.canonical)
    return _CANONICAL[rel]


def same_relation(a: sympy.Basic, b: sympy.Basic) -> bool:
    """Do ``a`` and ``b`` state the same relation (equal, or equal canonical forms either way round)?"""
    if a == b:
        return True
    if not isinstance(a, sympy.core.relational.Relational) or not isinstance(b, sympy.core.relational.Relational):
        try:
            return bool(a.canonical == b.canonical or a.reversed.canonical == b.canonical)
        except AttributeError:
            return False
    (a_canonical, a_reversed), (b_canonical, _) = _canonical(a), _canonical(b)
    return bool(a_canonical == b_canonical or a_reversed == b_canonical)


def add_new_relation(relation: sympy.Basic, shown: list[sympy.Basic], seen: set[sympy.Basic]) -> None:
    """Append ``relation`` to ``shown`` unless it states the same relation as one there
    (:func:`same_relation`). ``seen`` holds the canonical forms of the relational ones, so
    a regime's conditions are compared by set lookups rather than pair by pair."""
    if isinstance(relation, sympy.core.relational.Relational):
        canonical, reversed_canonical = _canonical(relation)
        if canonical in seen or reversed_canonical in seen:
            return
        seen.add(canonical)
    elif any(same_relation(relation, s) for s in shown):
        return
    shown.append(relation)


def without_weaker(conditions: tuple[sympy.Basic, ...] | list[sympy.Basic]) -> tuple[sympy.Basic, ...]:
    """``conditions`` without each non-strict relation that a strict one among them implies
    (``a <= b`` next to ``a < b``), and without repeats, in their order."""
    strict = [c for c in conditions if isinstance(c, (sympy.StrictGreaterThan, sympy.StrictLessThan))]
    kept: list[sympy.Basic] = []
    for c in conditions:
        if any(same_relation(c, k) for k in kept):
            continue
        if isinstance(c, sympy.GreaterThan) and any(same_relation(sympy.StrictGreaterThan(c.lhs, c.rhs, evaluate=False), s) for s in strict):
            continue
        if isinstance(c, sympy.LessThan) and any(same_relation(sympy.StrictLessThan(c.lhs, c.rhs, evaluate=False), s) for s in strict):
            continue
        kept.append(c)
    return tuple(kept)
