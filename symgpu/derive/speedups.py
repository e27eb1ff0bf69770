"""One exact short cut in SymPy's number comparison, installed once by :mod:`symgpu.derive.forms`.

``sympy.simplify`` spends a fifth of its time (``factor_terms``/``gcd_terms`` building
``exprtools.Factors`` from dictionaries) in ``factors in (None, S.One)``: ``S.One == {...}``
goes to ``Rational.__eq__``, which sympifies the dictionary into a ``sympy.Dict`` (its items
sorted) only to find that a ``Dict`` is not a ``Number`` and answer False.

The short cut answers False for a plain ``dict`` at once. It is exact: for ``type(other) is
dict`` SymPy's own path always builds a ``Dict`` (the converter registered for ``dict``) and
a ``Dict`` is never a ``Number``, so the answer is False either way; anything else, dict
subclasses included (one could define ``_sympy_``), takes SymPy's own path unchanged.
"""

from __future__ import annotations

from typing import Any

from sympy.core.numbers import Rational

_SYMPY_EQ = Rational.__eq__


def _rational_eq(self: Rational, other: Any) -> Any:
    if type(other) is dict:
        return False
    return _SYMPY_EQ(self, other)


def install() -> None:
    """Put the short cut in place of ``Rational.__eq__`` (``Integer.__eq__`` calls it for
    anything but ints and Integers); installing again does nothing. The hash is untouched:
    assigning ``__eq__`` after the class is built does not reset ``__hash__``."""
    if Rational.__eq__ is not _rational_eq:
        Rational.__eq__ = _rational_eq  # type: ignore[assignment,method-assign]
