"""``quantity REL target`` at a point where the quantity holds ``Min``/``Max``/``Piecewise`` (or a staircase that
layer-by-layer inversion cannot isolate): the set of the variable's values where the relation holds, assembled
regime by regime from the point's exact numbers.

At a point (every input but the variable given) the quantity is a function of one variable with exact numbers
in it (:func:`symgpu.derive.at_point.pinned`). Its ``Min``/``Max``/``Piecewise`` split the relation into ones
over their arguments, each an ordinary relation:

* ``Min(a, b) <= t`` <=> ``a <= t`` or ``b <= t``; ``Min(a, b) >= t`` <=> ``a >= t`` and ``b >= t``
  (``Max`` the other way round; ``<``/``>`` alike);
* ``Piecewise((e1, c1), (e2, c2), ...)``: where ``c1`` holds, ``e1 REL t``; where ``c2`` holds and ``c1`` does
  not, ``e2 REL t``; and so on;
* a sum, a factor, a ``floor``/``ceiling`` or a power around them peeled one layer
  (:func:`symgpu.derive.inequalities.peel`), as the inversion does.

Each argument free of pieces is inverted layer by layer (:func:`symgpu.derive.inequalities.invert`: a staircase
``ceiling(blocks/60) <= 2`` gives ``blocks <= 120``, so a staircase that jumps over the target has its bound at
a step edge, on the side the inversion states), or, rational in the variable, solved by SymPy's exact
univariate rational inequality; the sets are joined as the rules say and cut to the variable's declared range,
the ``valid_when`` domain and the ``--assume`` relations on it. The work is bounded by the size of the pinned
expression (at most :data:`MAX_PARTS` arguments); what none of the rules covers is refused, naming
``extremum``/``solve`` ``--grid``... as the way to read it numerically. The answer is read from the set by
:mod:`symgpu.derive.inequality_answers` and certified on the evaluate path (:mod:`symgpu.derive.certify_bound`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, inequalities, inequality_crossings, jobs, summary
from symgpu.evaluate import one_sided, scaling
from symgpu.proofs import forms

#: the most arguments (of Min/Max/Piecewise, all levels together) a relation is split into at a point
MAX_PARTS = 64
#: relative distance of a regime's constant value from the target within which the relation is refused as a tie
#: (a target read from a rounded value of the plateau: exact arithmetic decides it by digits no input has)
TIE = 1e-12
#: the most characters of a refusal's reason (an expression shown in one is shortened to half of it)
SHOWN = 400

_LOWER = (sympy.LessThan, sympy.StrictLessThan)
_Rel = type[sympy.core.relational.Relational]


@dataclass(frozen=True)
class Holding:
    """Where ``quantity REL target`` holds at a point: ``values``, a set of the variable's values in its declared
    unit (inside its declared range, domain and assumptions), and ``scale``, the base-unit value of one declared
    unit. The answer's numbers stay in the declared unit (extra ``declared_numbers``: as printed, scaled where evaluated)."""

    values: sympy.Set
    universe: sympy.Set  # the admissible values: declared range, domain, assumptions
    scale: sympy.Expr


