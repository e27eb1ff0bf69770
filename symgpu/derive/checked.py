"""The public derivation operations, each answer checked numerically before it is returned.

``solve``, ``boundary``, ``extremum``, ``limit``, ``fixed_point`` and ``run_request`` run the
operation (:mod:`.solving`, :mod:`.extrema`, :mod:`.limits`, :mod:`.fixed_points`,
:mod:`.requests`) and attach its :class:`~symgpu.derive.derivation.Certificate`
(:mod:`.certify`), at ``preset``/``values`` when given. A cached derivation is checked the same
way: the cache can make an answer faster, never different. A failed check raises
:class:`symgpu.errors.CertificateError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import certify, extrema, fixed_points, limit_cases, limits, requests, solving
from symgpu.derive.certify import Asked
from symgpu.derive.derivation import Derivation
from symgpu.evaluate import active

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.model.schema import DerivationRequest


def _guarded(model: Model, what: str, run: Callable[[], Derivation]) -> Derivation:
    """Run one operation; SymPy's own failures (a comparison with ``zoo`` it cannot decide, an
    invalid comparison of a non-real value) become a :class:`DerivationError` that says so,
    never a traceback."""
    try:
        return run()
    except errors.SymgpuError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, NotImplementedError, sympy.polys.polyerrors.BasePolynomialError) as exc:
        raise errors.DerivationError(
            f"{model.id}: {what}: SymPy could not decide a step ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); "
            "no answer is given. Put a deciding value in first (--substitute NAME=VALUE) or add an assumption (--assume)") from None


def _pairs(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple((str(k), v) for k, v in (mapping or {}).items())


def _skip(model: Model, *, omit: Iterable[Any] = (), case: str | None = None, relation: str = "==",
          assume: Iterable[Any] | None = None, preset: str | None = None, values: Mapping[str, Any] | None = None) -> str:
    """Why the evaluate path does not answer the question as asked ("" when it does)."""
    if tuple(omit):
        return "limiters were omitted, so the model's own evaluation answers another question"
    if case is not None:
        return f"one case ({case}) was chosen, so the model's own evaluation may take another"
    if relation not in ("==", "="):
        return "an inequality's bound is checked by its derivation steps, not at points"
    for text in tuple(assume or ()):
        if preset is None and not values:
            return f"the extra assumption {text} holds only where it holds; give --preset or --set to check at a point"
        try:
            condition = model.parse(str(text), "--assume", boolean=True)
            expanded = condition.xreplace({s: model.expression(s.name) for s in condition.free_symbols if s.name in model.defining})
            holds = active.condition_holds(model, expanded, preset, values or {})[0]
        except errors.SymgpuError as exc:
            return f"the extra assumption {text} cannot be evaluated at the point ({exc})"
        if not holds:
            return f"the extra assumption {text} does not hold at the point"
    return ""


def _zero_inputs(model: Model, quantity: str, variable: str, preset: str | None, values: Mapping[str, Any] | None,
                 substitute: Mapping[str, Any]) -> dict[str, Any]:
    """The declared-nonnegative inputs of ``quantity`` that are 0 at the preset / values
    (:func:`limit_cases.zero_inputs`): a solve there is the solve with the 0 put in first, as a limit there is."""
    if preset is None and not values or quantity not in model.defining and quantity not in model.equations:
        return {}
    names = [n for n in model.inputs(model.equation_for(quantity).definition.defines) if n != variable and n not in substitute]
    return {name: 0 for name in limit_cases.zero_inputs(model, names, preset, values)}


def solve(model: Model, quantity_or_equation: Any, for_: str = "n", *, target: Any = None,
          substitute: Mapping[str, Any] | None = None, preset: str | None = None,
          values: Mapping[str, Any] | None = None, **options: Any) -> Derivation:
    """:func:`symgpu.derive.solving.solve`, checked: every root satisfies the relation and a scan
    of the variable's range finds no root the answer lacks (at ``preset``/``values`` when given)."""
    keywords = {k: v for k, v in options.items() if k not in ("assume", "stop_at", "omit", "relation", "kind", "case")}
    zeros = _zero_inputs(model, str(quantity_or_equation), str(for_), preset, values, dict(substitute or {}))
    derivation = None
    if zeros:  # the zeros put in first; where that leaves no relation to solve (0/0), the solve without them answers
        pinned = {**zeros, **dict(substitute or {})}
        try:
            derivation = _guarded(model, f"solve of {quantity_or_equation} for {for_}", lambda: solving.solve(
                model, quantity_or_equation, for_, target=target, substitute=pinned, preset=preset, values=values, **options))
            substitute = pinned
        except errors.DerivationError:
            derivation = None
    if derivation is None:
        derivation = _guarded(model, f"solve of {quantity_or_equation} for {for_}", lambda: solving.solve(
            model, quantity_or_equation, for_, target=target, substitute=substitute, preset=preset, values=values, **options))
    name = str(quantity_or_equation)
    if name in model.defining or name in model.equations:
        name = model.equation_for(name).definition.defines
    subs = {**dict(substitute or {}), **{k: v for k, v in keywords.items() if k != name}}
    if name in keywords and target is None:
        target = keywords[name]
    skip = _skip(model, omit=options.get("omit", ()), case=options.get("case"), relation=options.get("relation", "=="),
                 assume=options.get("assume"), preset=preset, values=values)
    asked = Asked("solve", str(quantity_or_equation), str(for_), preset, _pairs(values), _pairs(subs), target=target, skip=skip)
    return certify.certify(model, derivation, asked)


