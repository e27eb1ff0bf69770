"""A solve target given as a value with a unit of another dimension than its quantity's, moved to the quantity's
unit across the model's clock, warp size and SM count (``"6000 cycle"`` for a quantity in s, ``"640 thread/SM"``
for one in warp/SM, ``"757.6 thread/SM"`` for one per chip) and written over their symbols where its number is
exact: ``lit_6000_cy/phi``, the number a constant of the model in the unit it was given in, so a closed form solved
against it holds at every clock. The one place both the command line's ``--target`` and
:func:`symgpu.derive.checked.solve`'s ``target=`` convert: the API had put the value at the preset's clock, a
double, in its place, and its closed form was wrong at any other clock (the lead's review, round 23)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ParamSpec, cast

import pint
import sympy

from symgpu import errors, units
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import GivenConstant
from symgpu.evaluate import clocks

if TYPE_CHECKING:
    from symgpu.model import Model

P = ParamSpec("P")


@dataclass(frozen=True)
class Moved:
    """A target moved across the model's rates: ``target``, in the quantity's declared unit (over the rates' symbols,
    or the number where the given one is not exact or the clock is one given apart), and ``note``, the line saying
    the rates it was converted at."""

    target: sympy.Expr
    note: str


@dataclass(frozen=True)
class Asking:
    """How a refusal names the target and what to give. ``option``: ``--target`` or ``target``; ``give(name,
    example)``: how an input is given a value (``--set 'phi=1.3 GHz'``, ``values={'phi': '1.3 GHz'}``); ``clock``:
    the clock, where it came from and the model's clock symbol it is (None for one given apart, the command line's
    ``--clock``: the target is then the number at it), given the refusal's start
    (:func:`symgpu.cli.common.clock_and_symbol`); None: the model's clock at the point, found here."""

    option: str
    give: Callable[[str, str], str]
    clock: Callable[[str], tuple[pint.Quantity, str, str | None]] | None = None
    what: str = "the target"


#: the API's wording: values given as ``values=``
API = Asking("target", lambda name, example: f"values={{'{name}': '{example}'}}")


def across_rates(model: Model, name: str, text: str, given: pint.Quantity, asking: Asking, *, preset: str | None,
                 values: Mapping[str, Any], variable: str, substitute: Mapping[str, Any] | None) -> Moved | None:
    """``given`` (read from ``text``), a target for ``name``, moved across the model's rates towards its unit; None
    where no rate relates the two units (the same dimension, or none that converts). ``model`` takes the constant
    (a copy for the request: :meth:`Model.for_request`).

    Raises:
        errors.UsageError: the model has no one input of a rate needed, it has no value here, or it moves with
            ``variable`` (:func:`symgpu.evaluate.clocks.clock_unknown` and its siblings).
    """
    unit = model.units[name]
    powers = clocks.exponents(given, unit, sm=False)
    if powers is None:
        return None
    for rate, refuse in (("SM", clocks.sm_count_unknown), (clocks.WARP_SIZE, clocks.warp_size_unknown), ("Hz", clocks.clock_unknown)):
        if rate in powers:
            refuse(model, name, variable, substitute, text)
    need = f"{asking.option} {text!r}: {name} is in {model.unit_text(name)}, so {asking.what}"
    instead = f"give the target in {model.unit_text(name)}"
    found = clocks.moved_across(model, given, unit, preset=preset, values=values, clock=_clock(model, need, instead, asking, preset, values),
                                refuse=clocks.input_refusal(model, need, asking.give, instead))
    assert found is not None
    value, used = found
    symbolic: sympy.Expr | None = sympy.Integer(1)
    for across in used:
        symbolic = None if symbolic is None or across.name is None else symbolic * model.symbols[across.name] ** -across.power
    note = f"{text} = {value.magnitude:.10g} {model.unit_text(name)} at {' and '.join(across.said for across in used)}"
    exact = _exact(text, given)
    if exact is not None and symbolic is not None:  # over the model's own rates: a closed form solved against it keeps them
        return Moved(model.given_constant(sympy.Rational(exact), cast(pint.Unit, given.units)) * symbolic, note)
    return Moved(sympy.nsimplify(float(value.magnitude), rational=True), note)


