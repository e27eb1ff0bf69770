"""Limits at the boundary of a declared range: a nonnegative input at 0 changes the limit.

``lim_{W -> oo} (c + M_Write*W*s)`` is ``oo`` for ``M_Write > 0`` but ``c`` at ``M_Write = 0``.
SymPy answers ``oo*sign(M_Write*s)``, which simplifies to ``nan`` where the sign is 0 (``0*oo``):
a wrong value, not an undecided one. Two remedies, both recorded as steps:

* at given values (:func:`pin_zeros`), every declared-nonnegative input that is 0 there is put
  in before the limit is taken (the limit in one variable at fixed inputs is the limit of the
  expression at those inputs);
* symbolically (:func:`split_undecided`), the limit is split into the case where the sign's
  argument is positive and the cases where one of its nonnegative factors is 0, each a limit
  of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.evaluate import input_values, one_sided

#: take(job, expr, point) -> the limit of expr at point (the caller's own pipeline)
Take = Callable[[jobs._Job, sympy.Expr, sympy.Expr], sympy.Expr]


def _nonnegative_only(model: Any, symbol: sympy.Symbol) -> bool:
    definition = model.symbol_definitions.get(symbol.name)
    return definition is not None and "nonnegative" in definition.assumptions and "positive" not in definition.assumptions


def zero_inputs(model: Any, names: Iterable[str], preset: str | None, values: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Those of ``names`` that are declared nonnegative (not positive) and 0 at the preset and
    values: the boundary of their range, where a term can vanish (sorted)."""
    merged = input_values.merge_values(model, preset, values)
    zeros = []
    for name in sorted(set(names)):
        if name in merged and name in model.symbols and _nonnegative_only(model, model.symbols[name]):
            magnitude = input_values.to_magnitude(model, name, merged[name], check=False)
            if isinstance(magnitude, float) and magnitude == 0:
                zeros.append(name)
    return tuple(zeros)


def _put_zeros(job: jobs._Job, expr: sympy.Expr, zeros: Mapping[sympy.Symbol, sympy.Expr], why: str) -> sympy.Expr:
    """``expr`` with ``zeros`` put in (a quotient by one of them: its limit from above)."""
    try:
        return one_sided.substitute(expr, zeros)
    except errors.EvaluationError as exc:
        shown = ", ".join(f"{s} = 0" for s in zeros)
        raise errors.DerivationError(f"{job.model.id}: limit of {job.quantity}: {why} ({shown}) leaves the expression undefined: "
                                     f"{exc}; give a positive value") from None


def pin_zeros(job: jobs._Job, expr: sympy.Expr, point: sympy.Expr, variable: sympy.Symbol, preset: str | None,
              values: Mapping[str, Any] | None) -> tuple[sympy.Expr, sympy.Expr]:
    """``expr`` and ``point`` with each declared-nonnegative input that is 0 at the preset and
    values put in as 0 (the boundary of its range), recorded as a step.

    Raises:
        errors.DerivationError: the point itself is undefined there (``MSHRs/M_Read`` at ``M_Read = 0``).
    """
    model = job.model
    names = zero_inputs(model, (s.name for s in (expr.free_symbols | point.free_symbols) - {variable}), preset, values)
    zeros: dict[sympy.Symbol, sympy.Expr] = {model.symbols[n]: sympy.Integer(0) for n in names}
    if not zeros:
        return expr, point
    shown = ", ".join(f"{s} = 0" for s in zeros)
    moved = point.xreplace(zeros)
    if moved.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) and not point.has(sympy.oo, -sympy.oo):
        raise errors.DerivationError(f"{model.id}: limit of {job.quantity}: the point {sympy.sstr(point)} is undefined at {shown}; "
                                     "give a positive value or another point")
    pinned = _put_zeros(job, expr, zeros, "the given values")
    job.step("boundary values", sympy.Tuple(*[sympy.Eq(s, 0) for s in zeros]),
             f"{shown} at the given values: the boundary of a declared-nonnegative range, where the limit can differ from the "
             f"limit for positive values; put in before the limit in {variable} (its inputs are fixed)")
    return pinned, moved


def _zero_cases(job: jobs._Job, g: sympy.Expr) -> list[dict[sympy.Symbol, sympy.Expr]] | None:
    """The ways the nonnegative ``g`` can be 0: one mapping per factor not proved positive
    (a nonnegative symbol, or a sum of nonnegative symbols with positive coefficients: all 0);
    ``None`` when a factor is of another form."""
    assert job.ctx is not None
    cases: list[dict[sympy.Symbol, sympy.Expr]] = []
    for factor, _ in sympy.factor_list(g)[1]:
        if job.ctx.sign(factor) == 1:
            continue
        terms = factor.args if factor.is_Add else (factor,)
        symbols = []
        for term in terms:
            coefficient, rest = term.as_coeff_Mul()
            if not (rest.is_Symbol and coefficient.is_positive and _nonnegative_only(job.model, rest)):
                return None
            symbols.append(rest)
        cases.append({s: sympy.Integer(0) for s in symbols})
    return cases


def split_undecided(job: jobs._Job, value: sympy.Expr, expr: sympy.Expr, point: sympy.Expr, take: Take) -> sympy.Expr:
    """``value`` (a limit of ``expr``) with each ``sign(g)`` of a nonnegative ``g`` not proved
    positive split into cases: ``g > 0`` (the sign is 1) and, for each way ``g`` is 0, the limit
    of ``expr`` with those inputs at 0; a Piecewise of the cases (one case when the first
    covers the others).

    Raises:
        errors.DerivationError: ``g`` is 0 in a way that cannot be put in as values.
    """
    assert job.ctx is not None
    undecided = sorted((a for a in value.atoms(sympy.sign) if job.ctx.sign(a.args[0]) not in (1, -1)
                        and job.ctx.nonnegative(a.args[0])), key=sympy.default_sort_key)
    if not undecided:
        return value
    g = undecided[0].args[0]
    cases = _zero_cases(job, g)
    if not cases:
        raise errors.DerivationError(f"{job.model.id}: the limit of {job.quantity} is {sympy.sstr(value)}, undefined where "
                                     f"{sympy.sstr(g)} = 0; give values (--set) or --substitute/--assume that decide it")
    positive = value.xreplace({undecided[0]: sympy.Integer(1)})
    job.step("case", positive, f"where {sympy.sstr(g)} > 0: sign = 1")
    pieces = []
    for zeros in cases:
        shown = " and ".join(f"{s} = 0" for s in zeros)
        job.step("case", sympy.Tuple(*[sympy.Eq(s, 0) for s in zeros]), f"where {shown}, {sympy.sstr(g)} = 0: "
                 "the limit of the expression with that value (a 0*oo is no answer)")
        pieces.append((take(job, _put_zeros(job, expr, zeros, "the case"), point.xreplace(zeros)), zeros))
    first, _ = pieces[0]
    if all(sympy.simplify(first.xreplace(zeros) - other) == 0 for other, zeros in pieces[1:]):
        branches = [(first, sympy.Eq(g, 0))]
    else:
        branches = [(v, sympy.And(*[sympy.Eq(s, 0) for s in zeros])) for v, zeros in pieces]
    if any(job.ctx.sign(a.args[0]) not in (1, -1) for a in positive.atoms(sympy.sign)):
        raise errors.DerivationError(f"{job.model.id}: the limit of {job.quantity} is {sympy.sstr(value)}: its value depends on "
                                     "the signs of several inputs; give values (--set) or --substitute/--assume that decide them")
    result = sympy.Piecewise(*branches, (positive, True))
    job.step("cases", result, "the limit where each case holds")
    return result
