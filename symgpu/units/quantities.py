"""symgpu's own pint registry, quantity parsing and dimension formatting."""

from __future__ import annotations

import copyreg
import math
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pint
from pint.util import UnitsContainer, to_units_container

from symgpu import memo
from symgpu.units import display, grammar

DEFINITIONS = Path(__file__).with_name("units.txt")


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:
    """Return the process-wide symgpu registry, built once from ``units.txt``.

    NOTE: ``UnitRegistry(None)`` starts empty (no pint defaults, so bytes are not
    dimensionless and ``cycle`` is not an angle), and ``on_redefinition="raise"`` turns a
    clash in the definitions into an error instead of a log line. Its quantities render in
    notebooks through :mod:`symgpu.units.display` (arrays included).
    """
    ureg: pint.UnitRegistry = display.Registry(None, on_redefinition="raise", autoconvert_offset_to_baseunit=False)
    ureg.load_definitions(str(DEFINITIONS))
    ureg.formatter.default_format = "~"
    # pickled into this registry, not pint's application registry (which has no ``warp``: a multiprocessing pool's
    # results could not come back); copyreg's table is read before pint's own ``__reduce__``
    copyreg.pickle(ureg.Quantity, _reduce_quantity)
    copyreg.pickle(ureg.Unit, _reduce_unit)
    return ureg


def _reduce_quantity(value: pint.Quantity) -> tuple[Any, tuple[Any, ...]]:
    return restored_quantity, (value.magnitude, tuple(value._units.items()))


def _reduce_unit(value: pint.Unit) -> tuple[Any, tuple[Any, ...]]:
    return restored_unit, (tuple(value._units.items()),)


def restored_unit(names: tuple[tuple[str, Any], ...]) -> pint.Unit:
    """A pickled unit of symgpu's registry read back: its (name, exponent) pairs, each name read by :func:`unit`."""
    out = registry().dimensionless
    for name, exponent in names:
        out = out * unit(str(name)) ** exponent
    return out


def restored_quantity(magnitude: Any, names: tuple[tuple[str, Any], ...]) -> pint.Quantity:
    """A pickled quantity of symgpu's registry read back (:func:`_reduce_quantity`, registered with copyreg)."""
    return registry().Quantity(magnitude, restored_unit(names))


def unit(text: str) -> pint.Unit:
    """Parse a unit string (``"GB/s"``, ``"thread/SM"``, ``"1"``) in the symgpu registry.

    The text is read by symgpu's own grammar (:mod:`symgpu.units.grammar`), never by pint's
    string parser.

    Raises:
        ValueError: the string names no unit of the registry, is not a pure unit, or is
            outside the grammar (too long, powers of powers, characters other than unit
            names, numbers, ``* / **`` and parentheses).
    """
    if not isinstance(text, str):
        raise ValueError(f"unit {text!r} is not a string")
    stripped = text.strip()
    if stripped in ("", "1", "dimensionless"):
        return registry().dimensionless
    parsed = _parse(stripped, "unit")
    if isinstance(parsed.magnitude, float) and not math.isfinite(parsed.magnitude):
        raise ValueError(f"unit {_shown(stripped)} contains a number that is not finite ({parsed.magnitude})")
    if parsed.magnitude != 1:
        if not parsed.names:
            raise ValueError(f"unit {_shown(stripped)} is a bare number; write '1' for dimensionless")
        raise ValueError(f"unit {_shown(stripped)} carries a factor {parsed.magnitude}; put numbers in values, not units")
    return _resolve(parsed, stripped)


def quantity(text: str | float | int, default_unit: pint.Unit | None = None, *, finite: bool = True) -> pint.Quantity:
    """Parse ``"320.3 GB/s"``; a bare number (or numeric string) takes ``default_unit``.

    The text is read by symgpu's own grammar (:mod:`symgpu.units.grammar`): a number
    (decimal or scientific, or a parenthesised product/quotient of such numbers) followed
    by a unit expression; pint's string parser never sees it.

    Args:
        text: the quantity text, or a number.
        default_unit: unit of a text without unit names (dimensionless if ``None``).
        finite: refuse NaN and infinities (``False`` lets a caller report them in context).

    Raises:
        ValueError: the text is neither a number nor a quantity of known units.
    """
    ureg = registry()
    default_unit = ureg.dimensionless if default_unit is None else default_unit
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is a boolean, not a quantity")
    if isinstance(text, (int, float)):
        if finite and not math.isfinite(text):
            raise ValueError(f"{text!r} is not a finite number")
        return ureg.Quantity(text, default_unit)
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a quantity string")
    stripped = text.strip()
    parsed = _parse(stripped, "quantity")
    if finite and not math.isfinite(parsed.magnitude):
        raise ValueError(f"quantity {_shown(stripped)} is not a finite number")
    if not parsed.names:
        # NOTE: a bare number reads as a float, as it always did ("16" -> 16.0).
        return ureg.Quantity(float(parsed.magnitude), default_unit)
    return ureg.Quantity(parsed.magnitude, _resolve(parsed, stripped))


