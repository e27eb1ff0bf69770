"""How quantities of symgpu's registry show in a notebook: LaTeX for scalars *and* arrays.

pint's own ``_repr_latex_`` renders an array as an empty matrix (``\\begin{pmatrix} & \\end{pmatrix}``),
so a swept ``model.evaluate(...)`` showed nothing in Jupyter's LaTeX output. :func:`install`
replaces it on symgpu's registry only (pint builds one ``Quantity`` class per registry): values
are written with :func:`symgpu.numbers.latex_number`, long arrays are elided in the middle.
"""

from __future__ import annotations

import html
from typing import Any, TypeAlias

import numpy as np
import pint

from symgpu import numbers

#: elements shown of a long array axis: this many from the start and two from the end
HEAD = 4
TAIL = 2


def unit_latex(unit: Any) -> str:
    """LaTeX of a unit (``\\frac{\\mathrm{cy}}{\\mathrm{thread}}``); empty for a pure number."""
    return f"{unit:~L}".strip()


def _elided(values: Any) -> list[str]:
    """One axis as LaTeX cells, its middle replaced by ``\\cdots`` when long."""
    items = list(values)
    if len(items) <= HEAD + TAIL + 1:
        return [numbers.latex_number(v) for v in items]
    return [numbers.latex_number(v) for v in items[:HEAD]] + [r"\cdots"] + [numbers.latex_number(v) for v in items[-TAIL:]]


def magnitude_latex(magnitude: Any) -> str:
    """LaTeX of a number or an array (a ``bmatrix``: one row for 1-D, rows for 2-D)."""
    array = np.asarray(magnitude)
    if array.ndim == 0:
        return numbers.latex_number(array.item())
    if array.size == 0:
        return r"\begin{bmatrix}\end{bmatrix}"
    if array.ndim == 1:
        return r"\begin{bmatrix} " + " & ".join(_elided(array)) + r" \end{bmatrix}"
    if array.ndim == 2:
        rows = list(array)
        if len(rows) > HEAD + TAIL + 1:
            shown = [" & ".join(_elided(r)) for r in rows[:HEAD]]
            width = len(_elided(rows[0]))
            shown.append(" & ".join([r"\vdots"] * width))
            shown += [" & ".join(_elided(r)) for r in rows[-TAIL:]]
        else:
            shown = [" & ".join(_elided(r)) for r in rows]
        return r"\begin{bmatrix} " + r" \\ ".join(shown) + r" \end{bmatrix}"
    shape = r" \times ".join(str(n) for n in array.shape)
    return rf"\text{{array }} {shape}:\ \min {numbers.latex_number(array.min())},\ \max {numbers.latex_number(array.max())}"


def quantity_latex(quantity: pint.Quantity) -> str:
    """A quantity as inline LaTeX, ``$972\\ \\mathrm{thread}$`` or ``$\\begin{bmatrix} 1 & 2 \\end{bmatrix}\\ \\mathrm{cy}$``."""
    unit = unit_latex(quantity.units)
    body = magnitude_latex(quantity.magnitude)
    return f"${body}\\ {unit}$" if unit else f"${body}$"


def quantity_html(quantity: pint.Quantity) -> str:
    """A quantity as HTML: the same rounded LaTeX between ``\\(...\\)`` for the notebook's MathJax
    (pint's own HTML shows every digit of every element in a table)."""
    return '<span class="symgpu-quantity">\\(' + html.escape(quantity_latex(quantity).strip("$")) + "\\)</span>"


def quantity_markdown(quantity: pint.Quantity) -> str:
    """A quantity as Markdown: its LaTeX between dollars (Jupyter renders the math)."""
    return quantity_latex(quantity)


class Quantity(pint.UnitRegistry.Quantity):  # type: ignore[misc,name-defined]
    """A quantity of symgpu's registry: pint's, plus notebook representations of scalars and arrays."""

    def _repr_latex_(self) -> str:
        return quantity_latex(self)

    def _repr_html_(self) -> str:
        return quantity_html(self)

    def _repr_markdown_(self) -> str:
        return quantity_markdown(self)


class Registry(pint.UnitRegistry):
    """symgpu's registry class: pint's, with :class:`Quantity` as its quantity type (pint's
    documented way to extend quantities; no pint class is modified)."""

    Quantity: TypeAlias = Quantity  # type: ignore[assignment]
