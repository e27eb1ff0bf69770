"""Whether the difference of two models' expressions of a quantity can vanish, where no root is solved for: never,
proved (a nonzero constant, or one sign over every input the two models' declarations admit), or undecided with what
is known (a positive and a negative value at admissible points: it changes sign, so it may vanish, or jump over 0).

``symgpu diff`` said "not solved" of every difference with a Min/Max in it, even one that is positive everywhere
(Zhang & Owens' ``Min`` of throughputs against their sum: each argument of the difference's ``Min`` is a
``Max(alpha*w, X) - alpha*w`` plus a positive ``Max``). The sign reasoner cannot see ``Max(t, X) - t >= 0``, so each
such sum is first written ``Max(0, X - t)``, the same value (:func:`max_taken_out`).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from symgpu.model import Model
from symgpu.proofs import exact_signs
from symgpu.proofs.sign_records import Declared
from symgpu.proofs.signs import SignReasoner


def declared(models: Sequence[Model], expr: sympy.Basic) -> Declared:
    """The declarations of ``expr``'s symbols (one shared symbol per name, as :func:`symgpu.compare.normal_forms._unify`
    builds them), each with the assumption words either model declares it with."""
    words = []
    for symbol in sorted(expr.free_symbols, key=lambda s: s.name):
        found: set[str] = set()
        for model in models:
            if symbol.name in model.symbol_definitions:
                found |= set(model.symbol_definitions[symbol.name].assumptions)
        words.append((symbol, frozenset(found)))
    return Declared(symbols=tuple(words))


def max_taken_out(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with each sum that holds a ``Max`` (``Min``), times a number ``k``, and a term ``u`` where ``-u/k`` is one
    of its arguments written with ``u`` taken into it: ``Max(t, X) - t`` is ``Max(0, X - t)``, ``t - Max(t, X)`` is
    ``-Max(0, X - t)`` (``u/k`` added to every argument: the same value at every point, as ``max(a, b) + c = max(a + c,
    b + c)``)."""
    if not expr.args or expr.is_Atom:
        return expr
    rebuilt = expr.func(*[max_taken_out(a) for a in expr.args])
    if not rebuilt.is_Add:
        return rebuilt
    terms = list(rebuilt.args)
    for i, scaled in enumerate(terms):
        k, extreme = scaled.as_coeff_Mul()  # k*Max(args) + u is k*Max(args + u/k), for a number k
        if not isinstance(extreme, (sympy.Max, sympy.Min)):
            continue
        for j, term in enumerate(terms):
            if j != i and -term / k in extreme.args:
                rest = [t for m, t in enumerate(terms) if m not in (i, j)]
                return max_taken_out(sympy.Add(k * extreme.func(*[a + term / k for a in extreme.args]), *rest))
    return rebuilt


def never(value: sympy.Basic, declared_signs: Declared) -> str | None:
    """Why ``value`` (a difference A - B) is nonzero at every input the declarations admit, or None where that is not
    proved: a nonzero constant, or one sign proved by the sign reasoner (of ``value``, else of :func:`max_taken_out`'s
    form of it)."""
    if value.is_number:
        return f"never: the difference is the nonzero constant {sympy.sstr(value)}" if value.is_zero is False else None
    reasoner = SignReasoner(declared_signs)
    sign = reasoner.sign(value)
    if sign not in (1, -1):
        taken = max_taken_out(value)
        sign = reasoner.sign(taken) if taken != value else None
    if sign == 1:
        return "never: the difference is positive (A > B) at every input the declarations admit"
    if sign == -1:
        return "never: the difference is negative (A < B) at every input the declarations admit"
    return None


def undecided(value: sympy.Basic, why: str, whole: bool = True) -> str:
    """The 'not solved' text for ``value``, saying where it is known to take both signs (so it may vanish there); only
    where it holds over the ``whole`` declared domain (a branch's difference holds only where its condition does, and
    the points that show both signs need not meet that condition)."""
    if whole and not value.is_number and exact_signs.both_ways(value):
        return f"not solved ({why}); it is positive at some admissible inputs and negative at others, so it may vanish between them"
    return f"not solved ({why})"
