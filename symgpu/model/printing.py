"""SymPy's text printer, each compound subexpression printed once per printer.

A derivation's steps, its stored entry and its summary print the same expressions over and
over, and the steps of a limiter split share most of their subexpressions (the occupancy
model's regimes: 1.3 million characters of text built from the same few hundred pieces).
SymPy prints each from scratch; these printers keep the text of each compound subexpression
they have printed and give it back when they meet the expression again, so the text is the
same, built once. The process-wide :func:`sstr` is shared by the store's entries
(:mod:`symgpu.derive.stored`), the command line's answers and the reports, so an expression
printed by one is not printed again by the next.

A subexpression's text does not depend on where it stands (the parent adds any brackets),
with two exceptions that are never kept: the top-level expression (``StrPrinter`` writes a
top-level ``Float`` in full precision, a nested one stripped), and calls with options
(``LatexPrinter`` passes ``exp=`` down to a function raised to a power). Atoms (symbols,
numbers) are cheap and not kept either.
"""

from __future__ import annotations

import itertools
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

#: characters of kept text after which a printer starts afresh (a bound on memory)
MAX_KEPT_CHARACTERS = 50_000_000


class Keeping:
    """Mixin over a SymPy printer: :meth:`_print` keeps the text of compound subexpressions."""

    _kept: dict[Any, str]
    _kept_size: int
    _limit: int
    _print_level: int

    @property
    def kept_characters(self) -> int:
        """Characters of text kept now (the printer starts afresh past its ``limit``)."""
        return self._kept_size

    def _print(self, expr: Any, **kwargs: Any) -> str:
        keep = not kwargs and self._print_level >= 1 and isinstance(expr, sympy.Basic) and bool(expr.args)
        if keep:
            try:
                return self._kept[expr]
            except KeyError:
                pass
            except TypeError:  # an unhashable part: printed as is
                keep = False
        text: str = super()._print(expr, **kwargs)  # type: ignore[misc]
        if keep:
            if self._kept_size > self._limit:
                self._kept.clear()
                self._kept_size = 0
            self._kept[expr] = text
            self._kept_size += len(text)
        return text


class KeptStrPrinter(Keeping, StrPrinter):
    """``sympy.sstr`` (default settings) keeping compound subexpressions' text, until more than
    ``limit`` characters are kept."""

    def __init__(self, settings: dict[str, Any] | None = None, *, limit: int = MAX_KEPT_CHARACTERS) -> None:
        super().__init__(settings)
        self._kept, self._kept_size, self._limit = {}, 0, limit


_TEXT = KeptStrPrinter()


def sstr(expr: Any) -> str:
    """``sympy.sstr(expr)``, the same text, each compound subexpression printed once per process
    (until :data:`MAX_KEPT_CHARACTERS` of text are kept)."""
    text: str = _TEXT.doprint(expr)
    return text


class _BriefPrinter(StrPrinter):
    """``sympy.sstr`` that prints at most ``nodes`` subexpressions, each one past them as ``...``."""

    def __init__(self, nodes: int, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        self._left = nodes

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if self._left <= 0:
            return "..."
        self._left -= 1
        text: str = super()._print(expr, **kwargs)
        return text


def brief(expr: Any, characters: int) -> str:
    """The first ``characters`` of ``sympy.sstr(expr)`` for a message, in time bounded by ``characters``: printing
    a large expression in full only to cut it (a first-match ``Piecewise``, whose later cases repeat the earlier
    conditions, runs to megabytes) took seconds per message, paid by every caught error. The text is
    ``sstr(expr)[:characters]`` whenever the expression has at most ``4 * characters`` subexpressions; a larger
    one prints its first ones and each later one as ``...``, the terms of a sum in the order they are stored
    (sorting them is not bounded by the nodes printed)."""
    nodes = 4 * characters
    small = not isinstance(expr, sympy.Basic) or sum(1 for _ in itertools.islice(sympy.preorder_traversal(expr), nodes + 1)) <= nodes
    text: str = _BriefPrinter(nodes, {} if small else {"order": "none"}).doprint(expr)
    return text[:characters]


__all__ = ["Keeping", "KeptStrPrinter", "MAX_KEPT_CHARACTERS", "brief", "sstr"]
