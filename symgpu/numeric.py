"""Numeric evaluation of model quantities: compiled with ``lambdify``, unit-aware, cached."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pint
import sympy

from symgpu import errors, units

if TYPE_CHECKING:
    from symgpu.model import Model


def gather_values(model: Model, name: str, preset: str | None, values: Mapping[str, Any]) -> tuple[frozenset[str], dict[str, Any]]:
    """Merge constants, preset values and caller values into magnitudes in declared units.

    Caller values override preset values. A caller value for a defined quantity stops the
    substitution there (the quantity is taken as given).

    Returns:
        (quantities taken as given, symbol name -> magnitude in the symbol's declared unit)

    Raises:
        errors.EvaluationError: unknown names, wrong units, violated assumptions.
        errors.UsageError: unknown quantity or preset.
    """
    model.equation_for(name)
    merged: dict[str, Any] = dict(model.constants)
    if preset is not None:
        merged.update(model.preset(preset))
    for key, value in values.items():
        if key not in model.symbols:
            raise errors.EvaluationError(
                f"{model.id}: unknown symbol '{key}' (declared: {', '.join(sorted(model.symbols))})"
            )
        merged[key] = value
    given = frozenset(k for k in values if k in model.defining and k != model.equation_for(name).definition.defines)
    magnitudes = {key: to_magnitude(model, key, value) for key, value in merged.items()}
    return given, magnitudes


def to_magnitude(model: Model, key: str, value: Any) -> Any:
    """Convert ``value`` (number, array, quantity or quantity string) to ``key``'s declared unit.

    Raises:
        errors.EvaluationError: the value has the wrong dimension, is not a number, or breaks
            a declared assumption (positive, nonnegative, integer).
    """
    unit = model.units[key]
    if isinstance(value, str):
        try:
            value = units.quantity(value, unit)
        except ValueError as exc:
            raise errors.EvaluationError(f"{model.id}: {key}: {exc}") from None
    if isinstance(value, pint.Quantity):
        try:
            magnitude = value.to(unit).magnitude
        except pint.DimensionalityError:
            raise errors.EvaluationError(
                f"{model.id}: {key} = {value:~} has dimension {units.format_dimension(value.dimensionality)}, "
                f"but {key} is {units.format_dimension(unit.dimensionality)} (declared unit {model.unit_text(key)}); "
                f"give it in {model.unit_text(key)} or a compatible unit"
            ) from None
    else:
        magnitude = value
    try:
        array = np.asarray(magnitude, dtype=float)
    except (TypeError, ValueError):
        raise errors.EvaluationError(f"{model.id}: {key} = {value!r} is not a number") from None
    _check_assumptions(model, key, array)
    return array if array.ndim else float(array)


def _check_assumptions(model: Model, key: str, array: np.ndarray) -> None:
    assumptions = model.symbol_definitions[key].assumptions
    problems = []
    if not np.all(np.isfinite(array)):
        problems.append("finite")
    if "positive" in assumptions and not np.all(array > 0):
        problems.append("positive")
    if "nonnegative" in assumptions and not np.all(array >= 0):
        problems.append("nonnegative")
    if "integer" in assumptions and not np.all(np.equal(np.mod(array, 1), 0)):
        problems.append("integer")
    if problems:
        bad = array if array.ndim == 0 else array.flat[0]
        raise errors.EvaluationError(
            f"{model.id}: {key} = {bad:g} {model.unit_text(key)} violates the declared assumption "
            f"'{problems[0]}'; give a {problems[0]} value"
        )


def compiled(model: Model, name: str, given: frozenset[str]) -> tuple[tuple[str, ...], Any, sympy.Expr]:
    """Return (argument names, compiled NumPy function, expression), cached per model."""
    key = ("value", name, given)
    if key not in model._compiled:
        expr = model.expression(name, stop_at=given)
        args = tuple(sorted(s.name for s in expr.free_symbols))
        function = sympy.lambdify([model.symbols[a] for a in args], expr, modules="numpy", cse=True)
        model._compiled[key] = (args, function, expr)
    return model._compiled[key]


def _domain_conditions(model: Model, name: str, given: frozenset[str]) -> list[tuple[Any, sympy.Basic, tuple[str, ...], Any]]:
    key = ("domain", name, given)
    if key not in model._compiled:
        out = []
        for equation in model.dependencies(name, stop_at=given):
            for condition in equation.valid_when:
                expanded = condition.xreplace({s: model.expression(s.name, stop_at=given) for s in condition.free_symbols if s.name in model.defining and s.name not in given})
                args = tuple(sorted(s.name for s in expanded.free_symbols))
                function = sympy.lambdify([model.symbols[a] for a in args], expanded, modules="numpy")
                out.append((equation, condition, args, function))
        model._compiled[key] = out
    return model._compiled[key]


def evaluate(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None) -> pint.Quantity:
    """Evaluate quantity ``name`` of ``model``.

    Args:
        model: the model.
        name: a quantity defined by an equation.
        preset: id of a preset supplying hardware values.
        values: symbol -> value: plain numbers or NumPy arrays (in the declared unit), pint
            quantities or quantity strings (converted). Values for defined quantities are
            taken as given instead of computed.

    Returns:
        A pint Quantity in the quantity's declared unit (array-valued for array inputs).

    Raises:
        errors.EvaluationError: a value is missing, mistyped or violates an assumption.
        errors.DomainError: inputs fall outside an equation's ``valid_when`` domain.
    """
    given, magnitudes = gather_values(model, name, preset, values or {})
    args, function, _ = compiled(model, name, given)
    missing = [a for a in args if a not in magnitudes]
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        raise errors.EvaluationError(
            f"{model.id}: {name} needs a value for {', '.join(missing)}{where}; "
            f"pass {'them' if len(missing) > 1 else 'it'} as NAME=VALUE (e.g. --set {missing[0]}=...)"
            + ("" if preset else " or choose a preset")
        )
    for equation, condition, cond_args, check in _domain_conditions(model, name, given):
        lacking = [a for a in cond_args if a not in magnitudes]
        if lacking:
            continue
        with np.errstate(all="ignore"):
            holds = np.asarray(check(*[magnitudes[a] for a in cond_args]), dtype=bool)
        if not np.all(holds):
            shown = ", ".join(f"{a} = {_first(magnitudes[a]):g} {model.unit_text(a)}" for a in cond_args)
            raise errors.DomainError(
                f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when "
                f"{condition}; got {shown}. The model gives no value outside this domain"
            )
    with np.errstate(divide="ignore", invalid="ignore"):
        result = function(*[magnitudes[a] for a in args])
    result = np.asarray(result, dtype=float)
    if result.ndim == 0:
        result = float(result)
    return units.registry().Quantity(result, model.units[model.equation_for(name).definition.defines])


def exact(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None) -> sympy.Expr:
    """Evaluate ``name`` exactly in SymPy: scalar inputs become exact rationals of their
    shortest decimal form, so ``320.3`` is ``3203/10``. Used to cross-check ``evaluate``
    and to print substitution chains."""
    given, magnitudes = gather_values(model, name, preset, values or {})
    expr = model.expression(name, stop_at=given)
    mapping = {model.symbols[k]: sympy.Rational(repr(float(v))) for k, v in magnitudes.items() if model.symbols[k] in expr.free_symbols}
    missing = sorted(s.name for s in expr.free_symbols if s not in mapping)
    if missing:
        raise errors.EvaluationError(f"{model.id}: {name} needs a value for {', '.join(missing)}")
    return sympy.simplify(expr.xreplace(mapping))


def _first(value: Any) -> float:
    array = np.asarray(value, dtype=float)
    return float(array if array.ndim == 0 else array.flat[0])
