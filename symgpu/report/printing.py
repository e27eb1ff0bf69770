"""SymPy's LaTeX printer, each compound subexpression printed once per printer (the text
printer and the process-wide :func:`sstr` are :mod:`symgpu.model.printing`'s, shared with the
derivation store and the command line).

A report prints every step of every derivation, and the steps of a limiter split share most
of their subexpressions; :class:`KeptLatexPrinter` keeps the LaTeX of each compound
subexpression it has printed, with the exceptions :mod:`symgpu.model.printing` describes
(the top-level expression, and calls with options such as ``exp=``).
"""

from __future__ import annotations

from typing import Any

from sympy.printing.latex import LatexPrinter

from symgpu.model.printing import MAX_KEPT_CHARACTERS, Keeping, KeptStrPrinter, sstr


class KeptLatexPrinter(Keeping, LatexPrinter):
    """``sympy.latex(expr, **settings)`` keeping compound subexpressions' LaTeX, until more than
    ``limit`` characters are kept."""

    def __init__(self, settings: dict[str, Any] | None = None, *, limit: int = MAX_KEPT_CHARACTERS) -> None:
        super().__init__(settings)
        self._kept, self._kept_size, self._limit = {}, 0, limit


__all__ = ["KeptLatexPrinter", "KeptStrPrinter", "sstr"]
