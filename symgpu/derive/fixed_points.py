"""Fixed points ``x = Min(g(x), k, ...)``: closed-form roots of degree <= 2, otherwise numeric."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mpmath
import sympy

from symgpu import errors
from symgpu.memo import memoised
from symgpu.proofs import forms
from symgpu.proofs import signs
from symgpu.derive import at_point, declared_range, fixed_point_numeric, results, solve_domain
from symgpu.derive import jobs, roots as root_finder
from symgpu.derive import limits
from symgpu.derive.derivation import Derivation
from symgpu.model import substitution
from symgpu.proofs import sample_points

if TYPE_CHECKING:
    from symgpu.model import Model


def _poles(expr: sympy.Expr, var: sympy.Symbol) -> list[sympy.Expr]:
    poles = []
    for node in sympy.preorder_traversal(expr):
        if node.is_Pow and node.exp.is_negative and var in node.base.free_symbols:
            roots = root_finder.linear_roots(node.base, var) if node.base.is_polynomial(var) else None
            if roots:
                poles.extend(roots)
    return list(dict.fromkeys(poles))


def fixed_point(model: Model, quantity: Any, variable: str, *, substitute: Mapping[str, Any] | None = None,
                assume: Iterable[Any] | None = None, preset: str | None = None,
                values: Mapping[str, Any] | None = None, method: str = "auto", stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """Solve the implicit relation ``variable = quantity(variable)``.

    The quantity is ``Min(g(x), k1, k2, ...)`` (or just ``g(x)``) with the ``k`` free of ``x``. Where
    ``x - g(x)`` increases on the physical domain ``(0, first pole)`` (``g`` decreasing, or rising
    slower than ``x``: proved; or, where nothing is proved, ``Min(r, k...)`` a fixed point at every
    sample, and at a point checked there), the fixed point is ``Min(r, k1, k2, ...)`` with ``r`` the
    root of ``x = g(x)`` in the domain. When ``x = g(x)`` reduces to a polynomial of degree <= 2,
    ``r`` is in closed form (rationalised so that it has no cancellation and holds at a vanishing
    leading coefficient; kept as it is where it adds two numbers of one sign and a2 is not 0), a root
    outside the declared range dropped, and the declared range at it stated where the signs leave it
    open (``extra.valid_when``); otherwise (or with
    ``method="numeric"``) the fixed points of the whole Min are found numerically at a preset or
    values (:mod:`.fixed_point_numeric`), the variable's own value there no input of ``g``.

    Raises:
        errors.UsageError: ``method`` is neither ``"auto"`` nor ``"numeric"``.
        errors.NoAnswerHere: no fixed point lies in the declared range, or every value is one.
        errors.DerivationError: the numeric path needs a point, or finds no fixed point there.
    """
    if method not in ("auto", "numeric"):
        raise errors.UsageError(f"{model.id}: fixed_point method must be 'auto' (closed form where x = g(x) is a polynomial of "
                                f"degree <= 2, else numeric) or 'numeric', not {method!r}")
    job, ctx = jobs.start(model, "fixed_point", quantity, variable, assume=assume, omit=omit)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    x = job.symbol(variable)
    if x.name in model.symbols and job.quantity in model.symbols and model.dimension(x.name) != model.dimension(job.quantity):
        raise errors.DerivationError(f"{model.id}: {variable} and {job.quantity} have different units; a fixed point needs the same")
    if x not in expr.free_symbols:
        raise errors.DerivationError(f"{model.id}: {job.quantity} does not depend on {variable}; there is no implicit relation")
    job.step("fixed point", sympy.Eq(x, expr), f"the implicit relation: {variable} = {job.quantity}({variable})")
    lifted = limits._lift(ctx, expr)
    args = list(lifted.args) if isinstance(lifted, sympy.Min) else [lifted]
    g_terms = [a for a in args if x in a.free_symbols]
    bounds = [a for a in args if x not in a.free_symbols]
    g = g_terms[0] if len(g_terms) == 1 else substitution.min_max(sympy.Min, tuple(g_terms))
    pieces = forms.has_pieces(g)  # Min/Max/Piecewise in g(x): x = g(x) is no polynomial; only a numeric root at a point
    if bounds:
        job.step("split", sympy.Eq(x, substitution.min_max(sympy.Min, (g, *bounds))), f"one term g({variable}) depends on {variable}; the bounds {', '.join(map(sympy.sstr, bounds))} do not")
    poles = [p for p in _poles(g, x) if ctx.sign(p) == 1]
    hi = poles[0] if len(poles) == 1 else (substitution.min_max(sympy.Min, tuple(poles)) if poles else sympy.oo)
    lo = sympy.Integer(0) if declared_range.of(model, x).word else -sympy.oo
    domain_ctx = ctx.copy()
    u = sympy.Dummy("u", positive=True)
    inside = hi * u / (1 + u) if hi is not sympy.oo else u
    slope = sympy.diff(g, x)
    rising = False  # g not decreasing, but x - g(x) proved increasing: the Min argument holds all the same
    if pieces:
        s = -1 if lo == 0 and _branches_nonincreasing(domain_ctx, g, x, inside) else None
    else:
        s = domain_ctx.sign(slope.xreplace({x: inside})) if lo == 0 else None
    job.step("domain", sympy.And(sympy.StrictLessThan(lo, x), sympy.StrictLessThan(x, hi)) if hi is not sympy.oo else sympy.StrictLessThan(lo, x),
             f"{variable} ranges over (0, {sympy.sstr(hi)}): declared {'positive' if lo == 0 else 'real'}" + (f", below the pole of g at {sympy.sstr(hi)}" if poles else ""))
    if s == -1 and pieces:
        job.step("monotone", g, f"g is non-increasing in {variable} on the domain: so is each expression its Min/Max can take "
                 "(proved from the declared signs), and g, continuous, is one of them between finitely many switches; "
                 f"so {variable} - g({variable}) increases and has at most one root")
    elif s == -1:
        job.step("monotone", sympy.StrictLessThan(slope, 0), f"g is decreasing in {variable} on the domain (proved from the declared signs)")
    elif s in (0, 1) and bounds and not pieces:  # the Min argument needs x - g(x) increasing: g' < 1, else no closed form
        rising = domain_ctx.sign(forms.nice(1 - slope.xreplace({x: inside}))) == 1
        job.step("monotone", sympy.StrictLessThan(slope, 1) if rising else slope,
                 f"g is {'constant' if s == 0 else 'increasing'} in {variable} (proved), "
                 + ("and its slope is below 1 (proved from the declared signs): x - g(x) increases, which the Min argument below needs"
                    if rising else "and its slope below 1 is not proved: the Min argument for a decreasing g does not apply"))
        s = -1 if rising else 1
    else:
        job.step("monotone", slope, f"g decreasing in {variable} not proved symbolically, so nothing below rests on it: "
                 + ("Min(r, k) is kept only where it is a fixed point at every sample of the inputs, or at the point the one "
                    "fixed point there, else the fixed points are found numerically" if bounds else
                    f"a root of {variable} = g({variable}) is kept only where it is the one in the domain (at every sample of the "
                    "inputs, or at the point), else the fixed points are found numerically"))
    numerator = sympy.numer(sympy.together(x - g))
    numerator = sympy.expand(numerator)
    if numerator == 0:
        raise errors.NoAnswerHere(f"{model.id}: fixed point of {job.quantity} in {variable}: g({variable}) = {variable}, so every value of "
                                  f"{variable} in its domain" + (f" up to Min({', '.join(map(sympy.sstr, bounds))})" if bounds else "")
                                  + " is a fixed point; there is no single answer")
    try:
        poly = sympy.Poly(numerator, x)
        degree = poly.degree()
    except sympy.PolynomialError:
        poly, degree = None, -1
    job.step("polynomial", sympy.Eq(numerator, 0), f"{variable} = g({variable}) cleared of denominators: "
             + (f"a polynomial of degree {degree} in {variable}" if poly is not None else "not a polynomial"))
    root: Any = None
    how = "closed form"
    at = preset is not None or bool(values)
    why = ""
    if s == 1 and bounds and not pieces:
        why = f"g increases in {x} with a slope not proved below 1, so x = Min(g(x), k) need not be Min(r, k)"
    elif poly is not None and degree in (1, 2) and method != "numeric" and not pieces:
        root = _closed_form_root(job, ctx, poly, x, lo, hi)
        if root is not None and degree == 1:
            root, why = _linear_in_domain(job, ctx, root, x, lo, hi, bool(bounds), at)
    if root is not None and bounds and s != -1 and not at and not _min_rule_at_samples(g, x, root, tuple(bounds)):
        root, why = None, f"Min(r, k) is not the fixed point at every sample of the inputs (g is not decreasing in {x} there)"
    if root is not None and at:
        pt = fixed_point_numeric.point(job, g, x, lo, hi, bounds, preset, values or {})
        value = results._evaluate(model, substitution.min_max(sympy.Min, (root, *bounds)) if bounds else root, preset, values or {}, model.unit_text(x.name))
        if not fixed_point_numeric.confirms(pt, x, float(value)):
            if degree == 1 and not bounds:  # the one root of x = g(x), outside the domain at the point: none in it
                raise errors.NoAnswerHere(
                    f"{model.id}: fixed point of {job.quantity} in {x} at {at_point.where_text(preset, values or {})}: no fixed point in the declared "
                    f"range ({sympy.sstr(lo)}, {sympy.sstr(hi)}){' of whole numbers' if pt.whole > 0 else ''}: {x} = g({x}) is linear and its only "
                    f"root there, {x} = {float(value):.10g} {model.unit_text(x.name)}, lies outside it")
            root, why = None, f"at the point the closed form, {x} = {float(value):.10g} {model.unit_text(x.name)}, is not the one fixed point"
    if root is None:
        why = why or (f"g({x}) has Min/Max/Piecewise in it" if pieces else "the numeric method was asked for" if method == "numeric"
                      else f"{x} = g({x}) is not a polynomial of degree <= 2" if poly is None or degree not in (1, 2)
                      else "neither root of the quadratic lies in the domain at every sample")
        if not at:
            raise errors.DerivationError(f"{model.id}: fixed point of {job.quantity} in {x}: the root of {x} = g({x}) is found numerically "
                                         f"here ({why}), which needs a point; give a preset or values (--preset, --set): the scan there finds every "
                                         "fixed point and answers with the stable one")
        pt = fixed_point_numeric.point(job, g, x, lo, hi, bounds, preset, values or {})
        how, number = fixed_point_numeric.root(job, pt, x, lo, hi, preset, values or {}, why, unique=s == -1)
        job.step("numeric root", sympy.Eq(x, number), how)
        result_number = min([number] + [results._evaluate(model, b, preset, values or {}, model.unit_text(x.name)) for b in bounds])
        _meets_assumed(job, x, result_number, preset, values or {}, unique=s == -1)
        job.extra = job.extra.with_(value_at=result_number)
        job.extra = job.extra.with_(root_of_g=number, declared_numbers=True)
        unit = model.unit_text(x.name)
        return job.finish(sympy.Float(result_number, 17), unit, method=how, used=[expr])
    result = substitution.min_max(sympy.Min, (root, *bounds)) if bounds else root
    if bounds:
        job.step("min with bounds", sympy.Eq(x, result),
                 "g is decreasing, so x = Min(g(x), k) has the solution Min(r, k): if r <= k then x = r; "
                 "if r > k then g(k) > g(r) = r > k, so x = k satisfies x = Min(g(k), k)" if s == -1 and not rising else
                 "Min(r, k), a fixed point of x = Min(g(x), k) " + ("at the point (the one there, checked)" if at else
                                                                   "at every sample of the inputs (checked; g not proved decreasing)")
                 if not rising else
                 "x - g(x) increases, so x = Min(g(x), k), where Max(x - g(x), x - k) = 0, has the one solution Min(r, k): "
                 "below it both x - g(x) and x - k are negative, above it one of them is positive")
    if not at:  # at a point the closed form was confirmed the one fixed point in the declared range there
        _declared_when(job, x, result)
    unit = job.check_unit(root, x.name, "fixed point")
    job.extra = job.extra.with_(root_of_g=root)
    if preset is not None or values:
        value_at = results._evaluate(model, result, preset, values or {}, model.unit_text(x.name))
        _meets_assumed(job, x, value_at, preset, values or {}, unique=s == -1)
        job.extra = job.extra.with_(value_at=value_at)
    return job.finish(result, unit, method=how, used=[expr])


def _declared_when(job: jobs._Job, x: sympy.Symbol, result: sympy.Expr) -> None:
    """The variable's declared range at the closed-form fixed point ``result`` (``c1/(2*r + 1) > 0``, c0 declared positive
    and c1 nonnegative), as :func:`symgpu.derive.solve_domain.declared` gives a solve's root: where the declared signs
    leave it open, the answer holds only where it holds (``extra.valid_when``, printed with the answer; elsewhere, at
    ``c1 = 0``, the one root 0 lies outside the range: no fixed point).

    Raises:
        errors.NoAnswerHere: the fixed point lies outside the declared range whatever the inputs.
    """
    assert job.ctx is not None
    open_: list[sympy.Basic] = []
    for condition in solve_domain.at(solve_domain.declared(job, x), x, result):
        # a square root read as a nonnegative number: where its argument is negative the closed form has no real value
        # at all (a quadratic's root, Volkov's loaded memory throughput), and the declared signs decide the rest
        real = condition.replace(lambda n: n.is_Pow and n.exp == sympy.S.Half, lambda n: sympy.Dummy("root", nonnegative=True))
        verdict = False if condition is sympy.false else job.ctx.decide(real)
        if verdict is False:
            raise errors.NoAnswerHere(f"{job.model.id}: fixed point of {job.quantity} in {x}: no fixed point in the declared range: "
                                      f"the closed form {x} = {sympy.sstr(result)} fails {sympy.sstr(condition)} whatever the inputs")
        if verdict is None:
            open_.append(condition)
    if open_:
        job.extra = job.extra.with_(valid_when=tuple(dict.fromkeys(open_)))
        job.step("admissible when", sympy.Tuple(*open_), f"the fixed point lies in {x}'s declared range only where these hold "
                 "(the declared signs leave them open); elsewhere there is no fixed point in it")


def _branches_nonincreasing(ctx: signs.SignReasoner, g: sympy.Expr, x: sympy.Symbol, inside: sympy.Expr) -> bool:
    """Is ``g``, built of Min/Max (no Piecewise, no floor/ceiling: continuous), non-increasing in ``x`` on the
    domain? Proved where every expression it can equal has a slope proved <= 0 at ``x = inside`` (any point of the
    domain): branches of analytic expressions switch finitely often, and g is non-increasing between switches."""
    if g.has(sympy.Piecewise) or forms.has_staircase(g, x):
        return False
    branches = forms.min_max_branches(g)  # the Min/Max branch expressions whose slopes are signed
    if branches is None:
        return False
    for branch in branches:
        slope = sympy.diff(branch, x).xreplace({x: inside})
        if not (slope == 0 or ctx.sign(slope) in (-1, 0) or ctx.weak_sign(slope) == -1):
            return False
    return True


def _meets_assumed(job: jobs._Job, x: sympy.Symbol, value: float, preset: str | None, values: Mapping[str, Any], *, unique: bool) -> None:
    """Refuse a fixed point at the given values that fails an ``assume`` relation on its variable (``x <= 0.05``):
    the question asked under the assumption has no fixed point there. ``unique``: g was proved decreasing, so
    ``x = Min(g(x), k...)`` has no other solution on the domain.

    Raises:
        errors.NoAnswerHere: an assumption on ``x`` fails at the fixed point.
    """
    failed = at_point.failed_assumptions(job.model, job.assumed, x.name, preset, values, float(value))
    if failed:
        others = ("it is the only one on the domain (g is decreasing there), so none meets the assumption" if unique
                  else "it is the one fixed point found on the domain (the only one where g is decreasing, as the derivation assumes)")
        raise errors.NoAnswerHere(
            f"{job.model.id}: fixed point of {job.quantity} in {x}: at {at_point.where_text(preset, values)} the fixed point is "
            f"{x} = {value:.10g} {job.model.unit_text(x.name)}, which does not meet the assumption "
            f"{' and '.join(map(sympy.sstr, failed))} (--assume); {others}. Drop the assumption or ask at other values")


def _closed_form_root(job: jobs._Job, ctx: signs.SignReasoner, poly: sympy.Poly, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr | None:
    coeffs = poly.all_coeffs()
    if len(coeffs) == 2:
        a1, a0 = coeffs
        root = forms.nice(-a0 / a1)
        job.step("solve", sympy.Eq(x, root), "the relation is linear in " + str(x))
        return root
    a2, a1, a0 = [forms.nice(c) for c in coeffs]
    disc = forms.nice(a1**2 - 4 * a2 * a0)
    roots = [(-a1 + s * sympy.sqrt(disc)) / (2 * a2) for s in (1, -1)]
    job.step("quadratic roots", sympy.Tuple(*[sympy.Eq(x, r) for r in roots]), f"p({x}) = {sympy.sstr(poly.as_expr())}; both roots of the quadratic formula")
    p_lo = forms.nice(poly.as_expr().xreplace({x: lo})) if lo.is_finite else None
    p_hi = forms.nice(poly.as_expr().xreplace({x: hi})) if hi.is_finite else None
    s_lo = ctx.sign(p_lo) if p_lo is not None else None
    s_hi = ctx.sign(p_hi) if p_hi is not None else None
    if s_lo is not None and s_hi is not None and s_lo * s_hi == -1:
        reason = (f"p({sympy.sstr(lo)}) = {sympy.sstr(p_lo)} and p({sympy.sstr(hi)}) = {sympy.sstr(p_hi)} have opposite signs "
                  f"(proved from the declared signs), so exactly one root of the quadratic lies in ({sympy.sstr(lo)}, {sympy.sstr(hi)})")
    else:
        reason = "the signs of p at the domain ends are not decided; the root inside the domain is identified on samples"
    # which formula? check on random samples of the positive parameters
    choice = _pick_root((a2, a1, disc), x, lo, hi)
    if choice is None:
        job.step("select root", sympy.Tuple(*roots), reason + "; neither formula lies inside the domain for all samples: falling back to a numeric root")
        return None
    selected = roots[choice]
    s = 1 if choice == 0 else -1
    stable = forms.nice(2 * a0 / (-a1 - s * sympy.sqrt(disc)))
    job.extra = job.extra.with_(rejected_root=roots[1 - choice])
    job.step("select root", sympy.Eq(x, selected),
             reason + f"; it is the {'+' if s == 1 else '-'} root (the other lies outside the domain at every sample checked)")
    if ctx.sign(forms.nice(-a1)) == s and ctx.sign(a2) in (1, -1):  # -a1 and s*sqrt(disc) of one sign: the root adds them
        job.step("no cancellation", sympy.Eq(x, selected), f"-a1 = {sympy.sstr(forms.nice(-a1))} has the sign of the {'+' if s == 1 else '-'}"
                 " square root and a2 is not 0 (proved): the formula adds two numbers of one sign, and is kept (its conjugate "
                 "form would subtract them, cancelling their digits)")
        return selected
    job.step("rationalise", sympy.Eq(x, stable),
             "multiply by the conjugate (a1**2 - disc = 4*a2*a0): the same root without cancellation, valid also where the x**2 coefficient vanishes")
    return stable


@memoised("derive.fixed_points.root_choice", 256)  # deterministic (its own seeded draws): a model's requests ask again
def _pick_root(quadratic: Sequence[sympy.Expr], x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, samples: int = 24) -> int | None:
    """Which root of the quadratic formula, ``(-a1 + sqrt(disc))/(2*a2)`` (0) or
    ``(-a1 - sqrt(disc))/(2*a2)`` (1) for ``quadratic = (a2, a1, disc)``, lies in ``(lo, hi)``
    at every random sample of the positive parameters where exactly one does (None if
    neither always does). The coefficients are evaluated to 30 digits once per sample and
    both roots computed from them in mpmath (the roots' expressions are not re-evaluated)."""
    hi_symbols = hi.free_symbols if isinstance(hi, sympy.Basic) else set()
    symbols = sorted(set().union(*[c.free_symbols for c in quadratic]) | hi_symbols, key=str)
    rng = sample_points.Draws(20160101)
    wins = [0, 0]
    good_samples = 0
    with mpmath.workdps(30):
        for _ in range(samples * 3):
            values = {s: sympy.Float(mpmath.mpf(10) ** rng.uniform(-2, 2), 30) for s in symbols}
            try:
                lo_v = mpmath.mpf(sympy.N(lo.xreplace(values), 30)) if lo.is_finite else -mpmath.inf
                hi_v = mpmath.mpf(sympy.N(hi.xreplace(values), 30)) if hi is not sympy.oo else mpmath.inf
                a2, a1, disc = (sympy.N(c.xreplace(values), 30) for c in quadratic)
                if not all(v.is_real for v in (a2, a1, disc)) or a2 == 0:
                    continue
                a2_v, a1_v, disc_v = mpmath.mpf(a2), mpmath.mpf(a1), mpmath.mpf(disc)
                if disc_v < 0:
                    continue  # both roots complex: neither inside
                inside = [lo_v < (-a1_v + s * mpmath.sqrt(disc_v)) / (2 * a2_v) < hi_v for s in (1, -1)]
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            if inside[0] == inside[1]:
                continue
            good_samples += 1
            wins[0 if inside[0] else 1] += 1
            if good_samples >= samples:
                break
    if good_samples == 0:
        return None
    if wins[0] == good_samples:
        return 0
    if wins[1] == good_samples:
        return 1
    return None


def _linear_in_domain(job: jobs._Job, ctx: signs.SignReasoner, root: sympy.Expr, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr,
                      bounded: bool, at: bool) -> tuple[sympy.Expr | None, str]:
    """The linear relation's root where it lies in the domain (an integer variable's: at or above its least whole value):
    kept where proved so, or (asked at a point) left to the check there, or (in symbols) where it does at every sample.
    Else None and why (the numeric path at a point decides then, with the bounds).

    Raises:
        errors.NoAnswerHere: the root is proved outside the domain and there is no bound: no fixed point in it.
    """
    declared = declared_range.of(job.model, x)
    floor = sympy.Integer(1) if declared.integer and lo == 0 and declared.word == "positive" else lo
    above = ctx.sign(forms.nice(root - floor)) if floor.is_finite else 1
    below = ctx.sign(forms.nice(hi - root)) if hi is not sympy.oo else 1
    ends = f"[{floor}, {sympy.sstr(hi)})" if floor != lo else f"({sympy.sstr(lo)}, {sympy.sstr(hi)})"
    if above == -1 or (above == 0 and floor == lo) or below in (-1, 0):
        if not bounded:
            raise errors.NoAnswerHere(
                f"{job.model.id}: fixed point of {job.quantity} in {x}: no fixed point in the declared range {ends}: {x} = g({x}) is linear "
                f"and its only root, {x} = {sympy.sstr(root)}, lies outside it (proved from the declared signs)")
        return None, f"the linear relation's root {sympy.sstr(root)} lies outside the domain {ends} (proved), so the bounds decide"
    if (above == 1 or (above == 0 and floor != lo)) and below == 1:
        return root, ""
    if at or _inside_at_samples(root, floor, hi, floor != lo):
        return root, ""
    return None, f"the linear relation's root {sympy.sstr(root)} lies in the domain {ends} only for some values of the inputs"


@memoised("derive.fixed_points.linear_inside", 256)  # deterministic (its own seeded draws)
def _inside_at_samples(root: sympy.Expr, lo: sympy.Expr, hi: sympy.Expr, closed: bool, samples: int = 24) -> bool:
    """Does ``root`` lie in ``(lo, hi)`` (``[lo, hi)`` where ``closed``) at every random sample of its positive parameters
    (the draws :func:`_pick_root` makes)? False where no sample gives it a real value."""
    symbols = sorted(root.free_symbols | (lo.free_symbols if lo.is_finite else set()) | (hi.free_symbols if hi is not sympy.oo else set()), key=str)
    rng = sample_points.Draws(20160101)
    seen = 0
    with mpmath.workdps(30):
        for _ in range(samples * 3):
            values = {s: sympy.Float(mpmath.mpf(10) ** rng.uniform(-2, 2), 30) for s in symbols}
            try:
                r, lo_v = sympy.N(root.xreplace(values), 30), (sympy.N(lo.xreplace(values), 30) if lo.is_finite else None)
                hi_v = sympy.N(hi.xreplace(values), 30) if hi is not sympy.oo else None
                if not r.is_real or (lo_v is not None and not lo_v.is_real) or (hi_v is not None and not hi_v.is_real):
                    continue
                inside = (lo_v is None or r > lo_v or (closed and r == lo_v)) and (hi_v is None or r < hi_v)
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            if not inside:
                return False
            seen += 1
            if seen >= samples:
                break
    return seen > 0


@memoised("derive.fixed_points.min_rule", 256)  # deterministic (its own seeded draws)
def _min_rule_at_samples(g: sympy.Expr, x: sympy.Symbol, root: sympy.Expr, bounds: tuple[sympy.Expr, ...], samples: int = 24) -> bool:
    """Is ``Min(r, k...)`` a fixed point of ``x = Min(g(x), k...)`` at every random sample of the positive parameters
    (the draws :func:`_pick_root` makes) where it has a real value: ``r`` where ``r`` is the least, else ``g(k) >= k``
    at the least bound ``k``? Where g was not proved decreasing, the Min argument is so checked before it is used."""
    symbols = sorted((g.free_symbols - {x}) | root.free_symbols | set().union(*[b.free_symbols for b in bounds]), key=str)
    rng = sample_points.Draws(20160101)
    with mpmath.workdps(30):
        for _ in range(samples):
            values = {s: sympy.Float(mpmath.mpf(10) ** rng.uniform(-2, 2), 30) for s in symbols}
            try:
                r = sympy.N(root.xreplace(values), 30)
                k = min((sympy.N(b.xreplace(values), 30) for b in bounds), key=lambda v: float(v))
                if not (r.is_real and k.is_real) or r <= k:
                    continue
                image = sympy.N(g.xreplace(values).xreplace({x: k}), 30)
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            if image.is_real and image < k * (1 - sympy.Float(10) ** -20):
                return False
    return True
