"""How a model shows in a notebook: its title, what it holds (counts), and a short table of its
equations (what each defines, in which unit, and the equation in LaTeX), as HTML or Markdown.

Used by :class:`symgpu.api.Model`'s ``_repr_html_`` / ``_repr_markdown_``.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import sympy

from symgpu.model import latex_names

if TYPE_CHECKING:
    from symgpu.model.build import Model

#: equations listed before "… and N more"
MAX_ROWS = 30
#: an equation's LaTeX longer than this is not shown in the table (``model.expression`` has it)
MAX_LATEX = 400


def counts(model: Model) -> str:
    """``12 symbols (9 inputs, 1 constant), 3 equations, 2 presets, 4 validation cases``."""
    made = {c.name for c in model.literal_constants}  # the file's symbols: not the constants its bare literals became
    roles = [s.role for name, s in model.symbol_definitions.items() if name not in made]
    inputs, constants = roles.count("input"), roles.count("constant")
    parts = [
        f"{len(roles)} symbols ({inputs} input{'s' * (inputs != 1)}, {constants} constant{'s' * (constants != 1)})",
        f"{len(model.equations)} equations",
        f"{len(model.presets)} presets",
        f"{len(model.definition.validation)} validation cases",
    ]
    return ", ".join(parts)


def _rows(model: Model) -> list[tuple[str, str, str, str, str]]:
    """(equation id, defined symbol, unit, description, LaTeX or "") for the first equations."""
    rows = []
    names = latex_names.symbol_names(model)  # the reports' names: no underscore becomes a subscript by accident
    for equation in list(model.equations.values())[:MAX_ROWS]:
        name = equation.definition.defines
        symbol = model.symbol_definitions[name]
        tex = sympy.latex(equation.relation, symbol_names=names, mul_symbol="dot")
        rows.append((equation.id, name, symbol.unit, symbol.description, tex if len(tex) <= MAX_LATEX else ""))
    return rows


def _more(model: Model) -> int:
    return max(len(model.equations) - MAX_ROWS, 0)


def _math(tex: str) -> str:
    """Inline mathematics for MathJax in HTML, or a pointer when the equation is too long."""
    return r"\(" + html.escape(tex) + r"\)" if tex else "<i>long; model.expression()</i>"


def html_text(model: Model) -> str:
    """The model as a short HTML block: title, id and counts, a table of its equations."""
    esc = html.escape
    cells = "".join(
        f"<tr><td><code>{esc(eq_id)}</code></td><td><code>{esc(name)}</code></td><td>{esc(unit)}</td>"
        f"<td>{esc(description)}</td><td>{_math(tex)}</td></tr>"
        for eq_id, name, unit, description, tex in _rows(model)
    )
    more = f"<tr><td colspan='5'>… and {_more(model)} more equations</td></tr>" if _more(model) else ""
    return (
        f"<div><b>{esc(model.title)}</b> <code>{esc(model.id)}</code><br>{esc(counts(model))}"
        "<table><thead><tr><th>id</th><th>defines</th><th>unit</th><th>meaning</th><th>equation</th></tr></thead>"
        f"<tbody>{cells}{more}</tbody></table></div>"
    )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_text(model: Model) -> str:
    """The model as Markdown: a heading line, the counts, a table of its equations."""
    lines = [
        f"**{_md_cell(model.title)}** (`{model.id}`)", "", counts(model), "",
        "| id | defines | unit | meaning | equation |", "|---|---|---|---|---|",
    ]
    for eq_id, name, unit, description, tex in _rows(model):
        shown = f"${_md_cell(tex)}$" if tex else "*long; model.expression()*"
        lines.append(f"| `{eq_id}` | `{name}` | {_md_cell(unit)} | {_md_cell(description)} | {shown} |")
    if _more(model):
        lines.append(f"| … and {_more(model)} more equations | | | | |")
    return "\n".join(lines) + "\n"
