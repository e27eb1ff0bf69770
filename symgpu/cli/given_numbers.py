"""Numbers the command line brings into a derivation for a symbol declared in a scaled unit (ns, us,
GB/s, KiB), given that unit at the door: an ``--assume`` bound (``L >= 400``), a ``--substitute
NAME=NUMBER`` and a ``limit --to NUMBER``, each made the model's constant of that value and unit
(``lit_400_ns``, :meth:`symgpu.model.build.Model.given_constant`), as a model file's bare literal is
(:mod:`symgpu.model.literal_constants`). Every path then reads it in that unit: the symbolic answer
keeps it (``inflight/lit_400_ns``, not ``2500000*inflight``), and its check agrees (an outside
tester's findings, round 11b, F1, F11, F12, F9).

A ``--substitute`` value and a ``--to`` point may be a quantity (``500 ns``, ``0.5 us``, ``100 block``),
read by the unit grammar and converted exactly to the declared unit (another dimension refused).
A number for a symbol declared in a unit of scale 1 (cycle, warp, block, a pure number) is passed on
as it was given: there every reading of a bare number is the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import sympy

from symgpu.cli import assume_units
from symgpu.proofs import forms
from symgpu.units import literal_units

if TYPE_CHECKING:
    from symgpu.model import Model


def assumed(model: Model, texts: Iterable[str]) -> list[str]:
    """Each ``--assume`` text, a quantity side in the declared unit (:mod:`.assume_units`), and each bare number
    that its siblings read in a scaled unit made a constant of that unit (``L >= lit_400_ns``)."""
    return [model.given_relation(text, "assume") for text in assume_units.in_declared_units(model, texts)]


def substituted(model: Model, given: Mapping[str, str]) -> dict[str, str]:
    """Each ``--substitute`` value that is a number or a quantity, in the declared unit of the symbol it replaces."""
    return {name: _value(model, name, text, f"--substitute '{name}={text}'") for name, text in given.items()}


def limit_point(model: Model, variable: str, text: str) -> str:
    """``limit --to``: a number or a quantity, in ``variable``'s declared unit; other texts (oo, an expression) as given."""
    return _value(model, variable, text, f"--to '{text}'")


def _value(model: Model, name: str, text: str, said: str) -> str:
    declared = model.units.get(name)
    if declared is None:
        return text  # not a symbol of the model: refused, or read, as before
    if assume_units.is_quantity(model, text):
        number = assume_units.declared_number(model, name, text, said)
    else:
        try:
            number = forms.exact_number(text)
        except (TypeError, ValueError, ZeroDivisionError):
            return text  # an expression: read as before
        if not isinstance(number, sympy.Rational):
            return text
    if number == 0 or literal_units.same_scale(literal_units.literal_scale(declared), 1.0):
        return text if not assume_units.is_quantity(model, text) else _plain(number)
    return sympy.sstr(model.given_constant(number, declared))


def _plain(number: sympy.Rational) -> str:
    return sympy.sstr(number) if number.q == 1 else f"({number.p}/{number.q})"
