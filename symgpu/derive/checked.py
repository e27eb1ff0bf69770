"""The public derivation operations, each answer checked numerically before it is returned.

``solve``, ``boundary``, ``extremum``, ``limit``, ``fixed_point``, ``regimes`` and ``run_request`` run the
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

from symgpu import arguments, errors, memo, store
from symgpu.derive import (certify, certify_path, extrema, extremum_monotone, extremum_supremum, fixed_points, given_values, grid_search,
                           limit_cases, limit_domain, limit_sides, limits, numeric_solve, requests, results, solving, staircase_boundary,
                           stored, targets)
from symgpu.derive.certify import Asked
from symgpu.derive.derivation import Derivation
from symgpu.derive.options import Options
from symgpu.evaluate import active, input_values
from symgpu.proofs import forms

if TYPE_CHECKING:
    from pathlib import Path

    from symgpu.model import Model
    from symgpu.model.schema import DerivationRequest

#: each model's checked answers to its own requests, by request: a report's derivations and its
#: validation cases that name one (``validation.derivation``) ask the same request of the same model
_ANSWERED: memo.MemoFamily[tuple[DerivationRequest, Path | None], Derivation] = memo.MemoFamily("derive.checked.requests", 256)


def _guarded(model: Model, what: str, run: Callable[[], Derivation], given: bool = False) -> Derivation:
    """Run one operation; SymPy's own failures (a comparison with ``zoo`` it cannot decide, an
    invalid comparison of a non-real value) become a :class:`DerivationError` that says so,
    never a traceback. ``given``: every input but the variable has a value at the point, so no
    value put in first can decide the step (the message then says to read it numerically)."""
    try:
        return run()
    except errors.SymgpuError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, NotImplementedError, sympy.polys.polyerrors.BasePolynomialError) as exc:
        advice = ("every input but the variable has a value here: read it numerically over a grid (symgpu sweep, or extremum --grid), "
                  "and please report it with the command line") if given else \
            "Put a deciding value in first (--substitute NAME=VALUE) or add an assumption (--assume)"
        raise errors.DerivationError(
            f"{model.id}: {what}: SymPy could not decide a step ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); "
            f"no answer is given. {advice}") from None


def _every_input_given(model: Model, asked: Asked, options: Options) -> bool:
    """Does the point give every input of the asked quantity a value, but the variable (a substitution counts as one)?"""
    if not options.at_a_point or asked.quantity not in model.defining and asked.quantity not in model.equations:
        return False
    merged = input_values.merge_values(model, options.preset, dict(options.at or {}))
    given = {**merged, **dict(options.substitutions or {})}
    return all(n == asked.variable or n in given for n in model.inputs(model.equation_for(asked.quantity).definition.defines))


def _pairs(mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple((str(k), v) for k, v in (mapping or {}).items())


def _parsed(model: Model, mapping: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """:func:`_pairs`, each text parsed once here: the checks evaluate the substitutions at
    every point they scan. A text that does not parse is kept as text (refused where it is used)."""
    out = []
    for name, value in _pairs(mapping):
        if isinstance(value, str):
            try:
                value = model.parse(value, f"substitute.{name}")
            except errors.ExpressionError:
                pass
        out.append((name, value))
    return tuple(out)


def _skip(model: Model, options: Options, variable: str = "", kind: str | None = None) -> str:
    """Why the evaluate path does not answer the question as asked ("" when it does).

    Raises:
        errors.NoAnswerHere: an ``assume`` relation (not on the variable) is false at the given point: the
            answer was derived under it.
    """
    values = options.at or {}
    unread = ""
    for text in options.assume or ():
        if variable and variable in {s.name for s in certify_path.assumed(model, str(text)).free_symbols}:
            continue  # an assumption on the variable: the checks scan only where it holds (certify_path._inside)
        if options.preset is None and not values:
            unread = unread or f"the extra assumption {text} holds only where it holds; give --preset or --set to check at a point"
            continue
        try:
            holds = active.condition_true(model, certify_path.assumed(model, str(text)), options.preset, values)
        except errors.SymgpuError as exc:
            unread = unread or f"the extra assumption {text} cannot be evaluated at the point ({exc})"
            continue
        if not holds:  # the answer was derived under it: it says nothing at the point
            raise errors.NoAnswerHere(f"{model.id}: the assumption {text} does not hold at the given values, and the answer was "
                                      "derived under it: it does not apply there; drop the assumption or ask where it holds")
    if options.omit:
        return "limiters were omitted, so the model's own evaluation answers another question"
    if options.case is not None:
        return f"one case ({options.case}) was chosen, so the model's own evaluation may take another"
    return unread


def _zero_inputs(model: Model, quantity: str, variable: str, options: Options) -> dict[str, Any]:
    """The declared-nonnegative inputs of ``quantity`` that are 0 at the preset / values
    (:func:`limit_cases.zero_inputs`): a solve there is the solve with the 0 put in first, as a limit there is."""
    if not options.at_a_point or quantity not in model.defining and quantity not in model.equations:
        return {}
    substitute = options.substitutions or {}
    names = [n for n in model.inputs(model.equation_for(quantity).definition.defines) if n != variable and n not in substitute]
    return {name: 0 for name in limit_cases.zero_inputs(model, names, options.preset, options.at)}


def _answer(model: Model, asked: Asked, options: Options, run: Callable[[Options], Derivation], *,
            what: str = "", pin_zeros: bool = False, skip: str = "") -> Derivation:
    """The one prologue of the public operations: run the operation with ``options`` (SymPy's
    failures said in one line, :func:`_guarded`), then check its answer on the evaluate path
    (:func:`certify.certify`) at the point the options give, for the question ``asked``
    (its ``op``, quantity, variable, target, point and direction; the rest is filled in here).

    Args:
        what: how a failure names the question (default: from ``asked``, :data:`_WHAT`).
        pin_zeros: put the declared-nonnegative inputs that are 0 at the point in first
            (:func:`_zero_inputs`); where that leaves no relation to solve (0/0), the operation
            without them answers.
        skip: why the evaluate path does not answer the question, when the options say nothing.
    """
    what = what or _WHAT[asked.op].format(q=asked.quantity, v=asked.variable, to=asked.to)
    if asked.op != "regimes" and asked.variable and asked.variable in (options.at or {}):  # dropped without a word (a regime table
        # along a variable takes its value as the point whose regime is active)
        raise errors.UsageError(f"{model.id}: {asked.variable} is the variable of this {asked.op.replace('_', ' ')}; it cannot also be "
                                "given a value (--set, values=): drop it, or eval at that value")
    given_values.refuse_coupled_keep(model, asked.variable, options)
    options = given_values.keep_given_quantities(model, asked, options)
    derivation = None
    zeros = _zero_inputs(model, asked.quantity, asked.variable, options) if pin_zeros else {}
    if zeros:
        pinned = dataclasses.replace(options, substitute=tuple({**zeros, **(options.substitutions or {})}.items()))
        try:
            derivation = _guarded(model, what, lambda: run(pinned))
            options = pinned
        except errors.DerivationError:
            derivation = None
    if derivation is None:
        try:
            derivation = _guarded(model, what, lambda: run(options), _every_input_given(model, asked, options))
        except errors.DerivationError as exc:  # at a point, a target beyond the quantity's range there is the reason to give
            if options.at_a_point and not isinstance(exc, errors.NoAnswerHere):
                certify.out_of_reach(model, dataclasses.replace(asked, preset=options.preset, values=_pairs(options.at),
                                                                substitute=_parsed(model, options.substitutions),
                                                                assume=tuple(options.assume or ())))
            raise
    asked = dataclasses.replace(asked, preset=options.preset, values=_pairs(options.at), substitute=_parsed(model, options.substitutions),
                                assume=tuple(options.assume or ()), skip=_skip(model, options, asked.variable, asked.kind) or skip)
    return certify.certify(model, derivation, asked)


#: how a failure names the question (``q``: quantity, ``v``: variable, ``to``: the point or kind)
_WHAT = {"solve": "solve of {q} for {v}", "boundary": "boundary of {q} in {v}", "extremum": "{to}imum of {q} over {v}",
         "limit": "limit of {q} as {v} -> {to}", "fixed_point": "fixed point of {q} in {v}", "regimes": "regimes of {q}"}


@arguments.checked
@targets.substitutes_in_units
def solve(model: Model, quantity_or_equation: Any, for_: str = "n", *, target: Any = None,
          substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (),
          omit: Iterable[Any] = (), relation: str = "==", kind: str | None = None, case: str | None = None,
          preset: str | None = None, values: Mapping[str, Any] | None = None, **given: Any) -> Derivation:
    """:func:`symgpu.derive.solving.solve`, checked: every root satisfies the relation and a scan
    of the variable's range finds no root the answer lacks (at ``preset``/``values`` when given).
    Keyword values ``given`` are substitutions (``M="N"``), a value of the quantity its target."""
    name = str(quantity_or_equation)
    if name in model.defining or name in model.equations:
        name = model.equation_for(name).definition.defines
    if str(for_) == name:  # the relation was returned as the "result" (an outside tester's finding, round 14a, F4)
        raise errors.UsageError(f"{model.id}: solve {name} for {name}: the variable is the quantity itself; solve for one of its "
                                f"inputs (symgpu show {model.id} {name} lists them) or evaluate {name}")
    given = dict(given)
    value = given.pop(name, None) if name in given else target
    subs = None if substitute is None and not given else {**dict(substitute or {}), **given}
    asked_of = model
    model, value, made = targets.given_target(model, name, value, preset=preset, values=values, variable=str(for_), substitute=subs)
    options = Options.of(substitute=subs, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values,
                         case=case, relation=relation)
    # a target moved across a rate is checked as moved (the certificate had read "500 ns" for cycles, and checked nothing)
    shown = value if target is None or model is not asked_of else target
    asked = Asked("solve", str(quantity_or_equation), str(for_), target=shown, relation=relation,
                  kind=kind if relation not in ("==", "=") else None)
    def run(o: Options) -> Derivation:
        try:
            return solving.solve(model, quantity_or_equation, for_, target=value, relation=o.relation, kind=kind, case=o.case,
                                 **o.rewrites(), **o.point())
        except errors.DerivationError as exc:  # at a point that gives every other input: the roots found numerically
            # a staircase in the variable (floor/ceiling) may hold between two scanned points and not at them: its own refusal stands
            bound = o.relation in numeric_solve.INEQUALITIES and kind in ("min", "max") and not isinstance(exc, errors.NoAnswerHere) \
                and not forms.has_staircase(model.expression(name), model.symbol(str(for_)))
            if not (isinstance(exc, errors.NoClosedForm) and o.relation in ("==", "=") or bound) \
                    or not numeric_solve.answerable(model, name, str(for_), o.preset, o.at,
                                                    bool(o.substitutions or o.omit or o.stop_at or o.case)):
                raise
            if bound:  # the least / greatest value where the inequality holds: its change along the variable, bisected
                return numeric_solve.numeric_bound(model, name, str(for_), value, o.relation, str(kind),
                                                   f"SymPy finds no closed form for {name} {o.relation} the target in {for_}",
                                                   preset=o.preset, values=o.at, assume=tuple(o.assume or ()))
            assert isinstance(exc, errors.NoClosedForm)
            return numeric_solve.numeric_roots(model, name, str(for_), value, exc.reason, preset=o.preset,
                                               values=o.at, assume=tuple(o.assume or ()))

    derivation = _answer(model, asked, options, run, pin_zeros=True)
    if not made or model is asked_of:
        return derivation
    return dataclasses.replace(derivation, extra=derivation.extra.with_(given_constants=made))


@arguments.checked
@targets.substitutes_in_units
def boundary(model: Model, quantity: Any, between: Any = None, for_: str | None = None, *,
             substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (),
             omit: Iterable[Any] = (), preset: str | None = None, values: Mapping[str, Any] | None = None) -> Derivation:
    """:func:`symgpu.derive.solving.boundary`, checked: the regime differs on the two sides of each boundary
    (at ``preset``/``values`` when given, else at the model's presets or sampled points)."""
    options = Options.of(substitute=substitute, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values)
    pair = None if for_ is None else staircase_boundary.expanded_pair(model, str(quantity), between, str(for_))
    staircase = staircase_boundary.applies(model, pair)

    def scan(o: Options) -> Derivation:
        return staircase_boundary.boundary(model, str(quantity), tuple(between), str(for_), o.preset, o.at or {}, o.assume or ())

    def scan_every_pair(o: Options) -> Derivation:
        return staircase_boundary.boundary(model, str(quantity), None, str(for_), o.preset, o.at or {}, o.assume or ())

    # every pair asked at a point of a quantity whose Min/Max has staircase limiters: where the closed form of every pair
    # finds no switch there (kernel_gemm's t_body over K_red: no root of its ceiling), the scan of the evaluate path does
    every_pair = for_ is not None and between is None and options.plain and \
        staircase_boundary.every_pair_owner(model, str(quantity), str(for_)) is not None

    def run(o: Options) -> Derivation:
        if staircase and o.plain:  # step functions: a scan at the point
            return scan(o)
        derivation = solving.boundary(model, quantity, between, for_, **o.rewrites(), **o.point())  # the point screens every pair
        if between is not None and not isinstance(between, str):
            derivation = dataclasses.replace(derivation, extra=derivation.extra.with_(between=tuple(between)))
        return derivation

    try:
        checked = _answer(model, Asked("boundary", str(quantity), str(for_)), options, run)
    except errors.CertificateError as failure:
        if every_pair:
            return _answer(model, Asked("boundary", str(quantity), str(for_)), options, scan_every_pair)
        if for_ is not None and between is None and str(quantity) in model.defining and \
                forms.has_staircase(model.expression(str(quantity)), model.symbols[str(for_)]):
            raise _staircase_pairs(model, str(quantity), str(for_), options.at_a_point, options.plain, failure.finding) from failure
        if options.plain and not staircase and staircase_boundary.case_steps(pair):
            return _answer(model, Asked("boundary", str(quantity), str(for_)), options, scan)  # steps of case tables: the scan
        if not staircase or options.plain:
            raise
        raise _staircase_closed_form(model, str(quantity), tuple(between), str(for_), options.at_a_point, failure) from failure
    except errors.DerivationError:
        if not every_pair:
            raise
        return _answer(model, Asked("boundary", str(quantity), str(for_)), options, scan_every_pair)
    if options.plain and options.at_a_point and not staircase and checked.extra.roots and staircase_boundary.case_steps(pair) and \
            not results.applying_boundaries(model, checked, preset, values or {}):  # no root's condition holds here: the steps' scan
        return _answer(model, Asked("boundary", str(quantity), str(for_)), options, scan)  # says where they do (or do not) switch
    if for_ is not None and between is None and options.at_a_point and options.plain and str(quantity) in model.defining and \
            forms.has_staircase(model.expression(str(quantity)), model.symbols[str(for_)]) and \
            not results.applying_boundaries(model, checked, preset, values or {}):
        if every_pair:
            return _answer(model, Asked("boundary", str(quantity), str(for_)), options, scan_every_pair)
        # the closed form of every pair holds at no boundary here (its pairs absent at the point skipped by the check):
        # the regimes may still switch at a step edge, which a named pair's scan finds
        raise _staircase_pairs(model, str(quantity), str(for_), options.at_a_point, options.plain,
                               "no boundary of the closed form applies at the point")
    tied = [r.root for r in checked.extra.roots or () if r.tie]
    if tied and not options.at_a_point and checked.certificate is not None and not checked.certificate.checks:
        raise errors.DerivationError(
            f"{model.id}: {quantity}: the cases {' and '.join(map(str, between)) if isinstance(between, (tuple, list)) else ''} "
            f"only tie at {for_} = {sympy.sstr(tied[0])}, and no preset or sampled point gives every input to check that they "
            f"switch there, so they do not switch as far as symgpu can show; ask at a point (--preset, --set)")
    return checked


def _staircase_closed_form(model: Model, quantity: str, between: tuple[str, ...], variable: str, at_a_point: bool,
                           failure: errors.CertificateError) -> errors.DerivationError:
    """The refusal of a closed-form boundary between two staircase limiters (:func:`staircase_boundary.applies`) that its
    certificate caught: a closed form is derived for one pair of the cases the staircases are in (occupancy's CC 1.x
    per-block register allocation, kernel_row_reduction's block-slot residency) and does not switch them elsewhere;
    at a point without rewrites the scan of the evaluate path answers instead."""
    ask = ("ask without --substitute, --omit or --keep at the point, where the switch is found by a scan of the evaluate path"
           if at_a_point else "ask at a point (--preset, --set), where the switch is found by a scan of the evaluate path")
    return errors.DerivationError(
        f"{model.id}: {quantity}: {between[0]} and {between[1]} are staircases (floor/ceiling) in {variable}: they switch at a "
        f"step's edge that moves with the cases their inputs put them in, and the closed form derived for one pair of those "
        f"cases does not hold at every point (checked {failure.finding or 'on the evaluate path'}); {ask}")


def _staircase_pairs(model: Model, quantity: str, variable: str, at_a_point: bool, plain: bool,
                     finding: str | None) -> errors.DerivationError:
    """The refusal of a boundary asked without ``between`` over a variable the quantity is a staircase in, whose closed
    form its certificate caught (each pair of regimes solved in one case of the others, kernel_row_reduction's t_body over
    blocks in the block-slot residency at a point in the warp-slot one): a named pair at a point is found by a scan."""
    pair = staircase_boundary.first_pair(model, quantity)
    example = f" (e.g. --between {pair[0]} {pair[1]})" if pair else ""
    # the scan runs at a point without rewrites (plain): with --substitute, --omit or --keep it would not
    where = "at the point" if plain else "at the point without --substitute, --omit or --keep" if at_a_point else \
        "at a point (--preset, --set)"
    return errors.DerivationError(
        f"{model.id}: {quantity} is a staircase (floor/ceiling) in {variable}: its regimes switch at step edges that move with "
        f"the cases its inputs put it in, and the closed form derived for every pair of regimes does not hold at every point "
        f"(checked {finding or 'on the evaluate path'}); name two limiters with --between{example} and ask {where}, "
        "where their switch is found by a scan of the evaluate path")


@arguments.checked
@targets.substitutes_in_units
def extremum(model: Model, quantity: Any, over: str = "alpha", kind: str = "max", *,
             substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (),
             omit: Iterable[Any] = (), preset: str | None = None, values: Mapping[str, Any] | None = None,
             grid: str | None = None) -> Derivation:
    """:func:`symgpu.derive.extrema.extremum`, checked: the value at the location, and no scanned point beats it.

    ``grid`` (``"32:1024:32"``, START:STOP[:STEP] whole values): every grid point of ``over`` evaluated at
    the point instead (:func:`symgpu.derive.grid_search.grid_extremum`, exhaustive: a staircase's extremum
    has no closed form); the model is evaluated as written there, so ``substitute`` and ``omit`` are refused.

    Raises:
        errors.UsageError: ``grid`` with ``substitute`` or ``omit``.
    """
    options = Options.of(substitute=substitute, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values)
    if grid is not None:  # the options read as every operation reads them (a lone assume text is one relation)
        grid_search.refuse_rewrites(model, substitute, omit)
        return grid_search.grid_extremum(model, str(quantity), over, grid, kind, assume=options.assume, **options.point())
    try:
        return _answer(model, Asked("extremum", str(quantity), str(over), to=kind), options,
                       lambda o: extrema.extremum(model, quantity, over, kind, **o.rewrites(), **o.point()))
    except errors.NoExtremumCandidate as refusal:  # at a point, towards an open end: the supremum (infimum) there
        if refusal.end is not None:  # a finite open end (a strict --assume bound, valid_when) beating every candidate
            return extremum_supremum.at_finite_end(model, str(quantity), str(over), kind, options.preset, dict(options.at or {}), refusal.end,
                                                   lambda to, side: limit(model, quantity, over, to, direction=side, **options.keywords()), refusal)
        if isinstance(refusal, extremum_monotone.Monotone):  # in symbols, monotone: the limit at the end it is approached at
            return extremum_monotone.at_end(model, Asked("extremum", str(quantity), str(over), to=kind, assume=tuple(options.assume or ())), refusal,
                                            lambda to, side: limit(model, quantity, over, to, direction=side, **options.keywords()),
                                            lambda run: _answer(model, Asked("extremum", str(quantity), str(over), to=kind), options, lambda o: run()))
        if not options.at_a_point or options.assume:
            raise
        return extremum_supremum.at_open_end(model, str(quantity), str(over), kind, options.preset, dict(options.at or {}),
                                             lambda to, side: limit(model, quantity, over, to, direction=side, **options.keywords()),
                                             refusal)


@arguments.checked
@targets.substitutes_in_units
def limit(model: Model, quantity: Any, var: str, to: Any = "oo", *, direction: str | None = None,
          substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (),
          omit: Iterable[Any] = (), preset: str | None = None, values: Mapping[str, Any] | None = None) -> Derivation:
    """:func:`symgpu.derive.limits.limit`, checked: evaluation approaching ``to`` tends to the answer.

    ``direction``: ``"+"`` (from above), ``"-"`` (from below), ``"+-"`` (two-sided, refused where the sides differ) or
    None: a finite point is approached from above for a positive variable, from both sides otherwise; then the side
    below is taken too and ``extra.elsewhere`` says whether the two agree (the two-sided limit) or not (no two-sided
    limit: the result is the limit from above, the one from below given beside it)."""
    model, to = _point_in_its_unit(model, str(var), to)
    options = Options.of(substitute=substitute, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values)
    asked = Asked("limit", str(quantity), str(var), to=to, direction=direction, preset=options.preset, values=_pairs(options.at),
                  substitute=_parsed(model, options.substitutions), assume=tuple(options.assume or ()))
    asked_side = direction
    given_values.refuse_coupled_keep(model, str(var), options)
    if options.at_a_point:  # the side(s) where the model has values at the point (limit_sides), also the certificate's
        direction = limit_sides.direction(model, asked, limit_domain.default_direction(model, str(var)))
        asked = dataclasses.replace(asked, direction=direction)

    def side(taken: str | None) -> Derivation:
        return _answer(model, dataclasses.replace(asked, direction=taken), options,
                       lambda o: limits.limit(model, quantity, var, to, direction=taken, **o.rewrites(), **o.point()))
    answer = side(direction)
    if options.at_a_point and not asked_side and direction == "+":  # from above by default: does the side below differ?
        answer = limit_sides.below_too(model, answer, asked, lambda: side("-"))
    elif not options.at_a_point and not asked_side and limit_domain.default_direction(model, str(var)) == "+" \
            and _finite(to):  # in symbols: the side below too, equal or said
        answer = limit_sides.both_sides_in_symbols(model, answer, asked, lambda: side("-"))
    return answer


def _point_in_its_unit(model: Model, var: str, to: Any) -> tuple[Model, Any]:
    """A nonzero number given as the limit point of a variable with a unit, made a constant of that value in its declared
    unit on a copy of the model (:meth:`Model.given_constant`), as the command line's ``--to 20`` is
    (:mod:`symgpu.cli.given_numbers`): a bare 20 put in for W (warp/SM) left the answer's unit check blaming the model
    (``derive.limit(mdm, 'M', 'W', to=20)``: "'MSHRs + 20*M_Write' is dimensionally inconsistent"). Anything else as given."""
    declared = model.units.get(var)
    if declared is None or declared.dimensionless or isinstance(to, sympy.Basic) and not to.is_number:
        return model, to
    try:
        number = forms.exact_number(to)
    except (TypeError, ValueError, ZeroDivisionError, errors.UsageError):
        return model, to
    if not isinstance(number, sympy.Rational) or number == 0:
        return model, to
    request = model.for_request()
    return request, sympy.sstr(request.given_constant(number, declared))


def _finite(to: Any) -> bool:
    """Is a limit's point (as the caller gave it) finite? (text ``oo``/``-inf``..., a float inf, SymPy's infinities: no)"""
    if isinstance(to, sympy.Basic):
        return not to.has(sympy.oo, -sympy.oo, sympy.zoo)
    if isinstance(to, (int, float)):
        return bool(abs(float(to)) != float("inf"))
    return str(to).strip().lower().lstrip("+-") not in ("oo", "inf", "infinity")


@arguments.checked
@targets.substitutes_in_units
def fixed_point(model: Model, quantity: Any, variable: str, *, substitute: Mapping[str, Any] | None = None,
                assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), omit: Iterable[Any] = (),
                preset: str | None = None, values: Mapping[str, Any] | None = None, method: str = "auto") -> Derivation:
    """:func:`symgpu.derive.fixed_points.fixed_point`, checked: the residual vanishes at the answer."""
    options = Options.of(substitute=substitute, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values)
    return _answer(model, Asked("fixed_point", str(quantity), str(variable)), options,
                   lambda o: fixed_points.fixed_point(model, quantity, variable, method=method, **o.rewrites(), **o.point()))


