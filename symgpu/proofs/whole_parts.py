"""``floor``/``ceiling`` of an expression, the node SymPy's evaluation builds, without that evaluation where exact values
prove it leaves the node as it is.

SymPy evaluates ``floor(x)`` (``ceiling(x)``) through its assumptions about ``x``: a whole part taken where it can
prove ``x`` an integer, 0 or within one of the unit intervals of ``[-2, 2]`` (0, 1, -1, -2 for ``floor``; 1, 2, 0, -1
for ``ceiling``), infinite, imaginary or zero; an integer term split off a sum; a number rounded; a whole part, or
minus one, given back as it is. Otherwise it gives ``floor(x)`` unevaluated. Each of those proofs is a claim about
every value the symbols' declared assumptions allow, so one exact value at an admissible point can refute it: a value
that is not an integer refutes ``x`` an integer, one beyond 2 in magnitude every unit interval and 0 (and, real and
finite, infinite and imaginary). For an ``x`` that is no sum, no number and neither a whole part nor minus one,
with such values, SymPy's evaluation builds ``floor(x, evaluate=False)``, and so does this, without SymPy's
assumption queries (0.6 ms a node for the occupancy limits' nested floors: ``as_numer_denom`` and ``is_lt`` of
large products, 70 ms of one regime table's near-tie relations). Anywhere else ``func(x)`` is SymPy's own.
Proved against SymPy's evaluation (tests/test_whole_parts_built_as_sympy_builds_them.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import sympy

from symgpu.memo import memoised
from symgpu.proofs import rational_value, sample_points

#: the functions :func:`built` builds
PARTS = (sympy.floor, sympy.ceiling)
#: seeded points tried (then one per symbol with that symbol large) for the values that refute every evaluation
POINTS = 6
SEED = 4099
#: a value beyond this magnitude lies in none of the unit intervals SymPy's evaluation can prove ``x`` within
INTERVALS = 2


def built(func: Callable[..., Any], x: sympy.Expr) -> sympy.Expr:
    """``func(x)`` as SymPy builds it (``func``: ``sympy.floor`` or ``sympy.ceiling``): unevaluated where values of ``x``
    at admissible points rule out every rewriting of SymPy's evaluation (:func:`left_as_it_is`), else ``func(x)``."""
    if left_as_it_is(x):
        return func(x, evaluate=False)  # type: ignore[no-any-return]
    return func(x)  # type: ignore[no-any-return]


def rebuilt(func: Callable[..., Any], args: Sequence[Any]) -> Any:
    """``func(*args)``, a ``floor``/``ceiling`` through :func:`built`: a node rebuilt from new arguments as SymPy
    builds it (the parser's calls, ``xreplace``'s rebuilt nodes, a regime's branch values)."""
    return built(func, args[0]) if func in PARTS else func(*args)


@memoised("proofs.whole_parts.left_as_it_is", 4096)
def left_as_it_is(x: sympy.Basic) -> bool:
    """Whether SymPy's evaluation of ``floor(x)`` and ``ceiling(x)`` is proved to leave the node unevaluated: ``x`` an
    expression with symbols, no sum, number, whole part or minus one, that takes a value that is not an integer and a
    value beyond :data:`INTERVALS` in magnitude at points the symbols' declared assumptions allow (exact values).
    False means only "not proved"."""
    if not isinstance(x, sympy.Expr) or isinstance(x, sympy.Add) or x.is_Number or x.is_NumberSymbol or not x.free_symbols:
        return False
    if isinstance(x, PARTS) or isinstance(-x, PARTS):
        return False
    symbols = sample_points.ordered(x.free_symbols)
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    if not all(pools):
        return False
    fraction = large = False
    for point in itertools.chain(sample_points.points(symbols, pools, SEED, POINTS, fixed_first=2), sample_points.one_large(symbols, pools)):
        value = rational_value.value(x, rational_value.inputs(point))
        if value is None:
            continue
        fraction |= value.denominator != 1
        large |= abs(value) > INTERVALS
        if fraction and large:
            return True
    return False
