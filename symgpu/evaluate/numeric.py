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


def unit_scale(unit: pint.Unit) -> sympy.Rational:
    """Factor taking a magnitude in ``unit`` to the registry's coherent base units, exactly.

    Dimensionless units keep their real scale too: ``8 bit/B`` is the pure number 1.
    """
    return sympy.Rational(repr(float(units.registry().Quantity(1, unit).to_base_units().magnitude)))


def base_expression(model: Model, expr: sympy.Basic) -> sympy.Basic:
    """Rewrite ``expr`` so that, fed base-unit magnitudes, it returns the base-unit magnitude.

    Products need no change (base units are coherent). Bare literals in sums, Min/Max,
    Piecewise branches and comparisons are in the declared unit of their siblings, so they
    are multiplied by that unit's scale; ``floor``/``ceiling`` act on the declared-unit
    value of their argument.
    """
    return _Rescaler(model).walk(expr)[0]


class _Rescaler:
    """Walks an expression tracking the declared pint unit of every node."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.ureg = units.registry()

    def walk(self, expr: Any) -> tuple[Any, Any]:
        one = self.ureg.dimensionless
        unit: pint.Unit | None  # the node's declared unit; None for pure numbers
        if isinstance(expr, sympy.logic.boolalg.BooleanAtom) or expr.is_Number or expr.is_NumberSymbol:
            return expr, None
        if expr.is_Symbol:
            return expr, self.model.units[expr.name]
        if expr.is_Mul:
            args, unit = [], one
            for arg in expr.args:
                new, u = self.walk(arg)
                args.append(new)
                unit = unit * (u if u is not None else one)
            return expr.func(*args), unit
        if expr.is_Pow:
            base, u = self.walk(expr.args[0])
            exponent, _ = self.walk(expr.args[1])
            unit = None if u is None else (u ** float(expr.args[1]) if expr.args[1].is_Rational else one)
            return expr.func(base, exponent), unit
        if expr.is_Add or isinstance(expr, (sympy.Min, sympy.Max)) or isinstance(expr, sympy.core.relational.Relational):
            return self.siblings(expr, list(expr.args), lambda *a: expr.func(*a))
        if isinstance(expr, sympy.Piecewise):
            walked = [self.walk(v) for v, _ in expr.args]
            reference = next((u for _, u in walked if u is not None), None)
            scale = unit_scale(reference) if reference is not None else 1
            pieces = [((v * scale if u is None else v), self.walk(c)[0]) for (v, u), (_, c) in zip(walked, expr.args)]
            return sympy.Piecewise(*pieces), reference
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            arg, u = self.walk(expr.args[0])
            if u is None:
                return expr.func(arg), None
            scale = unit_scale(u)
            return scale * expr.func(arg / scale), u
        if isinstance(expr, (sympy.And, sympy.Or, sympy.Not, sympy.Abs, sympy.exp, sympy.log)):
            walked = [self.walk(a) for a in expr.args]
            unit = walked[0][1] if isinstance(expr, sympy.Abs) else None
            return expr.func(*[w for w, _ in walked]), unit
        return expr, None

    def siblings(self, expr: Any, args: list[Any], rebuild: Any) -> tuple[Any, Any]:
        walked = [self.walk(a) for a in args]
        reference = next((u for _, u in walked if u is not None), None)
        if reference is None:
            return rebuild(*[w for w, _ in walked]), None
        scale = unit_scale(reference)
        new = [w * scale if u is None else w for w, u in walked]
        unit = None if isinstance(expr, sympy.core.relational.Relational) else reference
        return rebuild(*new), unit


def gather_values(model: Model, name: str, preset: str | None, values: Mapping[str, Any], *, check: bool = True) -> tuple[frozenset[str], dict[str, Any]]:
    """Merge constants, preset values and caller values into magnitudes in declared units.

    Caller values override preset values. A caller value for a defined quantity stops the
    substitution there (the quantity is taken as given).

    Returns:
        (quantities taken as given, symbol name -> magnitude in coherent base units)

    Raises:
        errors.EvaluationError: unknown names, wrong units, violated assumptions.
        errors.UsageError: unknown quantity or preset.
    """
    model.equation_for(name)
    merged = merge_values(model, preset, values)
    given = frozenset(k for k in values if k in model.defining and k != model.equation_for(name).definition.defines)
    return given, {key: base_magnitude(model, key, value, check=check) for key, value in merged.items()}


def merge_values(model: Model, preset: str | None, values: Mapping[str, Any] | None) -> dict[str, Any]:
    """Constants, then the preset's values, then the caller's (later wins), unconverted.

    Raises:
        errors.EvaluationError: a caller value names no symbol of the model.
        errors.UsageError: unknown preset.
    """
    merged: dict[str, Any] = dict(model.constants)
    if preset is not None:
        merged.update(model.preset(preset))
    for key, value in (values or {}).items():
        if key not in model.symbols:
            raise errors.EvaluationError(
                f"{model.id}: unknown symbol '{key}' (declared: {', '.join(sorted(model.symbols))})"
            )
        merged[key] = value
    return merged


def base_magnitude(model: Model, key: str, value: Any, *, check: bool = True) -> Any:
    """``value`` of symbol ``key`` as a magnitude in coherent base units (see :func:`to_magnitude`)."""
    magnitude = to_magnitude(model, key, value, check=check)
    scale = unit_scale(model.units[key])
    return magnitude if scale == 1 else magnitude * float(scale)


def to_magnitude(model: Model, key: str, value: Any, *, check: bool = True) -> Any:
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
    if check:
        _check_assumptions(model, key, array)
    return array if array.ndim else float(array)


def _check_assumptions(model: Model, key: str, array: np.ndarray) -> None:
    assumptions = model.symbol_definitions[key].assumptions
    problems = []
    # NOTE: two reductions cover NaN, infinities and the sign assumptions in one pass each.
    low, high = (float(array), float(array)) if array.ndim == 0 else (float(array.min()), float(array.max()))
    if not (np.isfinite(low) and np.isfinite(high)):
        problems.append("finite")
    if "positive" in assumptions and not low > 0:
        problems.append("positive")
    if "nonnegative" in assumptions and not low >= 0:
        problems.append("nonnegative")
    if "integer" in assumptions and not np.all(np.equal(np.mod(array, 1), 0)):
        problems.append("integer")
    if problems:
        bad = low if problems[0] in ("positive", "nonnegative") else (array if array.ndim == 0 else array.flat[0])
        raise errors.EvaluationError(
            f"{model.id}: {key} = {bad:g}{_unit_suffix(model, key)} violates the declared assumption "
            f"'{problems[0]}'; give a {problems[0]} value"
        )


def compiled(model: Model, name: str, given: frozenset[str]) -> tuple[tuple[str, ...], Any, sympy.Expr]:
    """Return (argument names, compiled NumPy function, expression), cached per model."""
    key = ("value", name, given)
    if key not in model._compiled:
        expr = model.expression(name, stop_at=given)
        scale = unit_scale(model.units[model.equation_for(name).definition.defines])
        base = base_expression(model, expr) / scale
        args = tuple(sorted(s.name for s in expr.free_symbols))
        function = sympy.lambdify([model.symbols[a] for a in args], base, modules="numpy", cse=True)
        model._compiled[key] = (args, function, base)
    return model._compiled[key]


def _domain_conditions(model: Model, name: str, given: frozenset[str]) -> list[tuple[Any, sympy.Basic, tuple[str, ...], Any]]:
    key = ("domain", name, given)
    if key not in model._compiled:
        out = []
        for equation in model.dependencies(name, stop_at=given):
            for condition in equation.valid_when:
                expanded = condition.xreplace({s: model.expression(s.name, stop_at=given) for s in condition.free_symbols if s.name in model.defining and s.name not in given})
                expanded = base_expression(model, expanded)
                args = tuple(sorted(s.name for s in expanded.free_symbols))
                function = sympy.lambdify([model.symbols[a] for a in args], expanded, modules="numpy")
                out.append((equation, condition, args, function))
        model._compiled[key] = out
    return model._compiled[key]


def evaluate(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None, checks: bool = True) -> pint.Quantity:
    """Evaluate quantity ``name`` of ``model``.

    Args:
        model: the model.
        name: a quantity defined by an equation.
        preset: id of a preset supplying hardware values.
        values: symbol -> value: plain numbers or NumPy arrays (in the declared unit), pint
            quantities or quantity strings (converted). Values for defined quantities are
            taken as given instead of computed.
        checks: check declared assumptions and ``valid_when`` domains (default). ``False``
            skips both for trusted, pre-validated sweeps; units are converted either way.

    Returns:
        A pint Quantity in the quantity's declared unit (array-valued for array inputs).

    Raises:
        errors.EvaluationError: a value is missing, mistyped or violates an assumption.
        errors.DomainError: inputs fall outside an equation's ``valid_when`` domain.
    """
    given, magnitudes = gather_values(model, name, preset, values or {}, check=checks)
    args, function, base = compiled(model, name, given)
    missing = [a for a in args if a not in magnitudes]
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        raise errors.EvaluationError(
            f"{model.id}: {name} needs a value for {', '.join(missing)}{where}; "
            f"pass {'them' if len(missing) > 1 else 'it'} as NAME=VALUE (e.g. --set {missing[0]}=...)"
            + ("" if preset else " or choose a preset")
        )
    for equation, condition, cond_args, check in (_domain_conditions(model, name, given) if checks else ()):
        lacking = [a for a in cond_args if a not in magnitudes]
        if lacking:
            continue
        with np.errstate(all="ignore"):
            holds = np.asarray(check(*[magnitudes[a] for a in cond_args]), dtype=bool)
        if not np.all(holds):
            derived = []
            for sym in sorted(condition.free_symbols, key=str):
                if sym.name in model.defining and sym.name not in given:
                    try:
                        value = evaluate(model, sym.name, preset=preset, values=values, checks=False).magnitude
                        derived.append(f"{sym.name} = {_first(value):.6g}{_unit_suffix(model, sym.name)}")
                    except errors.SymgpuError:
                        pass
            if derived:
                raise errors.DomainError(
                    f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when "
                    f"{condition}, but {', '.join(derived)}. The model gives no value outside this domain"
                )
            shown = ", ".join(f"{a} = {_first(magnitudes[a]) / float(unit_scale(model.units[a])):g}{_unit_suffix(model, a)}" for a in cond_args)
            raise errors.DomainError(
                f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when "
                f"{condition}; got {shown}. The model gives no value outside this domain"
            )
    inputs = [magnitudes[a] for a in args]
    if base.has(sympy.Piecewise):
        inputs = _broadcast(inputs)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = function(*inputs)
    result = np.asarray(result, dtype=float)
    if result.ndim == 0:
        result = float(result)
    elif result.shape != np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args]):
        result = np.broadcast_to(result, np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args])).copy()
    return units.registry().Quantity(result, model.units[model.equation_for(name).definition.defines])


def evaluate_expression(model: Model, expr: sympy.Basic, unit: pint.Unit | str | None, *, preset: str | None = None,
                        values: Mapping[str, Any] | None = None) -> pint.Quantity:
    """Evaluate any expression in ``model``'s symbols (e.g. a derivation result) in ``unit``.

    Inputs come from constants, the preset and ``values`` (as in :func:`evaluate`); the
    arithmetic runs in coherent base units, and Piecewise branches that are not selected
    may divide by zero without raising.

    Raises:
        errors.EvaluationError: a value is missing or invalid.
    """
    ureg = units.registry()
    target = ureg.dimensionless if not unit else (units.unit(unit) if isinstance(unit, str) else unit)
    if isinstance(expr, (sympy.Tuple, tuple, list)):
        parts = [evaluate_expression(model, e, target, preset=preset, values=values).magnitude for e in expr]
        return ureg.Quantity(np.asarray(parts, dtype=float), target)
    merged = merge_values(model, preset, values)
    names = sorted(s.name for s in expr.free_symbols)
    missing = [n for n in names if n not in merged]
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        raise errors.EvaluationError(f"{model.id}: the result needs a value for {', '.join(missing)}{where}; pass NAME=VALUE")
    magnitudes = [np.asarray(base_magnitude(model, n, merged[n]), dtype=float) for n in names]
    cache_key = ("expression", expr, str(target))
    if cache_key not in model._compiled:
        base = base_expression(model, expr) / unit_scale(target)
        model._compiled[cache_key] = sympy.lambdify([model.symbols[n] for n in names], base, modules="numpy")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.asarray(model._compiled[cache_key](*(_broadcast(magnitudes) if expr.has(sympy.Piecewise) else magnitudes)), dtype=float)
    return ureg.Quantity(float(out) if out.ndim == 0 else out, target)


def exact(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None) -> sympy.Expr:
    """Evaluate ``name`` exactly in SymPy: scalar inputs become exact rationals of their
    shortest decimal form, so ``320.3`` is ``3203/10``. Used to cross-check ``evaluate``
    and to print substitution chains."""
    given, magnitudes = gather_values(model, name, preset, values or {})
    expr = model.expression(name, stop_at=given)
    mapping = {model.symbols[k]: sympy.Rational(repr(float(v) / float(unit_scale(model.units[k])))) * unit_scale(model.units[k])
               for k, v in magnitudes.items() if model.symbols[k] in expr.free_symbols}
    expr = base_expression(model, expr) / unit_scale(model.units[model.equation_for(name).definition.defines])
    missing = sorted(s.name for s in expr.free_symbols if s not in mapping)
    if missing:
        raise errors.EvaluationError(f"{model.id}: {name} needs a value for {', '.join(missing)}")
    return expr.xreplace(mapping)  # all-rational inputs: SymPy evaluates exactly without simplify


def _broadcast(values: list[Any]) -> list[Any]:
    """Give every input the common array shape when any input is an array.

    NOTE: lambdified Piecewise code combines conditions with ``logical_and.reduce((...))``,
    which fails on a mix of scalars and arrays; broadcasting (views, no copies) avoids it.
    Only done for Piecewise expressions: stride-0 views are slower than scalars in arithmetic.
    """
    if not any(np.ndim(v) for v in values):
        # NumPy scalars: a branch that is not selected may divide by zero (inf, not ZeroDivisionError).
        return [np.float64(v) for v in values]
    return list(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values]))


def _unit_suffix(model: Model, name: str) -> str:
    text = model.unit_text(name)
    return "" if text in ("1", "") else f" {text}"


def _first(value: Any) -> float:
    array = np.asarray(value, dtype=float)
    return float(array if array.ndim == 0 else array.flat[0])
