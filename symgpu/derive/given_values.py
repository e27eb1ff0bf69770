"""Values given at a question's point (``--set``, ``values=``) for quantities that equations define, against the
quantities a derivation keeps as symbols (``--keep``, ``stop_at``): a kept quantity with a value that depends on the
variable asked about is refused, and a defined quantity given a value is kept, so the answer holds it at that value as
its check (and ``eval``) does."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from symgpu import errors
from symgpu.derive.certify import Asked
from symgpu.derive.options import Options
from symgpu.evaluate import input_values

if TYPE_CHECKING:
    from symgpu.model import Model


def refuse_coupled_keep(model: Model, variable: str, options: Options) -> None:
    """Refuse a kept quantity (``stop_at``, ``--keep``) given a value at the point while it depends on the
    variable asked about: held at that value it no longer moves with the variable, and the answer would be
    about another function than the model's (an extremum over alpha with Latency fixed, though Latency = f(alpha)).

    Raises:
        errors.UsageError: names the kept quantity, the variable it depends on and what to do.
    """
    if not variable or not options.stop_at or not options.at_a_point:
        return
    valued = set(input_values.merge_values(model, options.preset, dict(options.at or {}))) | set(options.substitutions or {})
    for name in options.stop_at:
        if name in model.defining and name != variable and name in valued \
                and variable in model.inputs(name, stop_at=tuple(n for n in options.stop_at if n != name)):
            raise errors.UsageError(
                f"{model.id}: {name} is kept (stop_at, --keep) and given a value, but {name} depends on {variable}, the "
                f"variable asked about: held at that value it would not move with {variable}, and the answer would not be the "
                f"model's; do not keep {name} (let its equation in), or keep it without a value so it stays a symbol")


def keep_given_quantities(model: Model, asked: Asked, options: Options) -> Options:
    """``options`` with each quantity an equation defines that is given a value at the point (``--set S_Mem=10``) kept as a
    symbol, so the answer holds it at that value as the check does (``eval``'s ``--set`` replaces its equation; expanded
    here, the answer was another function than the one checked, refused as a closed form that disagrees with evaluate).

    Raises:
        errors.UsageError: a quantity given a value depends on the variable asked about (held fixed, it would not move
            with the variable: the answer would not be the model's).
    """
    given = [n for n in (options.at or {}) if n in model.defining and n not in options.stop_at and n != asked.quantity]
    for name in given:
        if asked.variable and asked.variable in model.inputs(name, stop_at=options.stop_at):
            raise errors.UsageError(
                f"{model.id}: {name} is given a value (--set, values=), but {name} depends on {asked.variable} (its equation "
                f"{model.equation_for(name).definition.id} and those it reads), the variable asked about: held at that value it would not move with "
                f"{asked.variable}, and the answer would not be the model's; drop {name}'s value (let its equation in), or "
                f"give the inputs it is computed from")
    return dataclasses.replace(options, stop_at=options.stop_at + tuple(given)) if given else options
