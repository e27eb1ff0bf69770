"""``--unit`` and ``--target`` across the SM count, and across it together with the clock or the warp size: a
value per SM (``winst/cycle/SM``) asked per GPU (``winst/us``), or per GPU asked per SM per cycle (``B/cycle/SM``
for Volkov's ``theta_loaded`` in GB/s). The SM count is the model's one input in SM (``SMs``, ``n_SM``) at the
point; each rate used is said on stderr (``--unit``) or on the target's note line (``--target``), as the clock
and the warp size are (:mod:`symgpu.cli.common`, :mod:`symgpu.cli.operation_commands`)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Mapping
from typing import Any

import pint
import sympy

from symgpu import errors, units
from symgpu.evaluate import clocks

#: the rates a value may be moved across, each by the model's one input of that unit (the clock: its cycle clock)
RATES = ("SM", "Hz", clocks.WARP_SIZE)


def exponents(value: pint.Quantity, unit: Any) -> dict[str, int] | None:
    """The powers (each -1, 0 or 1, the SM count among them) of :data:`RATES` by which ``value``'s dimension exceeds
    ``unit``'s, where the SM count is one of them; None where no such product does."""
    ratio = (value.units / unit).dimensionality
    for powers in itertools.product((0, 1, -1), repeat=len(RATES)):
        if powers[0] == 0:
            continue
        product = units.unit("1").dimensionality
        for rate, power in zip(RATES, powers):
            product = product * units.unit(rate).dimensionality ** power
        if product == ratio:
            return {rate: power for rate, power in zip(RATES, powers) if power}
    return None


def across_sms(model: Any, value: pint.Quantity, unit: Any, *, preset: str | None, values: Mapping[str, Any],
               problem: errors.UsageError, clock: Callable[[], pint.Quantity]) -> pint.Quantity:
    """``value`` moved across the model's SM count (and its clock or warp size where the units need them too)
    towards ``unit``, each rate said on stderr; ``clock`` finds the clock (it raises saying what to give).

    Raises:
        errors.UsageError: ``problem`` where no SM count moves it; what to give where a rate has no value here.
    """
    powers = exponents(value, unit)
    if powers is None:
        raise problem from None
    rates = {"SM": _input_at(model, "SM", preset, values, problem),
             clocks.WARP_SIZE: _input_at(model, clocks.WARP_SIZE, preset, values, problem) if clocks.WARP_SIZE in powers else None}
    for rate, power in powers.items():
        found = clock() if rate == "Hz" else rates[rate]
        assert found is not None
        value = value / found ** power
    return units.convert(value, unit)


def _input_at(model: Any, unit: str, preset: str | None, values: Mapping[str, Any], problem: errors.UsageError) -> pint.Quantity:
    """The model's one input of ``unit``'s dimension at the point, said on stderr.

    Raises:
        errors.UsageError: the model has none or several (``problem``), or it has no value here (what to give).
    """
    name, found = clocks.one_input_at(model, unit, preset=preset, values=values)
    if name is None:
        raise problem from None
    if found is None:
        what, where = "SM count" if unit == "SM" else "warp size", f"not in preset '{preset}'" if preset else "no preset given"
        raise errors.UsageError(f"{problem}, except across the model's {what} {name}, which has no value here ({where}): "
                                f"give --set {name}=... or a preset with it") from None
    print(f"symgpu: note: {'per-SM values converted' if unit == 'SM' else 'warps converted'} at {name} = {found:~.10g}",
          file=sys.stderr)
    return found


def target_across_sms(model: Any, name: str, text: str, given: pint.Quantity, *, clock: Callable[[], tuple[pint.Quantity, str]],
                      clock_given: bool, preset: str | None, values: Mapping[str, Any], variable: str,
                      substitute: Mapping[str, Any] | None) -> tuple[Any, str] | None:
    """A ``--target`` per SM for ``name``, a whole-chip quantity (or the reverse; with the clock or the warp size where
    the units need them too), moved across the model's SM count at the preset and values, as ``--unit`` moves the
    answer: (the target, the line saying how it was converted); None where no SM count relates the two units.
    The target is written over the model's own symbols (``lit_757p6_thread_per_SM*SMs``) where the number is exact
    and no ``--clock`` is given, so a closed form solved against it keeps them; ``clock`` finds the clock
    (:func:`symgpu.cli.common.find_clock`'s answer), ``clock_given``: it is ``--clock``'s.

    Raises:
        errors.UsageError: the model has no one input of a rate needed, it has no value here, or it moves with ``variable``.
    """
    unit = model.units[name]
    powers = exponents(given, unit)
    if powers is None:
        return None
    clocks.sm_count_unknown(model, name, variable, substitute, text)
    if clocks.WARP_SIZE in powers:
        clocks.warp_size_unknown(model, name, variable, substitute, text)
    value, symbolic, said = given, sympy.Integer(1), []
    for rate, power in powers.items():
        if rate == "Hz":
            found, source = clock()
            rate_name = None if clock_given else clocks.cycle_clock(model, clocks.inputs_in(model, "Hz"), "")
            said.append(f"clock {units.compact(found):~.10g} ({source})")
        else:
            what = "SM count" if rate == "SM" else "warp size"
            rate_name, at = clocks.one_input_at(model, rate, preset=preset, values=values)
            need = f"--target {text!r}: {name} is in {model.unit_text(name)}, so the target needs the {what}"
            if rate_name is None:
                raise errors.UsageError(f"{need}, and {model.id} has no one input in {rate}: give the target in {model.unit_text(name)}")
            if at is None:
                example = "132 SM" if rate == "SM" else "32 thread/warp"
                raise errors.UsageError(f"{need} {rate_name}, which has no value here: give a preset with it or --set '{rate_name}={example}'")
            found = at
            said.append(f"{what} {rate_name} = {found:~.10g}")
        value = value / found ** power
        symbolic = None if symbolic is None or rate_name is None else symbolic * model.symbols[rate_name] ** -power
    value = units.convert(value, unit)
    note = f"{text} = {value.magnitude:.10g} {model.unit_text(name)} at {' and '.join(said)}"
    exact = units.exact_magnitude(text, given.units)
    if exact is not None and symbolic is not None:  # over the model's own rates, as a target across the clock is over its clock
        return model.given_constant(sympy.Rational(exact), given.units) * symbolic, note
    return sympy.nsimplify(float(value.magnitude), rational=True), note
