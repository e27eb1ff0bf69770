"""``--unit`` across the SM count or the schedulers per SM, and across them together with the clock or the warp size: a
value per scheduler (Volkov's ``op/cycle/sched``) asked per SM, or per SM
(``winst/cycle/SM``) asked per GPU (``winst/us``), or per GPU asked per SM per cycle (``B/cycle/SM`` for Volkov's
``theta_loaded`` in GB/s). The SM count is the model's one input in SM (``SMs``, ``n_SM``) at the point; each rate
used is said on stderr, as the clock and the warp size are (:mod:`symgpu.cli.common`). A ``--target`` across them
is :mod:`symgpu.derive.targets`'."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import pint

from symgpu import errors
from symgpu.evaluate import clocks


def across_sms(model: Any, value: pint.Quantity, unit: Any, *, preset: str | None, values: Mapping[str, Any],
               problem: errors.UsageError, clock: Callable[[], pint.Quantity]) -> pint.Quantity:
    """``value`` moved across the model's SM count (and its clock or warp size where the units need them too)
    towards ``unit``, each rate said on stderr; ``clock`` finds the clock (it raises saying what to give).

    Raises:
        errors.UsageError: ``problem`` where no SM count moves it; what to give where a rate has no value here.
    """
    def refusal(rate: str, name: str | None) -> errors.UsageError:
        if name is None and rate == clocks.SCHEDULERS:  # why, and what to ask instead
            return errors.UsageError(f"{problem}: per scheduler and per SM differ by the schedulers per SM, and {model.id} "
                                     f"has no one input in {rate} to convert at; ask in the value's own unit, or give the model one")
        if name is None:
            return problem
        what, where = clocks.rate_word(rate), f"not in preset '{preset}'" if preset else "no preset given"
        return errors.UsageError(f"{problem}, except across the model's {what} {name}, which has no value here ({where}): "
                                 f"give --set {name}=... or a preset with it")

    found = clocks.moved_across(model, value, unit, preset=preset, values=values, clock=lambda: (clock(), "", None),
                                refuse=refusal, sm=True)
    if found is None:
        raise problem from None
    moved, used = found
    for rate in used:
        if rate.rate != "Hz":
            what = {"SM": "per-SM values", clocks.SCHEDULERS: "per-scheduler values"}.get(rate.rate, "warps")
            print(f"symgpu: note: {what} converted at {rate.name} = "
                  f"{rate.value:~.10g}", file=sys.stderr)
    return moved
