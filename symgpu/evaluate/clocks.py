"""Values moved across a model's clock: cycles and time differ by exactly a frequency, which a model
names by its one frequency input (or, of several, the one named ``clock``: Volkov's processor clock
beside ``mem_clock``); and across its warp size: warps and threads (warps/SM and threads/SM) differ
by exactly its one input in thread/warp; and across its SM count, its one input in SM (per SM and per GPU).
:func:`moved_across` is the one place that finds those rates for a value and moves it: the command line's ``--unit``,
``--target``, ``--set``, ``--where`` and ``fit --predict``, and the API's ``values=`` and ``target=``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pint

from symgpu import errors, units
from symgpu.evaluate import evaluator

#: the name a model with several frequency symbols gives the clock that counts its cycles
CYCLE_CLOCK = "clock"
#: the unit of a model's warp size, the rate between its warps and threads
WARP_SIZE = "thread/warp"
#: the unit of a model's schedulers per SM, the rate between its per-scheduler and per-SM values (Volkov's Ch. 6)
SCHEDULERS = "sched/SM"
#: the rates a value may be moved across, each by the model's one input of that unit (the clock: its cycle clock)
RATES = ("SM", "Hz", WARP_SIZE, SCHEDULERS)
#: what a message calls each rate
_WORDS = {"Hz": "clock", "SM": "SM count", WARP_SIZE: "warp size", SCHEDULERS: "schedulers per SM"}
#: an example value of each rate but the clock, for a message that says how to give it
EXAMPLES = {"SM": "132 SM", WARP_SIZE: "32 thread/warp", SCHEDULERS: "4 sched/SM"}


def rate_word(rate: str) -> str:
    """What a message calls a rate of :data:`RATES`: the clock, the SM count, the warp size, the schedulers per SM."""
    return _WORDS.get(rate, "warp size")


def differ_by(value: pint.Quantity, unit: Any, rate: str) -> bool:
    """Do ``value`` and ``unit`` differ by exactly ``rate`` or its inverse (cycles and time by ``Hz``)?"""
    ratio = (value.units / unit).dimensionality
    return bool(ratio == units.unit(rate).dimensionality or ratio == (1 / units.unit(rate)).dimensionality)


def across(value: pint.Quantity, unit: Any, rate: pint.Quantity) -> pint.Quantity:
    """``value`` moved across ``rate`` towards ``unit``: divided where ``value`` has ``rate``'s
    dimension more than ``unit`` (cycles in a time: by the clock), else multiplied; exactly (:func:`symgpu.units.moved`)."""
    dividing = (value.units / unit).dimensionality == rate.dimensionality
    return units.moved(value, unit, ((rate, 1 if dividing else -1),))


def exponents(value: pint.Quantity, unit: Any, *, sm: bool = True) -> dict[str, int] | None:
    """The powers (each -1, 0 or 1) of :data:`RATES` by which ``value``'s dimension exceeds ``unit``'s, the SM count or
    the schedulers per SM among them where ``sm`` (per GPU, per SM and per scheduler); None where no such product does
    (nor where they have one dimension)."""
    ratio = (value.units / unit).dimensionality
    for powers in itertools.product((0, 1, -1), repeat=len(RATES)):
        if (sm and powers[0] == 0 and powers[RATES.index(SCHEDULERS)] == 0) or not any(powers):
            continue
        product = units.unit("1").dimensionality
        for rate, power in zip(RATES, powers):
            product = product * units.unit(rate).dimensionality ** power
        if product == ratio:
            return {rate: power for rate, power in zip(RATES, powers) if power}
    return None


@dataclass(frozen=True)
class RateUsed:
    """One rate a value was moved across: ``rate`` (one of :data:`RATES`), the model's symbol for it (None: a clock
    given apart, ``--clock``), its value at the point, the power it divided the value by, and where a clock came from
    (``clock of preset h100``; empty for the SM count and the warp size)."""

    rate: str
    name: str | None
    value: pint.Quantity
    power: int
    source: str = ""

    @property
    def said(self) -> str:
        """``clock 1.98 GHz (clock of preset h100)``, ``SM count SMs = 132 SM``, ``warp size ws = 32 thread / warp``."""
        if self.rate == "Hz":
            return f"clock {units.compact(self.value):~.10g} ({self.source})"
        return f"{rate_word(self.rate)} {self.name} = {self.value:~.10g}"


#: finds the clock for :func:`moved_across`: its value, where it came from, the model's symbol of it (None: given apart)
ClockFinder = Callable[[], tuple[pint.Quantity, str, "str | None"]]


def moved_across(model: Any, given: pint.Quantity, unit: Any, *, preset: str | None, values: Mapping[str, Any],
                 clock: ClockFinder, refuse: Callable[[str, str | None], Exception],
                 sm: bool = False) -> tuple[pint.Quantity, tuple[RateUsed, ...]] | None:
    """``given`` moved towards ``unit`` across the rates their dimensions differ by (:func:`exponents`; the SM count
    among them where ``sm``): the SM count and the warp size are the model's one input in SM and in thread/warp at the
    preset and values, the clock is ``clock()``'s; the value exactly (:func:`symgpu.units.moved`) and the rates used.
    None where no such rate relates the two units. The caller says the rates (:attr:`RateUsed.said`).

    Raises:
        errors.UsageError: ``refuse(rate, name)``: the model has no one input of ``rate`` (``name`` None) or it has no
            value here; whatever ``clock()`` raises where no clock is known.
    """
    powers = exponents(given, unit, sm=sm)
    if powers is None:
        return None
    used = []
    for rate, power in powers.items():
        if rate == "Hz":
            found, source, name = clock()
        else:
            name, at = one_input_at(model, rate, preset=preset, values=values)
            if name is None or at is None:
                raise refuse(rate, name) from None
            found, source = at, ""
        used.append(RateUsed(rate, name, found, power, source))
    return units.moved(given, unit, [(u.value, u.power) for u in used]), tuple(used)


def moved_at_point(model: Any, given: pint.Quantity, unit: Any, *, preset: str | None, values: Mapping[str, Any], need: str,
                   give: Callable[[str, str], str], instead: str) -> tuple[pint.Quantity, tuple[RateUsed, ...]] | None:
    """:func:`moved_across` at the model's own clock (:func:`model_clock`) with :func:`input_refusal`'s refusals: a value
    given at a point (the API's ``values=``, ``--where``, ``fit --predict``); ``need`` says what asked, ``give(name,
    example)`` how to give a missing rate, ``instead`` what to do where the model has no such input."""
    return moved_across(model, given, unit, preset=preset, values=values,
                        clock=model_clock(model, preset=preset, values=values, missing=f"{need} needs a clock", give=give,
                                          instead=instead),
                        refuse=input_refusal(model, need, give, instead))


def values_at_point(model: Any, preset: str | None, values: Mapping[str, Any], *, varied: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``values`` (the API's ``values=``: numbers in the declared unit, quantities or quantity strings) with a value
    given in a unit that differs from its symbol's declared one by the clock, the warp size or the SM count
    (``mem_lat="290.679 ns"`` for a symbol in cycles, ``theta_target="7.652 B/cycle/SM"`` for one in GB/s) moved
    across them at the point (:func:`moved_at_point`), as the command line's ``--set`` is: the API had refused
    ``mem_lat="290.679 ns"`` (round 14a, F5) and both had refused the SM count's and the warp size's (round 15a, R3).
    ``varied``: the inputs that vary in the question (a variable, a sweep's axes), each with how it was asked
    (``over='clock'``): a value moved across one of them has no one value, and is refused.

    Raises:
        errors.UsageError: the value needs a rate and the model has none, or none at the point, or the rate varies.
    """
    out, varied = dict(values), dict(varied or {})
    for key, value in values.items():
        if key not in model.units or not isinstance(value, (str, pint.Quantity)):
            continue
        declared = model.units[key]
        try:  # a bare number is in the declared unit, as --set's is
            given = value if isinstance(value, pint.Quantity) else units.quantity(value, declared)
        except (ValueError, pint.errors.PintError):
            continue  # refused, or read, by the evaluation as before
        if given.dimensionality == declared.dimensionality:
            continue
        need = f"{model.id}: values {key}={value!r}: {key} is in {model.unit_text(key)}, so the value"
        others = {k: v for k, v in out.items() if k != key}

        def give(name: str, example: str) -> str:
            return f"values={{'{name}': '{example}'}}"
        instead = f"give {key} in {model.unit_text(key)}"
        found = moved_at_point(model, given, declared, preset=preset, values=others, need=need, give=give, instead=instead)
        if found is None:
            continue
        for rate in found[1]:
            if rate.name is not None and rate.name in varied:
                what = rate_word(rate.rate)
                raise errors.UsageError(f"{need} needs the {what}, and {model.id}'s {what} {rate.name} varies here "
                                        f"({varied[rate.name]}), so {key} would have no one value: give {key} in "
                                        f"{model.unit_text(key)}")
        out[key] = found[0]
    return out


