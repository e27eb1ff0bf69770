"""Reproduce the published numbers of a model file: tolerance from printed digits, errata kept."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import pint

from symgpu import errors, units
from symgpu.evaluate import evaluator
from symgpu.model import schema
from symgpu import derive

if TYPE_CHECKING:
    from symgpu.model import Model

PASS = "pass"
FAIL = "fail"
ERRATUM = "erratum"
ERRATUM_REPRODUCED = "erratum-reproduced"
ERROR = "error"
#: ``expect = { Bandwidth_delay = "domain error" }``: the model must refuse these inputs.
DOMAIN_ERROR = schema.DOMAIN_ERROR
#: the ``source.kind`` of an expected value the reference does not print: checked all the same,
#: but counted apart from the published numbers (it checks the transcription against arithmetic,
#: not against the paper)
UNPRINTED = ("hand-computed", "derived", "measured")


@dataclass(frozen=True)
class CaseResult:
    """Outcome of one expected value of one validation case.

    Attributes:
        case: the validation case.
        quantity: the quantity compared.
        published: the number as printed (text).
        expected: the printed value (magnitude) in ``unit``.
        computed: the engine's value in ``unit`` (NaN when evaluation failed).
        unit: unit of the comparison (the printed one).
        tolerance: absolute tolerance used, in ``unit``.
        status: ``pass``, ``fail``, ``erratum`` (printed number is wrong, as recorded),
            ``erratum-reproduced`` (recorded as wrong but now matches) or ``error``.
        message: one line explaining the verdict.
        refusal: for a case that expects a domain error, what the model did, in a few words, for a table's cell: the
            condition that failed (``refused: valid only when 0 < ind_mem_req; got ind_mem_req = 0 req``, as ``eval``
            says it), the value it gave instead, or that it failed otherwise; "" for a case that expects a number.
    """

    case: schema.ValidationCase
    quantity: str
    published: str
    expected: float
    computed: float
    unit: str
    tolerance: float
    status: str
    message: str
    refusal: str = ""

    @property
    def origin(self) -> str:
        """``printed`` (a number the reference prints) or the kind of a number it does not print
        (``hand-computed``, ``derived``, ``measured``), from the case's ``source.kind``."""
        return origin_of(self.case)

    @property
    def ok(self) -> bool:
        """True when the verdict is as the model file says it should be."""
        return self.status in (PASS, ERRATUM)

    @property
    def relative_error(self) -> float:
        """(computed - expected) / expected (NaN if undefined)."""
        if self.expected == 0 or math.isnan(self.computed):
            return math.nan
        return (self.computed - self.expected) / self.expected


def _expect_domain_error(model: Model, case: schema.ValidationCase, quantity: str, text: str, inputs: dict) -> CaseResult:
    """Judge a case that expects the model to refuse its inputs as outside the domain."""
    try:
        value = evaluator.evaluate(model, quantity, preset=case.preset or None, values=inputs)
    except errors.DomainError as exc:
        return CaseResult(case, quantity, text, math.nan, math.nan, "", 0.0, PASS, f"{quantity}: refused as expected: {exc}",
                          f"refused: {exc.reason}" if exc.reason else "refused")
    except (errors.SymgpuError, ValueError) as exc:
        return CaseResult(case, quantity, text, math.nan, math.nan, "", 0.0, ERROR, f"{quantity}: expected a domain error, got: {exc}",
                          "no value, but no domain error either (symgpu validate says why)")
    shown = f"{value.magnitude:.6g} {value.units:~}" if getattr(value.magnitude, "ndim", 0) == 0 else "an array"
    return CaseResult(case, quantity, text, math.nan, math.nan, "", 0.0, FAIL,
                      f"{quantity}: expected a domain error, but the model gives {shown} (source: {case.source})", f"not refused: {shown}")


def origin_of(case: schema.ValidationCase) -> str:
    """``printed``, or the kind (:data:`UNPRINTED`) of an expected value the reference does not print."""
    return case.source.kind if case.source.kind in UNPRINTED else "printed"


def printed_tolerance(text: str) -> float:
    """Half a unit in the last printed place of the number in ``text`` (``971.9`` -> 0.05)."""
    literal = units.number_text(text)
    try:
        exponent = Decimal(literal).as_tuple().exponent
    except InvalidOperation:
        return 0.0
    return 0.5 * 10.0 ** int(exponent)


