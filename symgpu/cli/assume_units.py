"""``--assume`` relations with a quantity on one side (``L <= 1 us``), read as the bare number of the
symbol's declared unit that a relation's number is (``L <= 1000`` where L is declared in ns).

The quantity is read by the unit grammar that ``--set`` and ``--target`` use (:mod:`symgpu.units.grammar`),
never by ``eval``/``sympify``; its number is taken as the decimal given and converted exactly (an outside
tester's finding, round 10, F8: such a relation was a parse error that did not say how a bare number is read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import sympy

from symgpu import errors
from symgpu.units import grammar, quantities

#: the relation operators an --assume text may hold (the longer ones first)
_RELATION = re.compile(r"(<=|>=|==|!=|<|>)")
#: a side that begins with a number (a quantity text: ``1 us``, ``-2.5e3 GB/s``, ``(1/3) us``)
_NUMBER_FIRST = re.compile(r"^[-+]?\s*(?:[0-9.]|\()")


def in_declared_units(model: Any, texts: Iterable[str]) -> list[str]:
    """Each ``--assume`` text, a quantity side replaced by its exact number in the other side's declared unit.

    Raises:
        errors.UsageError: a quantity beside anything but one symbol with a declared unit, of another dimension, or unreadable.
    """
    return [_one(model, str(text)) for text in texts]


def _one(model: Any, text: str) -> str:
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
    number = declared_number(model, name, side, f"--assume '{text}'")
    shown = sympy.sstr(number) if number.q == 1 else f"({number.p}/{number.q})"
    out = [sides[0], sides[1]]
    out[index] = shown
    return f"{out[0]} {parts[1]} {out[1]}"


def declared_number(model: Any, name: str, side: str, said: str) -> sympy.Rational:
    """The quantity text ``side`` (``1 us``) as the exact number of symbol ``name``'s declared unit (``1000``, ns).

    Raises:
        errors.UsageError: ``side`` is unreadable, or of another dimension than ``name``'s unit (``said``: where it was given).
    """
    declared = model.units[name]
    try:
        given = quantities.quantity(side)
    except ValueError as exc:
        raise errors.UsageError(f"{said}: cannot read '{side}' as a quantity ({exc}); write a number and a unit "
                                f"(1 us), or a bare number, read in {name}'s declared unit ({model.unit_text(name)})") from None
    if given.dimensionality != quantities.registry().Quantity(1, declared).dimensionality:
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