@arguments.checked
@targets.substitutes_in_units
def regimes(model: Model, quantity: Any, *, over: str | None = None, substitute: Mapping[str, Any] | None = None,
            assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), omit: Iterable[Any] = (),
            preset: str | None = None, values: Mapping[str, Any] | None = None) -> Derivation:
    """:func:`symgpu.derive.stored.regimes` (the regimes through the on-disk cache), checked: the
    regime table gives the model's value at the point (``preset``/``values``, else the model's
    presets or sampled points, with a point for each regime of a small table asked without a
    variable) and along a scan of ``over`` when given (:mod:`.certify_regimes`)."""
    options = Options.of(substitute=substitute, assume=assume, stop_at=stop_at, omit=omit, preset=preset, values=values)
    return _answer(model, Asked("regimes", str(quantity), str(over or "")), options,
                   lambda o: stored.regimes(model, quantity, over=over, **o.keywords()))


def run_request(model: Model, request: DerivationRequest) -> Derivation:
    """:func:`symgpu.derive.requests.run_request`, its answer checked like the operation's own; a
    request answered before for the same model (loaded models never change) is not derived or
    checked again in this process (a failure is not kept: it is raised again)."""
    try:
        hash(request)
    except TypeError:  # a request built by hand with a list among its fields
        return _run_request(model, request)
    kept = _ANSWERED.of(model)
    key = (request, store.root() if store.enabled() else None)  # an answer got with the cache off (or in another cache
    found = kept.get(key)                                          # folder) is stored where this call's cache would have it
    if found is None:
        found = kept[key] = _run_request(model, request)
    return found


def _run_request(model: Model, request: DerivationRequest) -> Derivation:
    q = requests.Question.read(model, request)
    if q.op not in certify.CHECKED_OPS:
        return _guarded(model, f"derivation {request.id}", lambda: requests.run_request(model, request))
    relation = str(q.get("relation", "==")) if q.op == "solve" else "=="
    asked = Asked(q.op, str(q.quantity), "" if q.variable is None else str(q.variable), target=q.get("target"),
                  to=q.kind if q.op == "extremum" else q.get("to", q.get("point", "oo")), direction=q.get("direction"),
                  relation=relation, kind=q.get("kind") if relation not in ("==", "=") else None)
    ratio = "a ratio of one-sided limits is checked by its derivation steps" if q.get("ratio") is not None else ""
    return _answer(model, asked, Options.read(q), lambda _: requests.run_request(model, request),
                   what=f"derivation {request.id}", skip=ratio)