def printed_unit(text: str, unit: Any, declared: str | None = None) -> str:
    """The unit of a printed value as the case writes it (``op/cycle/SM`` of ``115 op/cycle/SM``), so the
    computed value beside it reads in the same words; else ``declared`` (the quantity's unit as its model
    declares it) where that is the compared unit; pint's short form (``tinst / cy / SM``: an alias shows as its
    unit's symbol) only where neither is."""
    written = text.strip()[len(units.number_text(text)):].strip()
    for words in (written, declared):
        try:
            if words and units.unit(words) == unit:
                return words
        except ValueError:
            pass
    return f"{unit:~}"


def validate(model: Model, case_ids: tuple[str, ...] = ()) -> list[CaseResult]:
    """Run the validation cases of ``model`` (all, or those in ``case_ids``).

    Raises:
        errors.NotAModelError: ``model`` is not a model (an id: pass ``symgpu.load(ID)``).
    """
    errors.require_model(model, "symgpu.validate")
    results = []
    for case in model.definition.validation:
        if case_ids and case.id not in case_ids:
            continue
        results.extend(run_case(model, case))
    return results


def run_case(model: Model, case: schema.ValidationCase) -> list[CaseResult]:
    """Evaluate one case's expected quantities and judge each against the printed value (the
    case's values as the model read them when it was built: :meth:`Model.validation_case`)."""
    out = []
    read = model.validation_case(case)
    inputs = read.values()
    printed = dict(read.expect)
    derivation = None
    if case.derivation:
        try:
            request = next(r for r in model.definition.derivations if r.id == case.derivation)
            derivation = derive.run_request(model, request)
        except (errors.SymgpuError, ValueError) as exc:
            return [CaseResult(case, key, text, math.nan, math.nan, "", 0.0, ERROR,
                               f"{model.path}: validation {case.id}.expect.{key}: derivation {case.derivation} failed: {exc}; "
                               f"run 'symgpu derive' on the model for the derivation's steps")
                    for key, text in case.expect]
    for quantity, text in case.expect:
        if text.strip().lower() == DOMAIN_ERROR:
            out.append(_expect_domain_error(model, case, quantity, text, inputs))
            continue
        published = printed[quantity]
        assert published is not None  # only a domain-error case has no printed value
        unit = published.units
        words = printed_unit(text, unit, model.unit_text(quantity) if quantity in model.units and not unit.dimensionless else None)
        expected = float(published.magnitude)
        if case.abs_tol is not None:
            tolerance = case.abs_tol
        elif case.rel_tol is not None:
            tolerance = case.rel_tol * abs(expected)
        else:
            tolerance = printed_tolerance(text)
        try:
            if derivation is not None:
                value = derive.evaluate_result(model, derivation, case.preset or None, which=quantity, **inputs)
            else:
                value = evaluator.evaluate(model, quantity, preset=case.preset or None, values=inputs)
            computed = float(units.magnitude_in(value, unit))
        except (errors.SymgpuError, ValueError, pint.DimensionalityError) as exc:
            out.append(CaseResult(case, quantity, text, expected, math.nan, words, tolerance, ERROR, _failure(model, case, quantity, text, exc)))
            continue
        within = abs(computed - expected) <= tolerance * (1 + 1e-9) + 1e-12 * abs(expected)
        label = f"{case.derivation}.{quantity}" if derivation is not None else quantity
        shown = f"{label}: {origin_of(case)} {text}, computed {computed:.6g} {words} (tolerance ±{tolerance:.3g})"
        if case.erratum:
            status = ERRATUM_REPRODUCED if within else ERRATUM
            message = (f"{shown}; recorded as an erratum but now reproduces: remove 'erratum' or recheck the case"
                       if within else f"{shown}; source erratum: {case.erratum}")
        else:
            status = PASS if within else FAIL
            message = shown if within else f"{shown}; NOT reproduced (source: {case.source})"
        out.append(CaseResult(case, quantity, text, expected, computed, words, tolerance, status, message))
    return out


def _failure(model: Model, case: schema.ValidationCase, quantity: str, text: str, exc: Exception) -> str:
    """One line for a value that could not be computed or compared: the file, the case and key, what failed, what to do."""
    where = f"{model.path}: validation {case.id}.expect.{quantity}"
    if isinstance(exc, pint.DimensionalityError):
        return (f"{where}: the expected '{text}' is {units.format_dimension(exc.dim2)}, but the computed value is "
                f"{units.format_dimension(exc.dim1)} (in {exc.units1}); correct the expected value's unit")
    shown = str(exc)
    return shown if shown.startswith(f"{model.path}:") else f"{where}: {shown}"
