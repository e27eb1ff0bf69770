"""Limits of a quantity, one-sided across floor/ceiling steps and regime switches, and their ratios."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors
from symgpu.proofs import forms, relations
from symgpu.proofs import signs
from symgpu.derive import at_point, declared_range, jobs
from symgpu.derive import limit_cases
from symgpu.derive import limit_regimes
from symgpu.derive import limit_domain
from symgpu.derive import limit_forms
from symgpu.derive import limit_staircase
from symgpu.derive import limit_two_sided
from symgpu.derive.derivation import Derivation, Step
from symgpu.evaluate import scaling
from symgpu.evaluate.point import exact_base_values

if TYPE_CHECKING:
    from symgpu.model import Model


def _lift(ctx: signs.SignReasoner, expr: sympy.Expr) -> sympy.Expr:
    """Move Min/Max outward through sums and positive (or negative) factors."""
    if not forms.has_pieces(expr) or isinstance(expr, sympy.Piecewise):
        return expr
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return expr.func(*[_lift(ctx, a) for a in expr.args], evaluate=False)
    args = [_lift(ctx, a) for a in expr.args]
    if expr.is_Add or expr.is_Mul:
        for index, arg in enumerate(args):
            if isinstance(arg, (sympy.Min, sympy.Max)):
                rest = (sympy.Add if expr.is_Add else sympy.Mul)(*(args[:index] + args[index + 1:]))
                if expr.is_Add:
                    return _lift(ctx, arg.func(*[rest + a for a in arg.args], evaluate=False))
                s = ctx.sign(rest)
                if s == 1:
                    return _lift(ctx, arg.func(*[rest * a for a in arg.args], evaluate=False))
                if s == -1:
                    other = sympy.Max if isinstance(arg, sympy.Min) else sympy.Min
                    return _lift(ctx, other(*[rest * a for a in arg.args], evaluate=False))
    if expr.is_Pow and isinstance(args[0], (sympy.Min, sympy.Max)) and expr.exp == -1:
        other = sympy.Max if isinstance(args[0], sympy.Min) else sympy.Min
        if all(ctx.sign(a) == 1 for a in args[0].args):
            return _lift(ctx, other(*[1 / a for a in args[0].args], evaluate=False))
    return expr.func(*args)


def far_branches(expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, sign: Callable[[sympy.Expr], int | None], *,
                 keep_top: bool = False, record: Callable[[sympy.Expr, sympy.Expr, str], None] | None = None,
                 where: str = "", hint: str = "", there: Callable[[sympy.Expr, sympy.Expr], int | None] | None = None,
                 side: str | None = None) -> sympy.Expr:
    """Replace each Min/Max of ``var`` inside ``expr`` (innermost first) by the argument that is eventually
    the smallest (largest) as ``var`` goes to ``point`` (``oo`` or ``-oo``; a finite point from the ``side``
    ``"+"`` or ``"-"``, where the winner is the same just beside the point): the argument ``a`` with
    ``b - a`` (``a - b``) tending to a positive value or to ``oo`` for every other ``b``, by
    ``sign(limit of the gap)`` (1 positive; a limit SymPy cannot take is ``nan``). A Min/Max free of
    ``var`` is kept, and so is one at the top when ``keep_top`` (its arguments are still rewritten).
    ``record(node, chosen, why)`` sees each choice. ``there(gap, limit)``, where a question is asked at given
    values: the gap's sign far out there, asked where ``sign`` leaves it open or finds the limit 0 (1: positive, 0:
    the arguments are equal there, either is the value; :func:`symgpu.derive.at_point.far_sign`).

    Raises:
        errors.DerivationError: no argument of a Min/Max is proved to win (``where`` prefixes the
            message, ``hint`` ends it).
    """
    def pick(node: sympy.Expr) -> sympy.Expr:
        smaller = isinstance(node, sympy.Min)
        for candidate in node.args:
            why: list[str] = []
            for other in node.args:
                if other == candidate:
                    continue
                gap = other - candidate if smaller else candidate - other
                try:
                    far = sympy.limit(gap, var, point) if side is None else sympy.limit(gap, var, point, side)
                except (NotImplementedError, ValueError):
                    far = sympy.nan
                s = sign(far)
                at = there(gap, far) if s in (None, 0) and there is not None else None
                if s != 1 and at not in (0, 1):
                    break
                why.append(f"{sympy.sstr(gap)} -> {sympy.sstr(far)}" + ("" if s == 1 else " (positive at the given values)"
                                                                        if at == 1 else " (0 at the given values: equal there)"))
            else:
                if record is not None:
                    record(node, candidate, "; ".join(why))
                return candidate
        text = sympy.sstr(node)
        shown = text if len(text) <= 60 else text[:59] + "…"
        raise errors.DerivationError(f"{where}no argument of {shown} is proved to be the {'smallest' if smaller else 'largest'} as "
                                     f"{var} -> {sympy.sstr(point)}{hint}")

    def rebuild(node: sympy.Expr) -> sympy.Expr:
        if not forms.has_pieces(node) or not node.args:
            return node
        args = [rebuild(a) for a in node.args]
        if isinstance(node, (sympy.Min, sympy.Max)):
            return pick(node.func(*args, evaluate=False)) if var in node.free_symbols else node.func(*args)
        return node.func(*args)

    def outer(node: sympy.Expr) -> sympy.Expr:
        if isinstance(node, (sympy.Min, sympy.Max)):
            return node.func(*[outer(a) for a in node.args], evaluate=False)
        return rebuild(node)

    return outer(expr) if keep_top else rebuild(expr)


def _far_branches(job: jobs._Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr,
                  given: at_point.Given | None = None, side: str | None = None) -> sympy.Expr:
    """:func:`far_branches` with the job's sign reasoning; a Min/Max at the top is kept (:func:`_limit`
    takes it argument by argument) and each choice is a recorded step. At ``given`` values a gap the
    symbols leave open is decided there; its limit, where that is free of ``var`` and has the same sign
    there, becomes an assumption of the answer (``alu_lat > ilp*warp_issue_cycle``), which holds there."""
    def record(node: sympy.Expr, candidate: sympy.Expr, why: str) -> None:
        beside = "" if side is None else " from above" if side == "+" else " from below"
        job.step("select branch", candidate, f"{'Min' if isinstance(node, sympy.Min) else 'Max'}(...) = {sympy.sstr(candidate)} "
                 f"eventually as {var} -> {sympy.sstr(point)}{beside}: " + why)

    def there(gap: sympy.Expr, far: sympy.Expr) -> int | None:
        assert job.ctx is not None and given is not None
        found = at_point.far_sign(job, gap, var, point, given, side or "+")
        symbolic = bool(far.free_symbols) and not far.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)
        if found == 1 and symbolic and at_point.far_sign(job, far, var, point, given, side or "+") == 1:
            relation = job.ctx.tidy(sympy.StrictGreaterThan(far, 0))
            if relation not in (sympy.true, sympy.false) and not any(relations.same_relation(relation, r) for r in job.ctx.relations):
                job.ctx.add(relation, f"{at_point.decided(relation, given.preset, given.values)}: which "
                                      f"argument of a Min/Max wins as {var} -> {sympy.sstr(point)} is decided there")
        return found

    return far_branches(expr, var, point, lambda far: limit_regimes.far_sign(job, far, var, point), keep_top=True, record=record,
                        where=f"{job.model.id}: ", hint="; decide it with --assume or --substitute",
                        there=there if given is not None else None, side=side)


def _limit(ctx: signs.SignReasoner, expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, direction: str) -> sympy.Expr:
    expr = _lift(ctx, expr)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return expr.func(*[_limit(ctx, a, var, to, direction) for a in expr.args])
    if isinstance(expr, sympy.Piecewise) and not any(var in c.free_symbols for _, c in expr.args):
        # the branch does not depend on the variable: the limit of each branch where it holds
        return sympy.Piecewise(*((_limit(ctx, e, var, to, direction), c) for e, c in expr.args))
    if not isinstance(expr, sympy.Piecewise) and forms.has_pieces(expr):
        failure: errors.DerivationError | None = None
        try:
            parts = _finite_parts(ctx, expr, var, to, direction)
        except errors.DerivationError as exc:
            parts, failure = None, exc
        if parts is not None and not parts.has(sympy.nan, sympy.zoo):
            return parts
        whole = _frozen_limit(ctx, expr, var, to, direction)  # oo*0 part by part, or a part with no limit of its own
        if whole is not None:
            return whole
        if failure is not None:
            raise failure
        if parts is not None:
            return parts
    if isinstance(expr, sympy.Piecewise) or forms.has_pieces(expr):
        raise errors.DerivationError(f"cannot take the limit of the piecewise expression {sympy.sstr(expr)} (no regime is selected as {var} -> {to})")
    if to.has(sympy.oo, -sympy.oo):
        rewritten, back = limit_forms.geometric_bases(ctx, expr, var)
        if back:
            return sympy.limit(rewritten, var, to, direction).xreplace(back)
    return sympy.limit(expr, var, to, direction)


def _frozen_limit(ctx: signs.SignReasoner, expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, direction: str) -> sympy.Expr | None:
    """The limit of ``expr`` as a whole, each Min/Max/Piecewise in it (all free of ``var``) a constant of its sign
    (:func:`limit_forms.pieces_frozen`); None where a piece depends on ``var`` or SymPy gives no value."""
    made = limit_forms.pieces_frozen(ctx, expr, var)
    if made is None:
        return None
    try:
        value = sympy.limit(made[0], var, to, direction)
    except (NotImplementedError, ValueError):
        return None
    return None if value.has(sympy.nan, sympy.zoo, sympy.Limit) else value.xreplace(made[1])


def _finite_parts(ctx: signs.SignReasoner, expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, direction: str) -> sympy.Expr | None:
    """The limit of a sum, product or constant power with a Min/Max inside, part by part (the limit of
    a sum or product is that of its parts' limits where those are finite, or infinities that do not
    cancel: ``oo + c = oo``, ``c*oo`` kept for :func:`limit_cases.split_signed` to split at the sign of
    ``c``; ``B**e`` with a constant ``e`` is continuous at a positive ``B``, and at any ``B`` for a
    positive integer ``e``): ``1 + (n/u - 1)*Min(1, (a + 1)*(x - 1)/(a*x + m))`` as ``x -> 0`` whatever
    the sign of ``n/u - 1``, ``alpha*Max(1/t, L/n)`` as ``n -> 0``. None where a part has no limit of
    that kind or a power's base is not proved positive."""
    infinities = (sympy.oo, -sympy.oo)

    def finite(value: sympy.Expr) -> bool:
        return not value.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)

    if isinstance(expr, sympy.Pow) and var not in expr.exp.free_symbols:
        base = _limit(ctx, expr.base, var, to, direction)
        if base == sympy.oo and expr.exp.is_positive:
            return sympy.oo
        if base == sympy.oo and expr.exp.is_negative:
            return sympy.Integer(0)
        if finite(base) and ((expr.exp.is_Integer and expr.exp > 0) or ctx.sign(base) == 1):
            return base ** expr.exp
        return None
    if not isinstance(expr, (sympy.Add, sympy.Mul)):
        return None
    def scaled_infinity(value: sympy.Expr) -> bool:  # oo, -oo or c*oo with a finite c
        return value in infinities or (isinstance(value, sympy.Mul) and sum(a in infinities for a in value.args) == 1
                                       and all(finite(a) for a in value.args if a not in infinities))

    parts = []
    for arg in expr.args:
        part = _limit(ctx, arg, var, to, direction) if var in arg.free_symbols else arg
        if not (finite(part) or scaled_infinity(part)):
            return None
        parts.append(part)
    infinite = [p for p in parts if not finite(p)]
    if isinstance(expr, sympy.Add) and len(infinite) > 1 and not (all(p == sympy.oo for p in infinite) or all(p == -sympy.oo for p in infinite)):
        return None  # oo - oo, or infinities whose signs are open: the parts do not decide it
    return expr.func(*parts)


