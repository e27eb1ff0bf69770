"""Text for reports: LaTeX and Markdown escaping, and mathematics from ``sympy.latex`` with the model's symbol names (the only LaTeX printer used)."""

from __future__ import annotations

import re
import urllib.parse
from typing import TYPE_CHECKING, Any
import sympy
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.memo import MemoFamily
from symgpu.model import latex_names
from symgpu.numbers import DIGITS, number_text
from symgpu.report import printing


# ============================================================================ environment
def tex_escape(text: Any) -> str:
    """Escape prose for LaTeX: special characters, and Unicode pdflatex cannot typeset.

    Args:
        text: any value (converted with ``str``).

    Returns:
        Text safe inside a LaTeX paragraph or table cell.
    """
    out = []
    for char in str(text):
        if char in _TEX_SPECIAL:
            out.append(_TEX_SPECIAL[char])
        elif char in _TEX_UNICODE:
            out.append(_TEX_UNICODE[char])
        elif ord(char) < 128 or char in _LATIN1_OK:
            out.append(char)
        else:
            # NOTE: an unmapped character would stop pdflatex ("Unicode character not set up");
            # show its code point instead so the document still compiles.
            out.append(rf"\texttt{{U+{ord(char):04X}}}")
    return "".join(out)


_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ",
}


_TEX_UNICODE = {
    "—": "---", "–": "--", "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\dots{}",
    "×": r"$\times$", "≈": r"$\approx$", "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\ne$",
    "→": r"$\to$", "←": r"$\leftarrow$", "⇒": r"$\Rightarrow$", "±": r"$\pm$", "·": r"$\cdot$",
    "−": "-", "∞": r"$\infty$", "√": r"$\surd$", "°": r"$^\circ$", "µ": r"$\mu$", "§": r"\S{}",
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "Δ": r"$\Delta$",
    "ε": r"$\varepsilon$", "η": r"$\eta$", "θ": r"$\theta$", "Θ": r"$\Theta$", "ι": r"$\iota$",
    "κ": r"$\kappa$", "λ": r"$\lambda$", "μ": r"$\mu$", "ν": r"$\nu$", "π": r"$\pi$",
    "ρ": r"$\rho$", "σ": r"$\sigma$", "Σ": r"$\Sigma$", "τ": r"$\tau$", "φ": r"$\phi$",
    "Φ": r"$\Phi$", "χ": r"$\chi$", "ψ": r"$\psi$", "ω": r"$\omega$", "Ω": r"$\Omega$",
    "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,",
}


_LATIN1_OK = set("äöüÄÖÜßéèêëáàâíìîïóòôúùûçñÉÈÁÀÓÚÇÑ")


def tex_math(latex: str) -> str:
    """Math for pdflatex: a bare ``#`` (e.g. from a SymPy dummy name) would be read as a macro parameter."""
    return re.sub(r"(?<!\\)#", r"\\#", str(latex))