def convert(value: pint.Quantity, to: Any) -> pint.Quantity:
    """``value`` in unit ``to``: one of the only places (with ``symgpu.evaluate``) that converts units.

    Raises:
        pint.DimensionalityError: the dimensions differ.
    """
    return value.to(to)


def magnitude_in(value: pint.Quantity, to: Any) -> Any:
    """The magnitude of ``value`` in unit ``to`` (a unit or unit text; a number or an array, as pint gives it)."""
    return value.to(to).magnitude


def factor(source: Any, to: Any) -> float:
    """How many ``to`` one ``source`` is (``factor("ms", "us") == 1000``)."""
    return float(registry().Quantity(1, source).to(to).magnitude)


def exact_convert(value: pint.Quantity, to: Any) -> pint.Quantity:
    """``value`` in unit ``to`` (a unit or unit text), each magnitude rounded once: its exact value
    (an integer or ``Fraction`` as it is; a double read as its shortest decimal, the number a
    value given as ``0.3`` means) times :func:`exact_factor`, rounded to the nearest double.
    ``0.3 us`` is exactly 300.0 ns and ``2 TB/s`` exactly 2000.0 GB/s, where pint's factors (products
    of doubles) give 299.99999999999994 and 2000.0000000000002. The conversion of input values
    (presets, ``--set``, a point's values), so a case boundary, a ``valid_when`` or a floor sees
    the number the user wrote.

    Raises:
        pint.DimensionalityError: the dimensions differ.
    """
    target = to if isinstance(to, pint.Unit) else unit(to)
    ratio = exact_factor(value.units, target)
    magnitude = value.magnitude
    if ratio == 1:
        return registry().Quantity(magnitude, target)
    if isinstance(magnitude, np.ndarray):
        flat = [_times(x, ratio) for x in magnitude.ravel().tolist()]
        return registry().Quantity(np.array(flat, dtype=float).reshape(magnitude.shape), target)
    return registry().Quantity(_times(magnitude, ratio), target)


def exact_magnitude(text: str, to: Any) -> Fraction | None:
    """The magnitude of the quantity text ``text`` (a bare number is dimensionless) in unit ``to``, exactly: the
    literals' exact arithmetic (``"1/33 winst/cycle"`` is 1/33, ``"8000000 B/(88.1 GB/s)"`` is 80000/881 us) times
    :func:`exact_factor`, never rounded to a double; None where ``to`` is None, the dimensions differ or the text says
    NaN or an infinity.

    Raises:
        ValueError: the text is outside the quantity grammar or names an unknown unit.
    """
    stripped = text.strip()
    parsed = _parse(stripped, "quantity")
    source = _resolve(parsed, stripped) if parsed.names else registry().dimensionless
    target = None if to is None else to if isinstance(to, pint.Unit) else unit(to)
    if parsed.exact is None or target is None or source.dimensionality != target.dimensionality:
        return None
    return parsed.exact * exact_factor(source, target)


def exact_factor(source: Any, to: Any) -> Fraction:
    """How many ``to`` one ``source`` is (units or unit texts), exactly: each unit name's factor to
    base units read as the decimal its definition writes (``1e-09`` for ns, ``1024`` for KiB, ``0.125``
    for bit) and multiplied out in rational arithmetic.

    Raises:
        pint.DimensionalityError: the dimensions differ.
    """
    source_unit = source if isinstance(source, pint.Unit) else unit(source)
    target_unit = to if isinstance(to, pint.Unit) else unit(to)
    key = (source_unit, target_unit)
    found = _FACTORS.get(key)
    if found is None:
        if source_unit.dimensionality != target_unit.dimensionality:
            raise pint.DimensionalityError(source_unit, target_unit, str(source_unit.dimensionality), str(target_unit.dimensionality))
        found = _FACTORS[key] = base_factor(source_unit) / base_factor(target_unit)
    return found


#: :func:`exact_factor` by (source, target) unit: every input value of a point converts through it (thousands per report)
_FACTORS: memo.Memo[tuple[pint.Unit, pint.Unit], Fraction] = memo.Memo("units.quantities.exact_factor", 4096)


def base_factor(value_unit: pint.Unit) -> Fraction:
    """How many of the registry's coherent base units one ``value_unit`` is, exactly (see :func:`exact_factor`)."""
    factor = Fraction(1)
    for name, power in to_units_container(value_unit, registry()).items():
        factor *= _name_factor(name) ** int(cast(int, power))
    return factor


