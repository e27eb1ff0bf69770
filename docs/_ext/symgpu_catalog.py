"""The model catalog of the documentation, generated from ``equations/`` at build time.

Every bundled model becomes one MyST page under ``docs/catalog/`` (a generated folder, not
committed): its references, symbols, every equation rendered as math with its unit and source
locator, presets with their provenance and values, validation cases with the verdict that
:func:`symgpu.validation.validate` gives now, derivation requests and errata. Nothing on these
pages is written by hand: each line comes from :func:`symgpu.load` and the model's records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import symgpu
from symgpu import validation
from symgpu.model import loader
from symgpu.report import latex as report_latex

#: validation verdict -> how the catalog shows it
STATUS = {
    validation.PASS: "✅ reproduced",
    validation.ERRATUM: "📝 erratum (printed number is wrong, as recorded)",
    validation.ERRATUM_REPRODUCED: "⚠️ erratum now reproduces",
    validation.FAIL: "❌ not reproduced",
    validation.ERROR: "❌ error",
}


def cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, pipes escaped, MyST roles kept out."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$").replace("*", "\\*").replace("_", "\\_")


def code(text: Any) -> str:
    """Inline code in a table cell (backticks inside are replaced)."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def inline_math(tex: str) -> str:
    """Inline MyST math, ``{math}`` role (dollars would clash with text in table cells)."""
    return "{math}`" + tex.replace("`", "'").replace("|", r"\vert ") + "`"


def display_math(tex: str) -> list[str]:
    """A display-math block."""
    return ["```{math}", tex, "```", ""]


def references(model: Any) -> list[str]:
    lines = ["## References", ""]
    for ref in model.definition.references:
        link = f" <https://doi.org/{ref.doi}>" if ref.doi else (f" <{ref.url}>" if ref.url else "")
        lines.append(f"- **{ref.key}**: {cell(ref.citation())}{link}")
    return lines + [""]


def symbols(model: Any) -> list[str]:
    names = report_latex.symbol_names(model)
    lines = ["## Symbols", "", "| symbol | unit | role | meaning |", "|---|---|---|---|"]
    for sym in model.definition.symbols:
        role = sym.role + (f" = {sym.value}" if sym.value else "") + (f" ({', '.join(sym.assumptions)})" if sym.assumptions else "")
        lines.append(f"| {code(sym.name)} {inline_math(names[model.symbols[sym.name]])} | {code(sym.unit)} | {cell(role)} "
                     f"| {cell(sym.description)} |")
    return lines + [""]


def equations(model: Any) -> list[str]:
    lines = ["## Equations", ""]
    for equation in model.equations.values():
        definition = equation.definition
        unit = model.symbol_definitions[definition.defines].unit
        lines += [f"### `{definition.id}`", "", *display_math(report_latex.latex(model, equation.relation))]
        lines.append(f"Defines {code(definition.defines)} in {code(unit)}. Source: {cell(definition.source)}.")
        if equation.cases:
            lines += ["", "| regime | value | when |", "|---|---|---|"]
            for case in equation.cases:
                lines.append(f"| {code(case.id)} | {inline_math(report_latex.latex(model, case.value))} "
                             f"| {inline_math(report_latex.latex(model, case.condition))} |")
        if equation.limiters:
            named = ", ".join(f"{code(name)}: {inline_math(report_latex.latex(model, term))}" for name, term in equation.limiters)
            lines += ["", f"Limiters: {named}."]
        if equation.valid_when:
            valid = "; ".join(inline_math(report_latex.latex(model, c)) for c in equation.valid_when)
            lines += ["", f"Valid when: {valid}."]
        if definition.note:
            lines += ["", f"Note: {cell(definition.note)}"]
        lines.append("")
    return lines


def presets(model: Any) -> list[str]:
    if not model.definition.presets:
        return []
    lines = ["## Presets", ""]
    for preset in model.definition.presets:
        lines += [f"### `{preset.id}`", "", cell(preset.description), "", f"Source: {cell(preset.source)}."]
        if preset.based_on:
            lines[-1] += f" Based on {code(preset.based_on)} (its values inherited, these override them)."
        notes = dict(preset.notes)
        lines += ["", "| symbol | value | note |", "|---|---|---|"]
        lines += [f"| {code(name)} | {code(value)} | {cell(notes.get(name, ''))} |" for name, value in preset.values]
        lines.append("")
    return lines


