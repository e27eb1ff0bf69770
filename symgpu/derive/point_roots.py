"""At a point, the roots of a regime whose equation has no usable closed form: every input but the
unknown put in as an exact number, the real roots of what is left found exactly, and each regime
condition decided at each; the roots that meet them all are the regime's roots there."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy

from symgpu import errors

from symgpu.derive import at_point, float_root_signs, jobs
from symgpu.derive import roots
from symgpu.derive.roots import real_roots
from symgpu.evaluate import scaling
from symgpu.proofs import intervals

DIGITS = 30  # a root that is no rational number is given to this many digits (CRootOf and Cardano forms print badly)
#: a polynomial equation of degree 2 or more whose coefficients hold this many symbols or more is solved at a point with
#: the numbers in first: its closed-form roots are radicals in all of them, whose regime conditions and second
#: derivatives took minutes to decide (GPUMech's GTO throughput solved for alpha: 23 roots, conditions of 74 000
#: characters, 4 min 49 s; its bandwidth-term throughput's maximum over n: past 120 s); with the numbers in, seconds
MANY_SYMBOLS = 5
#: at a point, more pairs of regimes than this: the regimes that hold nowhere there are left out first (:func:`held_pairs`;
#: an extremum's cusps: Hong & Kim's Exec_cycles_app over Active_blocks_per_SM, 21 pairs, 10 left; Volkov's n_needed over
#: alpha keeps its general closed form; a boundary asked without ``between``: Sim et al.'s Texec over n at fermi)
PRUNED_ABOVE = 12


def read_alike(job: jobs._Job, var: sympy.Symbol) -> bool:
    """Whether a bare number is ``var``'s value in its declared unit however it is read: that unit is its
    base units' (scale 1: ``warp/SM``, ``cycle``, a pure number). A root of :func:`roots_here` is a bare
    number in the declared unit, and a bare number evaluated alone is read in base units (``3`` as ``3e-9 GHz``)."""
    return scaling.symbol_scale(job.model, var.name) == 1.0


def numbers_first(job: jobs._Job, difference: sympy.Expr, var: sympy.Symbol, any_unit: bool = False) -> bool:
    """Whether ``difference = 0`` is better solved for ``var`` with a point's numbers put in first
    (:func:`roots_here`) than in closed form: it is rational in ``var`` with a numerator of degree 2 or more
    in it whose coefficients hold :data:`MANY_SYMBOLS` symbols or more (a linear one, or one in few
    symbols, keeps its closed form), and ``var``'s bare numbers read alike (:func:`read_alike`) unless ``any_unit``
    (a caller that takes :func:`roots_here`'s roots in base units, ``base=True``)."""
    if not isinstance(difference, sympy.Expr) or not (any_unit or read_alike(job, var)):
        return False
    if roots.transcendental_in(difference, var):  # no closed form: with the numbers in, its roots by bisection
        return True
    if roots.under_radical(difference, var):  # squared away, the radicals in every symbol: minutes again
        return len(difference.free_symbols - {var}) >= MANY_SYMBOLS
    parts = roots.numerator_poly(difference, var)
    if parts is None or parts[0].degree() < 2:
        return False
    held = set().union(*(c.free_symbols for c in parts[0].all_coeffs()))
    # a cubic or higher in any symbol: Cardano's radicals, whose checks in sympy.solve ran past 150 s in 3 symbols
    # (an outside tester's finding, round 14b F10: Min(a*x, b)/(1 + Max(0, x - s)**2), a*x*(1 + (x - s)**2) = b)
    return len(held) >= MANY_SYMBOLS or (parts[0].degree() >= CUBIC and bool(held))


def _cubic_in_symbols(difference: sympy.Expr, var: sympy.Symbol) -> bool:
    """Is ``difference``'s numerator a polynomial in ``var`` with a factor of degree :data:`CUBIC` or more whose coefficients hold
    a symbol (its closed-form roots Cardano's radicals in them)?"""
    parts = roots.numerator_poly(difference, var)
    if parts is None or parts[0].degree() < CUBIC or not parts[0].free_symbols - {var}:
        return False
    return any(sympy.degree(f, var) >= CUBIC and f.free_symbols - {var} for f, _ in sympy.factor_list(parts[0].as_expr())[1])


#: from this degree of the numerator on, any symbol in its coefficients sends it to the numbers first (:func:`numbers_first`)
CUBIC = 3


def roots_here(job: jobs._Job, regime: Any, difference: sympy.Expr, var: sympy.Symbol, point: at_point.Given,
               first: bool = False, base: bool = False) -> list[sympy.Expr] | None:
    """The real roots of ``difference = 0`` (a regime's equation, ``var`` unknown) that meet the regime's
    conditions at ``point``, in ``var``'s declared unit (a rational one exact, another to :data:`DIGITS`
    digits; ``base``: in base units instead, as a closed-form root put in reads, so for a variable of any unit),
    recorded as a step (``first``: asked before any closed form, :func:`numbers_first`); None where an input has no value there, the roots have no closed form even
    with the numbers in (:func:`symgpu.derive.at_point.pinned`, base units throughout), or a condition is not
    decided at a root (the caller refuses as before). The answer's checks at the point then check each root
    and scan for any it lacks.

    NOTE: Volkov's issue-bound regime with ``Latency = alpha**(3/2)*alu_lat + mem_lat`` is a cubic
    in ``sqrt(alpha)`` whose symbolic roots are Cardano's formula (undecidable, and minutes in every
    step after); at ``maxwell`` with ``n_needed = 40`` its one real root is negative: no root there."""
    at = at_point.with_target(job, point.values)
    found = _exact_roots(job, difference, var, point.preset, at)
    if found is None:
        return None
    conditions = []
    for cond in regime.raw:
        pinned = at_point.pinned(job, cond.relational, var, point.preset, at)
        relation = None if pinned is None else pinned()
        if relation is None or relation.free_symbols - {var}:
            return None
        conditions.append(relation)
    kept = []
    for root in found:
        verdicts = [c.xreplace({var: root}) for c in conditions]
        if any(v not in (sympy.true, sympy.false) for v in verdicts):
            return None
        if all(v is sympy.true for v in verdicts):
            kept.append(_digits(root) if base else _declared(job, var, root))
    where = at_point.where_text(point.preset, point.values)
    job.step(f"roots at the point in regime {regime.name}", sympy.Tuple(*kept),
             (f"the closed-form roots in regime {regime.name} are radicals in {MANY_SYMBOLS} or more symbols" if first else
              f"SymPy gives no usable closed form for the roots in regime {regime.name}") + f"; at {where} the real roots of the "
             "equation (exact, the numbers put in) " + ("are none" if not found else "that meet its conditions are these" if kept
                                                        else "meet none of its conditions: no root of this regime applies there"))
    return kept


def meetings_here(job: jobs._Job, ra: Any, rb: Any, var: sympy.Symbol, preset: str | None,
                  values: Mapping[str, Any] | None, base: bool = False) -> list[sympy.Expr] | None:
    """The real values of ``var`` where regimes ``ra`` and ``rb`` have equal values at the point of ``preset``
    and ``values``, where their difference is better solved with the numbers first (:func:`numbers_first`),
    in ``var``'s declared unit as :func:`roots_here` gives them (``base``: in base units, for a variable of any unit), recorded as a step; no regime condition
    decided here (the extremum's cusp test decides each, :func:`symgpu.derive.extremum_cusps.boundary_candidate`).
    None with no point, where the closed form is kept, an input has no value there, the difference vanishes
    there, or a root is no real number given exactly (the caller solves in closed form).

    NOTE: Hong & Kim's Exec_cycles_app over Mem_Bandwidth at gtx280+tiled_matmul: eq22+departure_bound
    meeting eq23+bandwidth_bound is a quadratic in Mem_Bandwidth whose coefficients hold a dozen symbols;
    solved in closed form it ran for minutes."""
    difference, names = ra.expression - rb.expression, f"{ra.name} = {rb.name}"
    if preset is None and not values and _cubic_in_symbols(difference, var):
        raise errors.DerivationError(
            f"{job.model.id}: {job.quantity}'s regimes meet where {names}, a cubic or higher in {var} with symbols in its "
            f"coefficients: its closed-form roots (Cardano's radicals) take minutes to check; ask at a point (--preset, --set), "
            f"where its roots are found with the numbers in, or over a grid (--grid START:STOP:STEP)")
    if (preset is None and not values) or not numbers_first(job, difference, var, any_unit=base) or _linear_factors(difference, var):
        return None
    found = _exact_roots(job, difference, var, preset, at_point.with_target(job, values or {}))
    if found is None:
        return None
    kept = [_digits(r) if base else _declared(job, var, r) for r in found]
    job.step(f"meeting points at the point: {names}", sympy.Tuple(*kept),
             f"the closed-form points where {names} meet are radicals in {MANY_SYMBOLS} or more symbols; at "
             f"{at_point.where_text(preset, values or {})} the real roots of their difference (exact, the numbers put in)")
    return kept


#: a root of :func:`meetings_here` given as a Float of :data:`DIGITS` digits lies within this relative distance of the true one
ROOT_SPREAD = Fraction(1, 10 ** (DIGITS - 5))


def signs_at(job: jobs._Job, var: sympy.Symbol, point: sympy.Expr, found: Sequence[sympy.Expr] | None, preset: str | None,
             values: Mapping[str, Any] | None, in_base: bool = False) -> Callable[[sympy.Expr], int | None] | None:
    """At a meeting point of :func:`meetings_here` (``found``: its points; None where it gave none), the sign of an expression in
    ``var`` and the inputs at ``var = point`` with the point's numbers put in exactly (:func:`symgpu.derive.at_point.pinned`, base
    units; ``point`` is in ``var``'s declared unit, as meetings_here gives it, and is put in scaled to base units; ``in_base``: in base
    units already, as meetings_here gives it with ``base``): at a rational point in exact arithmetic, at a root given to :data:`DIGITS`
    digits by an interval enclosure over the point widened by :data:`ROOT_SPREAD` either way (:func:`symgpu.proofs.intervals.sign`),
    which holds the true root; 1, -1, 0 (exactly, at a rational point) or None where not decided. A closed-form meeting point in
    symbols (``found`` None, ``in_base``) is put in as the number it is there (:func:`_pinned_number`): Hong & Kim's 21 meeting
    points over Active_blocks_per_SM at gtx280+tiled_matmul took a minute of sign tidying in symbols, most of them not there.
    None (no such function) elsewhere.

    NOTE: the cusp test (:func:`symgpu.derive.extremum_cusps.boundary_candidate`) decided each sign in symbols, a dozen of them
    (Hong & Kim's Exec_cycles_app over Mem_Bandwidth at gtx280+tiled_matmul: 16 meeting points, half its 25 s)."""
    at = at_point.with_target(job, values or {})
    if found is None and (preset is not None or values) and in_base and point.free_symbols and var not in point.free_symbols:
        point = _pinned_number(job, point, var, preset, at)  # a closed-form meeting point: the number it is here
        found = None if point is None else [point]
    if found is None or point is None or (preset is None and not values) or not (point.is_Rational or isinstance(point, sympy.Float)):
        return None
    # the point is in var's declared unit (meetings_here's _declared), the pinned expression in base units
    scale = sympy.Rational(scaling.unit_scale(job.model.units[var.name])) if var.name in job.model.units and not in_base else sympy.Integer(1)
    base = point * scale if point.is_Rational else sympy.Rational(point) * scale  # the Float's exact binary value, scaled
    if point.is_Rational:
        bounds = None
    else:
        center = Fraction(*base.as_numer_denom())
        spread = abs(center) * ROOT_SPREAD
        bounds = {var: intervals.Interval(center - spread, center + spread)}
    near = float_root_signs.signs_near(var, point * scale) if isinstance(point, sympy.Float) else None

    def sign(expr: sympy.Expr) -> int | None:
        made = at_point.pinned(job, expr, var, preset, at)
        number = None if made is None else made()
        if number is None or number.free_symbols - {var}:
            return None
        if bounds is not None:  # a root found by bisection, var inside a log/exp and outside: 60 digits decide
            found_sign = intervals.sign(number, bounds)
            return near(number) if found_sign is None and near is not None and roots.transcendental_in(number, var) else found_sign
        value = number.xreplace({var: base})
        if not value.is_number or value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
            return None
        return 1 if value.is_positive else -1 if value.is_negative else 0 if value.is_zero else None
    return sign


def _pinned_number(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, preset: str | None,
                   values: Mapping[str, Any]) -> sympy.Expr | None:
    """``expr`` (free of ``var``) as the number it is at the point, in base units: exact where rational, else to
    :data:`DIGITS` digits; None where an input has no value there or it is no finite real number."""
    made = at_point.pinned(job, expr, var, preset, values)
    number = None if made is None else made()
    if number is None or not number.is_number or not number.is_real or not number.is_finite:
        return None
    return number if number.is_Rational else _digits(number)


def _exact_roots(job: jobs._Job, difference: sympy.Expr, var: sympy.Symbol, preset: str | None,
                 values: Mapping[str, Any]) -> list[sympy.Expr] | None:
    """The real roots of ``difference = 0`` with every input but ``var`` put in as an exact number at ``preset`` and
    ``values`` (:func:`symgpu.derive.at_point.pinned`, base units); None where an input has no value there, the
    difference vanishes there (every value a root: not a list of roots), or a root is no real number given exactly."""
    made = at_point.pinned(job, difference, var, preset, values)
    numbers = None if made is None else made()
    if numbers is None or numbers.free_symbols - {var} or sympy.cancel(numbers) == 0:
        return None
    found = real_roots(numbers, var)
    if found is None or any(not isinstance(r, sympy.Basic) or r.has(sympy.I) or not r.is_number for r in found):
        return None
    return found


def _declared(job: jobs._Job, var: sympy.Symbol, root: sympy.Expr) -> sympy.Expr:
    """``root`` (base units) in ``var``'s declared unit: a rational one exact, another to :data:`DIGITS` digits."""
    return _digits(root / scaling.unit_scale(job.model.units[var.name]))


def _digits(root: sympy.Expr) -> sympy.Expr:
    """``root`` as it is if rational, else to :data:`DIGITS` digits."""
    return root if root.is_Rational else sympy.Float(root.evalf(DIGITS), DIGITS)


def decided_here(job: jobs._Job, relation: sympy.Basic, var: sympy.Symbol, point: at_point.Given) -> bool | None:
    """Whether ``relation`` (a regime's condition) holds for every value of ``var`` at ``point`` (True), for none
    (False), or neither is proved (None), with the point's numbers put in exactly: ``true``/``false`` as SymPy
    reads them, an ``Eq`` of a number ``a`` and a ``Min`` with a number below ``a`` among its arguments (a ``Max``
    with one above) false for every value (its ``Ne`` true), and ``And``/``Or``/``Not`` of those decided from their parts.

    NOTE: Hong & Kim's plateau regimes hold where ``N = Min(Mem_L/Departure_delay, N, MWP_peak_BW)`` or where it
    does not (``~(Eq(MWP, N) & Eq(CWP, N))``), relations with no edge in closed form; at gtx280+tiled_matmul with
    2 blocks per SM, ``N = 8`` and ``Mem_L/Departure_delay = 1690/1280``: the first never holds there, the second always."""
    made = at_point.pinned(job, relation, var, point.preset, at_point.with_target(job, point.values))
    return None if made is None else _decided(made())


def held_somewhere(job: jobs._Job, found: Sequence[Any], var: sympy.Symbol, point: at_point.Given) -> list[Any]:
    """The regimes of ``found`` none of whose conditions holds for no value of ``var`` at ``point``
    (:func:`decided_here`), the others recorded as a step: no critical point, cusp or end of theirs is there.
    NOTE: Hong & Kim's Exec_cycles_app over Active_blocks_per_SM at gtx280+tiled_matmul, whose bandwidth-bound
    regimes need ``MWP = MWP_peak_BW``, above ``Mem_L/Departure_delay`` = 169/128 there: 21 pairs of regimes to
    meet in closed form, a minute; 10 without them."""
    kept: list[Any] = []
    gone: list[Any] = []
    for regime in found:
        (gone if any(decided_here(job, c.relational, var, point) is False for c in regime.raw) else kept).append(regime)
    if gone and kept:
        job.step("regimes not there", sympy.Tuple(*(sympy.Symbol(r.name) for r in gone)),
                 f"at {at_point.where_text(point.preset, point.values)} a condition of each holds for no {var}")
        return kept
    return list(found)


def held_pairs(job: jobs._Job, found: Sequence[Any], meeting: Sequence[tuple[Any, Any]], var: sympy.Symbol,
               point: at_point.Given) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """The regimes :func:`held_somewhere` keeps at ``point``, and the pairs of ``meeting`` (regimes of ``found`` whose
    difference holds ``var``, in :func:`itertools.combinations` order) both of whose regimes it keeps, in the same order:
    the pairs screened, not found again."""
    kept = held_somewhere(job, found, var, point)
    held = {id(r) for r in kept}
    return kept, [(ra, rb) for ra, rb in meeting if id(ra) in held and id(rb) in held]


def _decided(relation: sympy.Basic | None) -> bool | None:
    if relation is sympy.true or relation is sympy.false:
        return relation is sympy.true
    if isinstance(relation, sympy.Not):
        inner = _decided(relation.args[0])
        return None if inner is None else not inner
    if isinstance(relation, (sympy.And, sympy.Or)):
        parts = [_decided(a) for a in relation.args]
        settling = isinstance(relation, sympy.Or)  # a true part settles an Or, a false one an And
        return settling if settling in parts else (not settling) if all(p is not None for p in parts) else None
    if not isinstance(relation, sympy.core.relational.Relational):
        return None
    offset, rest = sympy.expand(relation.lhs - relation.rhs).as_coeff_Add()  # Min(...) - 8 > 0 as Min(...) > 8
    if isinstance(rest, (sympy.Min, sympy.Max)):
        relation = relation.func(rest, -offset, evaluate=False)
    elif isinstance(-rest, (sympy.Min, sympy.Max)):
        relation = _TURNED.get(relation.func, relation.func)(-rest, offset, evaluate=False)
    for turned in (relation, relation.reversed):  # the number on the left: a OP Min(...) or a OP Max(...)
        number, extreme = turned.lhs, turned.rhs
        if not (number.is_number and number.is_extended_real and isinstance(extreme, (sympy.Min, sympy.Max))):
            continue
        known = [a for a in extreme.args if a.is_number and a.is_extended_real]
        if not known:
            continue
        op: type = type(turned)
        if isinstance(extreme, sympy.Max):  # a OP Max(args) is -a OP' Min(-args), OP' turned round (>= as <=)
            number, known, op = -number, [-a for a in known], _TURNED.get(op, op)
        bound = sympy.Min(*known)  # Min(...) <= bound whatever var is
        verdicts = _BELOW if (bound < number) is sympy.true else _AT if sympy.Eq(bound, number) is sympy.true else {}
        if op in verdicts:
            return verdicts[op]
    return None


#: ``a OP Min(...)`` where a number below ``a`` (``_BELOW``) or ``a`` itself (``_AT``) is among the Min's arguments
_BELOW: dict[type, bool] = {sympy.Eq: False, sympy.Ne: True, sympy.GreaterThan: True, sympy.StrictGreaterThan: True,
                            sympy.LessThan: False, sympy.StrictLessThan: False}
_AT: dict[type, bool] = {sympy.GreaterThan: True, sympy.StrictLessThan: False}
_TURNED: dict[type, type] = {sympy.GreaterThan: sympy.LessThan, sympy.LessThan: sympy.GreaterThan,
                             sympy.StrictGreaterThan: sympy.StrictLessThan, sympy.StrictLessThan: sympy.StrictGreaterThan}


def _linear_factors(difference: sympy.Expr, var: sympy.Symbol) -> bool:
    """Whether ``difference``'s numerator, as ``together`` writes it, is a product of factors of degree 1 or less in ``var``: its closed-form
    roots are then no radicals, and the cusp test decides their sides in symbols, which it cannot do at a number
    (Volkov ILP's ``n_needed_ilp`` over alpha: ``(alpha*alu_lat + mem_lat)*(ipc*(alpha + 1) - issue_thru)``)."""
    numerator = roots.together_parts(difference)[0]  # its common factors pulled out, nothing factored
    return all(f.is_polynomial(var) and sympy.degree(f, var) <= 1 for f in sympy.Mul.make_args(numerator))


def in_radicals(root: sympy.Expr) -> bool:
    """Is a closed-form root a radical of symbols (``sqrt(L_M)*sqrt(L_M*Theta_IM**2 + ...)``)? Its second derivative's
    sign is then taken from a point's numbers (:func:`sign_here`): cancelling it in symbols took minutes."""
    return any(not p.exp.is_integer and p.base.free_symbols for p in root.atoms(sympy.Pow))


def sign_here(job: jobs._Job, expr: sympy.Expr, point: at_point.Given) -> int | None:
    """The sign of ``expr`` (a second derivative with a root of :func:`roots_here` put in) with the point's
    numbers put in exactly (:func:`symgpu.derive.at_point.pinned`, base units: a positive factor from
    ``expr``'s, so the same sign): 1, -1 or 0; None where an input has no value there or the sign is not decided."""
    made = at_point.pinned(job, expr, sympy.Dummy(), point.preset, point.values)
    number = None if made is None else made()
    if number is None or number.free_symbols or not number.is_real:
        return None
    return 1 if number.is_positive else -1 if number.is_negative else 0 if number.is_zero else None
