"""symgpu's own pint registry, quantity parsing and dimension formatting."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import pint

DEFINITIONS = Path(__file__).with_name("units.txt")


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:
    """Return the process-wide symgpu registry, built once from ``units.txt``.

    NOTE: ``UnitRegistry(None)`` starts empty (no pint defaults, so bytes are not
    dimensionless and ``cycle`` is not an angle), and ``on_redefinition="raise"`` turns a
    clash in the definitions into an error instead of a log line.
    """
    ureg: pint.UnitRegistry = pint.UnitRegistry(None, on_redefinition="raise", autoconvert_offset_to_baseunit=False)
    ureg.load_definitions(str(DEFINITIONS))
    ureg.formatter.default_format = "~"
    return ureg


def unit(text: str) -> pint.Unit:
    """Parse a unit string (``"GB/s"``, ``"thread/SM"``, ``"1"``) in the symgpu registry.

    Raises:
        ValueError: the string names no unit of the registry, or is not a pure unit.
    """
    ureg = registry()
    text = text.strip()
    if text in ("", "1", "dimensionless"):
        return ureg.dimensionless
    try:
        parsed = ureg.parse_expression(text)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, SyntaxError,
            TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"unknown unit {text!r} ({exc})") from exc
    if isinstance(parsed, (int, float)):
        if parsed == 1:
            return ureg.dimensionless
        raise ValueError(f"unit {text!r} is a bare number; write '1' for dimensionless")
    if parsed.magnitude != 1:
        raise ValueError(f"unit {text!r} carries a factor {parsed.magnitude}; put numbers in values, not units")
    # pint types ``Quantity.units`` as its base PlainUnit; the registry builds full Units.
    return cast(pint.Unit, parsed.units)


def quantity(text: str | float | int, default_unit: pint.Unit | None = None) -> pint.Quantity:
    """Parse ``"320.3 GB/s"``; a bare number (or numeric string) takes ``default_unit``.

    Raises:
        ValueError: the text is neither a number nor a quantity of known units.
    """
    ureg = registry()
    default_unit = ureg.dimensionless if default_unit is None else default_unit
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is a boolean, not a quantity")
    if isinstance(text, (int, float)):
        return ureg.Quantity(text, default_unit)
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a quantity string")
    stripped = text.strip()
    try:
        return ureg.Quantity(float(stripped), default_unit)
    except ValueError:
        pass
    try:
        parsed: pint.Quantity = ureg.Quantity(stripped)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, SyntaxError,
            TypeError, AttributeError, ValueError, AssertionError) as exc:
        raise ValueError(f"cannot read quantity {text!r} ({exc})") from exc
    return parsed


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
