"""Divisors within rounding of 0 at a scalar point: a value IEEE arithmetic cannot be trusted with.

``1/(x*y - z)`` at ``x = 0.1, y = 3, z = 0.3`` divides by ``0.30000000000000004 - 0.3 = 5.6e-17``
in IEEE arithmetic and gives 1.8e16, with no flag raised, where the decimals given make the divisor
exactly 0: a pole, no value. At ``z = 0.30000000000000004`` IEEE divides by 0 where the exact
divisor is -4e-17 (the value -2.5e16). Where a divisor that is a sum is no larger than
:data:`NEAR` of the size of its terms, :func:`near_zero` says so and
:func:`symgpu.evaluate.evaluator.evaluate` decides the value in exact arithmetic, the inputs as
the decimals given (as case conditions within rounding of a tie are:
:mod:`symgpu.evaluate.ties`). A divisor whose terms are all 0 (nonnegative inputs at 0) is left to
:mod:`symgpu.evaluate.singular`, which tells the one-sided limit IEEE gives there from a pole.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu.evaluate import compiler, rule, scaling
from symgpu.evaluate.state import state_of

if TYPE_CHECKING:
    from symgpu.model import Model

#: a divisor no larger than this, relative to the sum of its terms' sizes, may be 0 but for rounding
NEAR = 4 * rule.TIE


def _zero_factors(model: Model, expr: sympy.Basic) -> tuple[list[sympy.Basic], list[str]]:
    """The sums whose zero can make ``expr`` 0 (``expr`` itself, its factors, the base of a positive power, the
    pieces of a Piecewise, the arguments of a Min/Max/Abs), and the defined quantities among them, whose
    own right-hand sides may be such sums (``r = 1/d``, ``d = x*y - z``)."""
    if isinstance(expr, sympy.Add):
        return ([expr] if expr.free_symbols else []), []
    if isinstance(expr, sympy.Symbol):
        return [], ([expr.name] if expr.name in model.defining else [])
    if isinstance(expr, sympy.Pow):
        return _zero_factors(model, expr.base) if expr.exp.is_positive else ([], [])
    parts: tuple[sympy.Basic, ...] = ()
    if isinstance(expr, sympy.Piecewise):
        parts = tuple(piece.expr for piece in expr.args)
    elif isinstance(expr, (sympy.Mul, sympy.Min, sympy.Max, sympy.Abs)):
        parts = expr.args
    sums: list[sympy.Basic] = []
    names: list[str] = []
    for part in parts:
        more, more_names = _zero_factors(model, part)
        sums += more
        names += more_names
    return sums, names


def _compiled(model: Model, sums: list[sympy.Basic]) -> tuple[tuple[str, ...], Any] | None:
    """``sums``, each with the sum of its terms' sizes, compiled as one function of base-unit magnitudes
    (divisor, size, divisor, size, ...), with its arguments; None where there is no sum."""
    found = dict.fromkeys(sums)
    if not found:
        return None
    parts = sympy.Tuple(*[x for d in found for x in (d, sympy.Add(*[sympy.Abs(t) for t in d.args]))])
    args = tuple(sorted(s.name for s in parts.free_symbols))
    return args, compiler.base_function(model, [model.symbols[a] for a in args], parts)


def _divisors(model: Model, step: str) -> tuple[tuple[tuple[str, ...], Any] | None, tuple[str, ...]]:
    """The sums ``step``'s right-hand side divides by, compiled (:func:`_compiled`), and the defined quantities
    it divides by (their sums are checked where their own steps are computed: :func:`_checks`); cached per model."""
    kept = state_of(model).compiled
    key = ("sum divisors", step)
    if key not in kept:
        base = scaling.base_expression(model, model.defining[step].rhs)
        sums: list[sympy.Basic] = []
        names: list[str] = []
        for power in base.atoms(sympy.Pow):
            if power.exp.is_negative:
                more, more_names = _zero_factors(model, power.base)
                sums += more
                names += more_names
        kept[key] = (_compiled(model, sums), tuple(dict.fromkeys(names)))
    return kept[key]  # type: ignore[no-any-return]


def _value_sums(model: Model, step: str) -> tuple[tuple[tuple[str, ...], Any] | None, tuple[str, ...]]:
    """The sums whose zero can make the value of ``step`` 0, compiled (:func:`_compiled`), and the defined
    quantities whose zero can (:func:`_zero_factors` of its right-hand side); cached per model."""
    kept = state_of(model).compiled
    key = ("value sums", step)
    if key not in kept:
        sums, names = _zero_factors(model, scaling.base_expression(model, model.defining[step].rhs))
        kept[key] = (_compiled(model, sums), tuple(dict.fromkeys(names)))
    return kept[key]  # type: ignore[no-any-return]


def _checks(model: Model, steps: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[tuple[tuple[str, ...], Any], ...]]:
    """For ``steps`` (in dependency order): the steps whose values the divisors read, in order, and each
    divisor function (:func:`_compiled`) with its arguments: the sums the steps divide by, and where a step
    divides by a quantity another step computes, the sums that quantity's value is (or is a product of),
    followed through the quantities it is made of; cached per model."""
    kept = state_of(model).compiled
    key = ("divisor checks", steps)
    if key not in kept:
        computed = set(steps)
        functions: list[tuple[tuple[str, ...], Any]] = []
        pending: list[str] = []
        for step in steps:
            function, names = _divisors(model, step)
            if function is not None:
                functions.append(function)
            pending += names
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            if name in seen or name not in computed:  # a quantity given a value is divided by as given
                continue
            seen.add(name)
            function, names = _value_sums(model, name)
            if function is not None:
                functions.append(function)
            pending += names
        wanted = {a for args, _ in functions for a in args}
        needed: list[str] = []
        for step, (args, _) in reversed(list(zip(steps, compiler.equation_functions(model, steps)))):
            if step in wanted:
                needed.append(step)
                wanted |= set(args)
        kept[key] = (tuple(reversed(needed)), tuple(functions))
    return kept[key]  # type: ignore[no-any-return]


def near_zero(model: Model, steps: tuple[str, ...], magnitudes: Mapping[str, Any]) -> bool:
    """Is a sum that one of ``steps``' equations divides by within :data:`NEAR` of 0, relative to its
    terms, at the scalar base-unit ``magnitudes`` (the steps in dependency order, as
    :func:`symgpu.evaluate.stepwise.plan` gives them)? False where a value is missing or not a
    finite scalar (the caller's other checks decide there)."""
    needed, functions = _checks(model, steps)
    if not functions:
        return False
    known: dict[str, Any] = {}
    with np.errstate(all="ignore"):
        try:
            for step, (args, function) in zip(needed, compiler.equation_functions(model, needed)):
                out = function(*[known[a] if a in known else np.float64(magnitudes[a]) for a in args])
                if np.ndim(out) or not math.isfinite(out):
                    return False
                known[step] = np.float64(out)
            for names, sides in functions:
                numbers = sides(*[known[a] if a in known else np.float64(magnitudes[a]) for a in names])
                for divisor, size in zip(numbers[0::2], numbers[1::2]):
                    divisor, size = float(divisor), float(size)
                    if math.isfinite(size) and size > 0 and abs(divisor) <= NEAR * size:
                        return True
        except (ArithmeticError, TypeError, ValueError, KeyError):
            return False
    return False