def model_clock(model: Any, *, preset: str | None, values: Mapping[str, Any], missing: str,
                give: Callable[[str, str], str], instead: str) -> ClockFinder:
    """A :data:`ClockFinder` reading the model's clock at the preset and values (:func:`clock_at`); where it has none,
    or none here, it raises ``missing`` followed by what to give (``give(name, example)``; ``instead``: the model has
    no clock input)."""
    def found() -> tuple[pint.Quantity, str, str | None]:
        name, clock = clock_at(model, preset=preset, values=values, missing=missing)
        if name is None:
            raise errors.UsageError(f"{missing}: {model.id} has no clock input; {instead}")
        if clock is None:
            raise errors.UsageError(f"{missing}: give a preset with {name} or {give(name, '1.3 GHz')}")
        return clock, (f"{name} given" if name in values else f"{name} of preset {preset}"), name
    return found


def input_refusal(model: Any, need: str, give: Callable[[str, str], str], instead: str) -> Callable[[str, str | None], Exception]:
    """The refusal :func:`moved_across` raises where a rate has no value: ``need`` (what asked), then the model's input of
    that rate that has no value here and how to give it (``give(name, example)``), or ``instead`` where it has none."""
    def refusal(rate: str, name: str | None) -> Exception:
        what = rate_word(rate)
        if name is None:
            return errors.UsageError(f"{need} needs the {what}, and {model.id} has no one input in {rate}: {instead}")
        example = EXAMPLES.get(rate, "32 thread/warp")
        return errors.UsageError(f"{need} needs the {what} {name}, which has no value here: give a preset with it or "
                                 f"{give(name, example)}")
    return refusal


