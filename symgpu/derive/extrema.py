"""Maxima and minima over a variable: interior critical points and cusps where regimes meet."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from symgpu import errors
from symgpu.proofs import factor_signs, forms, relations
from symgpu.derive import at_point, jobs, point_roots, regime_split, results, summary, extremum_choice, extremum_cusps, extremum_diverging, extremum_domain
from symgpu.derive import extremum_budget, extremum_edges, extremum_ends, extremum_integer, extremum_monotone, extremum_outer, extremum_walls, limit_regimes, limits, regime_conditions
from symgpu.derive.derivation import Derivation
from symgpu.derive.extremum_domain import Candidate as _Candidate
from symgpu.derive.extra_records import CandidateRecord
from symgpu.evaluate import active, evaluator, scaling
from symgpu.model import printing
from symgpu.units import dimensions

if TYPE_CHECKING:
    from symgpu.model import Model


#: the most pairs of regimes that may meet at a cusp a closed-form extremum examines: Hong & Kim's Exec_cycles_app over
#: Active_blocks_per_SM has 21 (about a minute), its Exec_cycles_with_synch 118 (over ten minutes)
MAX_CUSP_PAIRS = 40

#: the most operations (``sympy.count_ops``) of a regime value with the variable under a root that a closed-form extremum
#: examines: Volkov's refined arithmetic throughput over alpha (its latency bound, 30) ran for minutes in the tidying of its
#: critical points' and cusps' conditions (nested square roots)
MAX_RADICAL_OPS = 20


#: a slope with the variable under a root and more operations than this is kept as differentiated, not simplified
#: (``forms.small_simplify`` cancels past 120 operations, and ``sympy.cancel`` of a nested radical has no time bound:
#: Volkov's H100 dram_throughput over n, its one regime at alpha = 0, ilp = 1, ran past 150 s in a polynomial gcd)
MAX_CANCELLED_RADICAL_SLOPE = 120


def _radical_in(value: sympy.Expr, var: sympy.Symbol) -> bool:
    """Is ``var`` under a root in ``value`` (a non-integer power), and ``value`` of more than :data:`MAX_RADICAL_OPS` operations?"""
    return any(not p.exp.is_integer and var in p.base.free_symbols for p in value.atoms(sympy.Pow)) \
        and sympy.count_ops(value) > MAX_RADICAL_OPS


def extremum(model: Model, quantity: Any, over: str = "alpha", kind: str = "max", *,
             substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
             preset: str | None = None, values: Mapping[str, Any] | None = None,
             stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """Maximum or minimum of ``quantity`` over ``over``, in closed form.

    On piecewise quantities the candidates are the interior critical points of each
    regime (zero derivative, second-derivative test) *and* the points where two regimes
    meet: a cusp is a maximum when the function rises on its left and falls on its right,
    which is decided from the one-sided slopes, not a zero derivative. Conditions that the
    assumptions cannot decide are kept; the result is then a ``Piecewise`` over them (and
    ``extra.candidates`` lists every form with its conditions).

    Returns:
        Derivation with ``result`` = extreme value, ``location`` = arg-extremum; with a
        preset or values, ``extra`` also carries their numbers.
    """
    if kind not in ("max", "min"):
        raise errors.UsageError(f"extremum kind must be 'max' or 'min', not {kind!r}")
    job, ctx = jobs.start(model, "extremum", quantity, over, assume=assume, omit=omit)
    kept = tuple(stop_at)
    # the evaluate path gives this expression's values (a kept quantity given a value is held at it there too)
    as_modelled = not substitute and not job.omit and all(k in (values or {}) for k in kept)
    stop_at = job.keep(stop_at, over)
    expr, _ = job.quantity_expression(quantity, substitute, stop_at)
    var = job.symbol(over)
    if var not in expr.free_symbols:
        _free_of_the_variable(job, ctx, expr, var, kind, stop_at, substitute, kept)
    if forms.has_staircase(expr, var):
        raise errors.DerivationError(f"{model.id}: {job.quantity} depends on {var} through floor/ceiling (a staircase): it has no derivative to set "
            f"to zero and its {kind}imum over {var} has no closed form here; at a point, search a grid of {var} "
            f"(extremum ... --grid START:STOP:STEP; API grid=...), or ask for thresholds (solve --relation '>=' --kind max, or boundary)")
    if (split := forms.abs_as_max(expr, var)) != expr:  # its kink where the argument is 0: a cusp where two regimes meet
        expr = split
        job.step("absolute value", expr, f"Abs(u) = Max(u, -u) for a real u: where u = 0 (u holding {var}) two regimes meet at a cusp")
    found = regime_split._regimes(job, expr, var, frozenset(stop_at), record=forms.has_pieces(expr))
    meeting = [(ra, rb) for ra, rb in itertools.combinations(found, 2) if var in (ra.expression - rb.expression).free_symbols]
    # at a point, with many pairs, the point's numbers screen regimes, meeting points and case edges first: the closed
    # form is then the point's, not the model's (said as steps), so only where meeting every pair in symbols takes minutes
    screen = (preset is not None or bool(values)) and len(meeting) > point_roots.PRUNED_ABOVE
    # regimes whose conditions are free of var never switch along it (one binds for every var, or they tie and agree): no cusp
    meeting = [(ra, rb) for ra, rb in meeting if any(var in c.free_symbols for c in (*ra.conditions, *rb.conditions))]
    if screen:
        found, meeting = point_roots.held_pairs(job, found, meeting, var, at_point.Given(preset, dict(values or {})))
    if len(meeting) > MAX_CUSP_PAIRS:
        raise errors.DerivationError(f"{model.id}: {job.quantity} has {len(found)} regimes over {var}, {len(meeting)} pairs of which may meet at a cusp: more "
            f"than the {MAX_CUSP_PAIRS} a closed-form extremum examines (each pair is solved and its conditions tidied: minutes in "
            "all); ask over a grid (--grid START:STOP:STEP; API derive.grid_search.grid_extremum) or keep an intermediate quantity as a symbol (--keep NAME)")
    # one regime has no cusps: its critical points alone are cheap enough (Volkov's x_latency_root answered in 1.3 s)
    radical = next((r for r in found if _radical_in(r.expression, var)), None) if len(found) > 1 else None
    if radical is not None:
        raise errors.DerivationError(f"{model.id}: {job.quantity}'s regime {radical.name} has {var} under a root ({sympy.count_ops(radical.expression)} "
            f"operations, more than the {MAX_RADICAL_OPS} a closed-form extremum examines: its critical points and the points where it "
            "meets the other regimes are nested roots whose conditions take minutes to decide); ask over a grid "
            "(--grid START:STOP:STEP; API derive.grid_search.grid_extremum)")
    want = 1 if kind == "min" else -1  # sign of the second derivative / slope change
    domain = extremum_domain.domain_conditions(job, var, stop_at)
    # where the model gives the quantity a value at all (as modelled: a substitution may put the variable in)
    outer = extremum_domain.outer_domain(job, var, stop_at) if as_modelled else ()
    extremum_outer.assume(job, outer)  # the answer holds only there: signs decided under them
    if preset is not None or values:
        _has_a_value(job, var, outer, preset, values or {})
    candidates: list[_Candidate] = []
    undecided: list[tuple[str, sympy.Expr]] = []  # regimes linear in var whose slope's sign the assumptions leave open
    flat: list[tuple[str, sympy.Basic]] = []  # ("", where the slope is 0 for every var): a factor free of var that may vanish
    for regime in found:
        derivative = sympy.diff(regime.expression, var)
        if not (_radical_in(derivative, var) and sympy.count_ops(derivative) > MAX_CANCELLED_RADICAL_SLOPE):
            derivative = forms.small_simplify(derivative)
        if var not in derivative.free_symbols and ctx.sign(derivative) not in (None, 0):
            continue
        if var not in derivative.free_symbols and ctx.sign(derivative) is None:
            undecided.append((regime.name, derivative))
        job.step("differentiate", sympy.Eq(sympy.Derivative(sympy.Function("f")(var), var), derivative),
                 f"slope of {regime.name if len(found) > 1 else job.quantity} in {var}")
        if len(found) == 1:  # one regime flat where another binds says nothing of the extremum (plateau edges do)
            flat.extend(("", when) for when in _flat_where(job, derivative, var))
        # at a point, radical roots in many symbols are found with the numbers in first (minutes in closed form)
        here_at = at_point.Given(preset, dict(values or {}))
        # in base units, as a closed-form root put in reads: so for a variable in any unit (theta_target in GB/s)
        first = point_roots.roots_here(job, regime, derivative, var, here_at, first=True, base=True) \
            if (preset is not None or values) and point_roots.numbers_first(job, derivative, var, any_unit=True) else None
        try:
            roots = first if first is not None else jobs._solve_for(job, sympy.Eq(derivative, 0), var, f"d{regime.name}/d{var} = 0")
        except errors.DerivationError:  # no closed form: at a point, left out where the numbers show no root applies
            if (preset is None and not values) or point_roots.roots_here(job, regime, derivative, var, here_at) != []:
                raise
            continue
        for root in roots:
            local = ctx.copy()
            placed = _conditions_at(job, regime, var, root)
            if placed is None:
                continue
            conds = local.tidy_unless_refuted(placed)
            inside = extremum_domain.at_location(job, domain, var, root, local)
            if any(c is sympy.false for c in conds) or inside is None:
                continue
            conds.extend(c for c in inside if not any(relations.same_relation(c, k) for k in conds))
            second = sympy.diff(regime.expression, var, 2).xreplace({var: root})
            # at a point, the sign its numbers give: of a root found there, or of one in radicals of symbols (cancelling Q_K0's
            # second derivative at N = (L_M*Theta_IM + sqrt(L_M)*sqrt(...))/(...) took minutes)
            there = first is not None or ((preset is not None or bool(values)) and point_roots.in_radicals(root))
            s = point_roots.sign_here(job, second, here_at) if there else None
            second, s = (second, s) if first is not None or s is not None else (forms.small_simplify(second), None)
            s = local.sign(second) if s is None and first is None else s
            said = f" at {at_point.where_text(preset, values or {})}" if there and s is not None else ""
            if s == -want:
                job.step("reject critical point", sympy.Eq(var, root), f"second derivative {sympy.sstr(second)} has the wrong sign for a {kind}{said}")
                continue
            if s is None:  # a huge one (volkov_2016_h100's n_knee_h100: 3900 operations) refused, not tidied for minutes
                extremum_budget.second_derivative(job, regime.name, var, second)
                conds.append(local.tidy(sympy.StrictGreaterThan(second * want, 0)))
            if s is None and factor_signs.refuted_together(conds, local.sign, local.weak_sign):  # each open alone, nowhere together
                job.step("reject critical point", sympy.Eq(var, root), "its conditions hold nowhere together (the signs of their factors)")
                continue
            job.step("critical point", sympy.Eq(var, root), f"zero slope; second derivative {sympy.sstr(second)} "
                     + (f"proves a {kind}{said}" if s == want else "sign kept as a condition"))
            value = ctx.nice(regime.expression.xreplace({var: root}))
            candidates.append(_Candidate(root, value, f"critical point of {regime.name}", tuple(c for c in conds if c is not sympy.true)))
    cusp_ends: list[extremum_domain.OpenEnd] = []  # cusps whose value another case gives at the point itself
    for ra, rb in meeting:
        here = point_roots.meetings_here(job, ra, rb, var, preset, values, base=True)  # at a point, in many symbols: the numbers first
        try:
            points = here if here is not None else jobs._solve_for(job, sympy.Eq(ra.expression, rb.expression), var, f"{ra.name} = {rb.name}")
        except errors.DerivationError as exc:  # no closed form (log(x) beside x, in symbols): no answer leaving its cusp out
            if isinstance(exc, errors.NoClosedForm): raise  # noqa: E701
            continue
        for point in points:
            numbers = point_roots.signs_at(job, var, point, here, preset, values, in_base=True) if here is not None or screen else None
            side_numbers = (lambda at=point: point_roots.signs_at(job, var, at, here, preset, values, in_base=True)) \
                if preset is not None or values else None  # the side of a cusp that the symbols leave open, by the point's numbers
            candidate, approached = extremum_cusps.screened(job, ra, rb, var, point, want, kind, numbers, here is None, side_numbers)
            if approached is not None:
                cusp_ends.append(approached)
                inside = extremum_domain.at_location(job, domain, var, approached.point)
                if inside is not None and not any(e.point == approached.point for e in cusp_ends[:-1]):  # once per point
                    # inside the domain only (a point past an --assume bound is none: Hong & Kim's a = 11.99 > 8)
                    candidates.extend(_Candidate(c.location, c.value, c.origin, c.conditions + tuple(
                        k for k in inside if not any(relations.same_relation(k, j) for j in c.conditions)))
                        for c in extremum_cusps.at_the_cusp(job, found, var, approached.point))
            inside = None if candidate is None else extremum_domain.at_location(job, domain, var, candidate.location)
            if candidate is not None and inside is not None:
                extra_conditions = tuple(c for c in inside if not any(relations.same_relation(c, k) for k in candidate.conditions))
                candidates.append(_Candidate(candidate.location, candidate.value, candidate.origin, candidate.conditions + extra_conditions))
    at = preset is not None or bool(values)  # case ends, jumps: of opaque case tables at a point, of any table without one
    candidates.extend(extremum_cusps.case_edges(job, found, var, domain, cusp_ends, at_point.Given(preset, dict(values or {})) if screen else None,
                                                None if at and screen else expr, opaque=at))
    at_values = at_point.pinned(job, expr, var, preset, values or {}) if preset is not None or values else None
    candidates.extend(extremum_ends.end_candidates(job, expr, var, domain, at_values))
    candidates.extend(extremum_domain.plateau_candidates(job, found, var, domain, expr, at_point.Given(preset, dict(values or {})) if preset is not None or values else None))
    dropped: list[sympy.Expr] = []
    in_domain = [c for c in domain if not (c.lhs == var and c.rhs == 0)]  # valid_when conditions, not the declared range
    def value_at(x: Any, checks: bool = True) -> Any:
        return evaluator.evaluate(model, job.quantity, preset=preset, values={**(values or {}), var.name: x}, checks=checks).magnitude

    def inside_at(xs: np.ndarray) -> np.ndarray:  # the evaluate path's domain and finite values, elementwise
        at = {**(values or {}), var.name: xs}
        return evaluator.inside_domain(model, job.quantity, preset, at, len(xs)) & np.isfinite(value_at(xs, checks=False))

    reached = (lambda limit: extremum_ends.reached_at(job, var, at_values, preset, values or {}, limit, inside_at)) \
        if at_values is not None and as_modelled and job.quantity in model.defining else None
    walls, edges = extremum_walls.numeric_walls(
        job, var, None if at_values is None or not in_domain or not as_modelled or job.quantity not in model.defining else inside_at, value_at, domain)
    candidates.extend(edges)
    given = at_point.Given(preset, dict(values or {})) if preset is not None or values else None
    ends = extremum_domain.open_ends(job, expr, var, domain, lambda e, p, d: limits.take_at(job, e, var, p, d, given),
                                     lambda g, p: limit_regimes.far_sign(job, g, var, p), found, dropped, at_values, walls)
    ends = extremum_outer.split_ends(job, ends, var)  # a limit's branches as ends of their own (those outside the domain left out)
    extremum_domain.unbounded(job, ends, kind)  # and at 0 of a positive variable, where a divisor vanishes: each regime's infinity
    ends = [*ends, *extremum_diverging.ends(job, found, var, dropped, kind), *extremum_edges.ends(job, expr, var, domain), *cusp_ends]
    if cusp_ends:
        job.extra = job.extra.with_(approached=tuple(CandidateRecord("cusp approached, not attained", e.point, e.value,
                                                                     tuple(sympy.sstr(c) for c in e.when)) for e in cusp_ends))
    far = [p for p in dropped if p in (sympy.oo, -sympy.oo)]
    # a slope that may point the extremum's way towards an infinite end (positive towards +oo for a maximum)
    harmful = [(n, g) for n, g in undecided for p in far
               if ctx.decide((sympy.LessThan if (p == sympy.oo) == (kind == "max") else sympy.GreaterThan)(g, 0)) is not True]
    if harmful and preset is None and not values:  # it may rise (fall) without bound towards an end not decided
        raise _unbounded_slope(job, harmful, far, kind, var)
    if not candidates and cusp_ends:
        extremum_cusps.only_approached(job, cusp_ends, ends, kind, var, preset, values)
    if not candidates:  # in symbols, a quantity monotone in var is answered at an open end (checked.extremum); else the
        # refusal, a limit's branches as open ends of their own (Volkov's latency as c -> theta+: oo where b*x > 0)
        raise extremum_monotone.refusal(job, expr, found, var, domain, kind,
                                        extremum_diverging.no_candidate(job, ends, kind, var, expr, len(found) == 1, flat),
                                        as_modelled and preset is None and not values, outer)
    merged: list[_Candidate] = []
    for cand in candidates:
        # an end or plateau edge at a cusp's point stays a candidate of its own: merged into the cusp it would be
        # shown as one, and cusps are not compared with the other candidates (_symbolic_choice); Volkov's memory-
        # system plateau edge met the issue-bound cusp where warp_throughput falls on towards 0 with dual_issues
        # (``sympy.cancel(a - b) == 0``, refuted first by a nonzero exact value at an admissible point: cancel_to_zero)
        same = next((m for m in merged if regime_conditions.cancel_to_zero(m.location, -cand.location)
                     and (m.value == cand.value or regime_conditions.cancel_to_zero(m.value, -cand.value))
                     and bool(extremum_domain.interior([m])) == bool(extremum_domain.interior([cand]))), None)
        if same is None:
            merged.append(cand)
        else:  # the same point from two pairs of regimes: a candidate where either's conditions hold
            either = () if not same.conditions or not cand.conditions else \
                (sympy.Or(sympy.And(*same.conditions), sympy.And(*cand.conditions)),)
            merged[merged.index(same)] = _Candidate(same.location, same.value, same.origin, either)
    merged.sort(key=lambda c: (c.origin.endswith(extremum_domain.BESIDE), len(c.conditions)))  # a true edge before a point beside one
    job.extra = job.extra.with_(candidates=tuple(CandidateRecord(c.origin, c.location, c.value, tuple(sympy.sstr(x) for x in c.conditions))
                                                   for c in merged))
    for cand in merged:
        if cand.origin == extremum_walls.NUMERIC_END:
            continue  # numbers from the evaluate path, in the declared units
        if job.quantity in model.symbols:  # at a number in the variable's declared unit (an --assume bound's end, a <= 8),
            numeric = not cand.location.free_symbols  # read as a pure number, the value is the quantity's own expression
            try:  # there, whose unit is checked instead: at once where the value as written is inconsistent (regrouping it
                inconsistent = numeric and cand.location != 0 and not dimensions.consistent(cand.value, job.dims())
                where = f", where {sympy.sstr(sympy.And(*cand.conditions))}" if cand.conditions else ""
                about = f"{job.quantity} at the candidate {var} = {sympy.sstr(cand.location)} ({cand.origin}){where}"
                job.check_unit(expr if inconsistent else cand.value, job.quantity, f"{kind}imum value",  # cannot give the unit
                               **({} if inconsistent else {"step": "value at candidate", "about": about}))
            except errors.DerivationError:  # back: 4.6 s to fail on Hong & Kim's Exec_cycles_app at a <= 8), else where
                if not numeric:  # the value's own check fails
                    raise
                job.check_unit(expr, job.quantity, f"{kind}imum value")
        if cand.location.free_symbols or cand.location == 0:  # a number is in the variable's declared unit
            regime_split._check_quiet(job, cand.location, var.name)
    unit = model.unit_text(job.quantity) if job.quantity in model.symbols else ""
    if (whole := extremum_integer.at_whole_values(job, merged, ends, domain, var, expr, preset, values or {})) is not None:
        merged, ends = whole  # an integer variable: its whole values beside each candidate, at a point
    if preset is not None or values or whole is not None or at_point.numbers_alone(job, expr, var, preset, values or {}):  # by numbers
        best = extremum_choice.best_at(job, merged, kind, preset, values or {}, unit, ends, reached)
        interior = extremum_domain.interior(merged)
        symbolic = _symbolic_choice(job, merged, kind, ends, domain, var) if best in interior and len(interior) > 1 else None
        # the papers' forms, the one that applies here selected: a first match of the forms whose conditions hold, which
        # are not compared with each other; where several hold here (Hong & Kim's Eq. 22 value at a cusp, 83043 cycles,
        # before a smaller one), the first may not be the best of them, and the best one here answers
        if symbolic is not None and extremum_choice.same_here(job, symbolic[1], best.value, preset, values or {}, unit):
            location, value = symbolic
            if isinstance(location, sympy.Piecewise):
                at_point.select_branch(job, location, preset, values or {}, [c.origin for c in interior])
        else:
            location, value = best.location, best.value
            job.step(kind + "imum", sympy.Eq(var, location), f"{best.origin}: the {kind}imum of the candidates that hold at "
                     f"{at_point.where_text(preset, values or {})}")
    else:
        before = list(job.steps)  # each regime's limit at an infinite end whose limit was not taken, where its conditions hold there
        far_ends = [e for p in far for e in extremum_domain.ends_by_regime(
            job, found, var, p, "-" if p == sympy.oo else "+", lambda e, p, d: limits.take_at(job, e, var, p, d, given))]
        job.steps[:] = before
        location, value = _symbolic_choice(job, merged, kind, ends, domain, var, far, far_ends, every=True)
        extremum_integer.refuse_real_location(job, var, location, kind)
        extremum_diverging.say_unbounded(job, ends, kind, var)
    if flat:
        by_regime: dict[str, list[str]] = {}
        for name, when in flat:
            by_regime.setdefault(name, []).append(f"{sympy.sstr(when.lhs)} = {sympy.sstr(when.rhs)}" if isinstance(when, sympy.Eq) else sympy.sstr(when))
        job.extra = job.extra.with_(flat_where="; ".join(
            f"where {' or '.join(whens)}, {job.quantity} does not change with {var}: every {var} where it is defined is a "
            f"{kind}imum there, not what is said above" for whens in by_regime.values()))
    if preset is not None or values:
        job.extra = job.extra.with_(value_at=results._evaluate(model, value, preset, values or {}, unit),
                                    location_at=results._evaluate(model, location, preset, values or {}, model.unit_text(var.name)))
    if outer:  # the answer holds only where the model gives the quantity a value
        job.extra = job.extra.with_(valid_when=tuple(dict.fromkeys((*(job.extra.valid_when or ()), *outer))))
    job.extra = job.extra.with_(location_unit=model.unit_text(var.name))
    numeric = isinstance(location, sympy.Float) and any(c.origin == extremum_walls.NUMERIC_END and c.location == location for c in merged)
    return job.finish(value, unit, location=location, used=[expr],
                      method="numeric: a domain edge found by bisection at the given values" if numeric else "closed form")


def _free_of_the_variable(job: jobs._Job, ctx: Any, expr: sympy.Expr, var: sympy.Symbol, kind: str, stop_at: Sequence[str],
                         substitute: Mapping[str, Any] | None, kept: tuple[str, ...]) -> None:
    """Refuse an extremum over a variable the quantity does not depend on, saying what it is instead and why (options, valid_when)."""
    why = [f"with {', '.join(map(str, substitute))} substituted"] if substitute else []
    why += ["with limiters omitted"] if job.omit else []
    why += [f"with {', '.join(kept)} kept as a symbol"] if kept else []
    where = [c for c in extremum_domain.domain_conditions(job, var, stop_at) if not (c.lhs == var and c.rhs == 0)]
    shown = summary.shorten(printing.sstr(ctx.nice(expr)), hint="ask regimes or derive for all")
    valid = f" where it is valid ({', '.join(sympy.sstr(c) for c in where)})" if where else ""
    raise errors.DerivationError(
        f"{job.model.id}: {job.quantity} does not depend on {var}{' ' + ' and '.join(why) if why else ''}"
        f"{' except through where it is valid' if where else ''}: it is {shown} at every {var}{valid}, so no {var} is a "
        f"{kind}imum rather than another; ask eval for its value")


def _symbolic_choice(job: jobs._Job, merged: list[_Candidate], kind: str, ends: Any, domain: Any, var: sympy.Symbol,
                     far: Sequence[sympy.Expr] = (), far_ends: Sequence[Any] = (), every: bool = False) -> tuple[sympy.Expr, sympy.Expr]:
    """(location, value) without a point: the critical points and cusps, as the papers state them,
    when there are any (one, or one without conditions: that one, its conditions and the
    ``valid_when`` domain in ``extra.valid_when`` (a tuple of SymPy relations), printed with the answer; else a first-match
    Piecewise of them, followed by the best of the domain's ends and plateau edges where none of
    them holds); the ends and plateau edges alone when there are none. Where no branch holds there
    is no extremum (an open end wins): ``extra.elsewhere`` says so.

    ``every`` (asked without a point): each branch also holds only where its form beats every other candidate and
    open end that holds there (:func:`extremum_choice.against_all`; tester 14b F2, F5, F9, F11), else only the cusps not
    attained are compared (at a point the numbers compare every candidate)."""
    assert job.ctx is not None
    cusps = [e for e in ends if e.cusp]  # compared, with an infinity approached where conditions hold (no extremum there)
    rest = [e for e in [*ends, *far_ends] if e not in extremum_diverging.compared(ends, kind)]
    # only the critical points and cusps: what beats a domain end or plateau edge is not read (they are compared by global_choice)
    inner = extremum_domain.interior(merged)
    more = {id(c): extremum_choice.against_all(job, c, merged, rest, kind) if every else () for c in inner}
    beaten = {id(c): tuple(extremum_choice.unbeaten(job, c.value, extremum_diverging.compared(ends, kind), kind)) + more[id(c)] for c in inner}
    interior = [c for c in inner if sympy.false not in beaten[id(c)] and not extremum_choice.outdone(job, c, merged, kind)]
    if not interior:
        # the ends and plateau edges compared with an infinite end whose limit was not taken: with each regime's limit there
        # (``far_ends``), else refused (Volkov's arithmetic_throughput_loaded falls to 0 as b -> oo: b = 0 was shown as its minimum)
        if far and not far_ends:
            extremum_choice.far_end_unknown(job, kind, var, far)
        ends = [*ends, *far_ends] if far else ends
        try:
            location, value = extremum_choice.global_choice(job, merged, kind, ends, literals=True)
        except errors.DerivationError:
            if not cusps:
                raise
            extremum_cusps.only_approached(job, cusps, ends, kind, var, None, None)
        job.step(kind + "imum", sympy.Eq(var, location), "each candidate where its conditions hold and no other candidate "
                 f"that holds there is {'larger' if kind == 'max' else 'smaller'}" if isinstance(location, sympy.Piecewise) else merged[0].origin)
        extremum_outer.say_elsewhere(job, location, kind, var, ends)
        return location, value
    plain, inside_of = [], []
    for cand in interior:
        inside = extremum_domain.at_location(job, domain, var, cand.location) or []
        inside_of.append(tuple(inside))
        plain.append(_Candidate(cand.location, cand.value, cand.origin,
                                tuple(relations.without_weaker(tuple(c for c in cand.conditions + tuple(job.ctx.tidy(b) for b in beaten[id(cand)])
                                                                     if not any(relations.same_relation(c, d) for d in inside))))))
    others = [c for c in merged if not extremum_domain.interior([c])]
    if others:
        job.step("other candidates", sympy.Tuple(*(sympy.Eq(var, c.location) for c in others)),
                 "the domain's ends and plateau edges are candidates too where a critical point is outside the domain or "
                 "beaten; ask at a point (--preset, --set) to compare them by their numbers")
    plain = [_Candidate(c.location, c.value, c.origin, tuple(_at_equality(job, k) for k in c.conditions)) for c in plain]
    unconditional = [i for i, c in enumerate(plain) if not c.conditions]
    # one form is the answer, shown with its conditions, unless they hold only where an inequality is an equality
    # (L_DRAMService + L_NoCService <= 0 of nonnegative latencies): elsewhere the ends and plateau edges answer
    index = unconditional[0] if unconditional else 0
    compared = bool(more[id(interior[index])]) and bool(others)  # an attained end may win where its form holds
    if not compared and (len(plain) == 1 and not any(isinstance(k, sympy.Eq) for k in plain[0].conditions) or len(unconditional) == 1):
        best, when = plain[index], plain[index].conditions + inside_of[index]
        job.extra = job.extra.with_(valid_when=tuple(when)) if when else job.extra
        extremum_choice.say_approached(job, ends, kind, var) if more[id(interior[index])] else None  # it alone, beaten by an open end
        job.step(kind + "imum", sympy.Eq(var, best.location), best.origin + (" valid when " + ", ".join(map(sympy.sstr, when)) if when else ""))
        return best.location, best.value
    # each branch holds only where its location is inside the domain, too (a critical point at a negative alu_lat is none)
    whole = [relations.without_weaker(c.conditions + inside) for c, inside in zip(plain, inside_of)]
    at_branches = [(c.location, sympy.And(*when) if when else sympy.true) for c, when in zip(plain, whole)]
    value_branches = [(c.value, sympy.And(*when) if when else sympy.true) for c, when in zip(plain, whole)]
    if others and not any(c is sympy.true for _, c in at_branches):
        # where no critical point or cusp applies, the best of the ends and plateau edges (each compared
        # with the others and the open ends): the first-match Piecewise then covers every point that has one
        if far:  # an infinite end whose limit was not taken (``far``) cannot be compared with them
            extremum_choice.far_end_unknown(job, kind, var, far)
        try:
            rest_at, rest_value = extremum_choice.global_choice(job, others, kind, ends)
        except errors.DerivationError:
            rest_at = rest_value = None
        if rest_at is not None and rest_value is not None:
            at_branches.extend(extremum_choice.branches(rest_at))
            value_branches.extend(extremum_choice.branches(rest_value))
    kept = extremum_choice.redundant_equalities_dropped(at_branches, value_branches)
    single = len(kept[0]) == 1 and kept[0][0][1] is sympy.true
    why = "the best of the domain's ends and plateau edges" if single else "the form that applies depends on conditions the assumptions do not decide"
    if len(kept[0]) < len(at_branches):
        why += "; where only an equality of the inputs makes another form apply, the quantity is flat and this form gives the same value"
    location, value = (extremum_choice.first_match(scaling.literal_branches(job.model, k)) for k in kept)
    job.step(kind + "imum", sympy.Eq(var, location), why)
    extremum_outer.say_elsewhere(job, location, kind, var, ends)
    return location, value


def _at_equality(job: jobs._Job, condition: sympy.Basic) -> sympy.Basic:
    """``condition`` as the equality it is where the assumptions refute its strict part (``a + b <= 0`` of nonnegative a, b), else itself."""
    assert job.ctx is not None
    strict = {sympy.LessThan: sympy.StrictLessThan, sympy.GreaterThan: sympy.StrictGreaterThan}.get(type(condition))
    if strict is None or not job.ctx.refuted(strict(condition.lhs, condition.rhs)):
        return condition
    return sympy.Eq(condition.lhs - condition.rhs, 0) if condition.rhs != 0 else sympy.Eq(condition.lhs, 0)


def _flat_where(job: jobs._Job, derivative: sympy.Expr, var: sympy.Symbol) -> list[sympy.Basic]:
    """Where a slope is 0 whatever ``var``: each factor of it free of ``var`` that the assumptions do
    not prove nonzero, equal to 0 (``coalesced_accesses = 0`` makes Volkov's ``traffic_increase``
    the same for every ``diverged_accesses``: there every point is an extremum, not "none")."""
    assert job.ctx is not None
    if var not in derivative.free_symbols:
        return []
    out: list[sympy.Basic] = []
    for factor in sympy.Mul.make_args(derivative):
        base = factor.base if isinstance(factor, sympy.Pow) and factor.exp.is_positive else factor
        if var in base.free_symbols or base.is_number or job.ctx.sign(base) in (1, -1):
            continue
        zero = job.ctx.tidy(sympy.Eq(base, 0))
        if zero is not sympy.false and zero not in out:
            out.append(zero)
    return out


def _conditions_at(job: jobs._Job, regime: Any, var: sympy.Symbol, root: sympy.Expr) -> list[sympy.Basic] | None:
    """``regime``'s conditions with ``var`` = ``root`` put in; None where one has no value there (a side
    ``zoo``: Volkov's ``mem_thru <= alu_thru/alpha`` at the slope's root ``alpha = 0``), recorded as a step: no
    critical point (an end of the domain there is examined as an end, by its one-sided limit)."""
    try:
        return [c.relational.xreplace({var: root}) for c in regime.raw]
    except TypeError:  # SymPy refuses a comparison with zoo (or another non-real value)
        job.step("no critical point", sympy.Eq(var, root), f"a condition of regime {regime.name} has no value at {var} = "
                 f"{sympy.sstr(root)} (a side is infinite or undefined there): not a point of that regime")
        return None


def _has_a_value(job: jobs._Job, var: sympy.Symbol, outer: Sequence[sympy.Basic], preset: str | None,
                 values: Mapping[str, Any]) -> None:
    """At given values, refuse a question whose quantity the model gives no value at any ``var``: a
    ``valid_when`` condition free of ``var`` fails there (``outer``: Hong & Kim's ``0 < Mem_insts``).

    Raises:
        errors.DerivationError: no value there."""
    if outer and not active.condition_true(job.model, sympy.And(*outer), preset, values):
        raise errors.DerivationError(
            f"{job.model.id}: the model gives {job.quantity} no value at the given values, at any {var}: its valid_when domain "
            f"{' and '.join(map(sympy.sstr, outer))} does not hold there; check the values (--set) against the domain (symgpu show)")


def _unbounded_slope(job: jobs._Job, undecided: list[tuple[str, sympy.Expr]], dropped: list[sympy.Expr], kind: str,
                     var: sympy.Symbol) -> errors.DerivationError:
    """The refusal where a regime linear in ``var`` whose slope has a sign the assumptions leave open
    may grow (fall) without bound towards an open end whose limit was not taken. (At a point the
    candidates are compared by their numbers and the certificate's scan of the point sees a far end.)"""
    name, slope = undecided[0]
    return errors.DerivationError(
        f"{job.model.id}: {job.quantity} has no {kind}imum over {var} in closed form here: {name} changes with slope "
        f"{sympy.sstr(slope)}, whose sign the assumptions do not decide, and the limit as {var} -> {sympy.sstr(dropped[0])} "
        "is not decided either, so the quantity may grow without bound; ask at a point (--preset, --set) or add an "
        "assumption (--assume)")
