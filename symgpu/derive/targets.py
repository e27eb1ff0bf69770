"""A solve target given as a value with a unit of another dimension than its quantity's, moved to the quantity's
unit across the model's clock, warp size and SM count (``"6000 cycle"`` for a quantity in s, ``"640 thread/SM"``
for one in warp/SM, ``"757.6 thread/SM"`` for one per chip) and written over their symbols where its number is
exact: ``lit_6000_cy/phi``, the number a constant of the model in the unit it was given in, so a closed form solved
against it holds at every clock. The one place both the command line's ``--target`` and
:func:`symgpu.derive.checked.solve`'s ``target=`` convert: the API had put the value at the preset's clock, a
double, in its place, and its closed form was wrong at any other clock (the lead's review, round 23)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import pint
import sympy

from symgpu import errors, units
from symgpu.derive.extra_records import GivenConstant
from symgpu.evaluate import clocks

if TYPE_CHECKING:
    from symgpu.model import Model


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
    rates, symbolic, said = [], sympy.Integer(1), []
    for rate, power in powers.items():
        if rate == "Hz":
            found, source, rate_name = _clock(model, name, text, asking, preset, values)
            said.append(f"clock {units.compact(found):~.10g} ({source})")
        else:
            rate_name, found = _input(model, name, text, rate, asking, preset, values)
            said.append(f"{'SM count' if rate == 'SM' else 'warp size'} {rate_name} = {found:~.10g}")
        rates.append((found, power))
        symbolic = None if symbolic is None or rate_name is None else symbolic * model.symbols[rate_name] ** -power
    value = units.moved(given, unit, rates)
    note = f"{text} = {value.magnitude:.10g} {model.unit_text(name)} at {' and '.join(said)}"
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


def _clock(model: Model, name: str, text: str, asking: Asking, preset: str | None,
           values: Mapping[str, Any]) -> tuple[pint.Quantity, str, str | None]:
    """The clock the target is converted at, where it came from, and the model's symbol of it (None: none of the model's)."""
    missing = f"{asking.option} {text!r}: {name} is in {model.unit_text(name)}, so the target needs a clock"
    if asking.clock is not None:
        return asking.clock(missing)
    clock_name, clock = clocks.clock_at(model, preset=preset, values=values, missing=missing)
    if clock_name is None:
        raise errors.UsageError(f"{missing}: {model.id} has no clock input; give the target in {model.unit_text(name)}")
    if clock is None:
        raise errors.UsageError(f"{missing}: give a preset with {clock_name} or {asking.give(clock_name, '1.3 GHz')}")
    return clock, (f"{clock_name} given" if clock_name in values else f"{clock_name} of preset {preset}"), clock_name


def _input(model: Model, name: str, text: str, rate: str, asking: Asking, preset: str | None,
           values: Mapping[str, Any]) -> tuple[str, pint.Quantity]:
    """The model's one input in ``rate`` (its SM count, its warp size) and its value at the point."""
    what = "SM count" if rate == "SM" else "warp size"
    rate_name, at = clocks.one_input_at(model, rate, preset=preset, values=values)
    need = f"{asking.option} {text!r}: {name} is in {model.unit_text(name)}, so the target needs the {what}"
    if rate_name is None:
        raise errors.UsageError(f"{need}, and {model.id} has no one input in {rate}: give the target in {model.unit_text(name)}")
    if at is None:
        example = "132 SM" if rate == "SM" else "32 thread/warp"
        raise errors.UsageError(f"{need} {rate_name}, which has no value here: give a preset with it or {asking.give(rate_name, example)}")
    return rate_name, at


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