@lru_cache(maxsize=256)
def _name_factor(name: str) -> Fraction:
    """One unit name's factor to base units: the shortest decimal of pint's double (a prefix times a
    unit, each written as a decimal or a power of two in ``units.txt``)."""
    return Fraction(Decimal(repr(float(registry().Quantity(1, name).to_base_units().magnitude))))


def _times(magnitude: Any, ratio: Fraction) -> Any:
    """``magnitude * ratio`` rounded once to the nearest double (see :func:`exact_convert`); a NaN or
    an infinity times the ratio as a double."""
    if isinstance(magnitude, (bool, np.bool_)):
        magnitude = int(magnitude)
    if isinstance(magnitude, (int, np.integer)):
        numerator, denominator = int(magnitude), 1
    elif isinstance(magnitude, Fraction):
        numerator, denominator = magnitude.numerator, magnitude.denominator
    else:
        number = float(magnitude)
        if not math.isfinite(number):
            return number * float(ratio)
        numerator, denominator = Decimal(repr(number)).as_integer_ratio()
    try:
        # NOTE: int / int is correctly rounded in Python: the one rounding
        return (numerator * ratio.numerator) / (denominator * ratio.denominator)
    except OverflowError:
        return math.inf if numerator > 0 else -math.inf


def in_base_units(value: pint.Quantity) -> pint.Quantity:
    """``value`` in the registry's coherent base units."""
    return cast(pint.Quantity, value.to_base_units())


def compact(value: pint.Quantity) -> pint.Quantity:
    """``value`` in the prefixed unit that shows it most readably (pint's ``to_compact``)."""
    return cast(pint.Quantity, value.to_compact())


def _parse(text: str, what: str) -> grammar.Parsed:
    try:
        return grammar.parse(text)
    except grammar.GrammarError as exc:
        at = f" at column {exc.column}" if exc.column else ""
        raise ValueError(f"cannot read {what} {_shown(text)}: {exc.problem}{at}") from None


def _resolve(parsed: grammar.Parsed, text: str) -> pint.Unit:
    """Build the pint unit from parsed names, each looked up in the registry on its own."""
    ureg = registry()
    powers: dict[str, int] = {}
    for name, power in parsed.units:
        try:
            canonical = ureg.get_name(name)
        except (pint.errors.UndefinedUnitError, ValueError):
            raise ValueError(f"unknown unit {_shown(text)} ({_unknown(name)})") from None
        powers[canonical] = powers.get(canonical, 0) + power
    container = UnitsContainer({name: power for name, power in powers.items() if power})
    return ureg.Unit(container) if container else ureg.dimensionless


def _unknown(name: str) -> str:
    """Why ``name`` is no unit and what to write: the units it may mean (``kB`` or ``KiB`` for ``KB``), the prefixes,
    and the one file (:data:`DEFINITIONS`, where it is installed) that lists every unit. Two different paths, neither
    of them a file a user of the installed package can open, had been named (an outside tester's finding, round 13c F10)."""
    prefixes, _ = _definitions()
    meant = " did you mean " + " or ".join(_meant(name)) + "?" if _meant(name) else ""
    decimal = " ".join(p for p, value in prefixes.items() if not _binary(value))
    binary = " ".join(p for p, value in prefixes.items() if _binary(value))
    return (f"'{name}' is not a unit symgpu knows:{meant} prefixes are {decimal} (powers of 10) and {binary} (powers of 2, "
            f"for bytes and bits); every unit and prefix is listed in {DEFINITIONS}")


def _binary(value: str) -> bool:
    """Is the prefix value written in units.txt (``1e3``, ``2**10``) a power of 2?"""
    return value.startswith("2**")


def _meant(name: str, limit: int = 4) -> list[str]:
    """Units of the registry ``name`` may mean: a prefix and a unit in another case (``kB`` for ``KB``), or the binary
    prefix of the same letter (``KiB``)."""
    prefixes, names = _definitions()
    found: list[str] = []
    for cut in range(len(name)):
        head, tail = name[:cut], name[cut:]
        exact = [symbol for alias, symbol in names if alias == tail]
        for symbol in exact or [symbol for alias, symbol in names if alias.lower() == tail.lower()]:
            information = registry().Unit(symbol).dimensionality == registry().Unit("B").dimensionality
            found += [p + symbol for p, value in prefixes.items() if (information or not _binary(value))
                      and head.lower() in (p.lower(), p.lower()[:-1] if _binary(value) else None)]
            found += [symbol] if not head else []
    return [unit for unit in dict.fromkeys(found) if unit != name][:limit]