def boundary(model: Model, quantity: Any, between: Any = None, for_: str | None = None, *,
             substitute: Mapping[str, Any] | None = None, preset: str | None = None,
             values: Mapping[str, Any] | None = None, **options: Any) -> Derivation:
    """:func:`symgpu.derive.solving.boundary`, checked: the regime differs on the two sides of each boundary."""
    derivation = _guarded(model, f"boundary of {quantity} in {for_}",
                          lambda: solving.boundary(model, quantity, between, for_, substitute=substitute, **options))
    if between is not None and not isinstance(between, str):
        derivation = dataclasses.replace(derivation, extra=derivation.extra + (("between", tuple(between)),))
    skip = _skip(model, omit=options.get("omit", ()), assume=options.get("assume"), preset=preset, values=values)
    asked = Asked("boundary", str(quantity), str(for_), preset, _pairs(values), _pairs(substitute), skip=skip)
    checked = certify.certify(model, derivation, asked)
    tied = [r["root"] for r in dict(checked.extra).get("roots") or () if isinstance(r, dict) and r.get("tie")]
    if tied and preset is None and not values and checked.certificate is not None and not checked.certificate.checks:
        raise errors.DerivationError(
            f"{model.id}: {quantity}: the cases {' and '.join(map(str, between)) if isinstance(between, (tuple, list)) else ''} "
            f"only tie at {for_} = {sympy.sstr(tied[0])}, and no preset or sampled point gives every input to check that they "
            f"switch there, so they do not switch as far as symgpu can show; ask at a point (--preset, --set)")
    return checked


def extremum(model: Model, quantity: Any, over: str = "alpha", kind: str = "max", *,
             substitute: Mapping[str, Any] | None = None, preset: str | None = None,
             values: Mapping[str, Any] | None = None, **options: Any) -> Derivation:
    """:func:`symgpu.derive.extrema.extremum`, checked: the value at the location, and no scanned point beats it."""
    derivation = _guarded(model, f"{kind}imum of {quantity} over {over}", lambda: extrema.extremum(
        model, quantity, over, kind, substitute=substitute, preset=preset, values=values, **options))
    skip = _skip(model, omit=options.get("omit", ()), assume=options.get("assume"), preset=preset, values=values)
    asked = Asked("extremum", str(quantity), str(over), preset, _pairs(values), _pairs(substitute), to=kind, skip=skip)
    return certify.certify(model, derivation, asked)


def limit(model: Model, quantity: Any, var: str, to: Any = "oo", *, direction: str | None = None,
          substitute: Mapping[str, Any] | None = None, preset: str | None = None,
          values: Mapping[str, Any] | None = None, **options: Any) -> Derivation:
    """:func:`symgpu.derive.limits.limit`, checked: evaluation approaching ``to`` tends to the answer."""
    derivation = _guarded(model, f"limit of {quantity} as {var} -> {to}", lambda: limits.limit(
        model, quantity, var, to, direction=direction, substitute=substitute, preset=preset, values=values, **options))
    skip = _skip(model, omit=options.get("omit", ()), assume=options.get("assume"), preset=preset, values=values)
    asked = Asked("limit", str(quantity), str(var), preset, _pairs(values), _pairs(substitute), to=to,
                  direction=direction, skip=skip)
    return certify.certify(model, derivation, asked)


def fixed_point(model: Model, quantity: Any, variable: str, *, substitute: Mapping[str, Any] | None = None,
                preset: str | None = None, values: Mapping[str, Any] | None = None, **options: Any) -> Derivation:
    """:func:`symgpu.derive.fixed_points.fixed_point`, checked: the residual vanishes at the answer."""
    derivation = _guarded(model, f"fixed point of {quantity} in {variable}", lambda: fixed_points.fixed_point(
        model, quantity, variable, substitute=substitute, preset=preset, values=values, **options))
    skip = _skip(model, omit=options.get("omit", ()), assume=options.get("assume"), preset=preset, values=values)
    asked = Asked("fixed_point", str(quantity), str(variable), preset, _pairs(values), _pairs(substitute), skip=skip)
    return certify.certify(model, derivation, asked)


def run_request(model: Model, request: DerivationRequest) -> Derivation:
    """:func:`symgpu.derive.requests.run_request`, its answer checked like the operation's own."""
    derivation = _guarded(model, f"derivation {request.id}", lambda: requests.run_request(model, request))
    q = requests.Question.read(model, request)
    if q.op not in certify.CHECKED_OPS:
        return derivation
    values = dict(q.inputs) or None
    skip = _skip(model, omit=q.omit, case=q.get("case"), relation=str(q.get("relation", "==")), assume=q.assume,
                 preset=q.preset, values=values)
    if q.get("ratio") is not None:
        skip = skip or "a ratio of one-sided limits is checked by its derivation steps"
    asked = Asked(q.op, str(q.quantity), str(q.variable), q.preset, _pairs(values), q.substitute,
                  target=q.get("target"), to=q.kind if q.op == "extremum" else q.get("to", q.get("point", "oo")),
                  direction=q.get("direction"), skip=skip)
    return certify.certify(model, derivation, asked)