def _drop_dominated(job: jobs._Job, expr: sympy.Expr) -> sympy.Expr:
    """A Min (Max) of the result without the arguments proved never smaller (larger) than another
    one, e.g. Min(a, b, a*b/(a + b)) = a*b/(a + b) for positive a, b; recorded as a step."""
    assert job.ctx is not None
    if not isinstance(expr, (sympy.Min, sympy.Max)) or len(expr.args) > 6:
        return expr
    smaller = isinstance(expr, sympy.Min)
    args = list(expr.args)
    dropped: list[str] = []
    for b in list(args):
        for a in args:
            if a is b:
                continue
            gap = job.ctx.sign(b - a if smaller else a - b)   # b never wins against a
            if gap == 1 or (gap == 0 and args.index(a) < args.index(b)):
                args.remove(b)
                dropped.append(f"{sympy.sstr(b)} {'>=' if smaller else '<='} {sympy.sstr(a)}")
                break
    if not dropped:
        return expr
    pruned = expr.func(*args)
    job.step("drop dominated", pruned, "; ".join(dropped) + " under the declared signs")
    return pruned


def _tidy(ctx: signs.SignReasoner, value: sympy.Expr) -> sympy.Expr:
    """``value`` simplified under the assumptions; a Piecewise of cases at the end of a declared range
    (:func:`limit_cases.split_zero_inputs`) branch by branch, its conditions kept: an assumption such
    as ``x > 0``, made for the limit at positive ``x`` (:func:`limit_regimes.far_sign`), must not decide the case
    ``Eq(x, 0)`` away."""
    if isinstance(value, sympy.Piecewise) and any(c.has(sympy.Eq) for _, c in value.args):
        return sympy.Piecewise(*[(_tidy(ctx, e), c) for e, c in value.args])
    back = ctx.back(forms.nice(value.xreplace(ctx.forward))) if ctx.forward else value
    return ctx.nice(back)