def inputs_in(model: Any, unit: str) -> list[str]:
    """The model's inputs and constants of ``unit``'s dimension (a derived quantity is no clock or warp size, nor is a
    number written in an equation or given with a request, made a constant: ``limit --var phi --to 2``'s ``lit_2_GHz``)."""
    dimension = units.unit(unit).dimensionality
    literal = {c.name for c in model.literal_constants}
    return [n for n, u in model.units.items() if u.dimensionality == dimension and n not in model.defining and n not in literal]


def needs_clock(value: pint.Quantity, unit: Any) -> bool:
    """Do ``value`` and ``unit`` differ by exactly cycles per time (a clock converts one into the other)?"""
    return differ_by(value, unit, "Hz")


def needs_warp_size(value: pint.Quantity, unit: Any) -> bool:
    """Do ``value`` and ``unit`` differ by exactly threads per warp (warps per SM in threads per SM)?"""
    return differ_by(value, unit, WARP_SIZE)


def warp_size_at(model: Any, *, preset: str | None, values: Mapping[str, Any]) -> tuple[str | None, pint.Quantity | None]:
    """The model's warp size symbol (its one input in thread/warp; None where it has none or several)
    and its value at the preset and values (None where it has none there): the caller says what to give."""
    return one_input_at(model, WARP_SIZE, preset=preset, values=values)


def one_input_at(model: Any, unit: str, *, preset: str | None, values: Mapping[str, Any]) -> tuple[str | None, pint.Quantity | None]:
    """The model's one input of ``unit``'s dimension (None where it has none or several: its warp size, its SM count)
    and its value at the preset and values (None where it has none there): the caller says what to give."""
    names = inputs_in(model, unit)
    if len(names) != 1:
        return None, None
    try:
        return names[0], evaluator.evaluate_expression(model, model.symbols[names[0]], model.units[names[0]], preset=preset, values=values)
    except errors.SymgpuError:
        return names[0], None


def cycle_clock(model: Any, names: Sequence[str], missing: str) -> str | None:
    """The frequency symbol among ``names`` that counts ``model``'s cycles: the only one, or of
    several the one named ``clock``; ``None`` if the model has none.

    Raises:
        errors.UsageError: several frequency symbols and none named ``clock`` (which one counts
            the cycles cannot be told): the message names them and asks for a clock.
    """
    if len(names) <= 1:
        return names[0] if names else None
    if CYCLE_CLOCK in names:
        return CYCLE_CLOCK
    raise errors.UsageError(f"{missing}, and {model.id} has several ({', '.join(names)}) without saying which one counts its "
                            "cycles: give --clock with the one you mean, e.g. --clock '1.3 GHz'")


