"""Running a model file's ``[[derivations]]`` requests and checking their expectations.

A request (``schema.DerivationRequest``: an id, an ``op`` and open fields) is read into a typed
:class:`~symgpu.model.operations.Question` when the model loads (its fields checked against the
operation's :class:`~symgpu.model.operations.OperationSpec`), then dispatched through
:data:`OPERATIONS` (op -> function; its keys are the registry's operations).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors, suggest
from symgpu.derive import extrema, fixed_points, grid_search, limits, regime_split, signs, simplification, solving, stored
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import Expectation
from symgpu.derive.options import Options
from symgpu.model import operations
from symgpu.model.operations import Question
from symgpu.proofs import forms, sample_points
from symgpu.proofs.signs import SignReasoner

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.model.schema import DerivationRequest

#: Fields the engine reads, besides ``id`` and ``op`` (of some operation: :data:`symgpu.model.operations.SPECS`).
FIELDS = operations.FIELDS
#: Fields for readers (reports show them), not read by the engine.
DOCUMENTATION = operations.DOCUMENTATION


def _rewrites(q: Question) -> dict[str, Any]:
    """The rewrites the entry asks for (substitute, assume, stop_at, omit), as every operation takes them."""
    return Options.read(q).rewrites()


def _solve(model: Model, q: Question) -> Derivation:
    return solving.solve(model, q.quantity, for_=q.variable, target=q.get("target"), relation=str(q.get("relation", "==")),
                         kind=q.kind if q.kind_given else None, case=q.get("case"), preset=q.preset,
                         values=dict(q.inputs), **_rewrites(q))


def _boundary(model: Model, q: Question) -> Derivation:
    between = q.get("between")
    return solving.boundary(model, q.quantity, tuple(between) if between else None, for_=q.variable, **_rewrites(q))


def _extremum(model: Model, q: Question) -> Derivation:
    if q.get("grid"):
        rewrites = Options.read(q)
        grid_search.refuse_rewrites(model, rewrites.substitute, rewrites.omit)
        return grid_search.grid_extremum(model, str(q.quantity), str(q.variable), str(q.get("grid")), q.kind,
                                         preset=q.preset, values=dict(q.inputs), assume=q.assume)
    return extrema.extremum(model, q.quantity, over=q.variable, kind=q.kind, preset=q.preset, values=dict(q.inputs), **_rewrites(q))


def _limit(model: Model, q: Question) -> Derivation:
    point = q.get("to", q.get("point", "oo"))
    ratio = q.get("ratio")
    if ratio:
        return limits.limit_ratio(model, q.quantity, q.variable, point, dict(ratio), **_rewrites(q))
    return limits.limit(model, q.quantity, q.variable, point, direction=q.get("direction"), **_rewrites(q))


def _fixed_point(model: Model, q: Question) -> Derivation:
    return fixed_points.fixed_point(model, q.quantity, q.variable, preset=q.preset, values=dict(q.inputs), **_rewrites(q))


def _regimes(model: Model, q: Question) -> Derivation:
    return regime_split.regimes(model, q.quantity, over=q.variable, preset=q.preset, values=dict(q.inputs), **_rewrites(q))


def _simplify(model: Model, q: Question) -> Derivation:
    text = q.get("expression") or q.quantity
    if text is None:
        raise errors.UsageError(f"{model.id}: derivation {q.id}: simplify needs an expression")
    return simplification.simplify_expression(model, text, substitute=dict(q.substitute), assume=list(q.assume), stop_at=q.stop_at)


def _substitute(model: Model, q: Question) -> Derivation:
    return simplification.substitute(model, q.quantity, dict(q.substitute), assume=list(q.assume), stop_at=q.stop_at, case=q.get("case"))


#: Derivation operations of model files: ``op`` -> function(model, question) -> Derivation.
OPERATIONS: dict[str, Callable[[Model, Question], Derivation]] = {
    "solve": _solve, "boundary": _boundary, "extremum": _extremum, "limit": _limit, "fixed_point": _fixed_point,
    "regimes": _regimes, "simplify": _simplify, "substitute": _substitute,
}


def run_request(model: Model, request: DerivationRequest) -> Derivation:
    """Run a ``[[derivations]]`` entry of a model file.

    Operations (``op``): ``solve``, ``boundary``, ``extremum``, ``limit``, ``fixed_point``,
    ``regimes``, ``simplify`` (field ``expression``) and ``substitute``; the fields each one
    allows and needs are in :data:`symgpu.model.operations.SPECS`.

    Recognised fields: ``quantity``, ``variable`` (or ``over``/``for``), ``kind``, ``to`` (or
    ``point``), ``direction``, ``ratio`` (``{above = "+", below = "-"}``: the ratio of the two
    one-sided limits), ``substitute`` (name -> expression text, applied to the expectation
    too), ``between``, ``assume`` (relation texts), ``stop_at``, ``case``, ``relation`` and
    ``target`` (``solve`` of an inequality), ``preset`` and ``inputs`` (values: the active
    regime / branch is reported), ``expect`` (expression text compared with the result — the
    location for ``extremum``), ``expect_value`` (the extreme value) and ``expect_regime``
    (the regime or limiter active at ``preset``/``inputs``). With an expectation the
    derivation's extra records each in ``expectations`` and the verdict in ``expectations_hold``.
    """
    q = Question.read(model, request)
    return stored.cached(model, ("request", repr(request), q.omit), lambda: _run(model, request, q))


def _run(model: Model, request: DerivationRequest, q: Question) -> Derivation:
    derivation = OPERATIONS[q.op](model, q)
    op, get, subs, stop = q.op, q.get, dict(q.substitute), q.stop_at
    ctx = signs.reasoner(model)
    checks: list[Expectation] = []
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
    # NOTE: the file writes a number bare, as its equations do: each constant an equation's bare literal became
    # (``lit_1_warp_per_SM``, :mod:`symgpu.model.literal_constants`) compared as that number, on both sides
    written = {model.symbols[c.name]: sympy.Rational(c.value) for c in model.literal_constants if c.equations}

    def as_written(expr: Any, keep: Iterable[str]) -> Any:
        found = _expand_all(model, expr, keep)
        return found.xreplace(written) if written and isinstance(found, sympy.Basic) else found

    for key, text, target in targets:
        expected = model.parse(str(text), f"derivation {request.id}.{key}")
        if mapping:
            expected = expected.xreplace(mapping)
        holds = proved_equal(as_written(target, stop), as_written(expected, stop), ctx)
        if not holds and stop:
            holds = proved_equal(as_written(target, ()), as_written(expected, ()), ctx)
        verdicts.append(holds)
        checks.append(Expectation(key, expected, holds))
    if get("expect_regime") is not None:
        wanted = str(get("expect_regime"))
        active = derivation.extra.active_regimes
        if active is None:
            raise errors.UsageError(f"{model.id}: derivation {request.id}: expect_regime needs op = \"regimes\" with a preset or inputs")
        holds = any(wanted == a.name or wanted in a.terms for a in active)
        verdicts.append(holds)
        checks.append(Expectation("expect_regime", wanted, holds))
    extra = derivation.extra.with_(request=request.id)
    if checks:
        extra = extra.with_(expectations=tuple(checks), expectations_hold=all(verdicts))
    return dataclasses.replace(derivation, extra=extra)


def _expand_all(model: Model, expr: Any, stop_at: Iterable[str] = ()) -> Any:
    if not isinstance(expr, sympy.Basic):
        return expr
    stop = frozenset(stop_at)
    mapping = {s: model.expression(s.name, stop_at=stop) for s in expr.free_symbols if s.name in model.defining and s.name not in stop}
    return expr.xreplace(mapping) if mapping else expr


def proved_equal(a: Any, b: Any, ctx: SignReasoner | None = None) -> bool:
    """``simplify(a - b) == 0`` for expressions (False for anything else); constants with
    positive values are known positive."""
    if not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr):
        return False
    mapping = ctx.constants if ctx is not None else {}
    a, b = a.xreplace(mapping), b.xreplace(mapping)
    if a == b:
        return True
    if forms.has_pieces(a) or forms.has_pieces(b):
        if ctx is not None:
            a, b = limits._lift(ctx, a), limits._lift(ctx, b)
        if isinstance(a, (sympy.Min, sympy.Max)) and type(a) is type(b) and len(a.args) == len(b.args):
            rest = list(b.args)
            for arg in a.args:
                match = next((r for r in rest if proved_equal(arg, r, ctx)), None)
                if match is None:
                    return False
                rest.remove(match)
            return True
    if differ_at_a_point(a, b):
        return False
    difference = a - b
    try:
        # cheap proof first: over a common denominator the numerator expands to 0
        if sympy.count_ops(difference) <= _EXPAND_OPS and sympy.expand(sympy.numer(sympy.together(difference))) == 0:
            return True
        if any(p.exp.is_Rational and not p.exp.is_Integer for p in difference.atoms(sympy.Pow)):
            difference = sympy.radsimp(difference)
        return bool(sympy.simplify(difference) == 0)
    except (TypeError, ValueError):
        return False


#: the largest difference (in operations) whose numerator is expanded before ``simplify``
_EXPAND_OPS = 400
#: exact points tried before ``simplify`` to show two expressions differ
_POINTS = 3


def differ_at_a_point(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True if ``a`` and ``b`` take different values at a point allowed by their symbols'
    assumptions (exact rationals substituted, then 30 significant digits each: a relative gap
    over 1e-15 is no rounding), so that ``simplify(a - b)`` cannot be 0 and need not run.
    False means only "not shown to differ"."""
    symbols = sample_points.ordered(a.free_symbols | b.free_symbols)
    pools = [sample_points.SMALL.admissible(s) for s in symbols]
    if not all(pools):
        return False
    for point in sample_points.points(symbols, pools, 97, _POINTS):
        try:
            va, vb = (sympy.N(e.xreplace(point), 30) for e in (a, b))
            if not (va.is_number and vb.is_number) or any(v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) for v in (va, vb)):
                continue
            gap, size = abs(complex(va - vb)), max(abs(complex(va)), abs(complex(vb)))
        except (TypeError, ValueError, ZeroDivisionError, ArithmeticError, RecursionError):
            continue
        if size < 1e-20:
            continue  # an irrational 0 evaluates to a residue: both tiny says nothing
        if gap > 1e-15 * size:
            return True
    return False


def expect_holds(derivation: Derivation) -> bool | None:
    """The overall verdict (``expectations_hold``) recorded by :func:`run_request` (None if no expectation)."""
    return derivation.extra.expectations_hold


def request(model: Model, request_id: str) -> Derivation:
    """Run the model file's derivation request ``request_id``."""
    for entry in model.definition.derivations:
        if entry.id == request_id:
            return run_request(model, entry)
    known = suggest.alternatives(request_id, [d.id for d in model.definition.derivations], "the model file's [[derivations]] list them")
    raise errors.UsageError(f"{model.id}: no derivation '{request_id}' (derivations: {known})")
