"""At a point, a regime's equation that holds ``floor``/``ceiling`` of a linear function of the unknown (or of its
reciprocal: ``floor(smem_sm/smem_block)``), solved step by step.

SymPy gives no closed form for ``S = (c + d*W)*ceiling(M_Read*W/MSHRs)`` in ``W`` (MDM's memory-divergent
regime). At a point (every input but the unknown given) the staircase's argument is ``a*W + b`` with
numbers ``a`` and ``b``, and the unknown's range there (its declared sign, the regime's conditions, the
``valid_when`` domain, an ``--assume`` on it) is an interval: over it the staircase takes finitely many
values ``k``, and on each step (``k - 1 < a*W + b <= k`` for a ceiling) the equation with ``k`` put in is
an ordinary one, solved in closed form. Each root carries its step's conditions beside its regime's, so
the point's check (:func:`symgpu.derive.results.applying_roots`) and the certificate decide it as any
other root; a step whose equation no longer holds the unknown is a range of roots where its two sides
are equal (``n_batches = 3``: every ``W`` with ``2 < M_Read*W/MSHRs <= 3``). Where the interval is
unbounded and the steps' equations still hold the unknown, the staircase takes infinitely many values:
refused, saying so. An argument ``p/W + q`` is monotone on a range of ``W`` on one side of 0: its steps are the
ranges SymPy's ``solveset`` gives for ``k <= p/W + q < k + 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, jobs
from symgpu.derive.regime_conditions import _Cond
from symgpu.derive.regime_split import Regime
from symgpu.derive.roots import real_roots
from symgpu.evaluate import scaling

#: the most steps a regime is split into at a point (more: narrow the unknown, or evaluate over a grid)
MAX_STEPS = 256


@dataclass(frozen=True)
class _Pinned:
    """Expressions read at the point as exact numbers (:func:`at_point.pinned`), the target put in and the unknown
    left as a symbol in its declared unit."""

    job: jobs._Job
    var: sympy.Symbol
    given: at_point.Given
    #: the unknown in the numbers-in expressions: a plain real symbol, so that no relation is decided by the unknown's
    #: declared sign as it is built (``W > 0`` would be True), and SymPy's solvers see no assumption of it
    x: sympy.Dummy = field(default_factory=lambda: sympy.Dummy("x", real=True))

    def __call__(self, expr: sympy.Basic) -> sympy.Basic | None:
        """``expr`` at the point, or None where an input has no value there (or SymPy cannot put the numbers in)."""
        try:
            made = at_point.pinned(self.job, expr, self.var, self.given.preset, at_point.with_target(self.job, self.given.values))
            return None if made is None else made().xreplace({self.var: self.x * scaling.unit_scale(self.job.model.units[self.var.name])})
        except (TypeError, ValueError, ArithmeticError):
            return None


@dataclass(frozen=True)
class _Stair:
    """The staircase's argument at the point, in the unknown ``x``: ``slope*x + offset``, or ``slope/x + offset``
    (``reciprocal``, over a span on one side of 0); rational numbers."""

    ceiling: bool
    slope: sympy.Expr
    offset: sympy.Expr
    x: sympy.Symbol
    reciprocal: bool = False

    def at(self, value: sympy.Expr) -> sympy.Expr:
        """The argument at ``x = value``."""
        return self.slope * (1 / value if self.reciprocal else value) + self.offset

    def at_end(self, end: sympy.Expr) -> sympy.Expr:
        """The argument's limit at an end of a span (infinite at the reciprocal's pole, ``offset`` at its infinite ends)."""
        if not self.reciprocal:
            return self.slope * end + self.offset
        return sympy.oo if end == 0 else self.offset if not end.is_finite else self.at(end)

    def flat(self) -> bool:
        return bool(self.slope == 0)

    def level(self) -> int:
        """The one value of a flat staircase."""
        return int(sympy.ceiling(self.offset) if self.ceiling else sympy.floor(self.offset))


def needed(equation: sympy.Basic, var: sympy.Symbol) -> bool:
    """Does ``equation`` hold ``floor``/``ceiling`` of the unknown and no closed form as it stands?"""
    return _stairs(equation, var) != [] and real_roots(equation, var) is None


def split(job: jobs._Job, side: sympy.Expr, found: Sequence[Regime], var: sympy.Symbol, rooted: Sequence[sympy.Basic],
          given: at_point.Given) -> list[Regime]:
    """The regimes ``found`` of ``side = value``, each whose equation has no closed form for its staircase replaced by its
    steps at the point ``given`` (a regime per step that can hold a root or a range of them there: the staircase's value
    put in, the step's conditions added to the regime's); the others, and a regime that cannot be split (not one
    staircase of a linear function of ``var``, an input without a value there), as they are.

    Raises:
        errors.DerivationError: over the unknown's range at the point the staircase takes infinitely many values (or
            more than :data:`MAX_STEPS`) and the steps' equations hold the unknown.
    """
    out: list[Regime] = []
    for regime in found:
        equation = sympy.Eq(side, regime.expression)
        steps = _steps(job, equation, regime, var, rooted, given) if isinstance(equation, sympy.Eq) and needed(equation, var) else None
        out.extend([regime] if steps is None else steps)
    return out


def _steps(job: jobs._Job, equation: sympy.Eq, regime: Regime, var: sympy.Symbol, rooted: Sequence[sympy.Basic],
           given: at_point.Given) -> list[Regime] | None:
    stairs = _stairs(equation, var)
    if len(stairs) != 1:
        return None
    atom = stairs[0]
    pin = _Pinned(job, var, given)
    x = pin.x
    numeric = pin(equation)
    if numeric is sympy.false:  # SymPy decides it at the point (7398*ceiling(3*x/128) = 2862.46 holds for no whole step)
        job.step(f"no root in regime {regime.name}", equation, f"at {at_point.where_text(given.preset, given.values)} the equation "
                 f"holds for no {var}: whatever value {sympy.sstr(atom)} takes")
        return []
    if numeric is None or not isinstance(numeric, sympy.Eq):
        return None
    pinned = _stairs(numeric, x)
    if len(pinned) != 1 or numeric.free_symbols != {x}:
        return None
    ceiling = isinstance(atom, sympy.ceiling)
    stair = _stair(pinned[0].args[0], x, ceiling)
    if stair is None:
        return None
    span = _span(job, pin, [c.relational for c in regime.raw] + list(rooted))
    if span is None or stair.reciprocal and span is not sympy.S.EmptySet and span.inf < 0 < span.sup:
        return None  # the reciprocal's pole inside the span: not monotone there
    level = sympy.Dummy("k")
    stepped = numeric.xreplace({pinned[0]: level})
    levels = [] if span is sympy.S.EmptySet or stepped is sympy.false else _levels(stair, span)
    if isinstance(stepped, sympy.Eq) and x not in stepped.free_symbols:
        # the steps' values do not depend on var at the point: the equation picks the step(s) itself
        chosen = real_roots(stepped, level)
        if chosen is not None:
            levels = [int(k) for k in chosen if k.is_integer and _meets(span, stair, int(k))]
    if levels is None and isinstance(stepped, sympy.Eq):
        levels = _confined(stepped, x, level, span, stair)
    where = at_point.where_text(given.preset, given.values)
    what = f"regime {regime.name}" if regime.name != "all" else "the equation"
    over = sympy.sstr(span.as_relational(sympy.Symbol(var.name, real=True))) if span is not sympy.S.EmptySet else "no value"
    if levels is None:
        raise errors.DerivationError(
            f"{job.model.id}: SymPy finds no closed form for {what}: {sympy.sstr(equation)} in {var}; at {where}, {sympy.sstr(atom)} "
            f"is constant on steps, but over the {var} of {what} ({over}: unbounded) it takes infinitely many values, and "
            f"the equation leaves infinitely many of those steps that may hold a root: bound {var} (--assume '{var} <= ...') so "
            "that each step is solved, or evaluate over a grid")
    if len(levels) > MAX_STEPS:
        raise errors.DerivationError(
            f"{job.model.id}: SymPy finds no closed form for {what}: {sympy.sstr(equation)} in {var}; at {where}, {sympy.sstr(atom)} "
            f"is constant on steps, but over the {var} of {what} ({over}) more than {MAX_STEPS} of its steps may hold a root, "
            f"too many to solve one by one: narrow {var} (--assume) or evaluate over a grid")
    kept = [k for k in levels if _holds_on_step(stepped.xreplace({level: k}), x, span, stair, k)]
    job.step(f"steps of {what}", sympy.Tuple(*kept),
             f"at {where} the {var} of {what} lies where {over}; there {sympy.sstr(atom)} takes {len(levels)} value(s), on each "
             "step a constant that gives the equation a closed form: the steps listed can hold a root or a range of roots "
             "there, each solved as a regime of its own")
    return [_step_regime(job, regime, atom, k, ceiling, var) for k in kept]


def _stairs(expr: sympy.Basic, var: sympy.Symbol) -> list[sympy.Expr]:
    """The distinct ``floor``/``ceiling`` nodes of ``expr`` that hold ``var`` (one nested in another: not a staircase
    split here, so both are listed)."""
    return sorted((a for a in expr.atoms(sympy.floor, sympy.ceiling) if var in a.free_symbols), key=sympy.default_sort_key)


def _linear(argument: sympy.Expr, var: sympy.Symbol) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """``argument`` (numbers and ``var`` only) as ``slope*var + offset`` with rational numbers (None, None where it is not)."""
    slope = sympy.diff(argument, var)
    offset = sympy.expand(argument - slope * var)
    if slope.free_symbols or offset.free_symbols or not slope.is_Rational or not offset.is_Rational:
        return None, None
    return slope, offset


def _stair(argument: sympy.Expr, x: sympy.Symbol, ceiling: bool) -> _Stair | None:
    """``argument`` as a :class:`_Stair` (linear in ``x``, or in ``1/x``), or None where it is neither."""
    slope, offset = _linear(argument, x)
    if slope is not None and offset is not None:
        return _Stair(ceiling, slope, offset, x)
    slope, offset = _linear(argument.xreplace({x: 1 / x}), x)
    if slope is not None and offset is not None and slope != 0:
        return _Stair(ceiling, slope, offset, x, reciprocal=True)
    return None


def _span(job: jobs._Job, pin: _Pinned, conditions: Sequence[sympy.Basic]) -> sympy.Set | None:
    """The values of the unknown (``pin.x``) where its declared sign, each of ``conditions`` and each ``--assume`` on it
    hold at the point, as a set of reals; a condition SymPy cannot read as a set is left out (the set is then larger:
    each root is decided at the point again). None where a condition has no value there."""
    declared = declared_range.of(job.model, pin.var)
    span: sympy.Set = sympy.S.Reals
    for relation in declared.relations:  # x > 0 or x >= 0
        span = sympy.Interval(relation.rhs, sympy.oo, left_open=isinstance(relation, sympy.StrictGreaterThan))
    for condition in [*conditions, *(a for a in job.assumed if pin.var in getattr(a, "free_symbols", ()))]:
        put = pin(condition)
        if put is None:
            if pin.var in condition.free_symbols:
                continue  # SymPy cannot read it at the point: left out, the span is larger
            return None
        if put is sympy.false:
            return sympy.S.EmptySet
        if put is sympy.true or pin.x not in put.free_symbols or put.has(sympy.floor, sympy.ceiling):
            continue
        try:
            found = sympy.solveset(put, pin.x, sympy.S.Reals)
        except (NotImplementedError, TypeError, ValueError):
            continue
        if isinstance(found, (sympy.Interval, sympy.Union, sympy.FiniteSet)) or found in (sympy.S.EmptySet, sympy.S.Reals):
            span = sympy.Intersection(span, found)  # a ConditionSet (SymPy could not solve it) is left out
    return span


def _levels(stair: _Stair, span: sympy.Set) -> list[int] | None:
    """The values the staircase takes over ``span`` (every integer between its values at the ends: a superset), or None
    where there are infinitely many. At most :data:`MAX_STEPS` + 1 are listed."""
    if stair.flat():
        return [stair.level()]
    ends = [stair.at_end(span.inf), stair.at_end(span.sup)]
    if any(not e.is_finite for e in ends):
        return None
    step = sympy.ceiling if stair.ceiling else sympy.floor
    first, last = int(step(min(ends))), int(step(max(ends)))
    return list(range(first, min(last, first + MAX_STEPS) + 1))


def _on_step(stair: _Stair, k: int) -> sympy.Set:
    """The values of the unknown where the staircase (nonzero slope) is ``k``: ``k - 1 < g <= k`` for a ceiling,
    ``k <= g < k + 1`` for a floor (for a reciprocal argument, the real ``x`` SymPy's ``solveset`` gives for both)."""
    ceiling, slope, offset = stair.ceiling, stair.slope, stair.offset
    if stair.reciprocal:
        g = stair.at(stair.x)
        relations = (g > k - 1, g <= k) if ceiling else (g >= k, g < k + 1)
        return sympy.Intersection(*(sympy.solveset(r, stair.x, sympy.S.Reals) for r in relations))
    low, high = ((k - 1 - offset) / slope, (k - offset) / slope) if ceiling else ((k - offset) / slope, (k + 1 - offset) / slope)
    if slope > 0:
        return sympy.Interval(low, high, left_open=ceiling, right_open=not ceiling)
    return sympy.Interval(high, low, left_open=not ceiling, right_open=ceiling)


def _confined(stepped: sympy.Eq, x: sympy.Symbol, level: sympy.Symbol, span: sympy.Set, stair: _Stair) -> list[int] | None:
    """The steps that can hold a root of ``stepped`` (numbers, ``x`` and the step's value ``level``) where the staircase
    takes infinitely many values over ``span``: each root ``x = r(k)`` must lie on its own step and inside ``span``, which
    SymPy solves for ``k`` (``W*ceiling(5*W/128) = 300``: ``k**2 >= 1500/128 > k*(k - 1)``, no step); None where that
    leaves infinitely many steps, or SymPy cannot tell."""
    k = sympy.Symbol("k", real=True)
    found = real_roots(stepped.xreplace({level: k}), x)
    if found is None:
        return None
    steps: set[int] = set()
    for root in found:
        value = stair.at(root)
        relations = [value > k - 1, value <= k] if stair.ceiling else [value >= k, value < k + 1]
        inside = span.as_relational(root) if isinstance(span, sympy.Interval) else sympy.true
        allowed: sympy.Set = sympy.S.Reals
        for relation in [*relations, *sympy.And.make_args(inside)]:
            if relation is sympy.true:
                continue
            if relation is sympy.false:
                allowed = sympy.S.EmptySet
                break
            try:
                allowed = sympy.Intersection(allowed, sympy.solveset(relation, k, sympy.S.Reals))
            except (NotImplementedError, TypeError, ValueError):
                return None
        if allowed is sympy.S.EmptySet:
            continue
        low, high = allowed.inf, allowed.sup
        if not (low.is_finite and high.is_finite):
            return None
        first = int(sympy.ceiling(low))
        steps.update(i for i in range(first, min(int(sympy.floor(high)), first + MAX_STEPS) + 1) if allowed.contains(i) is not sympy.false)
    return sorted(steps)


def _meets(span: sympy.Set, stair: _Stair, k: int) -> bool:
    """Does step ``k`` of the staircase meet ``span``?"""
    if stair.flat():
        return k == stair.level()
    return sympy.Intersection(span, _on_step(stair, k)) is not sympy.S.EmptySet


def _holds_on_step(equation: sympy.Basic, x: sympy.Symbol, span: sympy.Set, stair: _Stair, k: int) -> bool:
    """Can step ``k`` hold a root of ``equation`` (numbers and ``x``) inside ``span`` at the point? (True where
    SymPy cannot tell: the step is solved and decided at the point then.)"""
    if equation is sympy.false or not _meets(span, stair, k):
        return False
    if equation is sympy.true or x not in equation.free_symbols:
        return True
    found = real_roots(equation, x)
    if found is None:
        return True
    on = span if stair.flat() else sympy.Intersection(span, _on_step(stair, k))
    return any(on.contains(r) is not sympy.false for r in found)


def _step_regime(job: jobs._Job, regime: Regime, atom: sympy.Expr, k: int, ceiling: bool, var: sympy.Symbol) -> Regime:
    """``regime`` on step ``k`` of ``atom``: its value and its conditions with ``k`` put in (on the step ``atom`` is ``k``:
    ``max_blocks > floor(smem_sm/smem_block)`` reads ``max_blocks > 5``), the step's conditions added (tidied for display)."""
    assert job.ctx is not None
    argument = atom.args[0]
    raw = (_Cond(argument - (k - 1), strict=True), _Cond(k - argument)) if ceiling else (_Cond(argument - k), _Cond(k + 1 - argument, strict=True))
    name = f"{regime.name}, {sympy.sstr(atom)} = {k}" if regime.name != "all" else f"{sympy.sstr(atom)} = {k}"
    shown = [job.ctx.tidy(c.relational, var) for c in raw]
    on_step = {atom: sympy.Integer(k)}
    conditions = (c.xreplace(on_step) for c in regime.conditions)
    return replace(regime, name=name, conditions=(*(c for c in conditions if c is not sympy.true), *(c for c in shown if c is not sympy.true)),
                   expression=regime.expression.xreplace(on_step), raw=(*(c.xreplace(on_step) for c in regime.raw), *raw), built=None)
