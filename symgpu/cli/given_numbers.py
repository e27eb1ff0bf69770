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

from symgpu import errors
from symgpu.cli import assume_units
from symgpu.model import literal_constants
from symgpu.proofs import forms
from symgpu.units import grammar, literal_units, quantities

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.model.literal_constants import LiteralConstant


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
        and unit (``L <= 1 us``, ``500 ns``), not the names the derivation used (``L <= lit_1000_ns``); the model's own
        literal constants as their number and unit too (:func:`model_constants`)."""
        for made, given in self.said:
            message = re.sub(rf"(?<![\w.]){re.escape(made)}(?![\w.])", lambda _: given, message)
        return spoken(message, model_constants(self.model))

    def shown(self, text: str) -> str:
        """``text`` (an answer as printed) with each constant made here as the number and unit the caller gave
        (``W -> 32 warp/SM``, ``M_Write*SMs*(32 warp/SM)``), not its internal name (``lit_32_warp_per_SM``: an outside
        tester's finding, round 13b, U1), and each of the model's own literal constants as its number and unit
        (``Uncoal_per_mw - 1 txn/warp``, not ``Uncoal_per_mw - lit_1_txn_per_warp``); in parentheses beside an operator."""
        return spoken(text, self.constants + model_constants(self.model))


def spoken(text: str, constants: Iterable[tuple[str, str]]) -> str:
    """``text`` with each of ``constants`` (name, its value and unit) as its value and unit, in parentheses beside an
    operator (:meth:`Given.shown`). A name a shortened line cuts at its ellipsis (``...*lit_1_txn_p … (247
    characters; --full for all)``) is said whole where it starts only one of the names, else left out before the cut."""
    constants = tuple(constants)
    operators = ("*", "/", "^")
    for name, given in constants:
        # a derivation's 'assuming' list says each symbol's declared sign: a number and unit's needs no saying
        text = re.sub(rf"; {re.escape(name)} positive \(declared\)|(?<![\w.]){re.escape(name)} positive \(declared\); ", "", text)

        def said(match: re.Match[str], given: str = given) -> str:
            before, after = match.string[:match.start()].rstrip()[-1:], match.string[match.end():].lstrip()[:1]
            return f"({given})" if before in operators or after in operators else given
        text = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w.])", said, text)

    def cut(match: re.Match[str]) -> str:
        starts = [given for name, given in constants if name.startswith(match[1]) and name != match[1]]
        if len(starts) != 1:
            return match[2] if starts else match[0]
        before = match.string[:match.start()].rstrip()[-1:]
        return (f"({starts[0]})" if before in operators else starts[0]) + match[2]
    return re.sub(rf"(?<![\w.])({literal_constants.PREFIX}_\w*)( ?(?:…|\.\.\.))", cut, text) if constants else text


def quantity_text(constant: LiteralConstant) -> str:
    """A literal constant (the model file's, or one a request's number made) as the reports print it, its number and unit:
    ``1 txn/warp``, ``200 ns``."""
    unit = re.sub(r"\s*/\s*", "/", constant.unit_text)
    return f"{constant.value} {unit}"


def model_constants(model: Model) -> tuple[tuple[str, str], ...]:
    """The model's own literal constants (a model file's bare literals read in its siblings' unit, made constants when
    it is built: :mod:`symgpu.model.literal_constants`), each with its number and unit (:func:`quantity_text`), as
    :func:`spoken` takes them: the engine keeps them as symbols, every text a user reads says the number and unit."""
    return tuple((c.name, quantity_text(c)) for c in model.literal_constants if c.equations)


def in_words(model: Model, text: str) -> str:
    """``text`` (an answer, a refusal, a diff) with ``model``'s literal constants as their number and unit."""
    return spoken(text, model_constants(model))


def target_constants(model: Model, before: Iterable[str], target: str) -> tuple[tuple[str, str], ...]:
    """The constant a ``--target`` across a rate made on ``model`` (a request's copy; :func:`symgpu.derive.targets.across_rates`:
    ``--target '865 cycle'`` for a quantity in ns is ``lit_865_cy/phi``), as :func:`spoken` shows it: the target's text
    as given (``865 cycle``); none where no constant beyond ``before`` (the names it held before the request was
    derived) was made, and each with its value and unit where, unexpectedly, several were."""
    kept = set(before)
    made = [c for c in model.literal_constants if c.name not in kept]
    if len(made) == 1:
        return ((made[0].name, " ".join(target.split())),)
    return tuple((c.name, quantity_text(c)) for c in made)


