"""Evaluation of quantities and expressions at a preset and/or values, with units: compiled
(NumPy, scalars or arrays, domain checks) or exact (SymPy rationals, for cross-checks)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import pint
import sympy

from symgpu import errors, units
from symgpu.memo import Memo
from symgpu.model import literal_constants, printing
from symgpu.proofs import forms
from symgpu.evaluate import compiler, divisors, scaling, input_values, no_value, one_sided, piece_select, point, refusal_digits, singular, stepwise, ties

#: an expression's free symbols' names (sorted) and whether it has a ``Piecewise``, by expression: a
#: certificate evaluates one answer at up to a hundred points, and each walk of a large regime
#: table's tree (Hong & Kim's, conditions of thousands of characters) took about 3 ms
_SHAPES: Memo[sympy.Basic, tuple[tuple[str, ...], bool]] = Memo("evaluate.evaluator.shapes", 4096)


def free_names(expr: sympy.Basic) -> tuple[str, ...]:
    """The names of ``expr``'s free symbols, sorted (memoised per expression)."""
    return _shape(expr)[0]


def with_kept(model: Model, expr: Any, preset: str | None, values: Mapping[str, Any], *, checks: bool = True,
              leave: Iterable[str] = (), free_of: str | None = None, where_valued: bool = False) -> dict[str, Any]:
    """``values`` and, for each quantity ``expr`` keeps as a symbol (``--keep``) that they do not give
    and ``leave`` does not name, its value there from its equation (a magnitude in its declared unit;
    ``checks``: with the declared assumptions and domains checked), each computed once and seen by the next.
    ``free_of``: a quantity whose equation depends on this name (a solve's unknown) has no single value
    at the point and is left out too (valued at the preset's value of the unknown it would be wrong).
    ``where_valued``: a quantity the point gives no value (an evaluation error) is left out, not raised.

    Raises:
        errors.SymgpuError: a kept quantity has no value there (unless ``where_valued``).
    """
    out = dict(values)
    skipped = frozenset(leave) | ({free_of} if free_of else set())
    for name in free_names(expr) if isinstance(expr, sympy.Basic) else ():
        if name in model.defining and name not in out and name not in skipped:
            if free_of and free_of in model.inputs(name):
                continue
            try:
                out[name] = evaluate(model, name, preset=preset, values=out, checks=checks).magnitude
            except errors.SymgpuError:
                if not where_valued:
                    raise
    return out


def _shape(expr: sympy.Basic) -> tuple[tuple[str, ...], bool]:
    if expr in _SHAPES:
        return _SHAPES[expr]
    found = (tuple(sorted(s.name for s in forms.free_symbols(expr))), bool(expr.has(sympy.Piecewise)))
    _SHAPES[expr] = found
    return found

if TYPE_CHECKING:
    from symgpu.model import Model