def validation_cases(model: Any) -> list[str]:
    cases = model.definition.validation
    if not cases:
        return []
    lines = ["## Validation cases", "",
             "Each published number, reproduced when this page was built (`symgpu validate " + model.id + "`).", "",
             "| case | preset | inputs | quantity | printed | computed | status | source |", "|---|---|---|---|---|---|---|---|"]
    for result in symgpu.validate(model):
        case = result.case
        inputs = ", ".join(f"{name}={value}" for name, value in case.inputs)
        computed = "" if result.computed != result.computed else f"{result.computed:.6g} {result.unit}"
        lines.append(f"| {code(case.id)} | {code(case.preset) if case.preset else ''} | {code(inputs) if inputs else ''} "
                     f"| {code(result.quantity)} | {code(result.published)} | {cell(computed)} | {STATUS[result.status]} "
                     f"| {cell(case.source)}{'; erratum: ' + cell(case.erratum) if case.erratum else ''} |")
    return lines + [""]


def derivations(model: Any) -> list[str]:
    if not model.definition.derivations:
        return []
    lines = ["## Derivations the file asks for", "", f"`symgpu derive {model.id}` runs each and checks its `expect`.", "",
             "| id | operation | fields |", "|---|---|---|"]
    for request in model.definition.derivations:
        fields = "; ".join(f"{key} = {value}" for key, value in request.fields)
        lines.append(f"| {code(request.id)} | {code(request.op)} | {code(fields) if fields else ''} |")
    return lines + [""]


def errata(model: Any) -> list[str]:
    if not model.definition.errata:
        return []
    lines = ["## Errata", ""]
    for erratum in model.definition.errata:
        lines += [f"- **{erratum.id}** ({cell(erratum.source)}): {cell(erratum.text)} *Evidence:* {cell(erratum.evidence)}"]
    return lines + [""]


def model_page(model_id: str) -> str:
    """The MyST text of one model's catalog page."""
    model = symgpu.load(model_id)
    definition = model.definition
    lines = [f"# {cell(definition.title)}", "", f"Model id `{model.id}` · file `{Path(definition.path).name}`"]
    if definition.extends:
        lines[-1] += f" · extends [`{definition.extends}`]({definition.extends}.md)"
    lines += ["", cell(definition.summary), "", f"*{symgpu.api.display.counts(model)}.*", ""]
    for section in (references, symbols, equations, presets, validation_cases, derivations, errata):
        lines += section(model)
    return "\n".join(lines).rstrip() + "\n"


def index_page(model_ids: list[str]) -> str:
    """The catalog's index: one row per model with its counts, and the toctree."""
    lines = ["# Model catalog", "",
             "Every bundled model, generated from `equations/*.toml` when this site was built: each equation as",
             "mathematics with its unit and source locator, the presets with their provenance, and each published",
             "number with the verdict `symgpu validate` gives now.", "",
             "| model | title | contents |", "|---|---|---|"]
    for model_id in model_ids:
        model = symgpu.load(model_id)
        lines.append(f"| [`{model_id}`]({model_id}.md) | {cell(model.title)} | {cell(symgpu.api.display.counts(model))} |")
    lines += ["", "```{toctree}", ":hidden:", "", *model_ids, "```", ""]
    return "\n".join(lines)


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx rebuilds only changed pages)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(folder: Path) -> list[str]:
    """Write the catalog pages into ``folder``; return the model ids."""
    folder.mkdir(parents=True, exist_ok=True)
    model_ids = loader.list_models(loader.equations_dir())  # bundled models only, never $SYMGPU_MODEL_PATH
    wanted = {f"{m}.md" for m in model_ids} | {"index.md"}
    for stale in folder.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    for model_id in model_ids:
        write_if_changed(folder / f"{model_id}.md", model_page(model_id))
    write_if_changed(folder / "index.md", index_page(model_ids))
    return model_ids


def setup(app: Any) -> dict[str, Any]:
    """Sphinx extension: generate the catalog before the sources are read."""
    app.connect("builder-inited", lambda app: generate(Path(app.srcdir) / "catalog"))
    return {"parallel_read_safe": True, "version": "1"}
