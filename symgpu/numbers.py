"""Number formatting shared by every output: significant digits, plain text, JSON-safe values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Significant digits of computed values in reports, in the text and in the JSON alike.
DIGITS = 6


# ============================================================================ formatting
def round_sig(value: float, digits: int = DIGITS) -> float | None:
    """``value`` as :func:`number_text` prints it (``None`` for NaN/inf): integers whole,
    others rounded to ``digits`` significant digits.

    NOTE: a report's JSON holds each value as the text prints it, not to the last bit: the last
    digits of a computed value differ between NumPy/SymPy/SciPy versions, and the committed
    reports must not change with them (``tests/test_reports_uptodate.py``).
    """
    if value is None or not math.isfinite(value):
        return None
    if value == 0:
        return 0.0
    if float(value).is_integer() and abs(value) < 1e15:
        return float(value)
    return float(f"{value:.{digits}g}")


def number_text(value: float, digits: int = DIGITS) -> str:
    """Plain-text number: integers as integers, others with ``digits`` significant digits."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


def json_number(value: Any) -> Any:
    """A JSON-safe number or list (NaN and infinities become null)."""
    array = np.asarray(value, dtype=float)
    if array.ndim:
        return [json_number(v) for v in array.tolist()]
    number = float(array)
    return number if math.isfinite(number) else None


def latex_number(value: Any, digits: int = DIGITS) -> str:
    """A number as LaTeX: ``972``, ``0.5``, ``1.2 \\times 10^{9}``, ``\\infty``, ``\\mathrm{NaN}``.

    Integers below ten million print whole; others with ``digits`` significant digits, large and small ones with
    a power of ten instead of ``e+09``.
    """
    if isinstance(value, (bool, np.bool_)):
        return r"\mathrm{true}" if value else r"\mathrm{false}"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return rf"\text{{{value}}}"
    if math.isnan(number):
        return r"\mathrm{NaN}"
    if math.isinf(number):
        return r"\infty" if number > 0 else r"-\infty"
    text = str(int(number)) if number.is_integer() and abs(number) < 1e7 else f"{number:.{digits}g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    power = rf"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \times {power}"