def _take(job: jobs._Job, expr: sympy.Expr, symbol: sympy.Symbol, point: sympy.Expr, direction: str, var: str,
          given: at_point.Given | None = None) -> sympy.Expr:
    """The limit of ``expr`` (regimes selected, Min/Max lifted, staircases made one-sided), recorded as steps; asked at
    ``given`` values, a regime or Min/Max argument far out that the symbols leave open is decided there."""
    assert job.ctx is not None
    ctx, model = job.ctx, job.model
    finite = not point.has(sympy.oo, -sympy.oo, sympy.zoo)
    if symbol not in expr.free_symbols:  # e.g. a case with the variable's only coefficient put at 0
        job.step("limit", expr, f"{sympy.sstr(expr)} does not depend on {var}: it is its own limit")
        return expr
    lifted = _lift(ctx, expr)
    if lifted != expr:
        job.step("lift Min/Max", lifted, "sums and factors of known sign moved inside Min/Max (x*Min(a,b) = Min(x*a, x*b) for x > 0)")
    if not finite and lifted.has(sympy.Piecewise):
        lifted = limit_regimes.far_regime(job, lifted, symbol, point, given).expression
    if not finite and forms.has_pieces(lifted):
        # Min/Max below the top (e.g. in a denominator): the argument that wins eventually, innermost first
        lifted = _far_branches(job, lifted, symbol, point, given)
    side_text = {"+": " from above", "-": " from below"}.get(direction, "") if finite else ""
    how = " (Min/Max argument by argument: they are continuous)"
    switches = any(symbol in c.free_symbols for pw in lifted.atoms(sympy.Piecewise) for _, c in pw.args)
    if finite and direction == "+-" and (switches or forms.has_staircase(lifted, symbol)):  # each side, then compared
        return limit_two_sided.both_sides(job, lambda side: _take(job, expr, symbol, point, side, var, given), symbol, point, given)
    if finite and direction in ("+", "-") and (switches or forms.has_staircase(lifted, symbol)):
        if forms.has_pieces(lifted):
            lifted = limit_regimes.side_regime(job, lifted, symbol, point, direction, given).expression
        lifted = limit_staircase.one_sided(job, lifted, symbol, point, direction, given)
        how = " inside the regime that applies on that side"
    try:
        value = _beside(job, lifted, symbol, point, direction, given) if finite else _limit(ctx, lifted, symbol, point, direction)
    except errors.DerivationError as exc:  # every refusal names the model and the question
        if str(exc).startswith(f"{model.id}: "):
            raise
        raise errors.DerivationError(f"{model.id}: limit of {job.quantity} as {var} -> {sympy.sstr(point)}: {exc}") from None
    except (NotImplementedError, ValueError) as exc:
        hint = "; state that sign with an assumption (assume = [...] in a request, --assume on the command line)" if "depends on the sign" in str(exc) else ""
        reason = str(exc) if len(str(exc)) <= 90 else str(exc)[:89] + "…"
        raise errors.DerivationError(f"{model.id}: SymPy cannot take the limit of {job.quantity} as {var} -> {point}: {reason}{hint}") from None
    job.step("limit", value, f"limit as {var} -> {sympy.sstr(point)}" + side_text + how)
    def again(j: jobs._Job, e: sympy.Expr, p: sympy.Expr) -> sympy.Expr:
        return _take(j, e, symbol, p, direction, var, given)
    value = limit_cases.retake_cancelled(job, value, expr, point, again)
    value = at_point.signs_decided(job, value, symbol, given) if given is not None else value
    return limit_cases.split_signed(job, limit_cases.split_undecided(job, value, expr, point, again), expr, point, symbol, again)


