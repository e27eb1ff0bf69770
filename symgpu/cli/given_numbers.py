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

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from symgpu.cli import assume_units
from symgpu.proofs import forms
from symgpu.units import literal_units

if TYPE_CHECKING:
    from symgpu.model import Model


@dataclass(frozen=True)
class Given:
    """A request's numbers in their declared units.

    Attributes:
        model: the model asked, or its copy (:meth:`Model.for_request`) holding the constants made here.
        assume: the ``--assume`` texts.
        substitute: the ``--substitute`` values, by name.
        to: the ``limit --to`` point (None: not a limit).
        said: (text made here, the text given) for each text that changed, and (constant, its value and unit) for each constant.
        constants: (constant, its value and unit) for each constant made here.
    """

    model: Model
    assume: list[str]
    substitute: dict[str, str]
    to: str | None
    said: tuple[tuple[str, str], ...] = ()
    constants: tuple[tuple[str, str], ...] = ()

    def readable(self, message: str) -> str:
        """``message`` (a refusal) with each text made here as the caller gave it, and a constant made here as its value
        and unit (``L <= 1 us``, ``500 ns``), not the names the derivation used (``L <= lit_1000_ns``)."""
        for made, given in self.said:
            message = re.sub(rf"(?<![\w.]){re.escape(made)}(?![\w.])", lambda _: given, message)
        return message

    def shown(self, text: str) -> str:
        """``text`` (an answer as printed) with each constant made here as the number and unit the caller gave
        (``W -> 32 warp/SM``, ``M_Write*SMs*(32 warp/SM)``), not its internal name (``lit_32_warp_per_SM``: an outside
        tester's finding, round 13b, U1); in parentheses beside an operator."""
        return spoken(text, self.constants)


def spoken(text: str, constants: Iterable[tuple[str, str]]) -> str:
    """``text`` with each of ``constants`` (name, its value and unit) as its value and unit, in parentheses beside an
    operator (:meth:`Given.shown`)."""
    for name, given in constants:
        def said(match: re.Match[str], given: str = given) -> str:
            before, after = match.string[:match.start()].rstrip()[-1:], match.string[match.end():].lstrip()[:1]
            return f"({given})" if before in ("*", "/", "^") or after in ("*", "/", "^") else given
        text = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w.])", said, text)
    return text


def target_constants(model: Model, before: Iterable[str], target: str) -> tuple[tuple[str, str], ...]:
    """The constant a ``--target`` across a rate made on ``model`` (a request's copy; :func:`symgpu.derive.targets.across_rates`:
    ``--target '865 cycle'`` for a quantity in ns is ``lit_865_cy/phi``), as :func:`spoken` shows it: the target's text
    as given (``865 cycle``); none where no constant beyond ``before`` (the names it held before the request was
    derived) was made, and each with its value and unit where, unexpectedly, several were."""
    kept = set(before)
    made = [c for c in model.literal_constants if c.name not in kept]
    if len(made) == 1:
        return ((made[0].name, " ".join(target.split())),)
    return tuple((c.name, f"{c.value} {c.unit_text}") for c in made)


def at_the_door(model: Model, assume: Iterable[str], substitute: Mapping[str, str], variable: str | None,
                to: str | None) -> Given:
    """The request's ``--assume`` texts (a quantity side in the declared unit, :mod:`.assume_units`, and each bare
    number that its siblings read in a scaled unit made a constant of that unit: ``L >= lit_400_ns``), its
    ``--substitute`` values and its ``limit --to`` point (a number or a quantity, in the declared unit of the
    symbol it is given for), on a copy of the model where a constant was made."""
    door = _Door(model)
    given = list(assume)
    texts = [door.relation(text) for text in assume_units.in_declared_units(model, given)]
    values = {name: door.value(name, text, f"--substitute '{name}={text}'", dimension=True) for name, text in substitute.items()}
    point = door.value(variable, to, f"--to '{to}'", dimension=True) if to is not None and variable else to
    said = [(made, text) for made, text in zip(texts, given) if made != text]
    constants = [(c.name, f"{c.value} {c.unit_text}") for c in door.model.literal_constants if not c.equations] if door.copied else []
    return Given(door.model, texts, values, point, tuple(said + constants), tuple(constants))


class _Door:
    """The model, copied the first time a number needs a constant of its own."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.copied = False

    def _own(self) -> Model:
        if not self.copied:
            self.model, self.copied = self.model.for_request(), True
        return self.model

    def relation(self, text: str) -> str:
        if self.model.given_relation(text, "assume", dry=True) == text:
            return text
        return self._own().given_relation(text, "assume")

    def value(self, name: str, text: str, said: str, *, dimension: bool = False) -> str:
        """``text`` in ``name``'s declared unit; a constant of it where that unit is scaled, or (``dimension``: a limit's
        point, which the limit's unit check must see in its unit) where it has a dimension."""
        declared = self.model.units.get(name)
        if declared is None:
            return text  # not a symbol of the model: refused, or read, as before
        quantity = assume_units.is_quantity(self.model, text)
        if quantity:
            number = assume_units.declared_number(self.model, name, text, said)
        else:
            try:
                number = forms.exact_number(text)
            except (TypeError, ValueError, ZeroDivisionError):
                return text  # an expression: read as before
            if not isinstance(number, sympy.Rational):
                return text
        if number == 0 or literal_units.same_scale(literal_units.literal_scale(declared), 1.0) and not (
                dimension and not declared.dimensionless):
            return _plain(number) if quantity else text  # every reading of a bare number is the same
        return sympy.sstr(self._own().given_constant(number, declared))


def _plain(number: sympy.Rational) -> str:
    return sympy.sstr(number) if number.q == 1 else f"({number.p}/{number.q})"