def evaluate(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None, checks: bool = True,
             settle: bool = True) -> pint.Quantity:
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
        settle: evaluate an array's points near a case tie again as scalar calls (default). ``False``
            leaves the compiled values at the points :func:`ties.unsettled_points` names, for a caller
            whose answer may not depend on them (it settles them, calling again, where it does).

    Returns:
        A pint Quantity in the quantity's declared unit (array-valued for array inputs).

    Raises:
        errors.EvaluationError: a value is missing, mistyped or violates an assumption.
        errors.DomainError: inputs fall outside an equation's ``valid_when`` domain.
    """
    given, magnitudes = input_values.gather_values(model, name, preset, values or {}, check=checks)
    defines = model.equation_for(name).definition.defines
    watch = singular.Watch()
    fast = stepwise.value(model, defines, given, magnitudes, checks, watch)
    if fast is stepwise.TIED:  # a case decided by IEEE rounding: decided exactly, the inputs as the decimals given
        fast = _exact_number(model, name, preset, values)
    elif isinstance(fast, float) and watch.flagged:
        fast = _unflagged(model, name, preset, values, fast, watch, singular.zero_nonnegative(model, list(magnitudes), magnitudes),
                          lambda changed: stepwise.watched(model, defines, given, {**magnitudes, **changed}))
    elif isinstance(fast, float) and divisors.near_zero(model, stepwise.plan(model, defines, given).steps, magnitudes):
        fast = _exactly(model, name, preset, values, fast)  # (a value decided exactly above is not decided again)
    if fast is not None:
        return units.registry().Quantity(fast, model.units[defines])
    args, function, base = compiler.compiled(model, name, given)
    missing = [a for a in args if a not in magnitudes]
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        raise errors.EvaluationError(
            f"{model.id}: {name} needs a value for {', '.join(missing)}{where}; "
            f"pass {'them' if len(missing) > 1 else 'it'} as NAME=VALUE (e.g. --set {missing[0]}=...)"
            + ("" if preset else " or choose a preset")
        )
    try:
        np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args])
    except ValueError:
        shapes = ", ".join(f"{a} {np.shape(magnitudes[a])}" for a in args if np.ndim(magnitudes[a]))
        raise errors.EvaluationError(f"{model.id}: {name}: the arrays given do not broadcast together ({shapes}); give arrays of one "
                                     "shape, or shapes NumPy broadcasts (e.g. (3, 1) against (2,))") from None
    for equation, condition, cond_args, check in (compiler.domain_conditions(model, name, given) if checks else ()):
        lacking = [a for a in cond_args if a not in magnitudes]
        if lacking:
            continue
        with np.errstate(all="ignore"):
            holds = np.asarray(check(*[magnitudes[a] for a in cond_args]), dtype=bool)
        if not np.all(holds):
            shape = np.broadcast_shapes(holds.shape, *[np.shape(magnitudes[a]) for a in cond_args])
            index = int(np.flatnonzero(~np.broadcast_to(holds, shape))[0])  # the first point outside the domain, not the first point
            where = " (the first point of the arrays outside it)" if shape else ""

            def at(value: Any) -> float:
                return float(np.broadcast_to(np.asarray(value, dtype=float), shape).reshape(-1)[index]) if shape else input_values.first(value)

            def as_quoted(quoted: Mapping[str, float], c: Any = sympy.Piecewise((1, condition), (0, True))) -> bool:  # as printed
                return bool(at(evaluate_expression(model, c, None, preset=preset, values={**(values or {}), **{
                    n: units.registry().Quantity(v, model.units[n]) for n, v in quoted.items()}}).magnitude))
            derived = refusal_digits.derived(model, [s.name for s in sorted(condition.free_symbols, key=str) if s.name in model.defining
                                                     and s.name not in given], lambda n: at(evaluate(model, n, preset=preset, values=values,
                                                                                                     checks=False).magnitude), as_quoted)
            written = literal_constants.as_written(condition, model.literal_constants)  # 'L >= 500 ns', not 'L >= lit_500_ns'
            if derived:
                raise errors.DomainError(
                    f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when "
                    f"{written}, but {', '.join(derived)}{where}. The model gives no value outside this domain",
                    f"valid only when {written}, but {', '.join(derived)}{where}")
            literals = {c.name for c in model.literal_constants}
            shown = refusal_digits.inputs(model, [a for a in cond_args if a not in literals], cond_args,
                                          lambda a: at(magnitudes[a]), check)  # digits enough to fail the condition as printed
            if not shown:  # the condition holds for no input: it reduced to False once the equations it uses were put in
                raise errors.DomainError(
                    f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when {written}, which no input "
                    f"meets once the equations it uses are put in, given the declared assumptions. The model gives no value here",
                    f"valid only when {written}, which no input meets")
            raise errors.DomainError(
                f"{model.id}: equation {equation.id} ({equation.definition.source.locator}) is valid only when "
                f"{written}; got {shown}{where}. The model gives no value outside this domain",
                f"valid only when {written}; got {shown}{where}")
    inputs = compiler.numpy_scalars([magnitudes[a] for a in args])  # alu_thru/alpha at alpha = 0 is +inf
    scalar = all(np.ndim(x) == 0 for x in inputs)
    if base.has(sympy.Piecewise):
        inputs = compiler.broadcast(inputs)
    watch = singular.Watch()
    with watch.errstate():
        result = function(*inputs)
    if scalar and not np.isfinite(result):  # infinite or NaN at one point: refused where an overflow made it so,
        _refuse_overflow(model, name, function, inputs)  # else decided in exact arithmetic (NaN: no value, kept)
    if scalar and np.isnan(result):  # 0/0 or inf - inf: the exact value where the decimals given have one
        result = _exact_number(model, name, preset, values, limits=False)
        result = math.nan if result is None or not math.isfinite(result) else result
    elif scalar and (watch.flagged or not np.isfinite(result)):  # a division by zero or an overflow on the way
        result = _unflagged(model, name, preset, values, float(result), watch, singular.zero_nonnegative(model, args, magnitudes),
                            lambda changed: _watched(function, [changed.get(a, x) for a, x in zip(args, inputs)]))
    elif scalar and divisors.near_zero(model, stepwise.plan(model, defines, given).steps, magnitudes):
        result = _exactly(model, name, preset, values, float(result))
    result = np.asarray(result, dtype=float)
    if result.ndim == 0:
        result = float(result)
    elif result.shape != np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args]):
        result = np.broadcast_to(result, np.broadcast_shapes(*[np.shape(magnitudes[a]) for a in args])).copy()
    if settle and not scalar and base.has(*stepwise.TIE_SOURCES):  # a case near a tie at a point: decided as a scalar call decides it
        result = _ties_settled(model, name, preset, values or {}, given, magnitudes, np.array(result), checks)
    return units.registry().Quantity(result, model.units[model.equation_for(name).definition.defines])


def _ties_settled(model: Model, name: str, preset: str | None, values: Mapping[str, Any], given: frozenset[str],
                  magnitudes: Mapping[str, Any], result: np.ndarray, checks: bool) -> np.ndarray:
    """``result`` (arrays in) with each point where a case relation is within :data:`stepwise.NEAR` of a tie
    (:func:`ties.near_points`) evaluated as a scalar call evaluates it: in exact arithmetic, the inputs as
    the decimals given (``0.1*3 > z`` at z = 0.3 is false, though 0.30000000000000004 > 0.3 in doubles)."""
    expr = model.expression(model.equation_for(name).definition.defines, stop_at=given)
    shape = result.shape
    for index in ties.near_points(model, expr, magnitudes, shape):
        at = {key: _element(value, shape, int(index)) for key, value in values.items()}
        try:
            result.reshape(-1)[index] = float(evaluate(model, name, preset=preset, values=at, checks=checks).magnitude)
        except errors.SymgpuError:
            pass  # the compiled value stands where the point alone is refused
    return result


def _element(value: Any, shape: tuple[int, ...], index: int) -> Any:
    """The value at flat ``index`` of the broadcast ``shape`` of an input given as an array (pint quantities
    keep their unit; scalars and texts as they are)."""
    if isinstance(value, pint.Quantity):
        if not np.ndim(value.magnitude):
            return value
        return units.registry().Quantity(float(np.broadcast_to(np.asarray(value.magnitude, dtype=float), shape).reshape(-1)[index]),
                                         value.units)
    if isinstance(value, str) or not np.ndim(value):
        return value
    return float(np.broadcast_to(np.asarray(value, dtype=float), shape).reshape(-1)[index])


def _refuse_overflow(model: Model, name: str, function: Any, inputs: Sequence[Any]) -> None:
    """Raise where evaluating ``function`` at ``inputs`` overflows (a value beyond IEEE doubles, not an
    infinity): called only where the result is not finite, so an overflow a Min or an unselected case
    discards leaves a finite answer alone.

    Raises:
        errors.EvaluationError: an overflow happened on the way.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="raise"):
        try:
            function(*inputs)
        except FloatingPointError:
            raise _overflow(model, name) from None