def _beside(job: jobs._Job, expr: sympy.Expr, symbol: sympy.Symbol, point: sympy.Expr, direction: str,
            given: at_point.Given | None = None) -> sympy.Expr:
    """:func:`_limit` at a finite point; where that selects no regime of a Min/Max inside and the limit is one-sided,
    each Min/Max argument that wins just beside the point (its gap to every other one tends to a positive value or to
    ``oo`` from that side) put in first, as far out (:func:`_far_branches`): Baghsorkhi's ``Max(1/alu_thru, alu_lat/n)``
    is ``alu_lat/n`` as ``n -> 0+``. At ``given`` values, a gap the symbols leave open is decided by the point's numbers just
    beside it (kernel_streaming's ``Min(max_blocks_SM, blocks/n_SM, ...)`` is ``blocks/n_SM`` as ``blocks -> 0+``)."""
    assert job.ctx is not None
    try:
        return _limit(job.ctx, expr, symbol, point, direction)
    except errors.DerivationError:
        if direction not in ("+", "-") or not forms.has_pieces(expr):
            raise
        kept = len(job.steps)
        try:
            chosen = _far_branches(job, expr, symbol, point, given, side=direction)
        except errors.DerivationError:
            del job.steps[kept:]
            raise
        return _limit(job.ctx, chosen, symbol, point, direction)


