"""Model reports: the Jinja2 environment, the report context and atomic writing of report files.

A report is built in three stages, so a failure at any point leaves no half-written file:

1. :func:`build_context` turns a :class:`~symgpu.model.Model` into plain, JSON-ready data
   (strings, numbers, lists, dicts). Every piece of mathematics in it comes from
   ``sympy.latex`` with the declared ``latex`` names as ``symbol_names`` (one printer).
2. :func:`render_report` renders the Markdown / LaTeX templates and the JSON text, and draws
   the plots (:mod:`symgpu.report.plots`) into memory.
3. :func:`write_files` writes every file under a temporary name in the target folder and
   moves them into place with ``os.replace``.

Output is deterministic: iteration follows the model file's order where that order means
something and is sorted otherwise; nothing depends on the clock.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import pint
import sympy

from symgpu import errors, units, validation
from symgpu.model import loader

if TYPE_CHECKING:
    from symgpu.model import Equation, Model

#: The bundled templates (``templates/`` next to the ``symgpu`` package).
TEMPLATES = loader.ROOT / "templates"
#: Where ``symgpu report --all`` writes (one folder per model).
REPORTS = loader.ROOT / "reports"
#: Report formats and their template names (``json`` needs no template).
FORMATS = {"md": "report.md.j2", "tex": "report.tex.j2", "json": ""}
#: Plot file type per report format: SVG next to Markdown, PDF next to LaTeX.
PLOT_TYPES = {"md": "svg", "tex": "pdf"}
#: Significant digits of computed values in reports (JSON keeps 12).
DIGITS = 6
JSON_DIGITS = 12


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


def md_escape(text: Any) -> str:
    """Make prose safe inside a Markdown table cell (pipes escaped, one line)."""
    return " ".join(str(text).split()).replace("|", r"\|")


def md_math(latex: str) -> str:
    """LaTeX for inline Markdown math inside a table: no ``|`` (it would split the cell)."""
    return latex.replace(r"\left|", r"\left\vert ").replace(r"\right|", r"\right\vert ").replace("|", r"\vert ")


def make_environment(fmt: str, templates: str | os.PathLike[str] | None = None) -> jinja2.Environment:
    """Build the Jinja2 environment for one report format.

    LaTeX templates use LaTeX-safe delimiters (``((( var )))``, ``((* block *))``,
    ``((# comment #))``), since ``{{``/``}}`` collide with TeX groups; Markdown templates use
    Jinja2's defaults. Both use ``StrictUndefined`` (a missing field is an error, never an
    empty string), no autoescaping (prose is escaped explicitly with the ``tex_escape`` /
    ``md`` filters) and ``trim_blocks``/``lstrip_blocks``/``keep_trailing_newline``.

    Args:
        fmt: ``md`` or ``tex``.
        templates: a folder whose templates override the bundled ones (same file names).

    Returns:
        The configured environment.
    """
    folders = [str(templates)] if templates else []
    folders.append(str(TEMPLATES))
    options: dict[str, Any] = {
        "loader": jinja2.FileSystemLoader(folders),
        "undefined": jinja2.StrictUndefined,
        "autoescape": False,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
    }
    if fmt == "tex":
        options.update(
            block_start_string="((*", block_end_string="*))",
            variable_start_string="(((", variable_end_string=")))",
            comment_start_string="((#", comment_end_string="#))",
            line_statement_prefix=None, line_comment_prefix=None,
        )
    env = jinja2.Environment(**options)
    env.filters["tex_escape"] = tex_escape
    env.filters["tex_math"] = tex_math
    env.filters["md"] = md_escape
    env.filters["md_math"] = md_math
    env.filters["tojson"] = lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False)
    return env


def render_template(env: jinja2.Environment, name: str, context: Mapping[str, Any]) -> str:
    """Render template ``name`` with ``context``.

    Raises:
        errors.UsageError: the template is missing, malformed, or uses a field the context
            does not have (the message names the template file and the field).
    """
    try:
        template = env.get_template(name)
    except jinja2.TemplateNotFound as exc:
        raise errors.UsageError(f"template {exc.name!r} not found (searched {', '.join(env.loader.searchpath)})") from None  # type: ignore[union-attr]
    except jinja2.TemplateSyntaxError as exc:
        raise errors.UsageError(f"template {exc.filename or name}, line {exc.lineno}: {exc.message}") from None
    try:
        return template.render(**context)
    except jinja2.UndefinedError as exc:
        where = _template_frame(exc) or (template.filename or name)
        raise errors.UsageError(f"template {where}: undefined field: {exc.message}; "
                                f"the report context has no such field (see the JSON report for the available fields)") from None


def _template_frame(exc: BaseException) -> str:
    """``file:line`` of the innermost template frame of a rendering error ("" if none)."""
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith(".j2") or frame.filename.endswith((".md", ".tex")):
            found = f"{frame.filename}, line {frame.lineno}"
    return found


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


_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "theta", "lambda", "mu", "rho", "sigma", "tau", "phi", "psi", "omega",
          "Gamma", "Delta", "Theta", "Lambda", "Sigma", "Phi", "Psi", "Omega"}


def default_latex(name: str) -> str:
    r"""LaTeX for a symbol without a declared ``latex``: ``alu_lat`` -> ``\mathrm{alu}_{\mathrm{lat}}``.

    NOTE: SymPy's default italicises multi-letter names (``alu_{lat}``), which reads as a
    product of letters and runs into the next factor; upright names keep ``alu_lat*alu_thru``
    legible.
    """
    base, _, sub = name.partition("_")

    def word(text: str) -> str:
        if text in _GREEK:
            return "\\" + text
        if len(text) == 1:
            return text
        return "\\mathrm{" + text.replace("_", "\\_") + "}"

    return word(base) + (f"_{{{word(sub)}}}" if sub else "")


def symbol_names(model: Model) -> dict[sympy.Symbol, str]:
    """LaTeX names of the model's symbols: declared ``latex`` fields, else :func:`default_latex`."""
    return {model.symbols[s.name]: s.latex or default_latex(s.name) for s in model.definition.symbols}


def latex(model: Model, expr: Any, **options: Any) -> str:
    r"""``sympy.latex`` with the model's symbol names (the only LaTeX printer used); products of
    named factors get a ``\cdot`` so multi-letter symbols do not run together."""
    names = symbol_names(model)
    names.update(options.pop("symbol_names", {}))
    options.setdefault("mul_symbol", "dot")
    return sympy.latex(expr, symbol_names=names, **options)


def scrub(text: str) -> str:
    """One line, with the checkout's absolute path removed (reports must not depend on it)."""
    return " ".join(str(text).replace(str(loader.ROOT) + os.sep, "").replace(str(loader.ROOT), ".").split())


def _jsonable(value: Any) -> Any:
    """Frozen request fields (tuples of pairs) back to JSON-ready lists/dicts/strings."""
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value):
            return {k: _jsonable(v) for k, v in sorted(value)}
        return [_jsonable(v) for v in value]
    if isinstance(value, sympy.Basic):
        return sympy.sstr(value)
    if isinstance(value, float):
        return round_sig(value)
    return value


# ============================================================================ scenarios
@dataclass(frozen=True)
class Scenario:
    """A set of input values: a preset plus, optionally, the inputs of one validation case.

    Attributes:
        preset: preset id.
        case: id of the validation case whose ``inputs`` are added ("" for the preset alone).
        inputs: symbol -> quantity added to the preset (case inputs, in file order).
    """

    preset: str
    case: str = ""
    inputs: tuple[tuple[str, pint.Quantity], ...] = ()

    @property
    def label(self) -> str:
        """Human-readable description of where the values come from."""
        if not self.case:
            return f"preset {self.preset}"
        shown = ", ".join(f"{k} = {number_text(float(v.magnitude))} {format(v.units, '~')}".strip() for k, v in self.inputs)
        return f"preset {self.preset} with the inputs of validation case {self.case} ({shown})"

    def values(self) -> dict[str, pint.Quantity]:
        """The case inputs as a dict (to pass to ``Model.evaluate``)."""
        return dict(self.inputs)


def scenarios(model: Model, preset: str) -> list[Scenario]:
    """Input sets available for a preset: the preset alone, then each distinct set of
    validation-case inputs on it (cases that override a defined quantity are left out:
    they do not show the model's own chain)."""
    out = [Scenario(preset)]
    seen: set[tuple[tuple[str, str], ...]] = {()}
    for case in model.definition.validation:
        if case.preset != preset or not case.inputs:
            continue
        if any(name in model.defining for name, _ in case.inputs):
            continue
        inputs = tuple((name, units.quantity(text, model.units[name]).to(model.units[name])) for name, text in case.inputs)
        key = tuple(sorted((k, f"{v.magnitude!r}") for k, v in inputs))
        if key in seen:
            continue
        seen.add(key)
        out.append(Scenario(preset, case.id, inputs))
    return out


def supplied(model: Model, scenario: Scenario) -> set[str]:
    """Names whose values a scenario supplies (constants, preset values, case inputs)."""
    return set(model.constants) | set(model.preset(scenario.preset)) | {k for k, _ in scenario.inputs}


def magnitude(model: Model, name: str, scenario: Scenario) -> float:
    """Value of symbol ``name`` in its declared unit: an input's value, or a quantity evaluated.

    Raises:
        errors.EvaluationError: a value is missing or outside a domain.
    """
    from symgpu.evaluate import numeric as _numeric  # NOTE: local name; this module has its own numeric()

    inputs = scenario.values()
    if name in inputs:
        return float(inputs[name].to(model.units[name]).magnitude)
    if name in model.defining:
        return float(_numeric.evaluate(model, name, preset=scenario.preset, values=inputs).to(model.units[name]).magnitude)
    values = _numeric.merge_values(model, scenario.preset, None)
    if name not in values:
        raise errors.EvaluationError(f"{model.id}: no value for {name} in {scenario.label}")
    return float(values[name].to(model.units[name]).magnitude)


def headline_quantities(model: Model) -> list[str]:
    """Quantities reported per preset: every symbol with role ``output`` defined by an equation."""
    return [name for name in model.quantities if model.symbol_definitions[name].role == "output"]


# ============================================================================ regimes
def scale(model: Model, name: str) -> float:
    """Factor from symbol ``name``'s declared unit to the registry's coherent base units."""
    from symgpu.evaluate import numeric as _numeric

    return float(_numeric.unit_scale(model.units[name]))


def numeric(model: Model, expr: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> Any:
    """Evaluate ``expr`` (number or condition) from magnitudes in declared units.

    The expression is rewritten for coherent base units first (:func:`symgpu.evaluate.numeric.base_expression`:
    bare literals take their siblings' unit), so the result is in base units (ratios and
    comparisons of like quantities are unit-free).
    """
    from symgpu.evaluate import numeric as _numeric

    based = _numeric.base_expression(model, expr)
    replaced = based.xreplace({s: sympy.Float(v * scale(model, s.name), 17) for s, v in values.items() if s in based.free_symbols})
    if isinstance(replaced, (sympy.logic.boolalg.Boolean, sympy.core.relational.Relational)) and not isinstance(replaced, sympy.Expr):
        return bool(replaced)
    return float(replaced)


def regime(model: Model, equation: Equation, values: Mapping[sympy.Symbol, float]) -> dict[str, Any] | None:
    """Which argument of a top-level ``Min``/``Max`` (or which piecewise case) is active.

    Returns:
        ``None`` if the right-hand side is neither; otherwise a dict with ``kind``, ``active``
        (regime name), ``next`` (the runner-up), ``ratio`` (how far the next bound is, as a
        ratio >= 1), ``arguments`` (name, value, latex of each argument or case) and ``text``.
    """
    rhs = equation.rhs
    unit = model.unit_text(equation.definition.defines)
    names = {sympy.srepr(term): name for name, term in equation.limiters}
    if isinstance(rhs, (sympy.Min, sympy.Max)):
        args = []
        for index, term in enumerate(_ordered_args(equation)):
            name = names.get(sympy.srepr(term), f"argument {index + 1}")
            try:
                value = numeric(model, term, values) / scale(model, equation.definition.defines)
            except (TypeError, ValueError):
                value = math.nan
            args.append({"name": name, "value": round_sig(value), "value_text": number_text(value), "latex": latex(model, term), "expression": sympy.sstr(term)})
        finite = [a for a in args if a["value"] is not None]
        is_min = isinstance(rhs, sympy.Min)
        ranked = sorted(finite, key=lambda a: a["value"], reverse=not is_min)
        if not ranked:
            return None
        active = ranked[0]
        runner = ranked[1] if len(ranked) > 1 else None
        ratio = None
        if runner is not None:
            top, bottom = (runner["value"], active["value"]) if is_min else (active["value"], runner["value"])
            ratio = top / bottom if bottom else None
        kind = "min" if is_min else "max"
        text = f"{active['name']} binds ({active['value_text']} {unit})"
        if runner is not None:
            text += (f"; next bound {runner['name']} ({runner['value_text']} {unit}) is "
                     f"{number_text(ratio, 4) if ratio is not None else 'n/a'}x {'higher' if is_min else 'lower'}")
        return {"kind": kind, "active": active["name"], "next": runner["name"] if runner else None,
                "ratio": round_sig(ratio) if ratio is not None else None, "arguments": args, "text": text}
    if equation.cases:
        args = []
        active_index = None
        for index, case in enumerate(equation.cases):
            try:
                holds = bool(numeric(model, case.condition, values)) if case.condition is not sympy.true else True
            except (TypeError, ValueError):
                holds = False
            if holds and active_index is None:
                active_index = index
            margin = _condition_ratio(model, case.condition, values)
            args.append({"name": case.id, "holds": holds, "condition_latex": latex(model, case.condition) if case.condition is not sympy.true else r"\text{otherwise}",
                         "condition": sympy.sstr(case.condition) if case.condition is not sympy.true else "otherwise",
                         "latex": latex(model, case.value), "expression": sympy.sstr(case.value), "margin": margin})
        if active_index is None:
            return {"kind": "piecewise", "active": None, "next": None, "ratio": None, "arguments": args, "text": "no case applies"}
        active = args[active_index]
        # NOTE: the distance to the neighbouring case is the ratio of the two sides of the
        # deciding comparison: the active case's own, or for 'otherwise' the last one that failed.
        deciding = active if active["margin"] is not None else (args[active_index - 1] if active_index else None)
        ratio = deciding["margin"] if deciding else None
        if ratio is not None and ratio < 1:
            ratio = 1 / ratio
        neighbour = args[active_index + 1]["name"] if active_index + 1 < len(args) else (args[active_index - 1]["name"] if active_index else None)
        text = f"case {active['name']} applies"
        if deciding is not None and ratio is not None:
            text += f" ({deciding['condition']}: the two sides differ by a factor {number_text(ratio, 4)}"
            text += f" from case {neighbour})" if neighbour else ")"
        return {"kind": "piecewise", "active": active["name"], "next": neighbour, "ratio": round_sig(ratio) if ratio is not None else None, "arguments": args, "text": text}
    return None


def _ordered_args(equation: Equation) -> list[sympy.Expr]:
    """Arguments of a Min/Max: named limiters first in file order, then the rest (sorted)."""
    named = [term for _, term in equation.limiters]
    rest = sorted((a for a in equation.rhs.args if a not in named), key=sympy.default_sort_key)
    return named + rest


def _condition_ratio(model: Model, condition: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> float | None:
    """lhs/rhs of a comparison, both in base units (``None`` if not a comparison or a side is 0)."""
    from symgpu.evaluate import numeric as _numeric

    if not isinstance(condition, sympy.core.relational.Relational):
        return None
    based = _numeric.base_expression(model, condition)
    mapping = {s: sympy.Float(v * scale(model, s.name), 17) for s, v in values.items() if s in based.free_symbols}
    try:
        lhs, rhs = float(based.lhs.xreplace(mapping)), float(based.rhs.xreplace(mapping))
    except (TypeError, ValueError):
        return None
    if rhs == 0 or lhs == 0 or not math.isfinite(lhs) or not math.isfinite(rhs):
        return None
    return round_sig(lhs / rhs)


# ============================================================================ chains
def chain(model: Model, scenario: Scenario, quantities: Sequence[str]) -> list[dict[str, Any]]:
    """Each equation needed for ``quantities`` in dependency order (inputs first): the formula,
    the same formula with values and units substituted, the result, and the active regime.

    Raises:
        errors.EvaluationError: a value is missing or outside a domain.
    """
    order: list[Equation] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        equation = model.defining[name]
        for sym in sorted(equation.rhs.free_symbols, key=lambda s: s.name):
            if sym.name in model.defining:
                visit(sym.name)
        order.append(equation)

    for name in quantities:
        visit(name)
    values: dict[sympy.Symbol, float] = {}
    needed = {s for eq in order for s in eq.rhs.free_symbols}
    for sym in sorted(needed, key=lambda s: s.name):
        if sym.name not in model.defining:
            values[sym] = magnitude(model, sym.name, scenario)
    steps = []
    for equation in order:
        name = equation.definition.defines
        result = magnitude(model, name, scenario)
        values[equation.lhs] = result
        state = regime(model, equation, values)
        shown = equation.rhs
        if equation.cases and state and state["active"] is not None:
            shown = next(c.value for c in equation.cases if c.id == state["active"])
        substituted = {s: quantity_latex(values[s], model.unit_text(s.name), parens=True) for s in shown.free_symbols}
        steps.append({
            "equation": equation.id,
            "quantity": name,
            "headline": name in quantities,
            "formula_latex": f"{latex(model, equation.lhs)} = {latex(model, equation.rhs)}",
            "substituted_latex": latex(model, shown, symbol_names=substituted, mul_symbol="dot"),
            "result_latex": quantity_latex(result, model.unit_text(name)),
            "value": round_sig(result),
            "value_text": number_text(result),
            "unit": model.unit_text(name),
            "regime": state,
        })
    return steps


def preset_section(model: Model, preset_id: str) -> dict[str, Any]:
    """The per-preset part of the report: each scenario with its headline quantities and chain."""
    definition = next(p for p in model.definition.presets if p.id == preset_id)
    values = model.preset(preset_id)
    notes = dict(definition.notes)
    listed = [{"name": name, "latex": latex(model, model.symbols[name]), "value": round_sig(float(q.magnitude)),
               "value_text": number_text(float(q.magnitude)), "unit": model.unit_text(name),
               "value_latex": quantity_latex(float(q.magnitude), model.unit_text(name)), "note": notes.get(name, "")}
              for name, q in sorted(values.items())]
    groups: dict[int, list[str]] = {}
    unavailable = []
    options = scenarios(model, preset_id)
    for quantity in headline_quantities(model):
        needs = set(model.inputs(quantity))
        reason = ""
        for index, scenario in enumerate(options):
            missing = sorted(needs - supplied(model, scenario))
            if missing:
                reason = reason or f"needs {', '.join(missing)}"
                continue
            try:
                magnitude(model, quantity, scenario)
            except errors.EvaluationError as exc:
                reason = str(exc)
                continue
            groups.setdefault(index, []).append(quantity)
            break
        else:
            unavailable.append({"quantity": quantity, "reason": reason or "not evaluable"})
    sections = []
    for index in sorted(groups):
        scenario = options[index]
        try:
            steps = chain(model, scenario, groups[index])
        except (errors.SymgpuError, ValueError, ArithmeticError) as exc:
            unavailable.extend({"quantity": q, "reason": scrub(f"{type(exc).__name__}: {exc}")} for q in groups[index])
            continue
        sections.append({
            "label": scenario.label,
            "case": scenario.case,
            "inputs": [{"name": k, "value": round_sig(float(v.magnitude)), "value_text": number_text(float(v.magnitude)), "unit": model.unit_text(k)} for k, v in scenario.inputs],
            "headline": [s for s in steps if s["headline"]],
            "steps": steps,
        })
    source = definition.source
    return {
        "id": preset_id,
        "description": definition.description,
        "source": {"ref": source.ref, "locator": source.locator},
        "based_on": definition.based_on,
        "values": listed,
        "scenarios": sections,
        "unavailable": unavailable,
    }


# ============================================================================ derivations
def derivation_entry(model: Model, request: Any) -> dict[str, Any]:
    """Run one ``[[derivations]]`` request through :func:`symgpu.derive.run_request`.

    The derivation engine is imported lazily; if it is missing or raises, the entry says
    "derivation not available" with the reason, so the report still builds.
    """
    fields = {k: _jsonable(v) for k, v in sorted(request.fields)}
    entry: dict[str, Any] = {
        "id": request.id, "op": request.op, "fields": fields,
        "quantity": fields.get("quantity", fields.get("equation", "")), "variable": fields.get("variable", ""),
        "note": fields.get("note", ""), "expect": fields.get("expect", ""),
        "expect_text": json.dumps(fields["expect"], sort_keys=True, ensure_ascii=False) if isinstance(fields.get("expect"), (dict, list)) else str(fields.get("expect", "")),
        "available": False, "reason": "", "steps": [], "result": None, "result_latex": "", "location": None,
        "location_latex": "", "unit": "", "method": "", "assumptions": [],
    }
    try:
        derive = importlib.import_module("symgpu.derive")  # optional: written separately
        result = derive.run_request(model, request)
    except Exception as exc:  # noqa: BLE001 - any failure must still leave a report
        reason = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, ImportError):
            reason = f"the derivation engine (symgpu.derive) is not available ({reason})"
        entry["reason"] = scrub(reason)
        return entry
    entry.update({
        "available": True,
        "steps": [{"operation": s.operation, "expression": sympy.sstr(s.expression), "latex": _safe_latex(model, s.expression), "justification": s.justification} for s in result.steps],
        "result": _jsonable(result.result) if not isinstance(result.result, (list, tuple, dict)) else sympy.sstr(result.result),
        "result_latex": _safe_latex(model, result.result),
        "location": sympy.sstr(result.location) if result.location is not None else None,
        "location_latex": _safe_latex(model, result.location) if result.location is not None else "",
        "unit": result.unit, "method": result.method, "assumptions": list(result.assumptions),
    })
    return entry


def _safe_latex(model: Model, value: Any) -> str:
    if isinstance(value, sympy.Basic):
        return latex(model, value)
    if isinstance(value, (list, tuple)):
        return r",\quad ".join(_safe_latex(model, v) for v in value)
    if isinstance(value, dict):
        return r",\quad ".join(f"{sympy.latex(sympy.Symbol(str(k)))} = {_safe_latex(model, v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
    return sympy.latex(value) if value is not None else ""


# ============================================================================ errata
def errata_section(model: Model, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The report's "Errata in the source": every ``[[errata]]`` entry with its linked
    validation cases (computed vs printed), and the cases marked ``erratum`` that no entry links.

    Args:
        model: the model.
        rows: the validation rows of the report (one per case and quantity).
    """
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(row["case"], []).append(row)

    def case_rows(case_id: str) -> list[dict[str, Any]]:
        return [{"case": r["case"], "preset": r["preset"], "quantity": r["quantity"], "published": r["published"],
                 "engine_text": r["engine_text"], "unit_text": r["unit_text"], "relative_error_text": r["relative_error_text"],
                 "status": r["status"], "ok": r["ok"], "erratum": r["erratum"], "note": r["note"]}
                for r in by_case.get(case_id, [])]

    entries: list[dict[str, Any]] = []
    linked: set[str] = set()
    for erratum in model.definition.errata:
        linked.update(erratum.cases)
        entries.append({
            "id": erratum.id, "source": {"ref": erratum.source.ref, "locator": erratum.source.locator},
            "text": " ".join(erratum.text.split()), "evidence": " ".join(erratum.evidence.split()),
            "cases": [row for case in erratum.cases for row in case_rows(case)],
        })
    unlinked = []
    for case in model.definition.validation:
        if case.erratum and case.id not in linked:
            unlinked.extend(case_rows(case.id))
    return {"entries": entries, "unlinked": unlinked}


# ============================================================================ context
def build_context(model: Model, presets: Sequence[str] | None = None, *, plots: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The complete report content as JSON-ready data (templates and JSON share it).

    Args:
        model: the model.
        presets: preset ids to report (default: all, in file order).
        plots: plot descriptions from :func:`symgpu.report.plots.plan` after drawing.

    Raises:
        errors.UsageError: an unknown preset.
    """
    d = model.definition
    chosen = list(presets) if presets else [p.id for p in d.presets]
    for preset in chosen:
        model.preset(preset)
    refs = []
    for ref in d.references:
        refs.append({"key": ref.key, "authors": list(ref.authors), "title": ref.title, "venue": ref.venue,
                     "year": ref.year, "url": ref.url, "doi": ref.doi, "note": ref.note, "citation": ref.citation()})
    symbols = []
    for s in d.symbols:
        symbols.append({"name": s.name, "latex": latex(model, model.symbols[s.name]), "unit": s.unit,
                        "unit_latex": unit_latex(s.unit), "description": s.description, "role": s.role,
                        "value": s.value, "source": s.source, "assumptions": list(s.assumptions)})
    equations = []
    for eq in model.equations.values():
        e = eq.definition
        equations.append({
            "id": eq.id, "defines": e.defines,
            "lhs": sympy.sstr(eq.lhs), "rhs": sympy.sstr(eq.rhs),
            "latex": f"{latex(model, eq.lhs)} = {latex(model, eq.rhs)}",
            "source": {"ref": e.source.ref, "locator": e.source.locator},
            "unit": model.unit_text(e.defines),
            "dimension": units.format_dimension(model.dimension(e.defines)),
            "counts": list(e.counts),
            "unit_check": "pass",
            "note": e.note,
            "cases": [{"id": c.id, "condition": "otherwise" if c.condition is sympy.true else sympy.sstr(c.condition),
                       "condition_latex": r"\text{otherwise}" if c.condition is sympy.true else latex(model, c.condition),
                       "value": sympy.sstr(c.value), "value_latex": latex(model, c.value), "note": c.note} for c in eq.cases],
            "limiters": [{"name": n, "expression": sympy.sstr(t), "latex": latex(model, t)} for n, t in eq.limiters],
            "valid_when": [{"expression": sympy.sstr(c), "latex": latex(model, c)} for c in eq.valid_when],
        })
    results = validation.validate(model)
    rows: list[dict[str, Any]] = []
    for r in results:
        rel = r.relative_error
        rows.append({
            "case": r.case.id, "preset": r.case.preset, "quantity": r.quantity,
            "inputs": {k: str(v) for k, v in r.case.inputs},
            "published": r.published, "engine": round_sig(r.computed), "engine_text": number_text(r.computed),
            "unit": r.unit, "unit_text": r.published[len(units.number_text(r.published)):].strip() or r.unit,
            "tolerance": round_sig(r.tolerance),
            "relative_error": round_sig(rel, 4), "relative_error_text": "n/a" if math.isnan(rel) else f"{rel:+.3%}".replace("%", " %"),
            "status": r.status, "ok": r.ok, "erratum": r.case.erratum, "note": r.case.note,
            "source": {"ref": r.case.source.ref, "locator": r.case.source.locator},
        })
    errata = errata_section(model, rows)
    derivations = [derivation_entry(model, request) for request in d.derivations]
    presets_out = [preset_section(model, p) for p in chosen]
    summary = {
        "equations": len(equations),
        "unit_check": "pass",
        "validation": {status: sum(r["status"] == status for r in rows) for status in sorted({r["status"] for r in rows})},
        "derivations_available": sum(e["available"] for e in derivations),
        "derivations": len(derivations),
        "errata": len(errata["entries"]),
        "errata_unlinked_cases": len(errata["unlinked"]),
    }
    return {
        "schema": "symgpu-report/1",
        "model": {"id": model.id, "title": d.title, "summary": " ".join(d.summary.split()), "extends": d.extends,
                  "primary_reference": d.primary_reference},
        "references": refs,
        "symbols": symbols,
        "equations": equations,
        "derivations": derivations,
        "presets": presets_out,
        "validation": rows,
        "errata": errata,
        "plots": list(plots),
        "summary": summary,
    }


# ============================================================================ rendering
@dataclass
class Report:
    """Rendered report files, in memory: file name -> bytes (nothing written yet)."""

    model: str
    files: dict[str, bytes] = field(default_factory=dict)


def render_report(model: Model, *, presets: Sequence[str] | None = None, formats: Iterable[str] = ("md", "tex", "json"),
                  templates: str | os.PathLike[str] | None = None, stem: str | None = None,
                  draw_plots: bool = True) -> Report:
    """Render one model's report in the requested formats, plots included, into memory.

    Args:
        model: the model.
        presets: preset ids (default all).
        formats: any of ``md``, ``tex``, ``json``.
        templates: folder overriding the bundled templates.
        stem: base file name (default: the model id).
        draw_plots: write plot images; ``False`` still evaluates every plot (its marks and
            availability are part of the report) but produces no image files (used by tests).

    Raises:
        errors.UsageError: unknown preset or format, or a template problem.
    """
    from symgpu.report import plots  # matplotlib is imported only when reports are made

    formats = [f for f in FORMATS if f in set(formats)]
    stem = stem or model.id
    report = Report(model.id)
    specs = plots.plan(model, presets)
    drawn = []
    for spec in specs:
        entry = spec.describe(stem)
        try:
            images = plots.draw(model, spec, [PLOT_TYPES[f] for f in formats if f in PLOT_TYPES] if draw_plots else [])
        except (errors.SymgpuError, ValueError, ArithmeticError, TypeError) as exc:
            entry["available"] = False
            entry["reason"] = scrub(f"{type(exc).__name__}: {exc}")
            entry["files"] = {}
        else:
            entry["marks"] = [dict(m) for m in spec.resolved_marks]
            entry["points"] = [dict(p) for p in spec.points]
            for kind, data in images.items():
                report.files[entry["files"][kind]] = data
        drawn.append(entry)
    context = build_context(model, presets, plots=drawn)
    from symgpu.report import measurements  # matplotlib, as for plots
    found = measurements.sections(model, stem)
    if found:
        context["measurements"] = [m.as_dict() for m in found]
    report.files.update({m.svg_name: m.svg for m in found if draw_plots and "md" in formats})
    for fmt in formats:
        if fmt == "json":
            text = json.dumps(context, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        else:
            text = render_template(make_environment(fmt, templates), FORMATS[fmt], context)
        report.files[f"{stem}.{fmt}"] = text.encode("utf-8")
    return report


def write_files(target: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``files`` into ``target`` atomically: all to temporary names first, then
    ``os.replace`` each into place; on any failure the temporary files are removed.

    Returns:
        The written paths, sorted.
    """
    folder = Path(target)
    folder.mkdir(parents=True, exist_ok=True)
    pending: list[tuple[str, Path]] = []
    try:
        for name, data in sorted(files.items()):
            handle, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            pending.append((temp, folder / name))
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temp, 0o666 & ~_umask())
        for temp, final in pending:
            os.replace(temp, final)
    except BaseException:
        for temp, _ in pending:
            if os.path.exists(temp):
                os.unlink(temp)
        raise
    return sorted(final for _, final in pending)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def report_files(reports: Iterable[tuple[Path, Report]]) -> list[Path]:
    """Write several rendered reports (folder, report), each atomically."""
    written: list[Path] = []
    for folder, report in reports:
        written.extend(write_files(folder, report.files))
    return written


def expected_files(folder: Path) -> dict[str, bytes]:
    """Files of a report folder (name -> bytes), for comparisons in tests."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}


def loadable_models() -> tuple[list[Model], list[tuple[str, str]]]:
    """Bundled models that load, and (id, error) for those that do not."""
    import symgpu

    good, bad = [], []
    for model_id in loader.list_models():
        try:
            good.append(symgpu.load(model_id))
        except errors.SymgpuError as exc:
            bad.append((model_id, str(exc)))
    return good, bad


def warn(message: str) -> None:
    """Print a one-line message on stderr."""
    print(message, file=sys.stderr)


__all__ = [
    "FORMATS", "REPORTS", "TEMPLATES", "Report", "Scenario", "build_context", "chain", "derivation_entry",
    "make_environment", "md_escape", "number_text", "quantity_latex", "regime", "render_report", "render_template",
    "scenarios", "tex_escape", "unit_latex", "write_files",
]