def _overflow(model: Model, name: str) -> errors.EvaluationError:
    """The refusal of a value beyond IEEE doubles (on the way, or the exact value itself)."""
    return errors.EvaluationError(f"{model.id}: {name} overflows IEEE doubles at these inputs (a value beyond "
                                  f"{np.finfo(float).max:.4g} arises on the way); give smaller values")


def _watched(function: Any, inputs: Sequence[Any]) -> singular.Watch:
    watch = singular.Watch()
    with watch.errstate():
        value = function(*compiler.numpy_scalars(list(inputs)))
    watch.value = float(value) if np.ndim(value) == 0 else None
    return watch


def _unflagged(model: Model, name: str, preset: str | None, values: Mapping[str, Any] | None, result: float,
               watch: singular.Watch, zeros: list[str], again: Any) -> float:
    """A scalar ``result``, infinite or finite, whose IEEE arithmetic divided by zero or overflowed on the way: kept where
    the division is by nonnegative inputs at 0 (:func:`singular.explained`: the limit from above), else
    the value in exact arithmetic (:func:`exact`).

    Raises:
        errors.EvaluationError: exact arithmetic finds no real value there (a pole of the formula), or cannot
            decide it where IEEE overflowed.
    """
    if singular.explained(watch, zeros, again, result):
        return result
    return _decided(model, name, preset, values, result, "by taking x/0 as infinite", watch.overflow)


