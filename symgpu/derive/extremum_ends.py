"""The attained ends of an extremum's domain as candidates (the domain itself: :mod:`.extremum_domain`), and where the
quantity takes an open end's value exactly (:func:`reached_at`).

An end is ``0`` of a nonnegative variable or the edge of a non-strict ``valid_when`` relation or
``--assume`` bound (``theta <= 150``). A bound's number is in the variable's declared unit; the
candidate's location is that number in base units, as a derivation's numbers are. Its value is the
quantity there, but where the variable is declared in a scaled unit and stands in a sum beside
other symbols of scaled units (Volkov's ``c - theta``, GB/s), no closed form holds that number
as the evaluator reads it: a bare number in a sum takes its siblings' unit (150e9 beside ``c`` is
150e9 GB/s), one in a product none. At given values the candidate's value is then the number the
quantity has there (in base units, how a lone number is read); without them the extremum is refused,
saying so (an outside tester's finding, round 10, F3: the maximum was taken at theta = 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.derive import jobs
from symgpu.derive.extremum_domain import END, Candidate, at_location, defined_at
from symgpu.evaluate import one_sided, scaling
from symgpu.evaluate import point as exact_point

#: operations up to which two base-unit readings are compared by ``sympy.cancel`` (beyond: taken as different)
CANCEL_OPS = 400


def end_candidates(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, domain: Sequence[sympy.Basic],
                   pinned: Callable[[], sympy.Expr] | None = None) -> list[Candidate]:
    """The attained ends of the domain: ``0`` of a nonnegative variable, and the edge of each
    non-strict ``valid_when`` relation, each with the domain conditions that hold there. ``pinned``
    (:func:`symgpu.derive.at_point.pinned`, at given values): the quantity in base units with every
    other input put in, which gives a numeric end's value where no closed form can carry it.

    Raises:
        errors.DerivationError: without given values, a numeric end whose value no closed form carries.
    """
    ends: list[tuple[sympy.Expr, str]] = []
    for condition in domain:
        if not isinstance(condition, (sympy.GreaterThan, sympy.LessThan)):  # a strict end is not attained
            continue
        try:
            roots = jobs._solve_for(job, sympy.Eq(condition.lhs, condition.rhs), var, f"the end of {sympy.sstr(condition)}")
        except errors.DerivationError:
            continue
        ends.extend((r, f"{END} {sympy.sstr(condition)}") for r in roots)
    found: list[Candidate] = []
    for declared, origin in ends:
        conditions = at_location(job, domain, var, declared)  # the domain's numbers are in the variable's declared unit
        if conditions is None:
            continue
        # the bound's number is in the declared unit (L_M <= 200, ns); the location is in base units
        location = declared * scaling.unit_scale(job.model.units[var.name]) if not declared.free_symbols and var.name in job.model.units else declared
        try:
            value = one_sided.substitute(expr, {var: location})
        except errors.EvaluationError:
            continue
        if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            continue
        defined = defined_at(job, expr, var, location)
        if defined is None:
            continue
        if location != declared:
            value = _read_alike(job, expr, var, location, value, pinned, f"{declared} {job.model.unit_text(var.name)}", origin)
            if value is None:
                continue
        job.step("end point", sympy.Eq(var, location), f"{origin}: the quantity there is a candidate")
        found.append(Candidate(location, value, origin, tuple(conditions) + tuple(defined)))
    return found


def _read_alike(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, location: sympy.Expr, value: sympy.Expr,
                pinned: Callable[[], sympy.Expr] | None, shown: str, origin: str) -> sympy.Expr | None:
    """``value`` (``expr`` at the numeric ``location``, base units) where the evaluator reads it as ``expr``'s
    base-unit form at that location; else, at given values, the number the quantity has there (None where it
    has none); else refused."""
    model = job.model
    try:
        intended = one_sided.substitute(scaling.base_expression(model, expr), {var: location})
        read = scaling.base_expression(model, value)
    except errors.EvaluationError:  # the number lands in a sum beside symbols of different scales: no reading holds it
        read = intended = None
    if read is not None and intended is not None and (read == intended or (
            sympy.count_ops(read) + sympy.count_ops(intended) <= CANCEL_OPS and sympy.cancel(read - intended) == 0)):
        return value
    if pinned is not None:
        try:
            number = one_sided.substitute(pinned(), {var: location})
        except errors.EvaluationError:
            return None
        return number if number.is_number and number.is_finite else None
    raise errors.DerivationError(
        f"{model.id}: the value of {job.quantity} at the {origin} ({var} = {shown}) has no closed form: {var} is declared "
        f"in {model.unit_text(var.name)} and stands in a sum beside symbols of scaled units, where a bare number would be "
        f"read in their unit; ask at a point (--preset, --set) for the extremum there, or bound {var} by an expression of "
        "symbols instead of a number")


#: where (in the variable's declared unit) the quantity is checked to take an open end's value exactly
REACHED_AT = (1e-3, 1.0, 1e3)


def reached_at(job: jobs._Job, var: sympy.Symbol, pinned: Callable[[], sympy.Expr], preset: str | None,
               values: Mapping[str, Any], limit: sympy.Expr, inside: Callable[[np.ndarray], np.ndarray]) -> float | None:
    """A value of ``var`` among :data:`REACHED_AT`, inside the domain, where the quantity with the given
    values put in as exact numbers (``pinned``) equals ``limit`` exactly: it is flat there, at the value an
    open end approaches (Hong & Kim's CWP is 1 at every Comp_insts without memory instructions). None where
    none does (in exact arithmetic an asymptote x**3/(x**3 + c**3) is never its limit, though its IEEE value is)."""
    model = job.model
    based = scaling.base_expression(model, limit)
    numbers = exact_point.exact_base_values(model, based.free_symbols, preset, values)
    try:
        target = None if numbers is None else based.xreplace(numbers)
    except (TypeError, ValueError):  # a Min/Max or relation of zoo there (Hong & Kim's x/Coal_Mem_insts, 0 of them): no exact value
        return None
    if target is None or not target.is_Rational:
        return None
    with np.errstate(all="ignore"):
        admitted = inside(np.asarray(REACHED_AT))
    scale = sympy.Rational(scaling.symbol_scale(model, var.name))
    for x, admissible in zip(REACHED_AT, admitted):
        try:
            value = pinned().xreplace({var: sympy.Rational(x) * scale}) if admissible else None
        except (TypeError, ValueError):  # no exact value there (a Min/Max of zoo)
            value = None
        if value is not None and value.is_Rational and value == target:
            return x
    return None
