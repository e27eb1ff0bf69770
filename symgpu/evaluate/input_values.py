"""Input values: constants, preset and caller values merged, converted to declared or base units,
and checked against the symbols' declared assumptions."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from symgpu import errors, suggest, units
from symgpu.evaluate import scaling
from symgpu.evaluate.state import state_of

if TYPE_CHECKING:
    from symgpu.model import Model


def gather_values(model: Model, name: str, preset: str | None, values: Mapping[str, Any], *, check: bool = True) -> tuple[frozenset[str], dict[str, Any]]:
    """Merge constants, preset values and caller values into magnitudes in declared units.

    Caller values override preset values. A caller value for a defined quantity stops the
    substitution there (the quantity is taken as given).

    Returns:
        (quantities taken as given, symbol name -> magnitude in coherent base units)

    Raises:
        errors.EvaluationError: unknown names, wrong units, violated assumptions.
        errors.UsageError: unknown quantity or preset.
        errors.NotAModelError: ``model`` is an id or path (``evaluator.evaluate``'s first step, so named).
    """
    errors.require_model(model, "symgpu.evaluate.evaluator.evaluate")
    model.equation_for(name)
    merged = merge_values(model, preset, values)
    given = frozenset(k for k in values if k in model.defining and k != model.equation_for(name).definition.defines)
    converted = _converted(model, preset, check)
    if converted is None:
        return given, {key: base_magnitude(model, key, value, check=check) for key, value in merged.items()}
    return given, {key: converted[key] if key not in values else base_magnitude(model, key, value, check=check) for key, value in merged.items()}


def base_magnitudes(model: Model, preset: str | None, values: Mapping[str, Any] | None, merged: Mapping[str, Any],
                    names: Sequence[str]) -> list[Any]:
    """The values ``merged`` (:func:`merge_values`) gives ``names``, as :func:`base_magnitude` converts them: the
    constants' and the preset's converted once per model (:func:`_converted`), the caller's ``values`` on each call."""
    converted = _converted(model, preset, True) or {}
    given = values or {}
    return [converted[n] if n in converted and n not in given else base_magnitude(model, n, merged[n]) for n in names]


def _converted(model: Model, preset: str | None, check: bool) -> dict[str, float] | None:
    """The constants and ``preset``'s values as base-unit magnitudes, converted once per model and
    number of constants (a request's model, :meth:`Model.for_request`, gains a constant for each number
    a request gives in a unit, ``lit_500_ns``; constants are only added); ``None`` if one fails to
    convert or is not a scalar (then every value is converted on each call, so the error is raised where it was)."""
    key = ("preset magnitudes", preset, check, len(model.constants))
    kept = state_of(model).compiled
    if key not in kept:
        try:
            found = {k: base_magnitude(model, k, v, check=check) for k, v in merge_values(model, preset, None).items()}
        except errors.SymgpuError:
            found = None
        kept[key] = found if found is not None and all(isinstance(v, float) for v in found.values()) else None
    return kept[key]  # type: ignore[no-any-return]


def merge_values(model: Model, preset: str | None, values: Mapping[str, Any] | None) -> dict[str, Any]:
    """Constants, then the preset's values, then the caller's (later wins), unconverted.

    Raises:
        errors.EvaluationError: a caller value names no symbol of the model.
        errors.UsageError: unknown preset.
        errors.NotAModelError: ``model`` is an id or path (``evaluator.evaluate_expression``'s first step, so named).
    """
    errors.require_model(model, "symgpu.evaluate.evaluator.evaluate_expression")
    merged: dict[str, Any] = dict(model.constants)
    if preset is not None:
        merged.update(model.preset(preset))
    for key, value in (values or {}).items():
        if key not in model.symbols:
            raise errors.EvaluationError(
                f"{model.id}: unknown symbol '{key}' (declared: {suggest.alternatives(key, sorted(model.symbols))})"
            )
        merged[key] = value
    return merged


def base_magnitude(model: Model, key: str, value: Any, *, check: bool = True) -> Any:
    """``value`` of symbol ``key`` as a magnitude in coherent base units (see :func:`to_magnitude`)."""
    magnitude = to_magnitude(model, key, value, check=check)
    scale = scaling.unit_scale(model.units[key])
    if scale == 1:
        return magnitude
    with np.errstate(over="ignore"):  # NOTE: a value past a double in base units is inf there, not a warning on stderr
        return magnitude * float(scale)


def to_magnitude(model: Model, key: str, value: Any, *, check: bool = True) -> Any:
    """Convert ``value`` (number, array, quantity or quantity string) to ``key``'s declared unit,
    rounded once (``units.exact_convert``: ``0.3 us`` is 300.0 ns exactly).

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
            magnitude = units.exact_convert(value, unit).magnitude
        except pint.DimensionalityError:
            raise errors.EvaluationError(
                f"{model.id}: {key} = {value:~} has dimension {units.format_dimension(value.dimensionality)}, "
                f"but {key} is {units.format_dimension(unit.dimensionality)} (declared unit {model.unit_text(key)}); "
                f"give it in {model.unit_text(key)} or a compatible unit"
            ) from None
    else:
        magnitude = value
    if magnitude is None:  # np.asarray(None, dtype=float) is nan: the message would speak of a nan the caller never gave
        raise errors.EvaluationError(f"{model.id}: {key} = None is not a number; give a number, an array or a quantity")
    try:
        array = np.asarray(magnitude, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise errors.EvaluationError(f"{model.id}: {key} = {_shown(value)} is not a number a double holds") from None
    if array.size == 0:
        raise errors.EvaluationError(f"{model.id}: {key} is an empty array; give at least one value")
    if check:
        _check_assumptions(model, key, array)
    return array if array.ndim else float(array)


def _check_assumptions(model: Model, key: str, array: np.ndarray) -> None:
    assumptions = model.symbol_definitions[key].assumptions
    problems = []
    # NOTE: two reductions cover NaN, infinities and the sign assumptions in one pass each.
    low, high = (float(array), float(array)) if array.ndim == 0 else (float(array.min()), float(array.max()))
    if not (math.isfinite(low) and math.isfinite(high)):
        problems.append("finite")
    if "positive" in assumptions and not low > 0:
        problems.append("positive")
    if "nonnegative" in assumptions and not low >= 0:
        problems.append("nonnegative")
    # NOTE: a scalar's test in Python floats (a point's values: hundreds of thousands per report); % is np.mod's floor modulo
    if "integer" in assumptions and not (low % 1 == 0 if array.ndim == 0 else np.all(np.equal(np.mod(array, 1), 0))):
        problems.append("integer")
    if problems:
        bad = low if problems[0] in ("positive", "nonnegative") else (array if array.ndim == 0 else _first_offending(array, problems[0]))
        raise errors.EvaluationError(
            f"{model.id}: {key} = {bad:g}{unit_suffix(model, key)} violates the declared assumption "
            f"'{problems[0]}'; give {'an' if problems[0][0] in 'aeiou' else 'a'} {problems[0]} value"
        )


def _first_offending(array: np.ndarray, assumption: str) -> float:
    """The first element of ``array`` that breaks ``assumption`` (``finite`` or ``integer``): the value
    an error names (the first element may be a good one)."""
    flat = array.ravel()
    broken = ~np.isfinite(flat) if assumption == "finite" else ~np.equal(np.mod(flat, 1), 0)
    return float(flat[int(np.argmax(broken))])


def declared_quantity(model: Model, key: str, value: Any) -> pint.Quantity:
    """``value`` of symbol ``key`` (quantity text, a quantity, or a number in the declared unit) as a
    pint quantity in ``key``'s declared unit, unchecked (the form a report's scenario keeps)."""
    unit = model.units[key]
    quantity = units.quantity(value, unit) if isinstance(value, str) else value if isinstance(value, pint.Quantity) else units.registry().Quantity(value, unit)
    return units.exact_convert(quantity, unit)


def unit_suffix(model: Model, name: str) -> str:
    text = model.unit_text(name)
    return "" if text in ("1", "") else f" {text}"


def first(value: Any) -> float:
    array = np.asarray(value, dtype=float)
    return float(array if array.ndim == 0 else array.flat[0])


def _shown(value: Any, limit: int = 60) -> str:
    """``value`` as a message quotes it: at most ``limit`` characters (10**400 has 401 digits)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