def _exactly(model: Model, name: str, preset: str | None, values: Mapping[str, Any] | None, result: float) -> float:
    """``result`` (a finite IEEE value) where a divisor of the formula is within rounding of 0 (:func:`divisors.near_zero`):
    the value in exact arithmetic, the inputs as the decimals given. A value IEEE arithmetic cannot be trusted
    with: refused where exact arithmetic finds none, or cannot decide it.

    Raises:
        errors.EvaluationError: the exact divisor is 0 (a pole, or 0/0, of the formula: no value); the exact
            value is no real number or lies beyond IEEE doubles; exact arithmetic could not be done.
    """
    return _decided(model, name, preset, values, result, "by dividing by a rounding residue", False)


def _decided(model: Model, name: str, preset: str | None, values: Mapping[str, Any] | None, result: float, how: str,
             overflowed: bool) -> float:
    """The value of ``name`` in exact arithmetic (:func:`_exact_or_nan`) where IEEE arithmetic gave ``result`` ``how``
    and cannot be trusted with it (``overflowed``: IEEE overflowed on the way).

    Raises:
        errors.EvaluationError: no real finite double is the value, each reason told as it is.
    """
    number = _exact_or_nan(model, name, preset, values)
    if isinstance(number, complex) and number.imag == 0 and math.isfinite(number.real):
        return number.real
    if overflowed or isinstance(number, complex) and math.isinf(number.real) and number.imag == 0:  # IEEE overflowed, or the exact value is beyond it
        raise _overflow(model, name)
    if isinstance(number, str):
        raise errors.EvaluationError(f"{model.id}: {name} cannot be evaluated at these inputs: IEEE arithmetic gave {result:.10g} {how}, "
                                     f"which it cannot be trusted with, and exact arithmetic with the inputs' decimals (each double's "
                                     f"shortest) could not decide the value ({number}); choose other values")
    if math.isnan(number.real):
        _refuse_pole(model, name, result, how)
    raise errors.EvaluationError(f"{model.id}: {name} has no value at these inputs: exact arithmetic with the inputs' decimals (each "
                                 f"double's shortest) gives no real number there ({number:.10g}; IEEE arithmetic gave {result:.10g} {how}); choose other values")


