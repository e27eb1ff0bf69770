"""LaTeX names of a model's symbols, the one rule shared by reports, the docs catalog and notebooks:
a declared ``latex`` field, else a name built from the symbol's name so that no underscore ever
becomes a subscript by accident (SymPy's default prints ``Coal_Mem_insts`` as ``Coal_{Mem insts}``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.memo import Memo

if TYPE_CHECKING:
    from symgpu.model.build import Model

#: names printed as Greek letters, alone or as the head of a subscripted name
GREEK = frozenset({"alpha", "beta", "gamma", "delta", "epsilon", "theta", "lambda", "mu", "rho", "sigma", "tau", "phi",
                   "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Sigma", "Phi", "Psi", "Omega"})


def _word(text: str) -> str:
    if text in GREEK:
        return "\\" + text
    if len(text) == 1:
        return text
    return "\\mathrm{" + text.replace("_", "\\_") + "}"


def default_latex(name: str) -> str:
    r"""LaTeX for a symbol without a declared ``latex``, by one rule:

    - one underscore: head and subscript, ``alu_lat`` -> ``\mathrm{alu}_{\mathrm{lat}}``;
    - a one-letter or Greek head: the rest is its subscript, ``n_needed_ilp`` ->
      ``n_{\mathrm{needed\_ilp}}``, ``alpha_cusp_alu`` -> ``\alpha_{\mathrm{cusp\_alu}}``;
    - otherwise (a word head and two or more underscores) the whole name upright, underscores
      printed: ``Coal_Mem_insts`` -> ``\mathrm{Coal\_Mem\_insts}``, as Hong & Kim print their names.

    NOTE: SymPy's default italicises multi-letter names (``alu_{lat}``), which reads as a
    product of letters and runs into the next factor, and turns every further underscore into a
    space of the subscript; upright names keep ``alu_lat*alu_thru`` legible and every name spelled.
    """
    base, _, sub = name.partition("_")
    if not sub:
        return _word(base)
    if "_" in sub and len(base) > 1 and base not in GREEK:
        return _word(name)
    return _word(base) + f"_{{{_word(sub)}}}"


def symbol_names(model: Model) -> dict[sympy.Symbol, str]:
    """LaTeX names of the model's symbols: declared ``latex`` fields, else :func:`default_latex`."""
    if model not in _NAMES:
        _NAMES[model] = {model.symbols[s.name]: s.latex or default_latex(s.name) for s in model.symbol_definitions.values()}
    return dict(_NAMES[model])


#: model -> its symbols' LaTeX names
_NAMES: Memo[Any, dict[sympy.Symbol, str]] = Memo("model.latex_names.names", 256, weak=True)


def spelled(tex: str) -> str:
    r"""The text a LaTeX name shows, subscripts marked by ``_``: ``\mathrm{Coal}_{\mathrm{Mem\_insts}}``
    -> ``Coal_Mem_insts``; SymPy's ``Coal_{Mem insts}`` -> ``Coal_Mem insts``."""
    text = tex.replace("\\_", "\x00")
    text = re.sub(r"\\(?:mathrm|text|mathit|operatorname)\{", "{", text)
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    return text.replace("{", "").replace("}", "").replace("\x00", "_")


def accidental_subscript(name: str, tex: str, *, declared: bool) -> str:
    """Why ``tex`` would show ``name`` with an underscore turned into a subscript by accident, or "".

    Every unescaped ``_`` must open a braced subscript or take one character (``_ab`` subscripts
    only ``a``), and no subscript may hold another. A name made by rule (not ``declared``) must
    also spell the name exactly: SymPy's ``Coal_{Mem insts}`` loses an underscore.
    """
    depth, inside = 0, list[int]()  # brace depth, and the depth at which each open subscript started
    for at, char in enumerate(tex):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            while inside and inside[-1] > depth:
                inside.pop()
        elif char == "_" and tex[at - 1: at] != "\\":
            following = tex[at + 1: at + 2]
            if following != "{" and tex[at + 2: at + 3].isalnum() and following.isalnum():
                return f"'{tex}': '_{following}' subscripts one character of a longer word"
            if inside:
                return f"'{tex}': a subscript inside a subscript"
            if following == "{":
                inside.append(depth + 1)
    if depth:
        return f"'{tex}': unbalanced braces"
    if not declared and spelled(tex) != name:
        return f"'{tex}' shows '{spelled(tex)}', not the name '{name}'"
    return ""
