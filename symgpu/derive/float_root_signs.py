"""Signs at a root found by bisection (:mod:`symgpu.derive.transcendental_roots`: a Float of its ``DIGITS`` digits, the true
root within ``10**-DIGITS`` of it, relatively): an expression of numbers and the variable alone is evaluated there in
60 digits; one that is zero to :data:`ZERO_BELOW` of its terms' size is zero there (a case condition through the root:
``x - 2 = 2.0005 - x - 0.0001*log(x)`` is ``h = 0`` for the Min's separating condition ``h``, which the Float leaves
``1e-31`` off zero, so its side read from that sign put the cusp in neither regime), else its sign."""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import sympy

from symgpu.derive.transcendental_roots import DIGITS

#: an expression at the root whose value is below this part of its terms' absolute values is zero there: the root's
#: digits leave ``10**-DIGITS`` of them, and ten orders more are room for the slope of the terms
ZERO_BELOW = sympy.Float(10) ** (10 - DIGITS)
_DPS = 60


def signs_near(var: sympy.Symbol, point: sympy.Expr) -> Callable[[sympy.Expr], int | None] | None:
    """At ``var = point``, a bisected root (a Float of :data:`DIGITS` digits or more), the sign of an expression in ``var`` and
    numbers alone (1, -1, 0 as the module says; None for one holding another symbol or no real number there); None (no such
    function) at any other point."""
    if not isinstance(point, sympy.Float) or point._prec < 3 * DIGITS:
        return None

    def sign(expr: sympy.Expr) -> int | None:
        if not isinstance(expr, sympy.Expr) or expr.free_symbols - {var}:
            return None
        terms = [t.xreplace({var: point}) for t in sympy.Add.make_args(sympy.expand(expr))]  # before they sum to one number
        with mpmath.workdps(_DPS):
            values = [sympy.N(t, _DPS) for t in terms]
            value = sympy.Add(*values)
            size = sum((abs(v) for v in values), sympy.Float(0))
        if not value.is_real or value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return None
        if abs(value) <= ZERO_BELOW * size:
            return 0
        return 1 if value > 0 else -1
    return sign