@lru_cache(maxsize=1)
def _definitions() -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    """The prefixes of ``units.txt`` (symbol -> its value as written, ``1e3`` or ``2**10``) and its units' names,
    symbols and aliases, each with the unit's symbol, in file order."""
    prefixes: dict[str, str] = {}
    names: list[tuple[str, str]] = []
    for line in DEFINITIONS.read_text(encoding="utf-8").splitlines():
        parts = [part.strip() for part in line.split("#", 1)[0].split("=")]
        if len(parts) < 2 or parts[0].startswith("@"):
            continue
        if parts[0].endswith("-"):
            prefixes[parts[2].rstrip("-")] = parts[1]
            continue
        symbol = registry().get_symbol(parts[0])
        names += [(alias, symbol) for alias in (parts[0], *parts[2:]) if alias != "_"]
    return prefixes, tuple(names)


def _shown(text: str, limit: int = 80) -> str:
    """``repr`` of ``text``, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def number_text(text: str) -> str:
    """Return the leading numeric literal of a quantity string, as printed (``"971.9"``)."""
    stripped = text.strip()
    end = 0
    for index, char in enumerate(stripped):
        if char.isdigit() or char in ".+-eE" and not (char in "eE" and index == 0):
            end = index + 1
            continue
        break
    return stripped[:end].rstrip("eE+-")


def format_dimension(dim: Any) -> str:
    """Format a pint dimensionality as ``[clock]*[thread]/[time]`` (``1`` if empty)."""
    items = dict(dim)
    num = sorted((k, v) for k, v in items.items() if v > 0)
    den = sorted((k, -v) for k, v in items.items() if v < 0)

    def part(entries: list[tuple[str, Any]]) -> str:
        out = []
        for name, power in entries:
            name = name if name.startswith("[") else f"[{name}]"
            out.append(name if power == 1 else f"{name}**{_power(power)}")
        return "*".join(out)

    if not num and not den:
        return "1"
    text = part(num) if num else "1"
    if den:
        denominator = part(den)
        text += f"/{denominator}" if len(den) == 1 else f"/({denominator})"
    return text


def _power(power: Any) -> str:
    as_float = float(power)
    return str(int(as_float)) if as_float.is_integer() else f"({power})"


def moved(value: pint.Quantity, to: Any, rates: Sequence[tuple[pint.Quantity, int]]) -> pint.Quantity:
    """``value`` divided by each rate to its power (a clock, a warp size, an SM count), in unit ``to``: each magnitude
    read as its decimal of 15 significant digits, multiplied out exactly and rounded once (``exact_convert``),
    so 300 ns at 1.98 GHz is 594.0 cycles, not 594.0000000000001. The one conversion across a rate: ``--set``,
    ``--unit``, ``--target`` and the API's target."""
    scale, dims = _across(value.units, rates)
    target = to if isinstance(to, pint.Unit) else unit(str(to))

    def one(magnitude: Any) -> float:
        if not math.isfinite(float(magnitude)):  # no exact value: pint's arithmetic (nan, inf stay so)
            return float(convert(registry().Quantity(float(magnitude) * float(scale), dims), target).magnitude)
        return float(exact_convert(registry().Quantity(_decimal(magnitude) * scale, dims), target).magnitude)

    magnitude = value.magnitude
    if isinstance(magnitude, np.ndarray):
        flat = [one(x) for x in magnitude.ravel().tolist()]
        return registry().Quantity(np.array(flat, dtype=float).reshape(magnitude.shape), target)
    return registry().Quantity(one(magnitude), target)


def moved_factor(source: Any, to: Any, rates: Sequence[tuple[pint.Quantity, int]]) -> Fraction:
    """How many ``to`` one ``source`` is across ``rates`` (each divides it to its power, as in :func:`moved`), exactly:
    a sweep's axis given in a unit a rate relates to its symbol's (``n=32 thread/SM:...`` for a symbol in warp/SM),
    each number multiplied by it exactly and rounded once.

    Raises:
        pint.DimensionalityError: ``source`` across the rates is not of ``to``'s dimension.
    """
    scale, dims = _across(source if isinstance(source, pint.Unit) else unit(str(source)), rates)
    return scale * exact_factor(dims, to)


def _across(source: Any, rates: Sequence[tuple[pint.Quantity, int]]) -> tuple[Fraction, Any]:
    """The exact scale and the unit of ``source`` divided by each rate to its power (the rate's magnitude as
    :func:`_decimal` reads it)."""
    scale, dims = Fraction(1), source
    for rate, power in rates:
        scale, dims = scale / _decimal(rate.magnitude) ** power, dims / rate.units ** power
    return scale, dims


def _decimal(magnitude: Any) -> Fraction:
    """A magnitude exactly: an integer or Fraction as it is, a double as its decimal of 15 significant digits (a clock
    computed in another unit, 1980 MHz in GHz, may carry noise in its last bit)."""
    if isinstance(magnitude, (int, Fraction)):
        return Fraction(magnitude)
    return Fraction(Decimal(f"{float(magnitude):.15g}"))
