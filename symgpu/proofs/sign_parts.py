"""Signs of expressions with ``Min``/``Max`` in them, from the signs of their parts.

Bringing such an expression over a common denominator and factoring it multiplies every
``Min``/``Max`` out into one large polynomial (slow, and often no better at deciding the sign);
instead, a sum, product, ``Min`` or ``Max`` is bounded part by part: a ``Min`` of positive
arguments is positive, a ``Max`` with a nonnegative argument is nonnegative, a sum of
nonnegative terms one of which is positive is positive, and so on. The parts free of
``Min``/``Max`` are decided whole by the caller's sign reasoning (``sign``), so every verdict
here is a proof built from proved verdicts.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

#: a bound on an expression: (sign, strict). (1, True) > 0, (1, False) >= 0, (-1, True) < 0,
#: (-1, False) <= 0, (0, True) == 0; None: nothing proved
Bound = tuple[int, bool] | None
_EXTREMA = (sympy.Min, sympy.Max)
_ZERO: tuple[int, bool] = (0, True)


def sign_from_parts(expr: sympy.Expr, sign: Callable[[sympy.Expr], int | None],
                    nonnegative: Callable[[sympy.Expr], bool]) -> int | None:
    """+1, -1 or 0 if the bound of ``expr`` from its parts proves a sign, else None.

    ``sign`` decides the sign of a part free of ``Min``/``Max`` (never called on ``expr`` itself);
    ``nonnegative`` proves ``part >= 0`` structurally, without ``sign`` (used where ``sign``
    leaves a part open)."""
    found = _bound(expr, sign, nonnegative)
    if found is None or not found[1]:
        return None
    return found[0]


def _has_extrema(expr: sympy.Basic) -> bool:
    return expr.has(*_EXTREMA)


def _leaf(expr: sympy.Expr, sign: Callable[[sympy.Expr], int | None], nonnegative: Callable[[sympy.Expr], bool]) -> Bound:
    s = sign(expr)
    if s is not None:
        return (s, True)
    if nonnegative(expr):
        return (1, False)
    if nonnegative(-expr):
        return (-1, False)
    return None


def _bound(expr: sympy.Expr, sign: Callable[[sympy.Expr], int | None], nonnegative: Callable[[sympy.Expr], bool]) -> Bound:
    if not _has_extrema(expr):
        return _leaf(expr, sign, nonnegative)
    if isinstance(expr, _EXTREMA):
        bounds = [_bound(a, sign, nonnegative) for a in expr.args]
        return _smallest(bounds) if isinstance(expr, sympy.Min) else _negated(_smallest([_negated(p) for p in bounds]))
    if expr.is_Add or expr.is_Mul:
        # the parts free of Min/Max are decided together (their sum or product may have a sign
        # none of them has alone), each part with Min/Max in it on its own
        plain = [a for a in expr.args if not _has_extrema(a)]
        pieces = [a for a in expr.args if _has_extrema(a)]
        parts: list[Bound] = [_leaf(expr.func(*plain), sign, nonnegative)] if plain else []
        for piece in pieces:
            if None in parts:
                return None
            parts.append(_bound(piece, sign, nonnegative))
        return _sum(parts) if expr.is_Add else _product(parts)
    if expr.is_Pow and expr.exp == -1:
        base = _bound(expr.base, sign, nonnegative)
        return base if base is not None and base[1] and base[0] != 0 else None
    # any other node with Min/Max in it (a power, a function): only the structural >= 0 proof,
    # never ``sign`` of the same expression (that is the question being answered)
    return (1, False) if nonnegative(expr) else None


def _negated(bound: Bound) -> Bound:
    return None if bound is None else (-bound[0], bound[1])


def _smallest(parts: list[Bound]) -> Bound:
    """Bound of the Min of parts bounded by ``parts``: below the smallest upper bound, and
    above the smallest lower bound where every part has one."""
    if (-1, True) in parts:
        return (-1, True)
    if any(p is not None and p[0] <= 0 for p in parts):
        # a part <= 0 (or == 0): the Min is <= 0; == 0 if that part is 0 and the others >= 0
        if _ZERO in parts and all(p is not None and p[0] >= 0 for p in parts):
            return _ZERO
        return (-1, False)
    if None in parts:
        return None
    return (1, all(p is not None and p[1] for p in parts))  # every part > 0 or >= 0


def _sum(parts: list[Bound]) -> Bound:
    if None in parts:
        return None
    known = [p for p in parts if p is not None and p != _ZERO]
    if not known:
        return _ZERO
    first = known[0][0]
    if any(p[0] != first for p in known):
        return None
    return (first, any(p[1] for p in known))


def _product(parts: list[Bound]) -> Bound:
    if None in parts:
        return None
    if _ZERO in parts:
        return _ZERO
    s = 1
    for p in parts:
        assert p is not None
        s *= p[0]
    return (s, all(p is not None and p[1] for p in parts))
