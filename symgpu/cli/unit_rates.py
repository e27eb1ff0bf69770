"""``--unit`` across the SM count, and across it together with the clock or the warp size: a value per SM
(``winst/cycle/SM``) asked per GPU (``winst/us``), or per GPU asked per SM per cycle (``B/cycle/SM`` for Volkov's
``theta_loaded`` in GB/s). The SM count is the model's one input in SM (``SMs``, ``n_SM``) at the point; each rate
used is said on stderr, as the clock and the warp size are (:mod:`symgpu.cli.common`). A ``--target`` across them
is :mod:`symgpu.derive.targets`'."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import pint

from symgpu import errors, units
from symgpu.evaluate import clocks


def across_sms(model: Any, value: pint.Quantity, unit: Any, *, preset: str | None, values: Mapping[str, Any],
               problem: errors.UsageError, clock: Callable[[], pint.Quantity]) -> pint.Quantity:
    """``value`` moved across the model's SM count (and its clock or warp size where the units need them too)
    towards ``unit``, each rate said on stderr; ``clock`` finds the clock (it raises saying what to give).

    Raises:
        errors.UsageError: ``problem`` where no SM count moves it; what to give where a rate has no value here.
    """
    powers = clocks.exponents(value, unit)
    if powers is None:
        raise problem from None
    rates = {"SM": _input_at(model, "SM", preset, values, problem),
             clocks.WARP_SIZE: _input_at(model, clocks.WARP_SIZE, preset, values, problem) if clocks.WARP_SIZE in powers else None}
    moved_by = []
    for rate, power in powers.items():
        found = clock() if rate == "Hz" else rates[rate]
        assert found is not None
        moved_by.append((found, power))
    return units.moved(value, unit, moved_by)


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
