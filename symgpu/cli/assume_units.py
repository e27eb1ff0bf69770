"""``--assume`` relations with a quantity on one side (``L <= 1 us``), read as the bare number of the
symbol's declared unit that a relation's number is (``L <= 1000`` where L is declared in ns).

The quantity is read by the unit grammar that ``--set`` and ``--target`` use (:mod:`symgpu.units.grammar`),
never by ``eval``/``sympify``; its number is taken as the decimal given and converted exactly (an outside
tester's finding, round 10, F8: such a relation was a parse error that did not say how a bare number is read).
A quantity across the clock, the warp size or the SM count (``mem_lat <= 700 ns`` for a symbol in cycles) is moved at
the request's point (:class:`Point`) as ``--set`` moves one, and said on stderr; where no rate is known there, refused
naming the rate to give (round 34g: it was refused as another dimension, while ``--set`` and ``--target`` converted it).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pint
import sympy

from symgpu import errors
from symgpu.evaluate import clocks
from symgpu.units import grammar, quantities

#: the relation operators an --assume text may hold (the longer ones first)
_RELATION = re.compile(r"(<=|>=|==|!=|<|>)")
#: a side that begins with a number (a quantity text: ``1 us``, ``-2.5e3 GB/s``, ``(1/3) us``)
_NUMBER_FIRST = re.compile(r"^[-+]?\s*(?:[0-9.]|\()")


@dataclass(frozen=True)
class Point:
    """Where a quantity given across a rate (``700 ns`` for a symbol in cycles, ``1024 thread/SM`` for one in warp/SM)
    is moved to its symbol's declared unit.

    Attributes:
        preset: the request's preset.
        values: its ``--set`` values (the clock, the warp size or the SM count among them, where given).
        clock: finds the clock, given the text of what needs it (``--clock``, else the model's clock at the preset and
            values: :func:`symgpu.cli.common.clock_and_symbol`), raising what to give where none is known.
        moving: the names that have no one value at the point (the variable asked for, the ``--substitute`` names): a
            rate among them converts nothing.
    """

    preset: str | None
    values: Mapping[str, Any] = field(default_factory=dict)
    clock: Callable[[str], tuple[pint.Quantity, str, str | None]] | None = None
    moving: tuple[str, ...] = ()


def in_declared_units(model: Any, texts: Iterable[str], point: Point | None = None) -> list[str]:
    """Each ``--assume`` text, a quantity side replaced by its exact number in the other side's declared unit.

    Raises:
        errors.UsageError: a quantity beside anything but one symbol with a declared unit, of another dimension, or unreadable.
    """
    return [_one(model, str(text), point) for text in texts]


def _one(model: Any, text: str, point: Point | None) -> str:
    parts = _RELATION.split(text)
    if len(parts) != 3:
        return text  # not one relation: parsed, or refused, as before
    sides = [parts[0].strip(), parts[2].strip()]
    with_unit = [i for i, side in enumerate(sides) if is_quantity(model, side)]
    if not with_unit:
        return text
    if len(with_unit) == 2:
        raise errors.UsageError(f"--assume '{text}': both sides are quantities with units; compare a symbol with one "
                                "(--assume 'L <= 1 us')")
    index = with_unit[0]
    name, side = sides[1 - index], sides[index]
    if name not in model.symbols or name not in model.units:
        raise errors.UsageError(f"--assume '{text}': a quantity with a unit ({side}) is compared only with one symbol of the "
                                f"model, not with '{name}'; write a bare number instead, which is read in the declared unit "
                                "of the symbols beside it")
    number = declared_number(model, name, side, f"--assume '{text}'", point)
    shown = sympy.sstr(number) if number.q == 1 else f"({number.p}/{number.q})"
    out = [sides[0], sides[1]]
    out[index] = shown
    return f"{out[0]} {parts[1]} {out[1]}"


def declared_number(model: Any, name: str, side: str, said: str, point: Point | None = None) -> sympy.Rational:
    """The quantity text ``side`` (``1 us``) as the exact number of symbol ``name``'s declared unit (``1000``, ns); one
    across the clock, the warp size or the SM count moved at ``point`` (:func:`_across`).

    Raises:
        errors.UsageError: ``side`` is unreadable, or of another dimension than ``name``'s unit (``said``: where it was
            given) that no rate known at ``point`` reaches.
    """
    declared = model.units[name]
    try:
        given = quantities.quantity(side)
    except ValueError as exc:
        raise errors.UsageError(f"{said}: cannot read '{side}' as a quantity ({exc}); write a number and a unit "
                                f"(1 us), or a bare number, read in {name}'s declared unit ({model.unit_text(name)})") from None
    if given.dimensionality != quantities.registry().Quantity(1, declared).dimensionality:
        moved = _across(model, name, side, given, said, point)
        if moved is not None:
            return moved
        raise errors.UsageError(f"{said}: {side} is {quantities.format_dimension(given.dimensionality)}, but {name} is "
                                f"declared in {model.unit_text(name)} ({quantities.format_dimension(declared.dimensionality)}); "
                                f"give a quantity in a unit of that dimension, or a bare number, read in {model.unit_text(name) or 'no unit'}")
    exact = quantities.exact_magnitude(side, declared)  # 128/3 warp/SM is 128/3, not the double nearest it
    if exact is None:
        raise errors.UsageError(f"{said}: {side} is not a finite number; give a finite bound")
    return sympy.Rational(exact.numerator, exact.denominator)


def is_quantity(model: Any, side: str) -> bool:
    """Whether ``side`` is a number followed by unit names, none of them a symbol of the model."""
    if not _NUMBER_FIRST.match(side):
        return False
    try:
        parsed = grammar.parse(side)
    except grammar.GrammarError:
        return False
    return bool(parsed.names) and not any(n in model.symbols for n in parsed.names)


def _across(model: Any, name: str, side: str, given: pint.Quantity, said: str, point: Point | None) -> sympy.Rational | None:
    """``given`` (read from ``side``) moved across the rates its unit and ``name``'s declared one differ by, at ``point``,
    exactly, and said on stderr as a ``--set`` value across them is; None where no rate relates the two units (or no
    point is known: the caller refuses the dimension).

    Raises:
        errors.UsageError: a rate needed has no value at the point, the model has no one input of it, or that input is
            the variable asked for or given by ``--substitute``.
    """
    declared = model.units[name]
    if point is None or clocks.exponents(given, declared, sm=False) is None:
        return None
    exact = quantities.exact_magnitude(side, given.units)
    if exact is None:
        raise errors.UsageError(f"{said}: {side} is not a finite number; give a finite bound")
    need = f"{said}: {name} is in {model.unit_text(name)}, so {side}"
    finder, give = point.clock, (lambda n, example: f"--set '{n}={example}'")
    instead = f"give {name} in {model.unit_text(name)}"
    found = clocks.moved_across(
        model, given, declared, preset=point.preset, values=point.values,
        clock=(lambda: finder(f"{need} needs a clock")) if finder is not None else clocks.model_clock(
            model, preset=point.preset, values=point.values, missing=f"{need} needs a clock", give=give, instead=instead),
        refuse=clocks.input_refusal(model, need, give, instead))
    if found is None:
        return None
    _, used = found
    for rate in used:
        if rate.name is not None and rate.name in point.moving:
            raise errors.UsageError(f"{need} is converted across the {clocks.rate_word(rate.rate)} {rate.name}, which has no "
                                    f"one value here (it is the variable, or given by --substitute): give {name} in "
                                    f"{model.unit_text(name)}")
    factor = quantities.moved_factor(given.units, declared, [(rate.value, rate.power) for rate in used])
    number = sympy.Rational(exact.numerator, exact.denominator) * sympy.Rational(factor.numerator, factor.denominator)
    shown = sympy.sstr(number) if number.q == 1 else f"{float(number):.10g}"
    print(f"symgpu: note: {side} = {shown} {model.unit_text(name)} for {name} at "
          f"{' and '.join(rate.said for rate in used)} ({said.split(':')[0]})", file=sys.stderr)
    return number