def md_text(text: Any) -> str:
    """Make prose from a model file inert in Markdown: ``&``, ``<`` and ``>`` become HTML
    entities, so raw HTML (``<script>``, ``<img onerror=...>``) shows as text, never as markup."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_url(text: Any) -> str:
    """A URL from a model file for a Markdown link or autolink: characters that could end the
    link or start markup (``<``, ``>``, quotes, spaces, backticks, pipes) percent-encoded."""
    return urllib.parse.quote(str(text).strip(), safe=":/?#[]@!$&'()*+,;=%~-._")


def md_escape(text: Any) -> str:
    """Make prose safe inside a Markdown table cell: one line, pipes escaped, no raw HTML (:func:`md_text`)."""
    return md_text(" ".join(str(text).split())).replace("|", r"\|")


def md_math(latex: str) -> str:
    """LaTeX for inline Markdown math inside a table: no ``|`` (it would split the cell)."""
    return latex.replace(r"\left|", r"\left\vert ").replace(r"\right|", r"\right\vert ").replace("|", r"\vert ")


def number_latex(value: float, digits: int = DIGITS) -> str:
    """LaTeX number: ``1.5e+09`` becomes ``1.5 \\times 10^{9}``."""
    text = number_text(value, digits)
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return r"\mathrm{n/a}" if text == "n/a" else text


def unit_latex(unit_text: str) -> str:
    """LaTeX of a declared unit string: ``GB/s`` -> ``\\mathrm{GB/s}`` (``1`` -> ``""``)."""
    text = unit_text.strip()
    if text in ("", "1", "dimensionless"):
        return ""
    text = re.sub(r"\*\*\s*(-?\d+)", r"^{\1}", text).replace("*", r"\,").replace(" ", r"\,")
    text = text.replace("_", r"\_").replace("%", r"\%")
    return rf"\mathrm{{{text}}}"


def quantity_latex(value: float, unit_text: str, *, parens: bool = False) -> str:
    """``320.3\\,\\mathrm{GB/s}`` (wrapped in ``\\left(...\\right)`` if ``parens`` and there is a unit or a sign)."""
    unit = unit_latex(unit_text)
    body = number_latex(value) + (rf"\,{unit}" if unit else "")
    if parens and (unit or (value is not None and value < 0)):
        return rf"\left({body}\right)"
    return body


#: the symbols' LaTeX names: one rule for reports, the docs catalog and notebooks (:mod:`symgpu.model.latex_names`)
default_latex = latex_names.default_latex
symbol_names = latex_names.symbol_names


def latex(model: Model, expr: Any, **options: Any) -> str:
    r"""``sympy.latex`` with the model's symbol names (the only LaTeX printer used); products of
    named factors get a ``\cdot`` so multi-letter symbols do not run together.

    NOTE: kept per model and expression for the process (without extra ``symbol_names``): a
    report prints each equation once for the equation list and again in every preset's and
    scenario's evaluation chain."""
    extra = options.pop("symbol_names", {})
    options.setdefault("mul_symbol", "dot")
    key = None if extra or not isinstance(expr, sympy.Basic) else (expr, tuple(sorted(options.items())))
    kept = _PRINTED.of(model)
    if key is not None:
        try:
            found = kept.get(key)
        except TypeError:  # an unhashable expression or option, printed as is
            found = None
        if found is not None:
            return found
    names = symbol_names(model)
    names.update(extra)
    # one printer per model and options: the subexpressions shared by a derivation's steps are printed once
    printer = _printer(model, key[1], names, options) if key is not None else None
    text: str = sympy.latex(expr, symbol_names=names, **options) if printer is None else printer.doprint(expr)
    if key is not None:
        try:
            kept[key] = text
        except TypeError:
            pass
    return text


#: per model: (expression, options) -> LaTeX, see :func:`latex` (one model's report prints ~600)
_PRINTED: MemoFamily[Any, str] = MemoFamily("report.latex.printed", 8192)
#: per model: options -> its LaTeX printer (:class:`printing.KeptLatexPrinter`)
_PRINTERS: MemoFamily[Any, printing.KeptLatexPrinter] = MemoFamily("report.latex.printers", 64)


def _printer(model: Model, key: Any, names: dict[sympy.Symbol, str], options: dict[str, Any]) -> printing.KeptLatexPrinter | None:
    """The model's LaTeX printer for ``options`` (None: an unhashable option, print afresh)."""
    printers = _PRINTERS.of(model)
    try:
        found = printers.get(key)
        if found is None:
            found = printers[key] = printing.KeptLatexPrinter({"symbol_names": names, **options})
        return found
    except TypeError:
        return None


def _safe_latex(model: Model, value: Any) -> str:
    if isinstance(value, sympy.Basic):
        return latex(model, value)
    if isinstance(value, (list, tuple)):
        return r",\quad ".join(_safe_latex(model, v) for v in value)
    if isinstance(value, dict):
        return r",\quad ".join(f"{sympy.latex(sympy.Symbol(str(k)))} = {_safe_latex(model, v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
    return sympy.latex(value) if value is not None else ""