def take_at(job: jobs._Job, expr: sympy.Expr, symbol: sympy.Symbol, point: sympy.Expr, direction: str,
            given: at_point.Given | None) -> sympy.Expr:
    """:func:`_take` for another question's use (an extremum's open end): at ``given`` values what the limit decides
    there (a regime, a Min's argument far out) is decided by the point's numbers, and the relations it reads there stay
    with that limit, not with the job's answer."""
    if given is None:
        return _take(job, expr, symbol, point, direction, symbol.name)
    assert job.ctx is not None
    ctx_before = job.ctx
    job.ctx = ctx_before.copy()
    try:
        return _take(job, expr, symbol, point, direction, symbol.name, given)
    finally:
        job.ctx = ctx_before


def limit(model: Model, quantity: Any, var: str, to: Any = "oo", *, direction: str | None = None,
          substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
          stop_at: Iterable[str] = (), omit: Iterable[Any] = (), preset: str | None = None,
          values: Mapping[str, Any] | None = None) -> Derivation:
    """Limit of ``quantity`` as ``var`` tends to ``to`` (``"oo"``, ``"0"``, a number or an expression).

    ``Min``/``Max`` are moved outward through sums and factors of known sign, and the
    limit taken argument by argument (they are continuous); positive variables approach
    finite points from above by default. Where the limit depends on whether a nonnegative
    input is 0 it is split into cases (:mod:`symgpu.derive.limit_cases`); with ``preset``/``values``
    the declared-nonnegative inputs that are 0 there are put in before the limit.
    """
    job, ctx = jobs.start(model, "limit", quantity, var, assume=assume, omit=omit)
    stop_at = tuple(stop_at)
    # the evaluate path gives this expression's values (a kept quantity given a value is held at it there too)
    as_modelled = not substitute and not job.omit and all(k in (values or {}) for k in stop_at)
    stop_at = job.keep(stop_at, var)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    symbol = job.symbol(var)
    plain = ctx.copy()  # the answer's form is tidied as without the domain: its relations decide signs, not forms
    known = limit_domain.assume_outer(job, symbol, stop_at) if as_modelled else False  # the answer holds only there
    point = _point_in_inputs(job, limit_domain.parse_point(job, to), symbol, stop_at)
    if preset is not None or values:
        expr, point = limit_cases.pin_zeros(job, expr, point, symbol, preset, values)
    direction = limit_domain.admitted_direction(job, quantity, symbol, point, direction, frozenset(stop_at))
    finite = not point.has(sympy.oo, -sympy.oo, sympy.zoo)
    if finite:
        # a finite point such as MSHRs/M_Read presumes its denominators nonzero
        for sym in sorted(sympy.denom(sympy.together(point)).free_symbols, key=str):
            if declared_range.of(model, sym).word == "nonnegative":
                ctx.add(sympy.StrictGreaterThan(sym, 0), f"{sym} > 0 (the point {sympy.sstr(point)} is finite)")
    given = at_point.Given(preset, dict(values or {})) if preset is not None or values else None
    value = _take(job, expr, symbol, point, direction, var, given)
    if given is not None:
        value = _with_the_values(job, value, expr, symbol, point, direction, given)
    if preset is None and not values:  # at given values the zeros are already in (pin_zeros)
        value = limit_cases.split_zero_inputs(job, value, expr, point, symbol,
                                              lambda j, e, p: _take(j, e, symbol, p, direction, var))
    value = limit_domain.signs_inside(job, limit_domain.inside(job, value, symbol)) if known else value
    value = _drop_dominated(job, value)
    result = _tidy(plain if known else ctx, value)
    if result != value:
        job.step("simplify", result, "using the given assumptions")
    if result.has(sympy.zoo, sympy.nan):
        raise errors.DerivationError(f"{model.id}: the limit of {job.quantity} as {var} -> {sympy.sstr(point)} came out as "
                                     f"{sympy.sstr(result)}, which is no value (an infinity without a sign, or 0/0); "
                                     + ("no two-sided limit at the given values (the sides differ, or one has no limit): ask one-sided "
                                        "(--dir + or -)" if given is not None else "ask one-sided (--dir + or -) or at a point (--preset, --set)"))
    unit = ""
    if job.quantity in model.symbols:
        unit = job.check_unit(result, job.quantity, "limit")
    return job.finish(result, unit, used=[expr])