def _refuse_pole(model: Model, name: str, result: float, how: str) -> NoReturn:
    """Raise: exact arithmetic finds no value of ``name`` where IEEE arithmetic gave ``result``.

    Raises:
        errors.EvaluationError: always.
    """
    raise errors.EvaluationError(f"{model.id}: {name} has no value at these inputs: its formula divides by zero there (a pole of the "
                                 f"formula: IEEE arithmetic gave {result:.10g} {how}, exact arithmetic with the inputs' decimals (each "
                                 "double's shortest) gives no value); choose other values")


_NO_VALUE = (sympy.zoo, sympy.nan, sympy.oo, sympy.S.NegativeInfinity)


def _exact_or_nan(model: Model, name: str, preset: str | None, values: Mapping[str, Any] | None) -> complex | str:
    """``name`` at the point in exact arithmetic (:func:`exact`, the inputs as the decimals given): NaN where it has no
    value (a division by zero: ``zoo``, ``nan``, an infinity, :class:`errors.NoValueError`), +-inf where it is a finite real number beyond IEEE
    doubles; where exact arithmetic cannot be done, why (the error it raised)."""
    try:
        value = exact(model, name, preset=preset, values=values)
        if any(value.has(u) for u in _NO_VALUE):
            return complex(math.nan)
        return complex(value)
    except errors.NoValueError:
        return complex(math.nan)
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError) as error:
        return f"{type(error).__name__}: {str(error)[:200]}"


def _exact_number(model: Model, name: str, preset: str | None, values: Mapping[str, Any] | None, *,
                  limits: bool = True) -> float | None:
    """:func:`exact` as a float, or None (the expanded expression decides) where it is no real number."""
    try:
        return float(exact(model, name, preset=preset, values=values, limits=limits))
    except (errors.SymgpuError, TypeError, ValueError, ArithmeticError):
        return None


def check_declared_sign(model: Model, name: str, value: float, preset: str | None = None,
                        values: Mapping[str, Any] | None = None) -> None:
    """A quantity's value at a point, a number (not NaN) inside its declared sign (``positive``/``nonnegative``):
    what ``symgpu eval`` shows. (:func:`evaluate` itself gives the equations' value: a regime, a sweep or a check may read
    it where a declared-positive count is 0, a block too large to launch.)

    Raises:
        errors.EvaluationError: the value is NaN: the reason the formula has none at ``preset`` and ``values``
            (:func:`no_value.reason`: 0/0, a division by zero, the root of a negative number...).
        errors.DomainError: the model's equations give a value its file declares impossible (Hong & Kim's
            ``Exec_cycles_with_synch`` of an 8-thread block: -2682.5 cycles): no meaningful value there.
    """
    if math.isnan(value):  # Model.evaluate's "no value": none in exact arithmetic either
        why = no_value.reason(model, name, preset, values or {}) or "its formula has no value there"
        raise errors.EvaluationError(f"{model.id}: {name} has no value at these inputs: {why} (exact arithmetic with the decimals "
                                     "given; IEEE arithmetic gave nan); choose other values")
    assumptions = model.symbol_definitions[name].assumptions if name in model.symbol_definitions else ()
    word = "positive" if "positive" in assumptions and not value > 0 else \
        "nonnegative" if "nonnegative" in assumptions and not value >= 0 else None
    if word is not None and value == value:
        raise errors.DomainError(f"{model.id}: the equations give {name} = {value:.6g}{input_values.unit_suffix(model, name)} at these "
                                 f"inputs, but {name} is declared {word}: the model's formula leaves the range it declares here, "
                                 "so it gives no meaningful value; choose other inputs",
                                 f"{name} = {value:.6g}{input_values.unit_suffix(model, name)}, but declared {word}")


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
    if expr.has(sympy.CRootOf):  # a root of a polynomial of numbers with no radical form (a quintic's): a number, to 30 digits
        expr = expr.xreplace({r: r.evalf(30) for r in expr.atoms(sympy.CRootOf) if not r.free_symbols})
    merged = input_values.merge_values(model, preset, values)
    shape = _shape(expr)
    names = list(shape[0])
    missing = [n for n in names if n not in merged]
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        raise errors.EvaluationError(f"{model.id}: the result needs a value for {', '.join(missing)}{where}; pass NAME=VALUE")
    magnitudes = [np.asarray(v, dtype=float) for v in input_values.base_magnitudes(model, preset, values, merged, names)]
    if (shape[1] or expr.has(sympy.floor, sympy.ceiling)) and not any(np.ndim(v) for v in magnitudes):
        # a case condition or a whole part decided by IEEE rounding: decided exactly
        tie = ties.tie_value(model, expr, target, preset, values or {})
        if tie is not None:
            return ureg.Quantity(tie, target)
    inputs = compiler.broadcast(magnitudes) if shape[1] else magnitudes
    try:
        function = _point_function(model, expr, names, target, inputs)
    except errors.EvaluationError:
        if any(np.ndim(v) for v in inputs):
            raise
        return ureg.Quantity(_at_numbers(model, expr, names, target, inputs), target)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            out = np.asarray(function(*inputs), dtype=float)
        except OverflowError:  # an exact integer of the expression times the inputs, beyond any double
            raise errors.EvaluationError(f"{model.id}: the result is beyond the range of a double (about 1.8e308 {target:~}) at these inputs; "
                                         "give inputs (or a target) for which it is smaller") from None
    return ureg.Quantity(float(out) if out.ndim == 0 else out, target)


