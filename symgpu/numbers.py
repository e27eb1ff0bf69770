"""Number formatting shared by every output: significant digits, plain text, JSON-safe values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import math
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    pass



#: Significant digits of computed values in reports (JSON keeps 12).
DIGITS = 6


JSON_DIGITS = 12


# ============================================================================ formatting
def round_sig(value: float, digits: int = JSON_DIGITS) -> float | None:
    """``value`` rounded to ``digits`` significant digits (``None`` for NaN/inf)."""
    if value is None or not math.isfinite(value):
        return None
    if value == 0:
        return 0.0
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