def _with_the_values(job: jobs._Job, value: sympy.Expr, expr: sympy.Expr, symbol: sympy.Symbol, point: sympy.Expr,
                     direction: str, given: at_point.Given) -> sympy.Expr:
    """``value``, the limit taken with the other inputs as symbols, where it has a value at ``given``; else (a pole the
    symbols hide: ``1/(x*y - z)`` as ``z -> 1`` is ``1/(x*y - 1)``, ``zoo`` at ``x = y = 1``) the limit taken again with
    every input but ``symbol`` put in as its exact number, recorded as a step (then ``-oo`` from above, ``oo`` from
    below, and no two-sided limit). Both read the expressions as the evaluator does: in coherent base units
    (:func:`scaling.base_expression`), the numbers in base units too (:func:`exact_base_values`), so a pole of
    ``1/(a - b - c)``, ``a`` in us and ``b``, ``c`` in ns, is where ``a = b + c`` as times, not as declared numbers."""
    names = (expr.free_symbols | point.free_symbols | value.free_symbols) - {symbol}
    if any(s.name not in job.model.symbols for s in names):
        return value
    numbers = exact_base_values(job.model, names, given.preset, given.values)
    if numbers is None:
        return value
    if not scaling.base_expression(job.model, value).xreplace(numbers).has(sympy.zoo, sympy.nan):
        return value
    job.step("values put in", sympy.Tuple(*[sympy.Eq(s, v) for s, v in numbers.items()]),
             f"the limit {sympy.sstr(value)} has no value at {at_point.where_text(given.preset, given.values)} (a pole the "
             "symbols hide): the limit is taken again with these values put in (in coherent base units, as the formula reads them)")
    # the variable and its point stay in the variable's declared unit (a bare number --to 5 is 5 us, not 5 s), and a
    # finite limit comes back in the quantity's declared unit, as the limit taken with symbols does
    scale = scaling.unit_scale(job.model.units[symbol.name])
    based = scaling.base_expression(job.model, expr).xreplace({**numbers, symbol: symbol * scale})
    at = point if point.is_number else scaling.base_expression(job.model, point).xreplace(numbers) / scale
    taken = _take(job, based, symbol, at, direction, symbol.name, given)
    if job.quantity in job.model.units and taken.is_finite:
        taken = taken / scaling.unit_scale(job.model.units[job.quantity])
    return taken