def _at_numbers(model: Model, expr: sympy.Basic, names: list[str], target: pint.Unit, inputs: list[Any]) -> float:
    """``expr`` at one point where SymPy cannot print it to NumPy (a condition its printer fails to
    simplify: an ``ITE`` over a ``Min(0, ...)``): the base-unit magnitudes put in as exact numbers,
    so every condition is decided and the value is a number; NaN where it is undefined there.

    Raises:
        errors.EvaluationError: the expression is no real number there.
    """
    put = {model.symbols[n]: sympy.Rational(repr(float(v))) for n, v in zip(names, inputs)}
    based = compiler.expression_base(model, expr, target)
    try:
        value = based.xreplace(put)
    except ValueError:  # a Min/Max of complex infinity: the one-sided value at a nonnegative input's 0, as IEEE gives
        value = sympy.zoo
    if value.has(sympy.zoo):
        value = one_sided.substitute(based, put)
    if value.has(sympy.nan):  # no branch holds there (a first-match Piecewise without an "otherwise")
        return float("nan")
    try:
        return float(value)
    except TypeError:
        raise errors.EvaluationError(f"{model.id}: the result is not a real number at the given values "
                                     f"({printing.brief(value, 120)})") from None


def _point_function(model: Model, expr: sympy.Basic, names: list[str], target: pint.Unit, inputs: list[Any]) -> Any:
    """The compiled ``expr`` (:func:`compiler.compiled_expression`), or at a point where it is a
    large ``Piecewise``, the same with only the piece that applies there
    (:mod:`symgpu.evaluate.piece_select`: the same value, bit for bit)."""
    if isinstance(expr, sympy.Piecewise) and len(expr.args) >= piece_select.MIN_PIECES and not any(np.ndim(v) for v in inputs):
        symbols = [model.symbols[n] for n in names]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            narrow = piece_select.narrowed(compiler.expression_base(model, expr, target), symbols, inputs)
        if narrow is not None:
            return compiler.base_function(model, symbols, narrow)
    return compiler.compiled_expression(model, expr, names, target)


