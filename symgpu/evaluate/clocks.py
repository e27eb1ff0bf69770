"""Values moved across a model's clock: cycles and time differ by exactly a frequency, which a model
names by its one frequency input (or, of several, the one named ``clock``: Volkov's processor clock
beside ``mem_clock``); and across its warp size: warps and threads (warps/SM and threads/SM) differ
by exactly its one input in thread/warp. Used by the command line (``--unit``, ``--clock``, a
``--target`` in a time or in warps/threads) and by :func:`symgpu.derive.checked.solve` (such a
target given through the API)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pint

from symgpu import errors, units
from symgpu.evaluate import evaluator

#: the name a model with several frequency symbols gives the clock that counts its cycles
CYCLE_CLOCK = "clock"
#: the unit of a model's warp size, the rate between its warps and threads
WARP_SIZE = "thread/warp"
#: the rates a value may be moved across, each by the model's one input of that unit (the clock: its cycle clock)
RATES = ("SM", "Hz", WARP_SIZE)


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
    """The powers (each -1, 0 or 1) of :data:`RATES` by which ``value``'s dimension exceeds ``unit``'s, the SM count
    among them where ``sm``; None where no such product does (nor where they have one dimension)."""
    ratio = (value.units / unit).dimensionality
    for powers in itertools.product((0, 1, -1), repeat=len(RATES)):
        if (sm and powers[0] == 0) or not any(powers):
            continue
        product = units.unit("1").dimensionality
        for rate, power in zip(RATES, powers):
            product = product * units.unit(rate).dimensionality ** power
        if product == ratio:
            return {rate: power for rate, power in zip(RATES, powers) if power}
    return None


def inputs_in(model: Any, unit: str) -> list[str]:
    """The model's inputs and constants of ``unit``'s dimension (a derived quantity is no clock or warp size)."""
    dimension = units.unit(unit).dimensionality
    return [n for n, u in model.units.items() if u.dimensionality == dimension and n not in model.defining]


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