def _point_in_inputs(job: jobs._Job, point: sympy.Expr, symbol: sympy.Symbol, stop_at: Iterable[str]) -> sympy.Expr:
    """The limit point with every model quantity it names (``n_singular``) replaced by its equation (kept too: as a
    symbol it would be a free one, and the limit at it a substitution): the point is the quantity's value, as if its
    formula were written out, so the side it is approached from is decided (and the limit taken) at that value.

    Raises:
        errors.UsageError: the point depends on the variable itself.
    """
    stop = frozenset(stop_at)
    named = {s: job.model.expression(s.name, stop_at=stop - {s.name}) for s in point.free_symbols
             if s.name in job.model.defining and s != symbol}
    if not named:
        return point
    expanded = point.xreplace(named)
    if symbol in expanded.free_symbols:
        raise errors.UsageError(f"{job.model.id}: the limit point {sympy.sstr(point)} depends on {symbol} itself "
                                f"({sympy.sstr(point)} = {sympy.sstr(expanded)}); give a point free of {symbol}")
    job.step("limit point", sympy.Eq(symbol, expanded, evaluate=False),
             f"{', '.join(sorted(s.name for s in named))} replaced by its equation: the point is that quantity's value")
    return expanded


def limit_ratio(model: Model, quantity: Any, var: str, to: Any, ratio: Mapping[str, str] | None = None, *,
                substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
                stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """The jump of ``quantity`` across ``var = to``: the ratio of its one-sided limits,
    ``ratio = {"above": "+", "below": "-"}`` (numerator ``above``, denominator ``below``)."""
    sides = dict(ratio or {"above": "+", "below": "-"})
    if set(sides) != {"above", "below"} or not set(sides.values()) <= {"+", "-"}:
        raise errors.UsageError(f"{model.id}: ratio must be {{above = \"+\", below = \"-\"}} (got {sides})")
    common: dict[str, Any] = {"substitute": substitute, "assume": assume, "stop_at": stop_at, "omit": omit}
    upper = limit(model, quantity, var, to, direction=sides["above"], **common)
    lower = limit(model, quantity, var, to, direction=sides["below"], **common)
    if lower.result == 0:
        raise errors.DerivationError(f"{model.id}: the limit of {quantity} from the {sides['below']} side is 0; no ratio")
    job = jobs._Job(model, "limit", str(quantity), str(var))
    job.steps = [Step(f"{sides['above']} side: {s.operation}", s.expression, s.justification) for s in upper.steps] \
        + [Step(f"{sides['below']} side: {s.operation}", s.expression, s.justification) for s in lower.steps]
    result = forms.nice(upper.result / lower.result)
    job.step("ratio", result, f"({sympy.sstr(upper.result)}) / ({sympy.sstr(lower.result)}): the limit from the "
             f"{sides['above']} side over the limit from the {sides['below']} side")
    job.extra = job.extra.with_(above=upper.result, below=lower.result)
    derivation = job.finish(result, "1", used=[upper.result, lower.result])
    return Derivation(derivation.model, derivation.operation, derivation.quantity, derivation.variable, derivation.steps,
                      derivation.result, tuple(dict.fromkeys(upper.assumptions + lower.assumptions)), None, "1",
                      "closed form", derivation.extra)