def exact(model: Model, name: str, *, preset: str | None = None, values: Mapping[str, Any] | None = None,
          limits: bool = True) -> sympy.Expr:
    """Evaluate ``name`` exactly in SymPy: scalar inputs become exact rationals of their
    shortest decimal form, so ``320.3`` is ``3203/10``. Used to cross-check ``evaluate``
    and to print substitution chains. A nonnegative input at 0 where the expression divides
    by it (Volkov's ``alu_thru/alpha`` in a ``Min``) gives the one-sided limit from above
    (:mod:`symgpu.evaluate.one_sided`), as the compiled IEEE arithmetic does; ``limits=False``: no such
    limit, the values put in as they are (0/0 is no value: Volkov's ``traffic_increase`` with no access
    at all, whose limits as each count tends to 0 differ)."""
    given, magnitudes = input_values.gather_values(model, name, preset, values or {})
    expr = model.expression(name, stop_at=given)
    free = set(free_names(expr))  # memoised per expression: exact() runs at each of a scan's near ties of one regime table
    # each input's decimal as given in its declared unit, times the unit's exact scale: the base-unit float divided
    # by the scale again is not that decimal (1000 ns is 1.0000000000000002e-06 s, read back as 1000.0000000000001 ns)
    mapping = point.exact_base_values(model, [model.symbols[k] for k in magnitudes if k in free], preset, values or {})
    if mapping is None:
        raise errors.EvaluationError(f"{model.id}: {name}: an input is no finite number; exact arithmetic needs finite values")
    expr = scaling.base_expression(model, expr) / scaling.unit_scale(model.units[model.equation_for(name).definition.defines])
    given_names = {s.name for s in mapping}
    missing = [n for n in free_names(expr) if n not in given_names]
    if missing:
        raise errors.EvaluationError(f"{model.id}: {name} needs a value for {', '.join(missing)}")
    return one_sided.value_at(expr, mapping, limits=limits)  # all-rational inputs: exact without simplify



def domain_masks(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any], size: int, *,
                 check: bool = True) -> list[tuple[Any, sympy.Basic, np.ndarray]]:
    """Per ``valid_when`` condition on the way to ``quantity`` that :func:`evaluate` checks (one lacking a value is not
    checked there, nor here): (equation, condition as written, whether it holds at each point of a flat grid of ``size``).
    ``check=False`` skips the declared-assumption check of the values themselves."""
    given, magnitudes = input_values.gather_values(model, quantity, preset, values, check=check)
    out = []
    for equation, condition, cond_args, holds_at in compiler.domain_conditions(model, quantity, given):
        if all(a in magnitudes for a in cond_args):
            with np.errstate(all="ignore"):
                holds = np.asarray(holds_at(*[magnitudes[a] for a in cond_args]), dtype=bool)
            out.append((equation, condition, np.broadcast_to(holds, (size,))))
    return out


def inside_domain(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any], size: int, *,
                  check: bool = True) -> np.ndarray:
    """Per point (flat grid of ``size``), whether every condition :func:`domain_masks` checks holds."""
    masks = [holds for _, _, holds in domain_masks(model, quantity, preset, values, size, check=check)]
    return np.logical_and.reduce([np.ones(size, dtype=bool), *masks])


def unchecked_domain(model: Model, quantity: str, preset: str | None, values: Mapping[str, Any]) -> list[tuple[str, sympy.Basic, tuple[str, ...]]]:
    """The ``valid_when`` conditions on the way to ``quantity`` that :func:`evaluate` could not
    check at these values, because an input only the condition reads has no value (``N >= L_F/t_issue``
    of a quantity that never reads ``L_F``): (equation id, condition as written, the names lacking)."""
    given, magnitudes = input_values.gather_values(model, quantity, preset, values)
    out = []
    for equation, condition, cond_args, _ in compiler.domain_conditions(model, quantity, given):
        lacking = tuple(a for a in cond_args if a not in magnitudes)
        if lacking:
            out.append((equation.id, condition, lacking))
    return out
