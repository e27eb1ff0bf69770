"""One-sided limits across floor/ceiling steps: each ``floor(g)``/``ceiling(g)`` of the variable replaced
by its limit from the side asked, where ``g`` is an integer at the point (:func:`one_sided`)."""

from __future__ import annotations

import sympy

from symgpu import errors
from symgpu.derive import jobs


def one_sided(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str) -> sympy.Expr:
    """Replace each ``floor(g)``/``ceiling(g)`` of ``var`` by its one-sided limit at ``point``.

    Where ``g(point)`` is an integer n and g is strictly monotone there: approached from
    above (g -> n+) ``floor -> n`` and ``ceiling -> n + 1``; from below ``floor -> n - 1``
    and ``ceiling -> n``. Where ``g(point)`` is not an integer both are continuous."""
    assert job.ctx is not None
    side = 1 if direction == "+" else -1
    mapping = {}
    for node in sorted(expr.atoms(sympy.floor, sympy.ceiling), key=sympy.count_ops):
        g = node.args[0]
        if var not in g.free_symbols:
            continue
        at = job.ctx.nice(g.xreplace({var: point}))
        if at.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            continue  # the argument grows without bound there: SymPy's limit squeezes floor(g) between g - 1 and g
        slope = job.ctx.sign(sympy.diff(g, var).xreplace({var: point}))
        if at.is_integer is True and slope in (1, -1):
            above = slope * side > 0  # g approaches its value at the point from above
            if isinstance(node, sympy.floor):
                value = at if above else at - 1
            else:
                value = at + 1 if above else at
            mapping[node] = value
            job.step("one-sided " + type(node).__name__, sympy.Eq(sympy.Symbol(sympy.sstr(node)), value),
                     f"{sympy.sstr(g)} -> {sympy.sstr(at)} (an integer) from {'above' if above else 'below'} as {var} -> "
                     f"{sympy.sstr(point)}{direction} (its slope in {var} is {'positive' if slope == 1 else 'negative'}): "
                     + ("floor(n + e) = n" if isinstance(node, sympy.floor) and above else
                        "floor(n - e) = n - 1" if isinstance(node, sympy.floor) else
                        "ceiling(n + e) = n + 1" if above else "ceiling(n - e) = n") + " for small e > 0")
        elif at.is_integer is False:
            mapping[node] = node.func(at)
        else:
            raise errors.DerivationError(f"{job.model.id}: cannot decide the one-sided limit of {sympy.sstr(node)} at "
                                         f"{var} = {sympy.sstr(point)}: is {sympy.sstr(at)} an integer?")
    return expr.xreplace(mapping) if mapping else expr
