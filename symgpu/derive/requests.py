"""Running a model file's ``[[derivations]]`` requests and checking their expectations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.derive import signs
from symgpu.derive import extrema
from symgpu.derive import fixed_points
from symgpu.derive import limits
from symgpu.derive import regime_split
from symgpu.derive import simplification
from symgpu.derive import solving
from symgpu.derive.derivation import Derivation
from symgpu.derive import grid_search

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.model.schema import DerivationRequest


def run_request(model: Model, request: DerivationRequest) -> Derivation:
    """Run a ``[[derivations]]`` entry of a model file.

    Operations (``op``): ``solve``, ``boundary``, ``extremum``, ``limit``, ``fixed_point``,
    ``regimes``, ``simplify`` (field ``expression``) and ``substitute``.

    Recognised fields: ``quantity``, ``variable`` (or ``over``/``for``), ``kind``, ``to`` (or
    ``point``), ``direction``, ``ratio`` (``{above = "+", below = "-"}``: the ratio of the two
    one-sided limits), ``substitute`` (name -> expression text, applied to the expectation
    too), ``between``, ``assume`` (relation texts), ``stop_at``, ``case``, ``relation`` and
    ``target`` (``solve`` of an inequality), ``preset`` and ``inputs`` (values: the active
    regime / branch is reported), ``expect`` (expression text compared with the result — the
    location for ``extremum``), ``expect_value`` (the extreme value) and ``expect_regime``
    (the regime or limiter active at ``preset``/``inputs``). With an expectation the
    derivation's extra holds ``("expect_holds", bool)``.
    """
    get = request.get
    quantity = get("quantity")
    variable = get("variable") or get("over") or get("for")
    subs = dict(get("substitute") or {})
    assume = list(get("assume") or [])
    stop = tuple(get("stop_at") or ())
    preset = get("preset")
    inputs = dict(get("inputs") or {})
    source = get("limiters_from") or ""
    omit = [(source, name) for name in (get("omit_limiters") or [])]
    kind = {"maximum": "max", "minimum": "min"}.get(str(get("kind", "max")), str(get("kind", "max")))
    common: dict[str, Any] = {"substitute": subs, "assume": assume, "omit": omit, "stop_at": stop}
    op = request.op
    if op == "solve":
        derivation = solving.solve(model, quantity, for_=variable, target=get("target"), relation=str(get("relation", "==")),
                           kind=kind if get("kind") is not None else None, case=get("case"), preset=preset,
                           values=inputs, **common)
    elif op == "boundary":
        between = get("between")
        derivation = solving.boundary(model, quantity, tuple(between) if between else None, for_=variable, **common)
    elif op == "extremum" and get("grid"):
        derivation = grid_search.grid_extremum(model, str(quantity), str(variable), str(get("grid")), kind, preset=preset, values=inputs)
    elif op == "extremum":
        derivation = extrema.extremum(model, quantity, over=variable, kind=kind, preset=preset, values=inputs, **common)
    elif op == "limit":
        point = get("to", get("point", "oo"))
        ratio = get("ratio")
        if ratio:
            derivation = limits.limit_ratio(model, quantity, variable, point, dict(ratio), **common)
        else:
            derivation = limits.limit(model, quantity, variable, point, direction=get("direction"), **common)
    elif op == "fixed_point":
        derivation = fixed_points.fixed_point(model, quantity, variable, preset=preset, values=inputs, **common)
    elif op == "regimes":
        derivation = regime_split.regimes(model, quantity, over=variable, preset=preset, values=inputs, **common)
    elif op == "simplify":
        text = get("expression") or quantity
        if text is None:
            raise errors.UsageError(f"{model.id}: derivation {request.id}: simplify needs an expression")
        derivation = simplification.simplify_expression(model, text, substitute=subs, assume=assume, stop_at=stop)
    elif op == "substitute":
        derivation = simplification.substitute(model, quantity, subs, assume=assume, stop_at=stop, case=get("case"))
    else:
        raise errors.UsageError(f"{model.id}: derivation {request.id}: operation '{op}' is not supported by the engine")
    ctx = signs._Context(model)
    checks: list[tuple[str, Any]] = []
    targets: list[tuple[str, Any, Any]] = []
    expect = get("expect")
    if isinstance(expect, Mapping) or (isinstance(expect, tuple) and expect and isinstance(expect[0], tuple)):
        for key, text in dict(expect).items():
            if key == derivation.variable and op == "extremum":
                targets.append((f"expect.{key}", text, derivation.location))
            elif key in (derivation.quantity, "value", "result"):
                targets.append((f"expect.{key}", text, derivation.result))
            else:
                raise errors.UsageError(f"{model.id}: derivation {request.id}: expect.{key} names neither "
                                        f"{derivation.variable} nor {derivation.quantity}")
    elif expect is not None:
        targets.append(("expect", expect, derivation.location if op == "extremum" else derivation.result))
    if get("expect_value") is not None:
        targets.append(("expect_value", get("expect_value"), derivation.result))
    mapping = {model.symbol(k): model.parse(str(v), f"derivation {request.id}.substitute.{k}") for k, v in subs.items()}
    verdicts = []
    for key, text, target in targets:
        expected = model.parse(str(text), f"derivation {request.id}.{key}")
        if mapping:
            expected = expected.xreplace(mapping)
        holds = _equal(_expand_all(model, target, stop), _expand_all(model, expected, stop), ctx)
        if not holds and stop:
            holds = _equal(_expand_all(model, target), _expand_all(model, expected), ctx)
        verdicts.append(holds)
        checks.append((key, expected))
        checks.append((f"{key}_holds", holds))
    if get("expect_regime") is not None:
        wanted = str(get("expect_regime"))
        active = dict(derivation.extra).get("active_regimes")
        if active is None:
            raise errors.UsageError(f"{model.id}: derivation {request.id}: expect_regime needs op = \"regimes\" with a preset or inputs")
        holds = any(wanted == a["name"] or wanted in a["terms"] for a in active)
        verdicts.append(holds)
        checks.append(("expect_regime", wanted))
        checks.append(("expect_regime_holds", holds))
    if verdicts:
        checks.append(("expect_holds", all(verdicts)))
    extra = tuple(derivation.extra) + (("request", request.id),) + tuple(checks)
    out = Derivation(derivation.model, derivation.operation, derivation.quantity, derivation.variable, derivation.steps,
                     derivation.result, derivation.assumptions, derivation.location, derivation.unit, derivation.method, extra)
    if hasattr(derivation, "_regimes"):
        object.__setattr__(out, "_regimes", derivation._regimes)
    return out


def _expand_all(model: Model, expr: Any, stop_at: Iterable[str] = ()) -> Any:
    if not isinstance(expr, sympy.Basic):
        return expr
    stop = frozenset(stop_at)
    mapping = {s: model.expression(s.name, stop_at=stop) for s in expr.free_symbols if s.name in model.defining and s.name not in stop}
    return expr.xreplace(mapping) if mapping else expr


def _equal(a: Any, b: Any, ctx: signs._Context | None = None) -> bool:
    """``simplify(a - b) == 0`` for expressions (False for anything else); constants with
    positive values are known positive."""
    if not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr):
        return False
    mapping = ctx.constants if ctx is not None else {}
    a, b = a.xreplace(mapping), b.xreplace(mapping)
    if a == b:
        return True
    if signs._has_pieces(a) or signs._has_pieces(b):
        if ctx is not None:
            a, b = limits._lift(ctx, a), limits._lift(ctx, b)
        if isinstance(a, (sympy.Min, sympy.Max)) and type(a) is type(b) and len(a.args) == len(b.args):
            rest = list(b.args)
            for arg in a.args:
                match = next((r for r in rest if _equal(arg, r, ctx)), None)
                if match is None:
                    return False
                rest.remove(match)
            return True
    difference = a - b
    try:
        if any(p.exp.is_Rational and not p.exp.is_Integer for p in difference.atoms(sympy.Pow)):
            difference = sympy.radsimp(difference)
        return bool(sympy.simplify(difference) == 0)
    except (TypeError, ValueError):
        return False


def expect_holds(derivation: Derivation) -> bool | None:
    """The ``expect_holds`` verdict recorded by :func:`run_request` (None if no expectation)."""
    return dict(derivation.extra).get("expect_holds")


def request(model: Model, request_id: str) -> Derivation:
    """Run the model file's derivation request ``request_id``."""
    for entry in model.definition.derivations:
        if entry.id == request_id:
            return run_request(model, entry)
    known = ", ".join(d.id for d in model.definition.derivations) or "none"
    raise errors.UsageError(f"{model.id}: no derivation '{request_id}' (derivations: {known})")
