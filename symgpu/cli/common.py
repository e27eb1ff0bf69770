"""Shared pieces of the command line: exit codes, the one-line-error parser, value options
and the helpers every command uses to load models and read values."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pint

from symgpu import api, errors, units
from symgpu.report import files
from symgpu.cli.parsing import BAD_INPUT, FAILED, OK, Parser

__all__ = ["BAD_INPUT", "FAILED", "OK", "Parser", "add_value_options", "load_model", "parse_assignments", "to_unit", "unit_text"]


def add_value_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--preset`` and ``--set NAME=VALUE`` (repeatable) to a subcommand."""
    parser.add_argument("--preset", "-p", help="preset (parameter set) of the model")
    parser.add_argument("--set", "-s", action="append", default=[], metavar="NAME=VALUE",
                        help="a value, optionally with a unit: --set 'Theta_M=320.8 GB/s' (bare numbers are in the symbol's declared unit)")


def load_model(name: str) -> Any:
    """Load a model for a command (errors propagate to :func:`main` as exit code 2)."""
    return api.load(name)


def parse_assignments(model: Any, items: Sequence[str]) -> dict[str, pint.Quantity]:
    """Turn ``["M=16", "Theta_M=320.8 GB/s"]`` into quantities in the model's units.

    Raises:
        errors.UsageError: malformed item, unknown symbol, unreadable value.
    """
    values: dict[str, pint.Quantity] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise errors.UsageError(f"--set {item!r}: expected NAME=VALUE, e.g. --set 'Theta_M=320.8 GB/s'")
        if name not in model.symbols:
            raise errors.UsageError(f"--set {item!r}: {model.id} has no symbol '{name}' (declared: {', '.join(sorted(model.symbols))})")
        try:
            values[name] = units.quantity(text, model.units[name])
        except ValueError as exc:
            raise errors.UsageError(f"--set {item!r}: {exc}") from None
    return values


def to_unit(value: pint.Quantity, unit_text: str | None) -> pint.Quantity:
    """Convert a result to ``unit_text`` (when given).

    Raises:
        errors.UsageError: unknown unit or incompatible dimension.
    """
    if not unit_text:
        return value
    try:
        target = units.unit(unit_text)
        return value.to(target)
    except ValueError as exc:
        raise errors.UsageError(f"--unit {unit_text!r}: {exc}") from None
    except pint.DimensionalityError:
        raise errors.UsageError(
            f"--unit {unit_text!r}: the result is {units.format_dimension(value.dimensionality)}, "
            f"which cannot be expressed in {unit_text} ({units.format_dimension(units.unit(unit_text).dimensionality)})"
        ) from None


def unit_text(value: pint.Quantity) -> str:
    """Short unit text of a quantity (``thread / SM``)."""
    return f"{value.units:~}" or "1"


def write_plot(path_text: str, data: bytes) -> Path:
    """Write a plot file given by ``--plot PATH`` atomically.

    Raises:
        errors.UsageError: the file cannot be written there (the message names the option and path).
    """
    target = Path(path_text)
    try:
        files.write_files(target.parent, {target.name: data})
    except OSError as exc:
        raise errors.UsageError(f"--plot {path_text!r}: cannot write the plot there: {exc.strerror or exc}") from None
    return target