def at_the_door(model: Model, assume: Iterable[str], substitute: Mapping[str, str], variable: str | None,
                to: str | None, at: assume_units.Point | None = None) -> Given:
    """The request's ``--assume`` texts (a quantity side in the declared unit, :mod:`.assume_units`, and each bare
    number that its siblings read in a scaled unit made a constant of that unit: ``L >= lit_400_ns``), its
    ``--substitute`` values and its ``limit --to`` point (a number or a quantity, in the declared unit of the
    symbol it is given for), on a copy of the model where a constant was made. A quantity across the clock, the warp
    size or the SM count (``mem_lat <= 700 ns``, ``--to '400 ns'`` for a symbol in cycles) is moved at the point ``at``
    (None: refused as another dimension), as ``--set`` moves one."""
    door = _Door(model, at)
    given = list(assume)
    texts = [door.relation(text) for text in assume_units.in_declared_units(model, given, at)]
    values = {name: door.value(name, text, f"--substitute '{name}={text}'", dimension=True) for name, text in substitute.items()}
    point = door.value(variable, to, f"--to '{to}'", dimension=True) if to is not None and variable else to
    said = [(made, text) for made, text in zip(texts, given) if made != text]
    constants = [(c.name, quantity_text(c)) for c in door.model.literal_constants if not c.equations] if door.copied else []
    return Given(door.model, texts, values, point, tuple(said + constants), tuple(constants))


class _Door:
    """The model, copied the first time a number needs a constant of its own."""

    def __init__(self, model: Model, at: assume_units.Point | None = None) -> None:
        self.model = model
        self.copied = False
        self.at = at

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
            number = assume_units.declared_number(self.model, name, text, said, self.at)
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
        _refuse_huge(number, said, name, self.model.unit_text(name))  # its constant's value text must be readable
        return sympy.sstr(self._own().given_constant(number, declared))


def checked_target(text: str) -> str:
    """A ``--target`` quantity (``2 us``, a value across the clock or warp size made a constant of its own unit, :func:`symgpu.
    derive.targets.across_rates`) as the derivation takes it: refused naming ``--target`` where its number is too long to
    take exactly (``1e300 us``: it was refused as a malformed constant of the model file), and ``0`` where it is zero (a
    zero is that in every unit; ``0 us`` was refused as a constant declared positive). Any other text as it is."""
    try:
        unit = quantities.quantity(text, finite=False).units
        exact = quantities.exact_magnitude(text, unit)
    except ValueError:
        return text  # not a quantity: read (or refused) as before
    if exact is None:
        return text
    if exact == 0:
        return "0"
    _refuse_huge(sympy.Rational(exact.numerator, exact.denominator), f"--target '{text}'", "the target", f"{unit:~}")
    return text


def _refuse_huge(number: sympy.Rational, said: str, name: str, unit: str) -> None:
    """A usage error naming the option (``said``) where ``number``, written out exactly as the model's constant of it
    takes it (``1e300`` as 301 digits), is longer than a number's text may be (:data:`grammar.MAX_NUMBER` characters):
    ``--to 1e300`` was refused as a malformed constant of the model file."""
    # written out exactly: its decimal (``0.001``), or the numerator of a fraction with no finite decimal (``1/3``)
    length = len(text) if (text := literal_constants.decimal(abs(number))) is not None else len(str(abs(int(number.p))))
    if length > grammar.MAX_NUMBER:
        size = "large" if abs(number) > 1 else "small"
        far = (f", or --to {'oo' if number > 0 else '-oo'} for {name} -> {'oo' if number > 0 else '-oo'}" if size == "large"
               else ", or 0 for the point 0") if said.startswith("--to") else ""
        raise errors.UsageError(f"{said}: too {size} to take exactly ({length} characters written out in {unit}); a number is "
                                f"taken exactly, up to {grammar.MAX_NUMBER} characters written out (1e-{grammar.MAX_NUMBER - 2} to "
                                f"less than 1e{grammar.MAX_NUMBER} in size){far}")


def _plain(number: sympy.Rational) -> str:
    return sympy.sstr(number) if number.q == 1 else f"({number.p}/{number.q})"