def _exact(text: str, given: pint.Quantity) -> Fraction | None:
    """The number of ``text`` exactly, in the unit it was given in (None where it has no exact value: a pint quantity's
    text the grammar does not read is given as its double)."""
    try:
        return units.exact_magnitude(text, given.units)
    except ValueError:
        return None


def _clock(model: Model, need: str, instead: str, asking: Asking, preset: str | None,
           values: Mapping[str, Any]) -> clocks.ClockFinder:
    """The clock the target is converted at, where it came from, and the model's symbol of it (None: none of the model's)."""
    missing = f"{need} needs a clock"
    if asking.clock is not None:
        given = asking.clock
        return lambda: given(missing)
    return clocks.model_clock(model, preset=preset, values=values, missing=missing, give=asking.give,
                              instead=instead)


def given_target(model: Model, name: str, target: Any, *, preset: str | None, values: Mapping[str, Any] | None,
                 variable: str, substitute: Mapping[str, Any] | None) -> tuple[Model, Any, tuple[GivenConstant, ...]]:
    """An API solve's target (``"6000 cycle"``, a pint quantity) moved across the model's rates as ``--target`` is
    (:func:`across_rates`): the model it is asked of (a copy holding the target's constant where one was made), the
    target, and the constants made (for :func:`holding`); any other target as given, on ``model``."""
    if name not in model.units or not isinstance(target, (str, pint.Quantity)):
        return model, target, ()
    try:
        given = target if isinstance(target, pint.Quantity) else units.quantity(target)
    except (ValueError, pint.errors.PintError):
        return model, target, ()  # an expression of the model: parsed by the solve
    if clocks.exponents(given, model.units[name], sm=False) is None:
        return model, target, ()
    copy = model.for_request()
    moved = across_rates(copy, name, str(target), given, API, preset=preset, values=values or {}, variable=variable,
                         substitute=substitute)
    assert moved is not None
    exact = _exact(str(target), given)
    made = (GivenConstant(str(sympy.Rational(exact)), str(given.units)),) if exact is not None and set(copy.constants) - set(model.constants) else ()
    return copy, moved.target, made


def holding(model: Model, made: tuple[GivenConstant, ...] | None) -> Model:
    """``model``, or a copy of it for the request holding the constants an API target made (:func:`given_target`)
    where it lacks them, so a result written over them is evaluated on the model it was asked of."""
    if not made:
        return model
    copy = model.for_request()
    for constant in made:
        copy.given_constant(sympy.Rational(constant.number), units.unit(constant.unit))
    return copy


