"""Values read from model files against their symbol's declared sign (NaN, infinities, zero, negative)."""

from __future__ import annotations

import math
from typing import Any


def sign_problem(name: str, text: Any, magnitude: Any, assumptions: tuple[str, ...]) -> str:
    """Say what is wrong with a value of symbol ``name``, or ``""`` if nothing is.

    A value read from a file must be a finite number; a symbol declared ``positive`` takes
    only values above zero, one declared ``nonnegative`` only values at or above zero.

    Args:
        name: the symbol.
        text: the value as written in the file.
        magnitude: the parsed number (in the written unit; the sign does not depend on it).
        assumptions: the symbol's declared assumptions.

    Returns:
        One sentence naming the symbol, the value and the declared sign; empty when the value is fine.
    """
    number = float(magnitude)
    declared = _declared(assumptions)
    said = f"{name} = {str(text)!r}"
    if math.isnan(number):
        return f"{said} is not a number (NaN); {name} is declared {declared}"
    if math.isinf(number):
        return f"{said} is infinite; {name} is declared {declared}"
    if "positive" in assumptions and number <= 0:
        return f"{said} is {'zero' if number == 0 else 'negative'}, but {name} is declared positive"
    if "nonnegative" in assumptions and number < 0:
        return f"{said} is negative, but {name} is declared nonnegative"
    return ""


def _declared(assumptions: tuple[str, ...]) -> str:
    signs = [a for a in assumptions if a in ("positive", "nonnegative")]
    return " and ".join(signs) if signs else "real (a finite number)"