def clock_at(model: Any, *, preset: str | None, values: Mapping[str, Any], missing: str) -> tuple[str | None, pint.Quantity | None]:
    """The model's clock symbol (its frequency input; None where it has none) and its value at the
    preset and values (None where it has none there): the caller says what to give."""
    # inputs and constants only: a derived rate in 1/s (a model's own quantity) counts no cycles
    name = cycle_clock(model, inputs_in(model, "Hz"), missing)
    if name is None:
        return None, None
    try:
        return name, evaluator.evaluate_expression(model, model.symbols[name], model.units[name], preset=preset, values=values)
    except errors.SymgpuError:
        return name, None


def clock_unknown(model: Any, quantity: str, variable: str, substitute: Mapping[str, Any] | None, target: str) -> None:
    """Refuse a time ``target`` for ``quantity`` (in cycles) where the clock that counts its cycles
    is the unknown ``variable`` or, by ``substitute``, depends on it: converting the time at any
    fixed clock would solve a different equation (cycles = time x the preset's clock) and print a
    wrong value.

    Raises:
        errors.UsageError: the clock moves with ``variable``; the message says what to ask instead.
    """
    names = inputs_in(model, "Hz")
    try:
        name = cycle_clock(model, names, "")
        candidates = [name] if name else []
    except errors.UsageError:  # several clocks and none named ``clock``: any of them may count the cycles
        candidates = names
    for clock in candidates:
        how = _moved(model, clock, variable, substitute)
        if how is None:
            continue
        timed = [t for t, eq in model.defining.items() if model.units[t].dimensionality == units.unit("s").dimensionality
                 and eq.rhs.free_symbols == {model.symbols[quantity], model.symbols[clock]}]
        instead = f"solve {timed[0]} (the time {quantity}/{clock}) for {variable}, or " if timed else ""
        raise errors.UsageError(
            f"target {target!r}: {quantity} is in {model.unit_text(quantity)}, and a time becomes cycles only through the clock "
            f"{clock}, which {how}: at a fixed clock the target would be wrong for every other {variable}; "
            f"{instead}give the target in {model.unit_text(quantity)}")


def warp_size_unknown(model: Any, quantity: str, variable: str, substitute: Mapping[str, Any] | None, target: str) -> None:
    """Refuse a ``target`` in warps for ``quantity`` in threads (or the reverse) where the warp size
    is the unknown ``variable`` or, by ``substitute``, depends on it: converted at any fixed warp
    size, the target would be wrong for every other value of ``variable``.

    Raises:
        errors.UsageError: the warp size moves with ``variable``; the message says what to give instead.
    """
    _input_unknown(model, WARP_SIZE, "warps and threads differ by the warp size", "warp size", quantity, variable, substitute, target)


def sm_count_unknown(model: Any, quantity: str, variable: str, substitute: Mapping[str, Any] | None, target: str) -> None:
    """Refuse a per-SM ``target`` for a whole-chip ``quantity`` (or the reverse) where the SM count (the model's one
    input in SM) is the unknown ``variable`` or, by ``substitute``, depends on it, as :func:`warp_size_unknown` does.

    Raises:
        errors.UsageError: the SM count moves with ``variable``; the message says what to give instead.
    """
    _input_unknown(model, "SM", "per-SM and whole-chip values differ by the SM count", "SM count", quantity, variable, substitute, target)


def _input_unknown(model: Any, unit: str, between: str, what: str, quantity: str, variable: str,
                   substitute: Mapping[str, Any] | None, target: str) -> None:
    names = inputs_in(model, unit)
    name = names[0] if len(names) == 1 else None
    how = None if name is None else _moved(model, name, variable, substitute)
    if how is not None:
        raise errors.UsageError(
            f"target {target!r}: {quantity} is in {model.unit_text(quantity)}, and {between} "
            f"{name}, which {how}: at a fixed {what} the target would be wrong for every other {variable}; "
            f"give the target in {model.unit_text(quantity)}")


def _moved(model: Any, name: str, variable: str, substitute: Mapping[str, Any] | None) -> str | None:
    """How the input ``name`` moves with the unknown ``variable`` ("is the unknown", or through
    ``substitute``); None where it does not."""
    if name == variable:
        return "is the unknown"
    if variable in _reached(model, name, substitute or {}):
        return f"depends on the unknown {variable} (--substitute {name}=...)"
    return None


def _reached(model: Any, name: str, substitute: Mapping[str, Any]) -> set[str]:
    """The names ``name``'s substitution reaches, through the substitutions of the names in it in turn (text parsed
    by the model's safe parser; one that does not parse is refused here, not read as reaching nothing)."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        value = substitute.get(todo.pop())
        if isinstance(value, str):
            value = model.parse(value, f"--substitute {name}")
        for found in {s.name for s in getattr(value, "free_symbols", ())} - seen:
            seen.add(found)
            todo.append(found)
    return seen