def given_substitutes(model: Model, substitute: Mapping[str, Any] | None, *, preset: str | None,
                      values: Mapping[str, Any] | None, variable: str) -> tuple[Model, dict[str, Any] | None, tuple[GivenConstant, ...]]:
    """An API request's ``substitute`` values in their symbols' units, as the command line's ``--substitute`` reads them:
    a quantity (``"0.33 us"``, read by the unit grammar, or a pint quantity) made a constant of the model in the unit it
    was given in (``lit_0p33_us``), moved across the clock, warp size or SM count as a target is (:func:`across_rates`:
    ``"290 ns"`` for a symbol in cycles) where the dimensions differ; a bare number for a symbol declared with a unit
    (``330`` for one in ns, ``368`` for one in cycles) a constant of that unit, so the answer's units check (a bare
    number is a pure number there). ``substitute={"L_M": "0.33 us"}`` had been refused as an
    expression, and ``{"L_M": 330}`` solved as a pure number and blamed on the model (round 14a, F10). Returns the model
    asked (a copy holding the constants where one was made), the substitutions and the constants made (for :func:`holding`).

    Raises:
        errors.UsageError: a quantity of a dimension no rate relates to the symbol's, or a rate with no value here.
    """
    if not substitute:
        return model, None if substitute is None else dict(substitute), ()
    copy, made, out = model.for_request(), [], dict(substitute)
    for name, value in substitute.items():
        read = _given_value(model, name, value)
        if read is None:
            continue
        text, given = read
        declared = model.units[name]
        number = _exact(text, given)
        exact = sympy.Rational(number) if number is not None else sympy.nsimplify(float(given.magnitude), rational=True)
        if given.dimensionless and not isinstance(value, pint.Quantity) and _plain_number(text):  # a bare number
            if exact == 0 or declared.dimensionless:
                continue  # every reading of a bare number is the same
            out[name] = copy.given_constant(exact, declared)
            made.append(GivenConstant(str(exact), str(declared)))
        elif given.dimensionality == declared.dimensionality:
            out[name] = copy.given_constant(exact, cast(pint.Unit, given.units))
            made.append(GivenConstant(str(exact), str(given.units)))
        else:
            asking = Asking(f"substitute[{name!r}]", API.give, what="the value")
            moved = across_rates(copy, name, text, given, asking, preset=preset, values=values or {}, variable=variable,
                                 substitute=substitute)
            if moved is None:
                raise errors.UsageError(
                    f"{model.id}: substitute {name}={text!r}: {name} is in {model.unit_text(name)} ({declared.dimensionality}), "
                    f"the value is {given.dimensionality}; give it in {model.unit_text(name)} or a compatible unit")
            out[name] = moved.target
            made.append(GivenConstant(str(exact), str(given.units)))
    return (copy, out, tuple(made)) if made else (model, out, ())


def _given_value(model: Model, name: str, value: Any) -> tuple[str, pint.Quantity] | None:
    """``value`` for symbol ``name`` as (its text, the quantity it reads as) where it is a quantity or a number; None for
    an expression (text or SymPy: parsed by the operation), a name the model does not declare, a number of a bool."""
    if name not in model.units or isinstance(value, bool):
        return None
    if isinstance(value, pint.Quantity):
        return f"{value.magnitude} {value.units}", value
    if isinstance(value, (int, float, Fraction)) or isinstance(value, sympy.Rational):
        value = str(value)
    if not isinstance(value, str):
        return None
    try:
        return value, units.quantity(value)
    except (ValueError, pint.errors.PintError):
        return None  # an expression of the model


def _plain_number(text: str) -> bool:
    try:
        float(text) if "/" not in text else Fraction(text)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return True


def substitutes_in_units(operation: Callable[P, Derivation]) -> Callable[P, Derivation]:
    """``operation`` (a public derivation operation, :mod:`symgpu.derive.checked`) with its ``substitute`` values read in
    their symbols' units first (:func:`given_substitutes`): asked of the model copy holding the constants made, which its
    answer records (``extra.given_constants``) so that :func:`symgpu.derive.evaluate_result` values it on the model asked."""
    signature = inspect.signature(operation)

    @functools.wraps(operation)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Derivation:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return operation(*args, **kwargs)  # Python's own message, naming the operation
        if not bound.arguments.get("substitute"):
            return operation(*args, **kwargs)
        bound.apply_defaults()
        point = bound.arguments
        variable = next((point[k] for k in ("for_", "over", "var", "variable") if k in point), "")
        model, substitute, made = given_substitutes(point["model"], point["substitute"], preset=point.get("preset"),
                                                    values=point.get("values"), variable=str(variable))
        point["model"], point["substitute"] = model, substitute
        answer = operation(*bound.args, **bound.kwargs)
        if not made:
            return answer
        kept = tuple(answer.extra.given_constants or ())
        return dataclasses.replace(answer, extra=answer.extra.with_(given_constants=kept + tuple(m for m in made if m not in kept)))
    return wrapper
