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
    job.zeros.update(zeros)
    job.step("boundary values", sympy.Tuple(*[sympy.Eq(s, 0) for s in zeros]),
             f"{shown} at the given values: the boundary of a declared-nonnegative range, where the limit can differ from the "
             f"limit for positive values; put in before the limit in {variable} (its inputs are fixed)")
    return pinned, moved


def _zero_cases(job: jobs._Job, g: sympy.Expr) -> list[dict[sympy.Symbol, sympy.Expr]] | None:
    """The ways the nonnegative ``g`` can be 0: one mapping per factor not proved positive
    (a nonnegative symbol, or a sum of nonnegative symbols with positive coefficients: all 0);
    ``None`` when a factor is of another form. A ratio whose denominator has a proved sign is 0 where
    its numerator is: its numerator's factors (Volkov's ``theta/(c - theta)``, nonnegative where an
    extremum reads its domain ``theta < c``, is 0 where ``theta = 0``; SymPy's ``factor_list`` refuses a ratio)."""
    assert job.ctx is not None
    numerator, denominator = sympy.fraction(sympy.together(g))
    polynomial = numerator if denominator != 1 and job.ctx.sign(denominator) in (1, -1) else g
    cases: list[dict[sympy.Symbol, sympy.Expr]] = []
    for factor, _ in sympy.factor_list(polynomial)[1]:
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


def _solved_zero(job: jobs._Job, factor: sympy.Expr, variable: sympy.Symbol) -> dict[sympy.Symbol, sympy.Expr] | None:
    """``factor = 0`` solved for one of its symbols (not ``variable``) in which it is linear, as
    a substitution; ``None`` when it is linear in none."""
    for symbol in sorted(factor.free_symbols - {variable}, key=str):
        try:
            poly = sympy.Poly(factor, symbol) if factor.is_polynomial(symbol) else None
        except sympy.PolynomialError:
            poly = None
        if poly is None or poly.degree() != 1:
            continue
        slope, rest = poly.all_coeffs()
        assert job.ctx is not None
        if job.ctx.sign(slope) not in (1, -1):
            continue
        return {symbol: sympy.cancel(-rest / slope)}
    return None


def split_signed(job: jobs._Job, value: sympy.Expr, expr: sympy.Expr, point: sympy.Expr, variable: sympy.Symbol,
                 take: Take) -> sympy.Expr:
    """``value`` (a limit of ``expr``) with a ``sign(g)`` of a ``g`` of unknown sign (``oo*sign(u - 1)``)
    split into cases: ``g > 0``, ``g < 0``, and for each factor of ``g`` not proved nonzero, the limit
    of ``expr`` where that factor is 0 (solved for a symbol it is linear in and put in: a 0*oo is
    no answer); a Piecewise of the cases.

    Raises:
        errors.DerivationError: several signs are undecided, or a factor of ``g`` cannot be solved for 0.
    """
    assert job.ctx is not None
    undecided = sorted((a for a in value.atoms(sympy.sign) if job.ctx.sign(a.args[0]) not in (1, -1)),
                       key=sympy.default_sort_key)
    if not undecided:
        return value
    g = undecided[0].args[0]
    if len(undecided) > 1 or variable in g.free_symbols:
        raise errors.DerivationError(f"{job.model.id}: the limit of {job.quantity} is {sympy.sstr(value)}: its value depends on "
                                     "the signs of several inputs; give values (--set) or --substitute/--assume that decide them")
    above = value.xreplace({undecided[0]: sympy.Integer(1)})
    below = value.xreplace({undecided[0]: sympy.Integer(-1)})
    job.step("case", sympy.Tuple(above, below), f"where {sympy.sstr(g)} > 0: sign = 1; where {sympy.sstr(g)} < 0: sign = -1")
    try:  # g is 0 where a factor of its numerator is
        factors = [f for f, _ in sympy.factor_list(sympy.numer(sympy.together(g)))[1] if job.ctx.sign(f) not in (1, -1)] or [g]
    except sympy.PolynomialError:
        factors = [g]
    zero_branches: list[tuple[sympy.Expr, sympy.Basic]] = []
    for factor in factors:
        mapping = _solved_zero(job, factor, variable)
        if mapping is None:
            raise errors.DerivationError(f"{job.model.id}: the limit of {job.quantity} is {sympy.sstr(value)}, undefined where "
                                         f"{sympy.sstr(factor)} = 0; give values (--set) or --substitute/--assume that decide it")
        (symbol, solution), = mapping.items()
        job.step("case", sympy.Eq(symbol, solution), f"where {sympy.sstr(factor)} = 0: the limit of the expression with "
                 f"{symbol} = {sympy.sstr(solution)} (a 0*oo is no answer)")
        inner = take(job, _put_zeros(job, expr, mapping, "the case"), point.xreplace(mapping))
        zero_branches.append((inner, sympy.Eq(factor, 0)))
    last_value, _ = zero_branches[-1]
    result = sympy.Piecewise((above, sympy.StrictGreaterThan(g, 0)), (below, sympy.StrictLessThan(g, 0)),
                             *zero_branches[:-1], (last_value, True))
    job.step("cases", result, "the limit where each case holds")
    return result


