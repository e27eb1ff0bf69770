"""A closed-form root at a point in exact arithmetic, where IEEE arithmetic loses it.

:func:`refined`: a root's value rounded once from its exact value where the closed form cancelled digits.
:func:`recovered`: a root whose IEEE value is no number at all. Near a double root the discriminant
under a square root cancels: interval_analysis' ``P_K0 = c*(400/N + N + 1)`` with ``M = N`` at a target
1.5e-14 above its minimum ``656615/692`` has the roots ``20 -/+ 1.14e-7``, but in doubles the
discriminant rounds below zero, both roots come out NaN and their domain (``6 <= N <= 800``) read in
doubles fails, so they were refused as outside their regime (an outside tester's finding, round 15b
F2). There the root's value, its regime conditions and its domain are decided with the inputs as the
decimals given (:func:`symgpu.evaluate.point.exact_base_values`), to :data:`DIGITS` digits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pint
import sympy

from symgpu import errors
from symgpu.derive.extra_records import RootRecord
from symgpu.evaluate import evaluator, one_sided, point, scaling

if TYPE_CHECKING:
    from symgpu.model import Model

#: digits of the exact evaluation
DIGITS = 30
#: two sides of a relation closer than this, relative, in :data:`DIGITS`-digit arithmetic are equal
TIE = 1e-25


def exact_number(model: Model, expr: sympy.Basic, unit: pint.Unit | None, preset: str | None, values: Mapping[str, Any]) -> complex | None:
    """``expr`` at the point in exact arithmetic (inputs read as exact rationals, :data:`DIGITS` digits), in the
    declared unit ``unit`` (None: base units); None where it has no such value (an input missing, 0/0)."""
    found = _exact(model, expr, unit, preset, values)
    try:
        return None if found is None else complex(found)
    except (TypeError, ValueError, ArithmeticError):
        return None


def _exact(model: Model, expr: sympy.Basic, unit: pint.Unit | None, preset: str | None, values: Mapping[str, Any]) -> sympy.Expr | None:
    """:func:`exact_number` as a SymPy number of :data:`DIGITS` digits."""
    based = scaling.base_expression(model, expr)
    if unit is not None:
        based = based / scaling.unit_scale(unit)
    try:
        numbers = point.exact_base_values(model, based.free_symbols, preset, values)
        return None if numbers is None else one_sided.substitute(based, numbers).evalf(DIGITS)
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None


def _real(number: sympy.Expr | None) -> sympy.Expr | None:
    """``number`` where it is a finite real number (its imaginary part exactly 0), else None."""
    if number is None or not number.is_number:
        return None
    real, imaginary = number.as_real_imag()
    return real if imaginary == 0 and real.is_finite else None


def refined(model: Model, root: sympy.Expr, variable: str, preset: str | None, values: Mapping[str, Any], number: float) -> float:
    """A closed-form root's value at a point (``number``, IEEE, in ``variable``'s declared unit) in exact
    arithmetic (inputs read as exact rationals, 30 digits) rounded once, where it has one (else ``number``):
    where the closed form cancelled it kept few IEEE digits (Huang's printed CPI solved for ``reqs_per_inst``
    at ``alpha = 1e9`` subtracts terms of 1e10 and kept 5), and where the root is a case's edge its IEEE
    value may be the double beside it, in the other case (1300 ns - 1000 ns = 299.99999999999994 ns)."""
    if not math.isfinite(number) or variable not in model.units:
        return number
    exact = exact_number(model, root, model.units[variable], preset, values)
    if exact is None or exact.imag != 0 or not math.isfinite(exact.real):
        return number
    return exact.real  # rounded once: a root on a case's edge (1300 ns - 1000 ns) is the edge, not a double beside it


@dataclass(frozen=True)
class Recovered:
    """A root whose IEEE value at a point is no number while its exact value is a finite real one.

    Attributes:
        value: that exact value rounded once, in the variable's declared unit.
        holds: whether its regime conditions and its ``valid_when`` domain hold there, decided exactly.
        shown: what was decided, for the line that says why the root applies.
    """

    value: float
    holds: bool
    shown: str


def recovered(model: Model, record: RootRecord, variable: str, preset: str | None, values: Mapping[str, Any]) -> Recovered | None:
    """``record``'s root at the point where IEEE arithmetic gives it no finite value but exact arithmetic a finite
    real one (module doc), its conditions (``when``) and domain decided with each side of every relation in exact
    arithmetic; None elsewhere (the IEEE verdict stands), or where a side has no exact real value there."""
    if variable not in model.units:
        return None
    try:
        double = float(evaluator.evaluate_expression(model, record.root, model.units[variable], preset=preset, values=values).magnitude)
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None
    if math.isfinite(double):
        return None
    exact = exact_number(model, record.root, model.units[variable], preset, values)
    if exact is None or exact.imag != 0 or not math.isfinite(exact.real):
        return None
    verdicts = [_holds(model, c, preset, values) for c in (record.when, record.inside)]
    if None in verdicts:
        return None
    return Recovered(exact.real, all(verdicts), f"{variable} = {exact.real:.10g}: its value and its conditions decided in exact "
                     "arithmetic, the inputs as the decimals given (in doubles the closed form cancels to no number: a double root)")


def _holds(model: Model, condition: Any, preset: str | None, values: Mapping[str, Any]) -> bool | None:
    """``condition`` (relations, And/Or/Not) at the point, each relation's sides in exact arithmetic (base units;
    sides within :data:`TIE` are equal); None where a side has no finite real exact value."""
    if condition in (True, sympy.true):
        return True
    if condition in (False, sympy.false):
        return False
    if isinstance(condition, (sympy.And, sympy.Or, sympy.Not)):
        parts = [_holds(model, c, preset, values) for c in condition.args]
        if None in parts:
            return None
        return (all(parts) if isinstance(condition, sympy.And) else any(parts)) if not isinstance(condition, sympy.Not) else not parts[0]
    if not isinstance(condition, sympy.core.relational.Relational):
        return None
    based = scaling.base_expression(model, condition)
    if isinstance(based, sympy.logic.boolalg.BooleanAtom):
        return bool(based)
    left, right = (_real(_exact(model, s, None, preset, values)) for s in (based.lhs, based.rhs))
    if left is None or right is None:
        return None
    tied, above = bool(abs(left - right) <= TIE * max(abs(left), abs(right))), bool(left > right)
    return {"==": tied, "!=": not tied, ">=": tied or above, "<=": tied or not above,
            ">": not tied and above, "<": not tied and not above}.get(condition.rel_op)


def all_complex(model: Model, records: Sequence[RootRecord], variable: str, preset: str | None, values: Mapping[str, Any]) -> bool:
    """Is every one of ``records``' roots a complex number at the point in exact arithmetic (the inputs as the decimals
    given): no real solution there, a target beyond what the regimes they solve reach (P_K0 below its minimum), rather
    than real roots whose conditions fail? False where one has a real value or none is decided."""
    if not records or variable not in model.units:
        return False
    values = evaluator.with_kept(model, sympy.Tuple(*[r.root for r in records]), preset, values, free_of=variable, where_valued=True)
    found = [_exact(model, r.root, model.units[variable], preset, values) for r in records]
    return all(f is not None and f.is_number and f.as_real_imag()[1] != 0 for f in found)