@dataclass
class _Split:
    """The recursion's state: the variable, and how many arguments it has split the relation into so far."""

    x: sympy.Symbol
    question: str
    universe: sympy.Set  # the declared range: where the variable's values are asked
    parts: int = 0

    def sign(self, expr: sympy.Expr) -> int | None:
        """The sign of ``expr`` (numbers and the variable's declared sign only), None where not proved."""
        if expr.is_zero:
            return 0
        if expr.is_positive:
            return 1
        if expr.is_negative:
            return -1
        return None

    def nonneg(self, expr: sympy.Expr) -> bool:
        return bool(expr.is_nonnegative)

    def refuse(self, why: str) -> errors.DerivationError:
        return errors.DerivationError(f"{self.question}: {summary.shorten(why, SHOWN, 'ask over a grid to read it numerically')}")

    def show(self, expr: sympy.Basic) -> str:
        """``expr`` as a message shows it: shortened to :data:`SHOWN` characters."""
        return summary.shorten(sympy.sstr(expr), SHOWN // 2, "shortened")

    def where(self, f: sympy.Expr, op: _Rel, t: sympy.Expr) -> sympy.Set:
        """The values of the variable (a set of reals) where ``f op t``."""
        x = self.x
        if x not in f.free_symbols or f == x:
            if not (f.is_extended_real or x in f.free_symbols) or not t.is_extended_real:
                raise self.refuse(f"{self.show(f)} {op.rel_op} {self.show(t)} compares a number that is not real at the point "
                                  "(a division by 0 there, or a root of a negative number)")
        if x not in f.free_symbols:
            truth = op(f, t)
            if not isinstance(truth, sympy.logic.boolalg.BooleanAtom):
                raise self.refuse(f"{self.show(f)} {op.rel_op} {self.show(t)} is not decided by the point's numbers")
            if f != t and abs(sympy.N(f - t, 30)) <= TIE * max(abs(sympy.N(f, 30)), abs(sympy.N(t, 30))):
                raise self.refuse(f"in a regime the relation comes to {float(f):.17g} {op.rel_op} {float(t):.17g}, two "
                                  f"numbers equal to within {TIE:g} (relative): the target is the quantity's value there, and whether the "
                                  "relation holds is decided by digits beyond double precision; give a target clear of it")
            return sympy.S.Reals if truth else sympy.S.EmptySet
        if isinstance(f, (sympy.Min, sympy.Max)):
            self._count(len(f.args))
            parts = [self.where(a, op, t) for a in f.args]
            either = isinstance(f, sympy.Min) == (op in _LOWER)  # Min(a, b) <= t: a <= t or b <= t
            return sympy.Union(*parts) if either else sympy.Intersection(*parts)
        if isinstance(f, sympy.Piecewise):
            self._count(len(f.args))
            out: sympy.Set = sympy.S.EmptySet
            taken: sympy.Set = sympy.S.EmptySet
            for value, condition in f.args:
                on = self._condition(condition)
                here = sympy.Complement(on, taken)
                if sympy.Intersection(here, self.universe) is not sympy.S.EmptySet:  # a branch outside the admissible values: none
                    out = sympy.Union(out, sympy.Intersection(here, self._within(here, value, op, t)))
                taken = sympy.Union(taken, on)
            return out
        if f == x:
            return sympy.Interval(-sympy.oo, t, right_open=op is sympy.StrictLessThan) if op in _LOWER \
                else sympy.Interval(t, sympy.oo, left_open=op is sympy.StrictGreaterThan)
        if f.is_Pow and f.exp.is_number and f.exp.is_negative:
            return self._reciprocal(f.base, f.exp, op, t)
        try:
            inner, op2, t2, _ = inequalities.peel(f, op, t, x, self.sign, self.nonneg)
        except errors.DerivationError as error:
            return self._composite(f, op, t, error)
        if inner == f:  # a sum of terms that all hold the variable: no layer comes off
            return self._composite(f, op, t, errors.DerivationError("no layer of the sum comes off"))
        return self.where(inner, op2, t2)

    def _composite(self, f: sympy.Expr, op: _Rel, t: sympy.Expr, error: errors.DerivationError) -> sympy.Set:
        """``f op t`` where no layer peels: through the one piece or staircase the variable enters by (``F(h)``, ``F``
        rational: Hong & Kim's ``88*M/3 + 108160/M``, ``M`` a Min), else split at a Min/Max/Piecewise inside it into its
        regions (MDM's ``c*W + c*Min(128, 8*W)``), else an exact rational inequality, else from its crossings."""
        x = self.x
        carried = self._carried(f, op, t)
        if carried is not None:
            return carried
        inner = [p for p in sympy.preorder_traversal(f) if isinstance(p, (sympy.Min, sympy.Max, sympy.Piecewise)) and x in p.free_symbols]
        if inner:
            out: sympy.Set = sympy.S.EmptySet
            for region, arg in self._regions(inner[0]):
                narrowed = sympy.Intersection(region, self.universe)
                if narrowed is not sympy.S.EmptySet:  # the rest inside the region only: MDM's S_MSHR case of M_Read*W > #MSHRs
                    # has no value where Eq. 4's Min takes M_Read*W, so it is not inverted there
                    inside = _Split(x, self.question, narrowed, self.parts)
                    out = sympy.Union(out, sympy.Intersection(region, inside.where(f.xreplace({inner[0]: arg}), op, t)))
                    self.parts = inside.parts
            return out
        stepped = self._steps(f, op, t)
        if stepped is not None:
            return stepped
        if not forms.has_pieces(f) and not (f - t).is_rational_function(x) and not f.has(sympy.floor, sympy.ceiling):
            return inequality_crossings.where(self, f, op, t, error)
        return self._rational(f, op, t, error)

    def _carried(self, f: sympy.Expr, op: _Rel, t: sympy.Expr) -> sympy.Set | None:
        """``f op t`` where the variable enters ``f`` only through one Min/Max/Piecewise/floor/ceiling ``h`` and ``f`` is
        rational in it: the set of ``h``'s values solved exactly, then ``h`` inverted into each of its intervals. None where no such ``h``."""
        x = self.x
        staged = (sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor, sympy.ceiling)
        for h in sympy.preorder_traversal(f):  # outermost first
            if not isinstance(h, staged) or x not in h.free_symbols or h == f:
                continue
            u = sympy.Dummy("u", real=True)
            outer = f.xreplace({h: u})
            if x in outer.free_symbols or not (outer - t).is_rational_function(u):
                continue
            try:
                found = sympy.solve_univariate_inequality(op(outer, t, evaluate=False), u, relational=False)
            except (NotImplementedError, ValueError, TypeError):
                return None
            return self._into(h, sympy.Intersection(found, sympy.S.Reals))
        return None

    def _steps(self, f: sympy.Expr, op: _Rel, t: sympy.Expr) -> sympy.Set | None:
        """``f op t`` where a ``floor``/``ceiling`` of a linear function of the variable sits in ``f`` beside the variable
        itself (MDM's ``(c*W + d)*(ceiling(W/16) - 1)``) and the admissible values are bounded: step by step, the staircase
        an integer ``k`` on each step. None where there is no such staircase or the range is unbounded."""
        x, universe = self.x, self.universe
        low, high = universe.inf, universe.sup
        if not (low.is_finite and high.is_finite):
            return None
        for h in sympy.preorder_traversal(f):
            if not isinstance(h, (sympy.floor, sympy.ceiling)) or x not in h.free_symbols \
                    or not h.args[0].is_polynomial(x) or sympy.degree(h.args[0], x) != 1:
                continue
            ends = sorted(h.args[0].xreplace({x: end}) for end in (low, high))
            first, last = int(sympy.floor(ends[0])), int(sympy.ceiling(ends[1]))
            self._count(last - first + 1)
            out: sympy.Set = sympy.S.EmptySet
            for k in range(first, last + 1):
                step = sympy.Intersection(self.where(h, sympy.GreaterThan, sympy.Integer(k)), self.where(h, sympy.LessThan, sympy.Integer(k)))
                if sympy.Intersection(step, universe) is not sympy.S.EmptySet:
                    out = sympy.Union(out, sympy.Intersection(step, self.where(f.xreplace({h: sympy.Integer(k)}), op, t)))
            return out
        return None

    def _into(self, h: sympy.Expr, values: sympy.Set) -> sympy.Set:
        """The variable's values where ``h`` lies in ``values`` (a union of intervals and points)."""
        parts = list(values.args) if isinstance(values, sympy.Union) else [values]
        out: sympy.Set = sympy.S.EmptySet
        for part in parts:
            pieces = [sympy.Interval(p, p) for p in part] if isinstance(part, sympy.FiniteSet) else [part]
            for piece in pieces:
                if not isinstance(piece, sympy.Interval):
                    raise self.refuse(f"{self.show(h)} must lie in {self.show(piece)}, which is not inverted")
                self._count(1)
                here: sympy.Set = sympy.S.Reals
                if piece.start != -sympy.oo:
                    here = sympy.Intersection(here, self.where(h, sympy.StrictGreaterThan if piece.left_open else sympy.GreaterThan, piece.start))
                if piece.end != sympy.oo:
                    here = sympy.Intersection(here, self.where(h, sympy.StrictLessThan if piece.right_open else sympy.LessThan, piece.end))
                out = sympy.Union(out, here)
        return out

    def _regions(self, piece: sympy.Expr) -> list[tuple[sympy.Set, sympy.Expr]]:
        """``piece`` (a Min/Max/Piecewise) as (region, argument): where each argument is the one it takes (a Min's first
        smallest argument; a Piecewise's first branch whose condition holds)."""
        self._count(len(piece.args))
        if isinstance(piece, sympy.Piecewise):
            out, taken = [], sympy.S.EmptySet
            for value, condition in piece.args:
                on = self._condition(condition)
                out.append((sympy.Complement(on, taken), value))
                taken = sympy.Union(taken, on)
            return out
        before = sympy.StrictLessThan if isinstance(piece, sympy.Min) else sympy.StrictGreaterThan  # beats an earlier argument
        after = sympy.LessThan if isinstance(piece, sympy.Min) else sympy.GreaterThan  # ties with a later one
        regions = []
        for i, a in enumerate(piece.args):
            region: sympy.Set = sympy.S.Reals
            for j, b in enumerate(piece.args):
                if j != i:
                    region = sympy.Intersection(region, self.where(a - b, before if j < i else after, sympy.Integer(0)))
            regions.append((region, a))
        return regions

    def _reciprocal(self, g: sympy.Expr, e: sympy.Expr, op: _Rel, t: sympy.Expr) -> sympy.Set:
        """``g**e op t`` for a negative ``e``, the base's sign read as a relation of its own (``1/Min(32, floor(64/ceiling(x/32)))``:
        its base is 0 past 2048 threads): where ``g > 0`` (itself solved here), ``g flip(op) t**(1/e)`` for a positive ``t`` (else
        ``g**e > 0`` decides it); ``g < 0`` must leave no admissible value, ``g = 0`` has no value."""
        negative = sympy.Intersection(self.where(g, sympy.StrictLessThan, sympy.Integer(0)), self.universe)
        if negative is not sympy.S.EmptySet:
            raise self.refuse(f"{self.show(g)} is negative at some admissible values ({self.show(negative)}), where "
                              f"{self.show(g ** e)} is not inverted")
        positive = self.where(g, sympy.StrictGreaterThan, sympy.Integer(0))
        if t.is_positive:
            flipped = {sympy.LessThan: sympy.GreaterThan, sympy.StrictLessThan: sympy.StrictGreaterThan,
                       sympy.GreaterThan: sympy.LessThan, sympy.StrictGreaterThan: sympy.StrictLessThan}[op]
            return sympy.Intersection(positive, self.where(g, flipped, t ** (1 / e)))
        truth = op(sympy.Integer(1), t)  # g**e > 0 >= t there
        if not isinstance(truth, sympy.logic.boolalg.BooleanAtom):
            raise self.refuse(f"the sign of {self.show(t)} is not decided at the point")
        return positive if truth else sympy.S.EmptySet

    def _rational(self, f: sympy.Expr, op: _Rel, t: sympy.Expr, error: errors.DerivationError) -> sympy.Set:
        """``f op t`` where no layer peels: an exact univariate rational inequality (``(5760*x - 50331648)/(5760*x) <= 1/2``)."""
        x = self.x
        if forms.has_pieces(f) or not (f - t).is_rational_function(x):
            raise self.refuse(f"no rule inverts the relation at the point; evaluate it over a grid of values instead (symgpu sweep, "
                              f"or extremum --grid for its largest/smallest value). A regime of it comes to {self.show(f)} {op.rel_op} "
                              f"{self.show(t)}: {summary.shorten(str(error), SHOWN // 4, 'shortened')}")
        try:
            found = sympy.solve_univariate_inequality(op(f, t, evaluate=False), x, relational=False)
        except (NotImplementedError, ValueError, TypeError):
            raise self.refuse(f"{self.show(f)} {op.rel_op} {self.show(t)} is not solved at the point") from None
        return sympy.Intersection(found, sympy.S.Reals)

    def _within(self, here: sympy.Set, value: sympy.Expr, op: _Rel, t: sympy.Expr) -> sympy.Set:
        """``value op t`` where the branch's condition confines the variable to ``here``: positive there (``regs_per_thread`` past
        a branch for 0), it is positive in its inversion (``1/ceiling(x/8)``); a branch bounding an unbounded range
        (``threads_per_block <= max_threads_per_block``) has its staircases split step by step inside it."""
        region = sympy.Intersection(here, self.universe)
        positive = not self.x.is_positive and region.is_subset(sympy.Interval.open(0, sympy.oo)) is True
        narrower = region is not sympy.S.EmptySet and bool(region.sup.is_finite) and not self.universe.sup.is_finite
        if not positive and not narrower:
            return self.where(value, op, t)
        x = sympy.Symbol(self.x.name, positive=True) if positive else self.x
        inner = _Split(x, self.question, region if narrower else self.universe, self.parts)
        found = inner.where(value.xreplace({self.x: x}), op, t)
        self.parts = inner.parts
        return found

    def _count(self, more: int) -> None:
        self.parts += more
        if self.parts > MAX_PARTS:
            raise self.refuse(f"at the point it splits into more than {MAX_PARTS} regimes, too many to invert one by one")

    def _condition(self, condition: sympy.Basic) -> sympy.Set:
        if condition is sympy.true:
            return sympy.S.Reals
        if condition is sympy.false:
            return sympy.S.EmptySet
        staircase = forms.has_staircase(condition, self.x)  # as_set spends seconds on a staircase to leave it a ConditionSet
        solved: sympy.Set | None = None
        failed: errors.DerivationError | None = None
        if staircase:  # relation by relation first, once: each run counts its parts against MAX_PARTS
            parts = self.parts
            try:
                solved = self._relations(condition)
            except errors.DerivationError as error:
                failed, self.parts = error, parts  # the parts of a failed run are not spent
            if solved is not None:
                return solved
        try:
            found = condition.as_set()
        except (NotImplementedError, TypeError, ValueError):
            found = None
        if isinstance(found, sympy.Set) and not found.has(sympy.ConditionSet):
            return found
        if failed is not None:
            raise failed
        if not staircase:
            solved = self._relations(condition)
        if solved is None:
            raise self.refuse(f"the regime condition {self.show(condition)} is not solved for the variable at the point")
        return solved

    def _relations(self, condition: sympy.Basic) -> sympy.Set | None:
        """``condition``'s set where SymPy's ``as_set`` leaves part of it unsolved (a ``ConditionSet``: a staircase such as
        ``Eq(ceiling(S/256), 0)``, ``floor(floor(64/ceiling(R/8))/5) < 1``): each relation solved as :meth:`where` solves a
        regime's (an equality as both ``<=`` and ``>=``, ``Ne`` as its complement), joined as ``And``/``Or`` say (a ``Not`` pushed
        into the relations).
        None where the condition is not built of relations."""
        if isinstance(condition, (sympy.And, sympy.Or)):
            parts = [self._condition(c) for c in condition.args]
            return sympy.Intersection(*parts) if isinstance(condition, sympy.And) else sympy.Union(*parts)
        if isinstance(condition, sympy.Not):  # pushed into its relations, each negated (a value where the relation has none stays out)
            pushed = sympy.logic.boolalg.to_nnf(condition)
            return None if isinstance(pushed, sympy.Not) else self._condition(pushed)
        if not isinstance(condition, sympy.core.relational.Relational):
            return None
        f, t = condition.lhs, condition.rhs
        if self.x in t.free_symbols:
            f, t = f - t, sympy.Integer(0)
        if isinstance(condition, (sympy.Eq, sympy.Ne)):
            equal = sympy.Intersection(self.where(f, sympy.GreaterThan, t), self.where(f, sympy.LessThan, t))
            return equal if isinstance(condition, sympy.Eq) else sympy.Complement(sympy.S.Reals, equal)
        return self.where(f, type(condition), t)


def where_holds(f: sympy.Expr, relation: _Rel, target: sympy.Expr, x: sympy.Symbol, universe: sympy.Set) -> sympy.Set:
    """The values of ``x`` in ``universe`` where ``f relation target``, ``f`` a function of ``x`` alone with exact numbers
    (``x`` carries the universe's sign as an assumption: ``positive`` for ``(0, oo)``).

    Raises:
        errors.DerivationError: a part of the relation is covered by no rule (or there are more than :data:`MAX_PARTS`)."""
    return sympy.Intersection(_Split(x, summary.shorten(f"{sympy.sstr(f)} {relation.rel_op} {sympy.sstr(target)}", SHOWN, "shortened"), universe).where(f, relation, target),
                              universe)


def holding(job: jobs._Job, expr: sympy.Expr, target: sympy.Expr, var: sympy.Symbol, relation: _Rel,
            given: at_point.Given, domain: Sequence[sympy.Basic], question: str) -> Holding:
    """Where ``expr relation target`` holds at the point ``given``, over ``var``'s admissible values there
    (its declared sign, ``domain``: the ``valid_when`` and ``--assume`` relations on it).

    Raises:
        errors.DerivationError: an input has no value at the point, or a part of the relation is covered by no rule
            (or there are more than :data:`MAX_PARTS` of them)."""
    model = job.model
    values = at_point.with_target(job, given.values)
    declared = declared_range.of(model, var)
    positive = declared.word == "positive"
    # the variable in its declared unit, named as asked (a message shows it): the pinned expression holds no other symbol
    x = sympy.Symbol(var.name, positive=True) if positive else sympy.Symbol(var.name, nonnegative=True) if declared.relations \
        else sympy.Symbol(var.name, real=True)
    universe: sympy.Set = declared.as_set
    scale = scaling.unit_scale(model.units[var.name]) if var.name in model.units else sympy.Integer(1)
    split = _Split(x, question, universe)

    def at(e: sympy.Basic) -> sympy.Basic:
        made = at_point.pinned(job, e, var, given.preset, values)
        if made is None:
            missing = ", ".join(at_point.unvalued(job, e, given.preset, values)) or "an input"
            raise split.refuse(f"{missing} has no value at {at_point.where_text(given.preset, given.values)}; give it one (--set)")
        return forms.abs_as_max(made().xreplace({var: x * scale}), x)

    for condition in domain:
        universe = sympy.Intersection(universe, split._condition(at(condition)))
    split.universe = universe  # a staircase beside the variable is split step by step over the admissible values only
    # the relation in the quantity's declared unit (a positive factor: the same relation), as its refusals show it
    per = 1 / scaling.unit_scale(model.units[job.quantity]) if job.quantity in model.units else sympy.Integer(1)
    f, t = _in_unit(at(expr), per), at(target) * per
    if x in t.free_symbols:
        f, t = f - t, sympy.Integer(0)
    if f.has(sympy.Piecewise) and not isinstance(f, sympy.Piecewise):  # a sum of Piecewise (MDM's S_Mem) as one, split branch by branch
        f = sympy.piecewise_fold(f)
    found = sympy.Intersection(split.where(f, relation, t), universe)
    if declared.relations and not positive and universe.contains(0) is sympy.true:
        found = _at_zero(split, found, f, relation, t)
    return Holding(found, universe, scale)


def _at_zero(split: _Split, found: sympy.Set, f: sympy.Expr, relation: _Rel, t: sympy.Expr) -> sympy.Set:
    """``found`` with 0, an admissible value of a nonnegative variable, in or out as the quantity's value there decides, read
    as the evaluator reads it (:func:`one_sided.substitute`: ``alu_thru/alpha`` inside a Min is +oo at alpha = 0, its limit
    from above, and drops out), where the regimes' inversions leave 0 out (a pole of one argument: ``alpha <= c/t`` holds
    only where ``alpha > 0``). As the regimes decide it where that finds no value (a staircase's Piecewise whose later branch
    divides by 0: occupancy's ``smem_per_block = 0`` takes its first branch, which the inversion reads)."""
    try:
        value = one_sided.substitute(f, {split.x: sympy.Integer(0)})
    except (errors.SymgpuError, ValueError, TypeError):
        return found
    holds = split.where(value, relation, t) is sympy.S.Reals  # a tie within rounding refused as a regime's is
    return sympy.Union(found, sympy.FiniteSet(0)) if holds else sympy.Complement(found, sympy.FiniteSet(0))


def _in_unit(expr: sympy.Expr, per: sympy.Expr) -> sympy.Expr:
    """``per * expr`` for a positive number ``per``, carried into the terms of sums and the arguments of Min/Max/Piecewise
    values, so that every part of the relation reads in the quantity's unit (``Max(0, 100 - L)``, not ``1e9*Max(0, 1e-7 - L/1e9)``)."""
    if isinstance(expr, sympy.Add):
        return sympy.Add(*[_in_unit(a, per) for a in expr.args])
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return type(expr)(*[_in_unit(a, per) for a in expr.args])
    if isinstance(expr, sympy.Piecewise):
        return sympy.Piecewise(*[(_in_unit(v, per), c) for v, c in expr.args])
    return per * expr
