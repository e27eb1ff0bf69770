"""One-sided limits across floor/ceiling steps: each ``floor(g)``/``ceiling(g)`` of the variable replaced
by its limit from the side asked, where ``g`` is an integer at the point (:func:`one_sided`)."""

from __future__ import annotations

import sympy

from symgpu import errors
from symgpu.derive import at_point, jobs
from symgpu.evaluate import scaling
from symgpu.evaluate.point import exact_base_values


def one_sided(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str,
              given: at_point.Given | None = None) -> sympy.Expr:
    """Replace each ``floor(g)``/``ceiling(g)`` of ``var`` by its one-sided limit at ``point``.

    Where ``g(point)`` is an integer n and g is strictly monotone there: approached from
    above (g -> n+) ``floor -> n`` and ``ceiling -> n + 1``; from below ``floor -> n - 1``
    and ``ceiling -> n``. Where ``g(point)`` is not an integer both are continuous. Where the
    symbols leave open whether ``g(point)`` is an integer (``M_Read*W/MSHRs`` at ``W = 128/5``)
    and the question is asked at ``given`` values, it is decided by their exact numbers
    (:func:`_here`): the step's integer is then the number it is there."""
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
        where = ""
        here = _here(job, g, var, point, given) if at.is_integer is None and given is not None else None
        if here is not None and here[0].is_integer is not None:  # decided by the numbers there
            assert given is not None
            where = f" at {at_point.where_text(given.preset, given.values)}"
            if here[0].is_integer is False:
                job.step("continuous " + type(node).__name__, sympy.Eq(sympy.Symbol(sympy.sstr(node)), node),
                         f"{sympy.sstr(g)} -> {sympy.sstr(here[0])} (not an integer{where}) as {var} -> "
                         f"{sympy.sstr(point)}: {type(node).__name__} is continuous there")
                mapping[node] = node.func(at)
                continue
            # the closed form holds where the argument is that integer, as it is there
            job.ctx.add(sympy.Eq(at, here[0]), at_point.decided(sympy.Eq(at, here[0]), given.preset, given.values))
            at, slope = here[0], slope if slope in (1, -1) else here[1]
        if at.is_integer is True and slope in (1, -1):
            above = slope * side > 0  # g approaches its value at the point from above
            if isinstance(node, sympy.floor):
                value = at if above else at - 1
            else:
                value = at + 1 if above else at
            mapping[node] = value
            job.step("one-sided " + type(node).__name__, sympy.Eq(sympy.Symbol(sympy.sstr(node)), value),
                     f"{sympy.sstr(g)} -> {sympy.sstr(at)} (an integer{where}) from {'above' if above else 'below'} as {var} -> "
                     f"{sympy.sstr(point)}{direction} (its slope in {var} is {'positive' if slope == 1 else 'negative'}): "
                     + ("floor(n + e) = n" if isinstance(node, sympy.floor) and above else
                        "floor(n - e) = n - 1" if isinstance(node, sympy.floor) else
                        "ceiling(n + e) = n + 1" if above else "ceiling(n - e) = n") + " for small e > 0")
        elif at.is_integer is False:
            mapping[node] = node.func(at)
        else:
            raise errors.DerivationError(f"{job.model.id}: cannot decide the one-sided limit of {sympy.sstr(node)} at "
                                         f"{var} = {sympy.sstr(point)}: whether {sympy.sstr(at)} is an integer is left open"
                                         + (" at the given values" if given is not None else
                                            "; ask at given values (--preset, --set) that decide it"))
    return expr.xreplace(mapping) if mapping else expr


def _here(job: jobs._Job, g: sympy.Expr, var: sympy.Symbol, point: sympy.Expr,
          given: at_point.Given) -> tuple[sympy.Expr, int | None] | None:
    """``g`` at ``point`` with every other input the exact number the preset and values give it, and the sign
    of its slope in ``var`` there: read in coherent base units (:func:`scaling.base_expression`; a floor's
    argument is a pure number, the same in any reading), ``var`` at the point's base-unit value. None where an
    input has no value there or a name is no model symbol."""
    names = (g.free_symbols | point.free_symbols) - {var}
    if any(s.name not in job.model.symbols for s in names) or var.name not in job.model.units:
        return None
    based = scaling.base_expression(job.model, g)
    numbers = exact_base_values(job.model, names | (based.free_symbols - {var}), given.preset, given.values)
    if numbers is None:
        return None
    scale = scaling.unit_scale(job.model.units[var.name])
    at = point * scale if point.is_number else scaling.base_expression(job.model, point).xreplace(numbers)
    def put(e: sympy.Expr) -> sympy.Expr:
        return e.xreplace({**numbers, var: at})

    number, slope = put(based), put(sympy.diff(based, var))
    if not (number.is_number and number.is_real and slope.is_number):
        return None
    return number, (1 if slope.is_positive else -1 if slope.is_negative else None)
