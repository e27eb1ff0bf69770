"""One-pair ``Piecewise`` objects (a regime's value under its conditions), built without repeating
SymPy's condition canonicalisation for every regime.

``sympy.Piecewise((value, condition))`` with one pair canonicalises each relation inside the
condition (``x > y`` becomes ``y < x``, leading coefficients normalised) and changes nothing
else: there are no earlier pairs for the condition to repeat or make redundant. The regimes of
one quantity share most of their relations (the 284 regimes of ``occupancy
active_blocks_per_SM`` have about 100 distinct ones), so SymPy canonicalises each distinct
conjunct once here (memoised; SymPy's own ``Piecewise`` evaluation of that conjunct alone), the
conjunction is rebuilt from the canonical conjuncts by ``sympy.And``, and the pair is built
unevaluated only when that conjunction keeps exactly those conjuncts: each is then a fixed point
of the canonicalisation, so SymPy's evaluation would leave the pair as it is. Anything else (a
value that is itself a ``Piecewise``, a condition ``True``/``False``, a conjunction that
``sympy.And`` folds) is built by ``sympy.Piecewise`` as before.
"""

from __future__ import annotations

import sympy

#: conjunct -> its canonical form as a one-pair Piecewise states it (found by SymPy)
_CANONICAL: dict[sympy.Basic, sympy.Basic] = {}


def canonical_conjunct(condition: sympy.Basic) -> sympy.Basic | None:
    """The condition as ``sympy.Piecewise((0, condition))`` states it (memoised); None when SymPy
    does not keep it as one condition (it is True or False)."""
    if condition not in _CANONICAL:
        if len(_CANONICAL) > 20000:
            _CANONICAL.clear()
        built = sympy.Piecewise((sympy.S.Zero, condition))
        _CANONICAL[condition] = built.args[0].cond if isinstance(built, sympy.Piecewise) and len(built.args) == 1 else None
    return _CANONICAL[condition]


def canonical_condition(condition: sympy.Basic) -> sympy.Basic | None:
    """The condition with every conjunct canonical, or None when that is not proved to be what
    SymPy's ``Piecewise`` would state (a conjunct that is not kept as one, a conjunction that
    ``sympy.And`` folds: duplicates that differ, contradictions, True/False; a condition with a
    ``Piecewise`` in it, which SymPy folds around the whole condition)."""
    if condition in (True, False, sympy.true, sympy.false):
        return None
    if condition.has(sympy.Piecewise):
        # SymPy folds a Piecewise inside a condition around the whole condition (an ITE over the
        # conjunction); canonicalised conjunct by conjunct it would land inside the And instead
        return None
    parts = condition.args if isinstance(condition, sympy.And) else (condition,)
    canonical = [canonical_conjunct(p) for p in parts]
    if any(c is None or c in (sympy.true, sympy.false) for c in canonical):
        return None
    if len(canonical) == 1:
        return canonical[0]
    rebuilt = sympy.And(*canonical)
    if not isinstance(rebuilt, sympy.And) or set(rebuilt.args) != set(canonical):
        return None
    return rebuilt


def one_pair(value: sympy.Basic, condition: sympy.Basic, fast: bool = True) -> sympy.Basic:
    """``sympy.Piecewise((value, condition))``, the same object; unevaluated where
    :func:`canonical_condition` proves the evaluation would change nothing (``fast=False``: always
    SymPy's evaluation, the general route the tests compare with)."""
    canonical = canonical_condition(condition) if fast and not isinstance(value, sympy.Piecewise) else None
    if canonical is None:
        return sympy.Piecewise((value, condition))
    return sympy.Piecewise((value, canonical), evaluate=False)
