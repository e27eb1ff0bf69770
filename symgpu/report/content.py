"""The report context: a model's complete report content (symbols, equations, derivations, presets, validation, errata, plots) as JSON-ready data shared by every format."""

from __future__ import annotations

import json
import math
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
import sympy
from symgpu import derive, resources, units, validation
if TYPE_CHECKING:
    from symgpu.model import Model
from symgpu.numbers import number_text, round_sig
from symgpu.report import printing
from symgpu.report.latex import _safe_latex, latex, unit_latex
from symgpu.report.scenarios import _jsonable, scrub
from symgpu.report.chains import preset_section
from symgpu.report.tables import tables_section


# ============================================================================ derivations
def run_derivations(model: Model) -> dict[str, Any]:
    """Each ``[[derivations]]`` request's outcome, by id: its :class:`symgpu.derive.Derivation`, or the
    exception it raised (a report still builds: the entry says why it is not available)."""
    out: dict[str, Any] = {}
    for request in model.definition.derivations:
        try:
            out[request.id] = derive.run_request(model, request)
        except Exception as exc:  # noqa: BLE001 - any failure must still leave a report
            out[request.id] = exc
    return out


def expect_misses(model: Model, outcomes: Mapping[str, Any]) -> dict[str, tuple[str, sympy.Expr | None]]:
    """The requests with an ``expect`` whose derivation is not available or gives another result, by id:
    (why the report marks no line at the file's expected form, the derived result to mark instead where
    it is one expression in the model's symbols, else None): the marks are the derivation's own."""
    out: dict[str, tuple[str, sympy.Expr | None]] = {}
    for request in model.definition.derivations:
        outcome = outcomes.get(request.id)
        if not request.get("expect"):
            continue
        if outcome is None or isinstance(outcome, BaseException):
            out[request.id] = (f"derivation {request.id} not available, so the file's expect is not checked", None)
        elif derive.expect_holds(outcome) is False:
            result = outcome.result
            single = isinstance(result, sympy.Expr) and not result.has(sympy.Piecewise) and result.free_symbols <= set(model.symbols.values())
            out[request.id] = (f"derivation {request.id} gives {scrub(printing.sstr(result))[:200]}, not the file's expect",
                               result if single else None)
    return out


def derivation_entry(model: Model, request: Any, outcome: Any = None) -> dict[str, Any]:
    """One ``[[derivations]]`` request's entry: its ``outcome`` (:func:`run_derivations`), else run through
    :func:`symgpu.derive.run_request` here.

    If the derivation raises, the entry says "derivation not available" with the reason, so
    the report still builds.
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
    result = outcome if outcome is not None else run_derivations_of(model, request)
    if isinstance(result, BaseException):
        entry["reason"] = scrub(f"{type(result).__name__}: {result}")
        return entry
    entry.update({
        "available": True,
        "steps": [_step_entry(model, s) for s in result.steps],
        "result": _jsonable(result.result) if not isinstance(result.result, (list, tuple, dict)) else printing.sstr(result.result),
        "result_latex": _shown_latex(model, result.result),
        "location": printing.sstr(result.location) if result.location is not None else None,
        "location_latex": _shown_latex(model, result.location) if result.location is not None else "",
        "unit": result.unit, "method": result.method, "assumptions": list(result.assumptions),
    })
    return entry


def run_derivations_of(model: Model, request: Any) -> Any:
    """One request's outcome, as :func:`run_derivations` gives it."""
    try:
        return derive.run_request(model, request)
    except Exception as exc:  # noqa: BLE001 - any failure must still leave a report
        return exc


#: LaTeX longer than this is not typeset in a report (TeX reads at most 200,000 characters a line, and
#: nobody reads such a formula): a note stands in, and the expression stays in the JSON report
LATEX_SHOWN = 20000


def _shown_latex(model: Model, expr: Any) -> str:
    text = _safe_latex(model, expr)
    if len(text) <= LATEX_SHOWN:
        return text
    return rf"\text{{({len(text):,} characters of LaTeX, too long to typeset: the expression is in the JSON report)}}"


def _step_entry(model: Model, step: Any) -> dict[str, Any]:
    """A derivation step for the templates; a list of regime names is kept as ``names`` (text that
    wraps), since as one line of mathematics it can be wider than TeX can measure."""
    expr = step.expression
    names = [str(a) for a in expr.args] if isinstance(expr, sympy.Tuple) and expr.args and all(isinstance(a, sympy.Symbol) for a in expr.args) else []
    return {"operation": step.operation, "expression": printing.sstr(expr), "latex": "" if names else _shown_latex(model, expr),
            "names": names, "justification": step.justification}


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
def origin(model: Model) -> dict[str, Any]:
    """Where the model file came from: ``{"file": "equations/x.toml", "bundled": True}`` for a
    bundled model, else the file's path (relative to the working folder when inside it)."""
    path = Path(model.path)
    path = (path if path.is_absolute() else resources.CHECKOUT / path).resolve()  # the loader shows checkout paths relative to it
    if path.parent == resources.equations().resolve():
        return {"file": f"equations/{path.name}", "bundled": True}
    try:
        shown = str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        shown = str(path)
    return {"file": shown, "bundled": False}


def build_context(model: Model, presets: Sequence[str] | None = None, *, plots: Sequence[dict[str, Any]] = (),
                  outcomes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The complete report content as JSON-ready data (templates and JSON share it).

    Args:
        model: the model.
        presets: preset ids to report (default: all, in file order).
        plots: plot descriptions from :func:`symgpu.report.plots.plan` after drawing.
        outcomes: the derivations' outcomes (:func:`run_derivations`), run here when not given.

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
            # a case expecting a domain error: what the model did, which condition it found failing (not 'n/a domain error')
            "published": r.published, "engine": round_sig(r.computed), "engine_text": r.refusal or number_text(r.computed),
            "unit": r.unit, "unit_text": "" if r.refusal else r.published[len(units.number_text(r.published)):].strip() or r.unit,
            "tolerance": round_sig(r.tolerance),
            "relative_error": round(rel, 5) if math.isfinite(rel) else None, "relative_error_text": "n/a" if math.isnan(rel) else f"{rel:+.3%}".replace("%", " %"),
            "status": r.status, "ok": r.ok, "erratum": r.case.erratum, "note": r.case.note,
            "source": {"ref": r.case.source.ref, "locator": r.case.source.locator},
        })
    errata = errata_section(model, rows)
    outcomes = run_derivations(model) if outcomes is None else outcomes
    derivations = [derivation_entry(model, request, outcomes.get(request.id)) for request in d.derivations]
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
    missed = [r.id for r in d.derivations if not isinstance(outcomes.get(r.id), (BaseException, type(None)))
              and derive.expect_holds(outcomes[r.id]) is False]
    if missed:  # said only where one misses: the reports of files whose expectations hold stay as they were
        summary["derivations_missing_expect"] = missed
    return {
        "schema": "symgpu-report/1",
        "model": {"id": model.id, "title": d.title, "summary": " ".join(d.summary.split()), "extends": d.extends,
                  "primary_reference": d.primary_reference, **origin(model)},
        "references": refs,
        "symbols": symbols,
        "equations": equations,
        "derivations": derivations,
        "presets": presets_out,
        "tables": tables_section(model),
        "validation": rows,
        "errata": errata,
        "plots": list(plots),
        "summary": summary,
    }
