"""A whitelist parser for quantity and unit text (``"320.3 GB/s"``, ``"cycle*SM/winst"``).

Quantity text comes from model files and the command line, so it is untrusted. pint's own
string parser evaluates what it reads (``"10**10**10 TFLOP/s"`` computes the power and
hangs), so symgpu never hands raw text to it. This module reads the text with a small
recursive-descent grammar instead::

    expression := term (('*' | '/' | <juxtaposition>) term)*
    term       := factor ('**' exponent)?
    exponent   := ['+' | '-'] integer  |  '(' ['+' | '-'] integer ')'      (|exponent| <= 64)
    factor     := ['+' | '-'] (number | unit name | '(' expression ')')
    number     := decimal or scientific literal (at most 40 characters), 'nan', 'inf'

and builds the pint quantity from the parsed parts: the magnitude as exact arithmetic on
the printed literals (bounded in size at every step) and the unit as a
:class:`pint.util.UnitsContainer` of names the registry resolves one by one. Nothing is
evaluated that the grammar did not build; every limit below is checked before work is done.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

#: Longest quantity or unit text accepted (the longest bundled one has 28 characters).
MAX_LENGTH = 256
#: Longest numeric literal (digits, point, exponent) accepted.
MAX_NUMBER = 40
#: Largest absolute decimal exponent written in a literal (``1e300``).
MAX_LITERAL_EXPONENT = 330
#: Largest absolute power (``s**-2``).
MAX_POWER = 64
#: Deepest parenthesis nesting.
MAX_DEPTH = 8
#: Longest unit name.
MAX_NAME = 40
#: Largest size, in bits, of the numerator or denominator of an intermediate magnitude.
MAX_BITS = 2048

NON_FINITE = {"nan": math.nan, "inf": math.inf, "infinity": math.inf}
_TOKEN = re.compile(
    r"(?P<space>[ \t]+)"
    r"|(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_\u00b5][A-Za-z0-9_\u00b5]*)"
    r"|(?P<op>\*\*|[*/()+-])"
)
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)$")

Magnitude = Union[Fraction, float]


class GrammarError(ValueError):
    """The text is outside the quantity grammar; ``column`` is 1-based (0 when not local)."""

    def __init__(self, problem: str, column: int = 0) -> None:
        super().__init__(problem)
        self.problem = problem
        self.column = column


@dataclass(frozen=True)
class Parsed:
    """A quantity text read into parts.

    Attributes:
        magnitude: the number: an ``int`` when every literal is an integer and nothing is
            divided or raised to a negative power (``"32 thread"``), a ``float`` otherwise
            (``"32 thread/warp"``), as pint's arithmetic gave; NaN or infinite when the text says so.
        units: unit name as written -> power (``{"GB": 1, "s": -1}``); empty for a number.
        names: the unit names in order of appearance, as written.
        exact: the number in exact arithmetic on the literals as written (``"1/33"`` is 1/33, not the double
            ``magnitude``); None where the text says NaN or an infinity.
    """

    magnitude: int | float
    units: tuple[tuple[str, int], ...] = ()
    names: tuple[str, ...] = field(default=())
    exact: Fraction | None = None


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    column: int


@dataclass
class _Value:
    magnitude: Magnitude
    units: dict[str, int]

    def times(self, other: _Value, sign: int, column: int) -> _Value:
        units = dict(self.units)
        for name, power in other.units.items():
            units[name] = units.get(name, 0) + sign * power
            if units[name] == 0:
                del units[name]
        if sign > 0:
            return _Value(_checked(self.magnitude * other.magnitude, column), units)
        if other.magnitude == 0:
            if isinstance(other.magnitude, float) or isinstance(self.magnitude, float):
                return _Value(math.nan if self.magnitude == 0 else math.copysign(math.inf, self.magnitude), units)
            raise GrammarError("division by zero", column)
        return _Value(_checked(self.magnitude / other.magnitude, column), units)

    def power(self, exponent: int, column: int) -> _Value:
        magnitude = self.magnitude
        if isinstance(magnitude, Fraction):
            bits = max(magnitude.numerator.bit_length(), magnitude.denominator.bit_length())
            if bits * abs(exponent) > MAX_BITS:
                raise GrammarError(f"the number is too large (over {MAX_BITS} bits)", column)
            if magnitude == 0 and exponent < 0:
                raise GrammarError("division by zero", column)
            result: Magnitude = magnitude**exponent
        else:
            try:
                result = magnitude**exponent
            except (OverflowError, ZeroDivisionError):
                result = math.inf
        return _Value(result, {name: power * exponent for name, power in self.units.items()})


def parse(text: str) -> Parsed:
    """Read a quantity or unit text.

    Args:
        text: e.g. ``"320.3 GB/s"``, ``"(104.866219/27) GB/s"``, ``"cycle*SM/winst"``, ``"2 /cycle"``.

    Returns:
        The magnitude and the unit names with their powers (names are not resolved here).

    Raises:
        GrammarError: the text is too long, uses a character or construct outside the
            grammar, or a number outside the limits.
    """
    if len(text) > MAX_LENGTH:
        raise GrammarError(f"text is {len(text)} characters long (limit {MAX_LENGTH})")
    tokens = _tokens(text)
    if not tokens:
        raise GrammarError("empty quantity")
    reader = _Reader(tokens, len(text))
    value = reader.expression(0)
    if reader.position < len(tokens):
        token = tokens[reader.position]
        raise GrammarError(f"unexpected '{token.text}'", token.column)
    floating = reader.divided or any(t.kind == "number" and not t.text.isdigit() or t.kind == "special" for t in tokens)
    magnitude = value.magnitude
    if isinstance(magnitude, Fraction) and (floating or magnitude.denominator != 1):
        try:
            out: int | float = float(magnitude)
        except OverflowError:
            raise GrammarError("the number is out of range (beyond 1.8e308)") from None
    elif isinstance(magnitude, Fraction):
        out = int(magnitude)
    else:
        out = float(magnitude)
    names = tuple(t.text for t in tokens if t.kind == "name")
    return Parsed(out, tuple(value.units.items()), names, magnitude if isinstance(magnitude, Fraction) else None)


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        column = position + 1
        if match is None:
            char = text[position]
            if char == "%":  # 75 %, --unit %: the unit percent, as profilers print occupancy
                tokens.append(_Token("name", "percent", column))
                position += 1
                continue
            if char == "^":
                raise GrammarError("'^' is not a power; write powers with '**'", column)
            if char == ",":
                raise GrammarError("',' is not allowed; write numbers without thousands separators", column)
            raise GrammarError(f"character {char!r} is not allowed (numbers, unit names, * / ** and parentheses only)", column)
        kind, piece = match.lastgroup or "", match.group()
        position = match.end()
        if kind == "space":
            continue
        if kind == "number":
            _check_number(piece, column)
        if kind == "name":
            if piece.lower() in NON_FINITE:
                kind = "special"
            elif len(piece) > MAX_NAME:
                raise GrammarError(f"unit name of {len(piece)} characters (limit {MAX_NAME})", column)
        tokens.append(_Token(kind, piece, column))
    return tokens


def _check_number(piece: str, column: int) -> None:
    if len(piece) > MAX_NUMBER:
        raise GrammarError(f"number of {len(piece)} characters (limit {MAX_NUMBER})", column)
    exponent = _EXPONENT.search(piece)
    if exponent and abs(int(exponent.group(1))) > MAX_LITERAL_EXPONENT:
        raise GrammarError(f"exponent {exponent.group(1)} is out of range (limit {MAX_LITERAL_EXPONENT})", column)


def _checked(magnitude: Magnitude, column: int) -> Magnitude:
    if isinstance(magnitude, Fraction) and max(magnitude.numerator.bit_length(), magnitude.denominator.bit_length()) > MAX_BITS:
        raise GrammarError(f"the number is too large (over {MAX_BITS} bits)", column)
    return magnitude


class _Reader:
    """Recursive descent over the token list; depth is bounded by :data:`MAX_DEPTH`."""

    def __init__(self, tokens: list[_Token], length: int) -> None:
        self.tokens = tokens
        self.position = 0
        self.end = length + 1
        #: a '/' or a negative power was read (the magnitude is then a float, as in pint)
        self.divided = False

    def peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.peek()
        if token is None:
            raise GrammarError("the text ends too early", self.end)
        self.position += 1
        return token

    def expression(self, depth: int) -> _Value:
        value = self.term(depth)
        while True:
            token = self.peek()
            if token is None or token.text == ")":
                return value
            sign = 1
            if token.text in ("*", "/"):
                self.position += 1
                sign = -1 if token.text == "/" else 1
                self.divided = self.divided or sign < 0
            elif token.kind not in ("number", "name", "special") and token.text != "(":
                raise GrammarError(f"unexpected '{token.text}'", token.column)
            value = value.times(self.term(depth), sign, token.column)

    def term(self, depth: int) -> _Value:
        value = self.factor(depth)
        token = self.peek()
        if token is not None and token.text == "**":
            self.position += 1
            exponent = self.exponent()
            self.divided = self.divided or exponent < 0
            value = value.power(exponent, token.column)
            after = self.peek()
            if after is not None and after.text == "**":
                raise GrammarError("a power of a power is not allowed; an exponent is a small integer", after.column)
        return value

    def exponent(self) -> int:
        token = self.take()
        closing = token.text == "("
        if closing:
            token = self.take()
        sign = 1
        if token.text in ("+", "-"):
            sign = -1 if token.text == "-" else 1
            token = self.take()
        if token.kind != "number" or not token.text.isdigit():
            raise GrammarError(f"exponent '{token.text}' is not an integer", token.column)
        exponent = sign * int(token.text)
        if abs(exponent) > MAX_POWER:
            raise GrammarError(f"exponent {exponent} is too large (limit {MAX_POWER})", token.column)
        if closing:
            end = self.take()
            if end.text != ")":
                raise GrammarError(f"expected ')' after the exponent, found '{end.text}'", end.column)
        return exponent

    def factor(self, depth: int) -> _Value:
        token = self.take()
        if token.text in ("+", "-"):
            value = self.factor(depth)
            return _Value(-value.magnitude, value.units) if token.text == "-" else value
        if token.kind == "number":
            return _Value(Fraction(token.text), {})
        if token.kind == "special":
            return _Value(NON_FINITE[token.text.lower()], {})
        if token.kind == "name":
            return _Value(Fraction(1), {token.text: 1})
        if token.text == "(":
            if depth >= MAX_DEPTH:
                raise GrammarError(f"parentheses nested more than {MAX_DEPTH} deep", token.column)
            value = self.expression(depth + 1)
            end = self.take()
            if end.text != ")":
                raise GrammarError(f"expected ')', found '{end.text}'", end.column)
            return value
        raise GrammarError(f"unexpected '{token.text}'", token.column)