#: how many times a case of :func:`split_zero_inputs` is split again where its limit is infinite
MAX_ZERO_DEPTH = 1


def split_zero_inputs(job: jobs._Job, value: sympy.Expr, expr: sympy.Expr, point: sympy.Expr, variable: sympy.Symbol,
                      take: Take, depth: int = 0) -> sympy.Expr:
    """``value`` (a limit of ``expr`` taken for positive inputs) with a case for each declared-nonnegative
    input whose 0 changes the limit: ``C*a/(C + U) -> a`` as ``C -> 0`` for ``U > 0``, but the
    expression is ``a`` for every ``C`` at ``U = 0``. The limit with the input put in as 0 is
    compared with ``value`` at 0; where they differ, a Piecewise case ``Eq(input, 0)`` is added. A
    case whose limit is infinite is split again (once) where it is a product with another such input
    (Hong & Kim's ``oo*Comp_insts*...`` where ``Coal_Mem_insts = 0``: finite where ``Comp_insts = 0`` too)."""
    cases: list[tuple[sympy.Expr, sympy.Basic]] = []
    singles = [(s,) for s in sorted(expr.free_symbols - {variable} - point.free_symbols, key=str) if _nonnegative_only(job.model, s)]
    for group in singles + _joint_zeros(job, value, variable, point):
        kept = list(job.steps)
        zero = {symbol: sympy.Integer(0) for symbol in group}
        try:
            at_zero = take(job, one_sided.substitute(expr, zero), point)
        except (errors.SymgpuError, NotImplementedError, ValueError, TypeError):
            job.steps[:] = kept
            continue
        try:
            naive = value.xreplace(zero)
        except (ValueError, TypeError):  # a Min/Max of nan (0/0 where the group is 0): the case differs
            naive = sympy.nan
        same = not naive.has(sympy.nan, sympy.zoo) and sympy.simplify(naive - at_zero) == 0 \
            if not (naive.has(sympy.oo, -sympy.oo) or at_zero.has(sympy.oo, -sympy.oo)) else naive == at_zero
        if same:
            job.steps[:] = kept
            continue
        if depth < MAX_ZERO_DEPTH and at_zero.has(sympy.oo, -sympy.oo):
            at_zero = split_zero_inputs(job, at_zero, one_sided.substitute(expr, zero), point, variable, take, depth + 1)
        where = sympy.And(*(sympy.Eq(s, 0) for s in group))
        named = " = ".join(map(str, group))
        job.step("case", where, f"where {named} = 0 (the end of the declared-nonnegative range) the limit "
                 f"is {sympy.sstr(at_zero)}, not the limit for {named} > 0 put at 0 ({sympy.sstr(naive)})")
        cases.append((at_zero, where))
    if not cases:
        return value
    result = sympy.Piecewise(*cases, (value, True))
    job.step("cases", result, "the limit where each case holds")
    return result


def _joint_zeros(job: jobs._Job, value: sympy.Expr, variable: sympy.Symbol, point: sympy.Expr) -> list[tuple[sympy.Symbol, ...]]:
    """Groups of two or more declared-nonnegative inputs whose sum is a factor of a denominator of
    ``value`` (Hong & Kim's ``Coal_Mem_insts + Comp_insts``): the value is 0/0 only where all of them
    are 0 together, which no single input's case sees."""
    found: list[tuple[sympy.Symbol, ...]] = []
    for part in sympy.preorder_traversal(value):
        if not isinstance(part, sympy.Expr) or part.is_Atom:
            continue
        _, denominator = sympy.fraction(sympy.together(part))
        for factor in sympy.Mul.make_args(sympy.factor_terms(denominator)):
            base = factor.base if isinstance(factor, sympy.Pow) else factor
            if not isinstance(base, sympy.Add) or variable in base.free_symbols or base.free_symbols & point.free_symbols:
                continue
            terms = base.args
            if all(t.is_Symbol and _nonnegative_only(job.model, t) for t in terms):
                group = tuple(sorted(terms, key=str))
                if group not in found:
                    found.append(group)
    return found


def retake_cancelled(job: jobs._Job, value: sympy.Expr, expr: sympy.Expr, point: sympy.Expr, take: Take) -> sympy.Expr:
    """``value``, or where it is ``oo*sign(g)`` with a ``g`` that expands to 0 (SymPy's leading term of an
    unexpanded form that cancels: ``D*(u - 1) - D*u + D``), the limit taken again on the expanded expression.

    Raises:
        errors.DerivationError: the expression is already expanded.
    """
    cancelled = [a for a in value.atoms(sympy.sign) if sympy.expand(a.args[0]) == 0]
    if not cancelled:
        return value
    expanded = sympy.expand(expr)
    if expanded == expr:
        raise errors.DerivationError(f"{job.model.id}: the limit of {job.quantity} is {sympy.sstr(value)}, with the sign of an "
                                     "expression that is 0; give values (--set) that decide it")
    job.step("expand", expanded, f"the sign's argument {sympy.sstr(cancelled[0].args[0])} is 0: the limit is taken again on "
             "the expanded form")
    return take(job, expanded, point)
