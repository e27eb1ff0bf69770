"""The derivation engine: closed-form solve, regimes, boundaries, extrema, limits and fixed points.

Every operation takes a :class:`~symgpu.model.Model`, works on the quantity's expression in
terms of inputs (intermediate equations substituted), and returns a
:class:`~symgpu.derivation.Derivation` with ordered steps, the assumptions used and a
unit-checked result.

Sign reasoning uses the symbols' declared assumptions (``positive``, ``nonnegative``) and
any extra assumptions the caller passes (``assume=["mem_lat > alu_lat"]``). An extra
assumption ``X > Y`` with a symbol on one side is used by writing ``X = Y + d`` with a
positive ``d`` while deciding signs, so SymPy can prove what follows from it.

Text (from model files or the command line) is parsed only by ``model.parse`` — the safe,
whitelisting parser — never by ``sympify``/``parse_expr``/``eval``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np
import pint
import sympy

from symgpu import dimensions, errors
from symgpu.derivation import Derivation, Step

if TYPE_CHECKING:
    from symgpu.model import Model
    from symgpu.schema import DerivationRequest

__all__ = [
    "Regime",
    "boundary",
    "evaluate_result",
    "extremum",
    "fixed_point",
    "limit",
    "regimes",
    "active_regime",
    "limit_ratio",
    "run_request",
    "simplify_expression",
    "solve",
    "substitute",
]

MAX_BRANCHES = 512
#: sign verdicts by expression (the expression already carries every substitution used)
_SIGN_CACHE: dict[Any, int | None] = {}
_PIECEWISE = (sympy.Min, sympy.Max, sympy.Piecewise)


# ================================================================================ helpers
def _has_staircase(expr: Any, var: sympy.Symbol) -> bool:
    from symgpu import inequalities

    return inequalities.has_staircase(expr, var)


def _has_pieces(expr: Any) -> bool:
    return isinstance(expr, sympy.Basic) and expr.has(*_PIECEWISE)


def _number(value: Any) -> sympy.Expr:
    """An exact SymPy number from an int/float/str number (``0.1477`` -> ``1477/10000``)."""
    if isinstance(value, bool):
        raise errors.UsageError(f"{value!r} is not a number")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Rational(repr(value))
    return sympy.Rational(str(value))


def _small_simplify(expr: sympy.Expr) -> sympy.Expr:
    """Simplify, but only when the expression is small enough to do it quickly."""
    if not isinstance(expr, sympy.Basic) or expr.is_Atom:
        return expr
    try:
        if sympy.count_ops(expr) > 120:
            return sympy.cancel(expr) if not _has_pieces(expr) else expr
        return sympy.simplify(expr)
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        return expr


def _nice(expr: Any) -> Any:
    """Present a result: simplify and, for sums over a common denominator, factor."""
    if not isinstance(expr, sympy.Expr):
        return expr
    out = _small_simplify(expr)
    return out


class _Context:
    """Sign reasoning under declared and extra assumptions.

    Attributes:
        forward: symbol -> replacement used while deciding signs (``X -> Y + d``).
        backward: dummy -> expression that undoes ``forward`` (``d -> X - Y``).
        sentences: human-readable assumptions in force.
    """

    def __init__(self, model: Model, extra: Iterable[sympy.Basic] = ()) -> None:
        self.model = model
        self.forward: dict[sympy.Symbol, sympy.Expr] = {}
        self.backward: dict[sympy.Symbol, sympy.Expr] = {}
        self.relations: list[sympy.Basic] = []
        self.positives: list[sympy.Expr] = []  # expressions known positive (forward-substituted)
        self.sentences: list[str] = []
        self.constants: dict[sympy.Symbol, sympy.Symbol] = {}
        self.constants_back: dict[sympy.Symbol, sympy.Symbol] = {}
        for name, value in model.constants.items():
            magnitude = float(value.magnitude)
            definition = model.symbol_definitions[name]
            if magnitude > 0 and not ({"positive"} & set(definition.assumptions)):
                dummy = sympy.Dummy(name, positive=True)
                self.constants[model.symbols[name]] = dummy
                self.constants_back[dummy] = model.symbols[name]
                self.forward[model.symbols[name]] = dummy
                self.backward[dummy] = model.symbols[name]
        for relation in extra:
            self.add(relation)

    def nice(self, expr: Any) -> Any:
        """Simplify ``expr`` knowing that constants with positive values are positive."""
        if not isinstance(expr, sympy.Basic):
            return expr
        return _nice(_nice(expr.xreplace(self.constants)).xreplace(self.constants_back))

    def copy(self) -> _Context:
        other = _Context(self.model)
        other.constants, other.constants_back = dict(self.constants), dict(self.constants_back)
        other.forward = dict(self.forward)
        other.backward = dict(self.backward)
        other.relations = list(self.relations)
        other.positives = list(self.positives)
        other.sentences = list(self.sentences)
        return other

    def add(self, relation: sympy.Basic, sentence: str | None = None) -> bool:
        """Use ``relation`` (``X > Y``, ``X >= Y``, ``<``, ``<=``) from now on; True if usable."""
        if relation is sympy.true:
            return True
        if isinstance(relation, sympy.Not) and isinstance(relation.args[0], sympy.Eq):
            relation = sympy.Ne(*relation.args[0].args)
        if isinstance(relation, sympy.Ne):
            # X != 0 with X nonnegative (declared, or proved from the declarations) means X > 0
            for side, other in ((relation.lhs, relation.rhs), (relation.rhs, relation.lhs)):
                if other == 0 and _nonnegative(side.xreplace(self.forward)):
                    return self.add(sympy.StrictGreaterThan(side, 0), sentence or f"{side} > 0 ({side} != 0 and {side} >= 0)")
        if not isinstance(relation, sympy.core.relational.Relational) or isinstance(relation, (sympy.Eq, sympy.Ne)):
            self.sentences.append(sentence or f"{sympy.sstr(relation)} (recorded, not used for sign reasoning)")
            return False
        if isinstance(relation, (sympy.StrictGreaterThan, sympy.GreaterThan)):
            big, small = relation.lhs, relation.rhs
        else:
            big, small = relation.rhs, relation.lhs
        strict = isinstance(relation, (sympy.StrictGreaterThan, sympy.StrictLessThan))
        big = big.xreplace(self.forward)
        small = small.xreplace(self.forward)
        delta = sympy.Dummy("d", positive=True) if strict else sympy.Dummy("d", nonnegative=True)
        used = False
        if isinstance(big, sympy.Symbol) and big not in small.free_symbols and not isinstance(big, sympy.Dummy) and big not in self.constants:
            self._replace(big, small + delta, delta, big - small)
            used = True
        elif isinstance(small, sympy.Symbol) and small not in big.free_symbols and not isinstance(small, sympy.Dummy) and small not in self.constants:
            self._replace(small, big - delta, delta, big - small)
            used = True
        elif strict and small == 0:
            self.positives.append(big)
            used = True
        self.relations.append(relation)
        self.sentences.append(sentence or sympy.sstr(relation))
        return used

    def _replace(self, symbol: sympy.Symbol, replacement: sympy.Expr, delta: sympy.Symbol, meaning: sympy.Expr) -> None:
        for key, value in list(self.forward.items()):
            self.forward[key] = value.xreplace({symbol: replacement})
        self.forward[symbol] = replacement
        self.backward[delta] = meaning.xreplace(self.backward)

    def back(self, expr: Any) -> Any:
        """Undo the forward substitution (dummies back to the model's symbols)."""
        if not isinstance(expr, sympy.Basic) or not self.backward:
            return expr
        out = expr
        for _ in range(len(self.backward) + 1):
            if not any(d in out.free_symbols for d in self.backward):
                break
            out = out.xreplace(self.backward)
        return out

    def nonnegative(self, expr: Any) -> bool:
        """``expr >= 0`` proved (structurally, floor/ceiling included) under the assumptions."""
        return isinstance(expr, sympy.Basic) and (self.sign(expr) in (0, 1) or _nonnegative(expr.xreplace(self.forward)))

    def sign(self, expr: Any) -> int | None:
        """+1, -1 or 0 if the sign of ``expr`` is proved; None if undecided."""
        if not isinstance(expr, sympy.Basic):
            expr = sympy.sympify(expr)
        if expr.has(sympy.nan, sympy.zoo):
            return None
        e = expr.xreplace(self.forward)
        key = (e, tuple(self.positives))
        if key in _SIGN_CACHE:
            return _SIGN_CACHE[key]
        found = self._sign(e)
        if found is None:
            for p in self.positives:
                if e == p:
                    found = 1
                    break
                if not e.has(*p.atoms(sympy.floor, sympy.ceiling) or {p}):
                    continue
                s = self._sign(sympy.cancel(e / p))
                if s in (1, -1):
                    found = s
                    break
        if len(_SIGN_CACHE) > 20000:
            _SIGN_CACHE.clear()
        _SIGN_CACHE[key] = found
        return found

    def _sign(self, e: sympy.Basic) -> int | None:
        tries = [e]
        try:
            tries.append(sympy.factor(sympy.together(e)))
        except (sympy.PolynomialError, TypeError, ValueError, NotImplementedError):
            pass
        for cand in tries:
            found = _basic_sign(cand)
            if found is not None:
                return found
        try:
            num, den = sympy.fraction(tries[-1])
            sn, sd = _factor_sign(num), _factor_sign(den)
            if sn is not None and sd is not None and sd != 0:
                return sn * sd
        except (TypeError, ValueError):
            pass
        if sympy.count_ops(e) < 40 and e.has(sympy.Pow):
            try:
                found = _basic_sign(sympy.simplify(e))
                if found is not None:
                    return found
            except (TypeError, ValueError, NotImplementedError, RecursionError):
                pass
        return None

    def decide(self, condition: Any) -> bool | None:
        """True/False if ``condition`` is proved or refuted under the assumptions, else None."""
        if condition in (True, sympy.true):
            return True
        if condition in (False, sympy.false):
            return False
        if isinstance(condition, sympy.And):
            results = [self.decide(c) for c in condition.args]
            return False if False in results else (True if all(r is True for r in results) else None)
        if isinstance(condition, sympy.Or):
            results = [self.decide(c) for c in condition.args]
            return True if True in results else (False if all(r is False for r in results) else None)
        if isinstance(condition, sympy.Not):
            inner = self.decide(condition.args[0])
            return None if inner is None else not inner
        if not isinstance(condition, sympy.core.relational.Relational):
            return None
        s = self.sign(condition.lhs - condition.rhs)
        if s is None:
            for rel in self.relations:
                if _same_relation(rel, condition):
                    return True
            return None
        if isinstance(condition, sympy.StrictGreaterThan):
            return s > 0
        if isinstance(condition, sympy.GreaterThan):
            return s >= 0
        if isinstance(condition, sympy.StrictLessThan):
            return s < 0
        if isinstance(condition, sympy.LessThan):
            return s <= 0
        if isinstance(condition, sympy.Eq):
            return s == 0
        if isinstance(condition, sympy.Ne):
            return s != 0
        return None

    def tidy(self, condition: Any, var: sympy.Symbol | None = None) -> Any:
        """A readable equivalent of a relational: positive factors cancelled, solved for ``var``
        when it enters linearly with a coefficient of known sign, terms moved to their sides."""
        if not isinstance(condition, sympy.core.relational.Relational) or isinstance(condition, (sympy.Eq, sympy.Ne)):
            return condition
        decided = self.decide(condition)
        if decided is not None:
            return sympy.true if decided else sympy.false
        op = type(condition)
        d = sympy.together((condition.lhs - condition.rhs).xreplace(self.forward))
        num, den = sympy.fraction(d)
        sd = self.sign(den)
        if sd == -1:
            op = _flip(op)
        elif sd is None:
            num = num * den  # same sign as num/den where den != 0
        num, flip = self._strip_factors(sympy.factor(num))
        if flip:
            op = _flip(op)
        num = sympy.expand(self.back(num))
        if var is not None and var in num.free_symbols:
            try:
                poly = sympy.Poly(num, var)
            except sympy.PolynomialError:
                poly = None
            if poly is not None and poly.degree() == 1:
                c1, c0 = poly.all_coeffs()
                s1 = self.sign(c1)
                if s1 is not None and s1 != 0:
                    bound = _small_simplify(-c0 / c1)
                    return op(var, bound) if s1 > 0 else _flip(op)(var, bound)
        pos = sympy.Add(*[t for t in sympy.Add.make_args(num) if not t.could_extract_minus_sign()])
        neg = -sympy.Add(*[t for t in sympy.Add.make_args(num) if t.could_extract_minus_sign()])
        return op(sympy.factor(pos), sympy.factor(neg))

    def _strip_factors(self, expr: sympy.Expr) -> tuple[sympy.Expr, bool]:
        keep, flip = [], False
        for factor in sympy.Mul.make_args(expr):
            s = self.sign(factor)
            if s == 1:
                continue
            if s == -1:
                flip = not flip
                continue
            keep.append(factor)
        return sympy.Mul(*keep), flip


def _flip(op: type) -> type:
    return {sympy.StrictGreaterThan: sympy.StrictLessThan, sympy.StrictLessThan: sympy.StrictGreaterThan,
            sympy.GreaterThan: sympy.LessThan, sympy.LessThan: sympy.GreaterThan}.get(op, op)


def _nonnegative(e: Any) -> bool:
    from symgpu import inequalities

    return inequalities.nonnegative(e)


def _basic_sign(e: sympy.Basic) -> int | None:
    if e.is_zero:
        return 0
    if e.is_positive:
        return 1
    if e.is_negative:
        return -1
    return None


def _factor_sign(e: sympy.Expr) -> int | None:
    sign = 1
    for factor in sympy.Mul.make_args(e):
        s = _basic_sign(factor)
        if s is None:
            return None
        sign *= s
    return sign


def _same_relation(a: sympy.Basic, b: sympy.Basic) -> bool:
    try:
        return bool(a == b or a.canonical == b.canonical or a.reversed.canonical == b.canonical)
    except AttributeError:
        return False


# ================================================================================ the job
@dataclass
class _Job:
    """Working state of one derivation: the model, steps, assumptions and unit counts."""

    model: Model
    operation: str
    quantity: str
    variable: str = ""
    steps: list[Step] = field(default_factory=list)
    counts: set[str] = field(default_factory=set)
    substitution: dict[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    ctx: _Context | None = None
    extra: list[tuple[str, Any]] = field(default_factory=list)
    omit: tuple[tuple[str, str], ...] = ()

    def step(self, operation: str, expression: Any, justification: str) -> None:
        if not isinstance(expression, sympy.Basic):
            expression = sympy.sympify(expression) if not isinstance(expression, (list, tuple)) else sympy.Tuple(*expression)
        self.steps.append(Step(operation, expression, justification))

    def assumptions(self, *symbols_of: Any) -> tuple[str, ...]:
        names: set[str] = set()
        for expr in symbols_of:
            if isinstance(expr, sympy.Basic):
                names |= {s.name for s in expr.free_symbols if not isinstance(s, sympy.Dummy)}
        for sym in self.substitution:
            names.add(sym.name)
        out = []
        for name in sorted(names):
            definition = self.model.symbol_definitions.get(name)
            if definition is not None and definition.assumptions:
                out.append(f"{name} {', '.join(definition.assumptions)} (declared)")
            elif name in self.model.constants and float(self.model.constants[name].magnitude) > 0:
                out.append(f"{name} = {self.model.constants[name]:~} (constant, so positive)")
        if self.ctx is not None:
            out.extend(f"{s} (given)" for s in self.ctx.sentences)
        if self.counts:
            out.append(f"{', '.join(sorted(self.counts))} counted as pure numbers (counts declared by the equations used)")
        return tuple(out)

    def finish(self, result: Any, unit: str, *, location: Any = None, method: str = "closed form",
               used: Sequence[Any] = ()) -> Derivation:
        return Derivation(
            model=self.model.id,
            operation=self.operation,
            quantity=self.quantity,
            variable=self.variable,
            steps=tuple(self.steps),
            result=result,
            assumptions=self.assumptions(result, location, *used),
            location=location,
            unit=unit,
            method=method,
            extra=tuple(self.extra),
        )

    # ---------------------------------------------------------------- expressions
    def parse(self, value: Any, where: str) -> sympy.Basic:
        """A caller value as SymPy: SymPy objects pass, numbers become exact, text goes
        through the model's safe parser, pint quantities are converted only by the caller."""
        if isinstance(value, sympy.Basic):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number(value)
        if isinstance(value, str):
            return self.model.parse(value, where, boolean=any(op in value for op in ("<", ">", "==")) or value.strip().startswith(("Eq(", "Ne(", "And(", "Or(")))
        raise errors.UsageError(f"{where}: cannot use {value!r} (give a number, a SymPy expression or expression text)")

    def symbol(self, name: Any) -> sympy.Symbol:
        if isinstance(name, sympy.Symbol):
            return name
        return self.model.symbol(str(name))

    def expand(self, expr: sympy.Basic, stop_at: frozenset[str] = frozenset()) -> sympy.Basic:
        """Substitute the defining equations of every defined quantity in ``expr``."""
        mapping = {}
        for sym in expr.free_symbols:
            if sym.name in self.model.defining and sym.name not in stop_at:
                mapping[sym] = self.model.expression(sym.name, stop_at=stop_at)
                for equation in self.model.dependencies(sym.name, stop_at=stop_at):
                    self.counts.update(c.strip("[]") for c in equation.definition.counts)
        return expr.xreplace(mapping) if mapping else expr

    def quantity_expression(self, quantity: Any, substitute: Mapping[str, Any] | None,
                            stop_at: Iterable[str] = (), case: str | None = None) -> tuple[sympy.Expr, sympy.Expr | None]:
        """Return (expression in inputs, left-hand symbol or None) with substitutions applied.

        ``case`` selects one case of a quantity defined by ``cases``: its value replaces the
        Piecewise, and its condition (with the negations of the earlier cases) is assumed."""
        stop = frozenset(stop_at)
        lhs: sympy.Expr | None = None
        if case is not None:
            if not (isinstance(quantity, str) and (quantity in self.model.defining or quantity in self.model.equations)):
                raise errors.UsageError(f"{self.model.id}: case '{case}' needs a quantity defined by cases")
            equation = self.model.equation_for(quantity)
            ids = [c.id for c in equation.cases]
            if case not in ids:
                raise errors.UsageError(f"{self.model.id}: {quantity} has no case '{case}' (cases: {', '.join(ids) or 'none'})")
            lhs = equation.lhs
            self.quantity = equation.definition.defines
            chosen = equation.cases[ids.index(case)]
            conditions = [sympy.Not(c.condition) for c in equation.cases[:ids.index(case)]]
            if chosen.condition is not sympy.true:
                conditions.append(chosen.condition)
            deps = self.model.dependencies(quantity, stop_at=stop)
            for dep in deps:
                self.counts.update(c.strip("[]") for c in dep.definition.counts)
            self.step("case", sympy.Eq(lhs, chosen.value, evaluate=False),
                      f"case {case} of equation {equation.id} ({equation.definition.source}), which applies when "
                      + (" and ".join(sympy.sstr(c) for c in conditions) if conditions else "no earlier case does"))
            for condition in conditions:
                expanded = self.expand(condition, stop)
                for part in (expanded.args if isinstance(expanded, sympy.And) else (expanded,)):
                    if self.ctx is not None:
                        self.ctx.add(part, f"{sympy.sstr(part)} (condition of case {case})")
            expr = self.expand(chosen.value, stop)
            if expr != chosen.value:
                self.step("substitute", sympy.Eq(lhs, expr, evaluate=False), "intermediate quantities replaced by their equations")
        elif isinstance(quantity, str) and (quantity in self.model.defining or quantity in self.model.equations):
            equation = self.model.equation_for(quantity)
            lhs = equation.lhs
            self.quantity = equation.definition.defines
            rhs = self.model.expression(quantity, stop_at=stop)
            deps = self.model.dependencies(quantity, stop_at=stop)
            for dep in deps:
                self.counts.update(c.strip("[]") for c in dep.definition.counts)
            sources = "; ".join(f"{d.id} ({d.definition.source.locator})" for d in deps)
            self.step("definition", sympy.Eq(lhs, equation.rhs, evaluate=False), f"equation {equation.id}, {equation.definition.source}")
            if len(deps) > 1 or rhs != equation.rhs:
                self.step("substitute", sympy.Eq(lhs, rhs, evaluate=False), f"intermediate quantities replaced by their equations: {sources}")
            expr = rhs
        else:
            parsed = self.parse(quantity, "quantity")
            if isinstance(parsed, sympy.Eq):
                expr = sympy.Eq(self.expand(parsed.lhs, stop), self.expand(parsed.rhs, stop), evaluate=False)
            else:
                expr = self.expand(parsed, stop)
            self.step("expression", expr, "as given, intermediate quantities replaced by their equations")
        if self.omit:
            expr = self._omit_terms(expr, stop)
        if substitute:
            mapping = {}
            for name, value in substitute.items():
                sym = self.symbol(name)
                mapping[sym] = self.expand(self.parse(value, f"substitute.{name}"), stop)
            self.substitution.update(mapping)
            expr = expr.xreplace(mapping)
            shown = sympy.Eq(lhs, expr, evaluate=False) if lhs is not None and not isinstance(expr, sympy.Eq) else expr
            self.step("substitute", shown, "given: " + ", ".join(f"{k} = {sympy.sstr(v)}" for k, v in mapping.items()))
        return expr, lhs

    def _omit_terms(self, expr: sympy.Basic, stop: frozenset[str]) -> sympy.Basic:
        """Drop the Min/Max arguments named by ``omit`` ((equation id or "", limiter name) pairs)."""
        terms = []
        for equation_id, name in self.omit:
            equations = [self.model.equation_for(equation_id)] if equation_id else list(self.model.equations.values())
            found = [t for e in equations for n, t in e.limiters if n == name]
            if not found:
                raise errors.UsageError(f"{self.model.id}: no limiter '{name}'" + (f" in equation {equation_id}" if equation_id else ""))
            terms.extend(self.expand(t, stop) for t in found)

        def prune(node: sympy.Basic) -> sympy.Basic:
            if isinstance(node, (sympy.Min, sympy.Max)):
                kept = [a for a in node.args if not any(a == t or sympy.cancel(a - t) == 0 for t in terms)]
                if not kept:
                    raise errors.UsageError(f"{self.model.id}: omitting {', '.join(n for _, n in self.omit)} leaves an empty {type(node).__name__}")
                return node.func(*[prune(a) for a in kept])
            if node.args and _has_pieces(node):
                return node.func(*[prune(a) for a in node.args])
            return node

        pruned = prune(expr)
        if pruned == expr:
            raise errors.UsageError(f"{self.model.id}: the terms to omit ({', '.join(n for _, n in self.omit)}) do not occur in {self.quantity}")
        self.step("omit bounds", pruned, "the request drops the bound" + ("s " if len(self.omit) > 1 else " ")
                  + ", ".join(n for _, n in self.omit) + " (a variant of the model)")
        return pruned

    # ---------------------------------------------------------------- units
    def dims(self) -> dict[sympy.Symbol, Any]:
        return {sym: dimensions.without_counts(self.model.dimension(name), self.counts) for name, sym in self.model.symbols.items()}

    def check_unit(self, expr: Any, name: str, what: str) -> str:
        """Check that ``expr`` has the dimension of symbol ``name``; return the unit text."""
        unit = self.model.unit_text(name)
        if not isinstance(expr, sympy.Basic) or expr.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) or expr.is_zero:
            return unit  # a bare 0 (or infinity) has every dimension
        dims = self.dims()
        clean = expr
        try:
            found = dimensions.settle(dimensions.dimension_of(clean, dims))
        except dimensions.Mismatch as exc:
            raise errors.DerivationError(f"{self.model.id}: {what} '{sympy.sstr(expr)}' is dimensionally inconsistent: {exc.problem}") from None
        expected = dims[self.model.symbols[name]]
        if found != expected:
            raise errors.DerivationError(
                f"{self.model.id}: {what} '{sympy.sstr(expr)}' has dimension {dimensions.show(found)}, but {name} is "
                f"{dimensions.show(expected)} (unit {unit}); the model's equations or the request are inconsistent")
        counted = f" (counting {', '.join(sorted(self.counts))} as pure numbers)" if self.counts else ""
        self.step("unit check", sympy.Eq(self.model.symbols[name], expr, evaluate=False),
                  f"dimension {dimensions.show(found)} equals the declared unit of {name} [{unit}]{counted}")
        return unit


def _omit_pairs(omit: Iterable[Any]) -> tuple[tuple[str, str], ...]:
    """``["issue_bound"]`` or ``["s4_1_model.issue_bound"]`` or pairs -> (equation id, limiter name)."""
    out = []
    for item in omit or ():
        if isinstance(item, (tuple, list)):
            out.append((str(item[0]), str(item[1])))
        else:
            equation, _, name = str(item).rpartition(".")
            out.append((equation, name))
    return tuple(out)


def _context(model: Model, assume: Iterable[Any] | None, job: _Job) -> _Context:
    relations = [job.parse(a, "assume") for a in (assume or ())]
    ctx = _Context(model)
    for relation in relations:
        ctx.add(relation)
    job.ctx = ctx
    return ctx


def _domain_ok(job: _Job, var: sympy.Symbol, value: sympy.Expr) -> tuple[bool, str]:
    """Is ``value`` allowed for ``var`` by its declared assumptions? (False only if refuted.)"""
    assert job.ctx is not None
    if value.has(sympy.I) or value.is_real is False:
        return False, "not real"
    if value.has(sympy.zoo, sympy.nan):
        return False, "undefined"
    definition = job.model.symbol_definitions.get(var.name)
    declared = definition.assumptions if definition else ()
    s = job.ctx.sign(value)
    if "positive" in declared and s is not None and s <= 0:
        return False, f"{var} is declared positive but this root is {'zero' if s == 0 else 'negative'}"
    if "nonnegative" in declared and s == -1:
        return False, f"{var} is declared nonnegative but this root is negative"
    return True, ""


def _real_dummy(var: sympy.Symbol) -> sympy.Symbol:
    return sympy.Dummy(var.name, real=True)


def _solve_for(job: _Job, equation: sympy.Basic, var: sympy.Symbol, label: str) -> list[sympy.Expr]:
    """Roots of ``equation`` for ``var`` (solved over the reals), filtered by the declared
    domain of ``var``, with the kept and dropped roots recorded as steps."""
    assert job.ctx is not None
    free = _real_dummy(var)
    eq = equation.xreplace({var: free})
    target = eq.lhs - eq.rhs if isinstance(eq, sympy.Eq) else eq
    if not isinstance(target, sympy.Basic) or free not in target.free_symbols:
        return []
    try:
        roots = sympy.solve(target, free, dict=False)
    except NotImplementedError:
        roots = None
    if roots is None or roots == []:
        try:
            solution = sympy.solveset(target, free, sympy.S.Reals)
        except (NotImplementedError, TypeError, ValueError):
            solution = None
        if isinstance(solution, sympy.FiniteSet):
            roots = list(solution)
        elif roots is None:
            raise errors.DerivationError(f"{job.model.id}: SymPy finds no closed form for {label}: {sympy.sstr(equation)} in {var}")
    roots = [r.xreplace({free: var}) if isinstance(r, sympy.Basic) else r for r in roots]
    kept, dropped = [], []
    for root in roots:
        root = job.ctx.nice(root)
        ok, why = _domain_ok(job, var, root)
        (kept if ok else dropped).append((root, why))
    if dropped:
        job.step("filter roots", sympy.Tuple(*[r for r, _ in dropped]),
                 "dropped: " + "; ".join(f"{sympy.sstr(r)}: {w}" for r, w in dropped))
    return [r for r, _ in kept]


# ================================================================================ regimes
@dataclass(frozen=True)
class _Cond:
    """A branch condition: ``h > 0`` (strict) or ``h >= 0``; or an opaque boolean."""

    h: sympy.Expr | None
    strict: bool = False
    boolean: sympy.Basic | None = None

    @property
    def relational(self) -> sympy.Basic:
        if self.h is None:
            return self.boolean
        return sympy.StrictGreaterThan(self.h, 0) if self.strict else sympy.GreaterThan(self.h, 0)

    def xreplace(self, mapping: Mapping[Any, Any]) -> _Cond:
        if self.h is None:
            return _Cond(None, boolean=self.boolean.xreplace(mapping))
        return _Cond(self.h.xreplace(mapping), self.strict)


def _conds_of(condition: sympy.Basic, negate: bool = False) -> list[_Cond]:
    if condition in (True, sympy.true):
        return [] if not negate else [_Cond(None, boolean=sympy.false)]
    if isinstance(condition, sympy.And) and not negate:
        return [c for arg in condition.args for c in _conds_of(arg)]
    if isinstance(condition, sympy.Or) and negate:
        return [c for arg in condition.args for c in _conds_of(arg, True)]
    if isinstance(condition, sympy.Not):
        return _conds_of(condition.args[0], not negate)
    if isinstance(condition, sympy.core.relational.Relational) and not isinstance(condition, (sympy.Eq, sympy.Ne)):
        rel = condition
        if negate:
            rel = {sympy.StrictGreaterThan: sympy.LessThan, sympy.GreaterThan: sympy.StrictLessThan,
                   sympy.StrictLessThan: sympy.GreaterThan, sympy.LessThan: sympy.StrictGreaterThan}[type(rel)](rel.lhs, rel.rhs)
        if isinstance(rel, (sympy.StrictGreaterThan, sympy.GreaterThan)):
            return [_Cond(rel.lhs - rel.rhs, isinstance(rel, sympy.StrictGreaterThan))]
        return [_Cond(rel.rhs - rel.lhs, isinstance(rel, sympy.StrictLessThan))]
    return [_Cond(None, boolean=sympy.Not(condition) if negate else condition)]


@dataclass(frozen=True)
class Regime:
    """One branch of a piecewise quantity.

    Attributes:
        name: the limiting term (``memory_bound``), a case id, or a generated name.
        conditions: simplified conditions under which the branch applies (all hold).
        expression: the quantity's value on this branch.
        terms: names of the terms chosen at each ``Min``/``Max``/``Piecewise`` on the way.
    """

    name: str
    conditions: tuple[sympy.Basic, ...]
    expression: sympy.Expr
    terms: tuple[str, ...] = ()
    raw: tuple[_Cond, ...] = ()
    feasible: bool | None = True  # None: not proved (no witness found among samples)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "conditions": [sympy.sstr(c) for c in self.conditions],
                "expression": sympy.sstr(self.expression), "terms": list(self.terms), "feasible": self.feasible}


def _names(job: _Job, stop: frozenset[str] = frozenset()) -> dict[Any, str]:
    """Expanded limiter terms and case values -> their names (from every equation)."""
    names: dict[Any, str] = {}
    deps = []
    try:
        deps = [e.id for e in job.model.dependencies(job.quantity, stop_at=stop)] if job.quantity in job.model.defining else []
    except errors.UsageError:
        deps = []
    ordered = [job.model.equations[i] for i in deps] + [e for e in job.model.equations.values() if e.id not in deps]
    for equation in ordered:
        for name, term in equation.limiters:
            key = job.expand(term, stop).xreplace(job.substitution)
            names.setdefault(("term", key), name)
        for case in equation.cases:
            key = job.expand(case.value, stop).xreplace(job.substitution)
            names.setdefault(("case", key), case.id)
    return names


def _lookup(names: Mapping[Any, str], kind: str, key: sympy.Basic, fallback: str) -> str:
    if (kind, key) in names:
        return names[(kind, key)]
    for (k, expr), name in names.items():
        if k == kind and isinstance(expr, sympy.Basic) and expr.free_symbols == key.free_symbols:
            try:
                if sympy.cancel(expr - key) == 0:
                    return name
            except (TypeError, ValueError, sympy.PolynomialError):
                continue
    return fallback


def _branches(expr: sympy.Basic, names: Mapping[Any, str], counter: list[int]) -> list[tuple[tuple[str, ...], tuple[_Cond, ...], sympy.Expr]]:
    """All (labels, conditions, value) branches of ``expr``."""
    if not _has_pieces(expr):
        return [((), (), expr)]
    if isinstance(expr, (sympy.Min, sympy.Max)):
        kind = "Min" if isinstance(expr, sympy.Min) else "Max"
        args = list(expr.args)
        child = [_branches(a, names, counter) for a in args]
        out = []
        for combo in itertools.product(*child):
            base = tuple(c for _, conds, _ in combo for c in conds)
            values = [v for _, _, v in combo]
            for i, (labels, _, value) in enumerate(combo):
                conds = list(base)
                for j, other in enumerate(values):
                    if j == i:
                        continue
                    h = other - value if kind == "Min" else value - other
                    conds.append(_Cond(h, strict=j < i))
                label = _lookup(names, "term", args[i], f"{kind.lower()}_arg{i + 1}")
                out.append((labels + (label,), tuple(conds), value))
            if len(out) > MAX_BRANCHES:
                raise errors.DerivationError(f"more than {MAX_BRANCHES} branches: the expression is too nested to enumerate")
        return out
    if isinstance(expr, sympy.Piecewise):
        out = []
        previous: list[sympy.Basic] = []
        for index, (value, condition) in enumerate(expr.args):
            conds = tuple(c for p in previous for c in _conds_of(p, negate=True)) + tuple(_conds_of(condition))
            label = _lookup(names, "case", value, f"piece{index + 1}")
            for labels, sub, val in _branches(value, names, counter):
                out.append(((label,) + labels, conds + sub, val))
            previous.append(condition)
        return out
    child = [_branches(a, names, counter) for a in expr.args]
    out = []
    for combo in itertools.product(*child):
        labels = tuple(l for ls, _, _ in combo for l in ls)
        conds = tuple(c for _, cs, _ in combo for c in cs)
        out.append((labels, conds, expr.func(*[v for _, _, v in combo])))
        if len(out) > MAX_BRANCHES:
            raise errors.DerivationError(f"more than {MAX_BRANCHES} branches: the expression is too nested to enumerate")
    return out


def _opposed(conds: Sequence[_Cond]) -> bool:
    """Two conditions ``h > 0`` and ``-h >= 0`` (or both non-strict with h != 0 forced) contradict."""
    for a, b in itertools.combinations([c for c in conds if c.h is not None], 2):
        if (a.strict or b.strict) and sympy.cancel(a.h + b.h) == 0:
            return True
    return False


def _surface_only(conds: Sequence[_Cond]) -> sympy.Expr | None:
    """``h`` if the conditions include ``h >= 0`` and ``-h >= 0`` (both non-strict): the regime
    lives only on the surface ``h = 0``."""
    for a, b in itertools.combinations([c for c in conds if c.h is not None], 2):
        if not a.strict and not b.strict and (a.h + b.h == 0 or sympy.cancel(a.h + b.h) == 0):
            return a.h
    return None


def _witness(model: Model, conds: Sequence[_Cond], samples: int = 4096) -> bool | None:
    """True if some sample of inputs allowed by the declared assumptions satisfies every
    condition (a witness of feasibility); None if none does (undecided, not refuted)."""
    from symgpu import numeric

    relations = [c.relational for c in conds]
    symbols = sorted(set().union(*[r.free_symbols for r in relations]), key=str)
    rng = np.random.default_rng(20240601)
    columns = []
    for sym in symbols:
        definition = model.symbol_definitions.get(sym.name)
        declared = set(definition.assumptions) if definition is not None else set()
        if sym.name in model.constants:
            columns.append(np.full(samples, float(model.constants[sym.name].magnitude) * float(numeric.unit_scale(model.units[sym.name]))))
            continue
        if "integer" in declared:
            # 0 and 1 (the values case conditions single out) are drawn often
            column = rng.choice(np.array([1, 2, 3, 4, 6, 8, 16, 32, 64, 128, 256, 1024, 4096, 65536], dtype=float), samples)
            column[rng.random(samples) < 0.25] = 1.0
            if "positive" not in declared:
                column[rng.random(samples) < 0.3] = 0.0
        else:
            column = 10.0 ** rng.uniform(-2, 2, samples)
            if "nonnegative" in declared and "positive" not in declared:
                column[rng.random(samples) < 0.3] = 0.0
            elif not declared & {"positive", "nonnegative"}:
                column *= rng.choice([-1.0, 1.0], samples)
        columns.append(column)
    try:
        function = sympy.lambdify(symbols, sympy.And(*relations) if len(relations) > 1 else relations[0], modules="numpy")
        with np.errstate(all="ignore"):
            holds = np.asarray(function(*columns), dtype=bool)
    except (TypeError, ValueError, NameError, ZeroDivisionError, AttributeError):
        return None
    return True if np.any(holds) else None


def _bounds_infeasible(ctx: _Context, conditions: Sequence[sympy.Basic], var: sympy.Symbol | None) -> bool:
    """Do lower and upper bounds on ``var`` contradict each other?"""
    if var is None:
        return False
    lows, highs = [], []
    for c in conditions:
        if isinstance(c, sympy.core.relational.Relational) and c.lhs == var and var not in c.rhs.free_symbols:
            if isinstance(c, (sympy.StrictGreaterThan, sympy.GreaterThan)):
                lows.append((c.rhs, isinstance(c, sympy.StrictGreaterThan)))
            elif isinstance(c, (sympy.StrictLessThan, sympy.LessThan)):
                highs.append((c.rhs, isinstance(c, sympy.StrictLessThan)))
    definition = ctx.model.symbol_definitions.get(var.name)
    if definition is not None and "positive" in definition.assumptions:
        lows.append((sympy.Integer(0), True))
    for (lo, s1), (hi, s2) in itertools.product(lows, highs):
        s = ctx.sign(hi - lo)
        if s == -1 or (s == 0 and (s1 or s2)):
            return True
    return False


def _regimes(job: _Job, expr: sympy.Expr, over: sympy.Symbol | None, stop: frozenset[str] = frozenset(), record: bool = True) -> list[Regime]:
    assert job.ctx is not None
    names = _names(job, stop)
    raw = _branches(expr, names, [0])
    out: list[Regime] = []
    dropped: list[str] = []
    degenerate: list[tuple[str, sympy.Expr]] = []
    used: dict[str, int] = {}
    for labels, conds, value in raw:
        kept_raw, shown = [], []
        infeasible = False
        for cond in conds:
            rel = cond.relational
            verdict = job.ctx.decide(rel)
            if verdict is True:
                continue
            if verdict is False:
                infeasible = True
                break
            tidy = job.ctx.tidy(rel, over) if cond.h is not None else rel
            if tidy is sympy.false:
                infeasible = True
                break
            if tidy is sympy.true:
                continue
            kept_raw.append(cond)
            if not any(_same_relation(tidy, s) for s in shown):
                shown.append(tidy)
        name = "+".join(dict.fromkeys(labels)) or "all"
        if not infeasible:
            infeasible = _opposed(kept_raw)
        if infeasible or _bounds_infeasible(job.ctx, shown, over):
            dropped.append(name)
            continue
        surface = _surface_only(kept_raw)
        if surface is not None:
            degenerate.append((name, surface))
            continue
        used[name] = used.get(name, 0) + 1
        if used[name] > 1:
            name = f"{name}#{used[name]}"
        feasible = True if not kept_raw else _witness(job.model, kept_raw)
        out.append(Regime(name, tuple(shown), job.ctx.nice(value), tuple(labels), tuple(kept_raw), feasible))
    if record:
        for regime in out:
            cond = sympy.And(*regime.conditions) if regime.conditions else sympy.true
            job.step(f"regime {regime.name}", sympy.Piecewise((regime.expression, cond)),
                     "branch of the nested Min/Max/Piecewise; conditions simplified with the declared signs")
        if dropped:
            job.step("drop infeasible", sympy.Tuple(*[sympy.Symbol(d) for d in dropped]),
                     "their conditions contradict each other or the declared assumptions")
        for name, h in degenerate:
            job.step("drop degenerate", sympy.Eq(h, 0),
                     f"{name}: its conditions {sympy.sstr(h)} >= 0 and {sympy.sstr(-h)} >= 0 hold only on this surface, where "
                     "the tied Min/Max arguments are equal and another regime gives the same value")
        undecided = [r.name for r in out if r.feasible is None]
        if undecided:
            job.step("feasibility undecided", sympy.Tuple(*[sympy.Symbol(n) for n in undecided]),
                     "kept: their conditions are not proved contradictory, but no sample of positive inputs satisfies them all")
    if not out:
        raise errors.DerivationError(f"{job.model.id}: no feasible regime of {job.quantity}")
    return out


def regimes(model: Model, quantity: Any, *, over: str | None = None, substitute: Mapping[str, Any] | None = None,
            assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), omit: Iterable[Any] = (),
            preset: str | None = None, values: Mapping[str, Any] | None = None) -> Derivation:
    """Enumerate the branches of a quantity's nested ``Min``/``Max``/``Piecewise``.

    Args:
        model: the model.
        quantity: a defined quantity, equation id or expression text.
        over: optional variable to solve the conditions for (``alpha >= alu_thru/mem_thru``).
        substitute: symbol -> value/expression substituted first.
        assume: extra assumptions (relations) used to simplify and drop branches.
        stop_at: quantities kept as symbols.
        preset, values: inputs at which to report the active regime(s) (conditions evaluated
            numerically; ``extra["active_regimes"]``, ties listing several).

    Returns:
        A Derivation whose ``result`` is the Piecewise of the feasible regimes and whose
        ``extra["regimes"]`` lists each as ``{name, conditions, expression}``.
    """
    job = _Job(model, "regimes", str(quantity), over or "")
    job.omit = _omit_pairs(omit)
    _context(model, assume, job)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    var = job.symbol(over) if over else None
    found = _regimes(job, expr, var, frozenset(stop_at))
    result = sympy.Piecewise(*[(r.expression, sympy.And(*r.conditions) if r.conditions else sympy.true) for r in found]) \
        if len(found) > 1 else found[0].expression
    job.extra.append(("regimes", [r.to_dict() for r in found]))
    job.extra.append(("regime_objects", found))
    unit = model.unit_text(job.quantity) if job.quantity in model.symbols else ""
    for r in found:
        if unit:
            _check_quiet(job, r.expression, job.quantity)
    if preset is not None or values:
        from symgpu import regimes as regimes_module

        regimes_module.active_regimes(job, found, preset, values or {})
    return _finish_without_objects(job, result, unit, [expr])


def _check_quiet(job: _Job, expr: sympy.Expr, name: str) -> None:
    steps = len(job.steps)
    job.check_unit(expr, name, "regime value")
    del job.steps[steps:]


def _finish_without_objects(job: _Job, result: Any, unit: str, used: Sequence[Any], **kw: Any) -> Derivation:
    objects = [v for k, v in job.extra if k == "regime_objects"]
    job.extra = [(k, v) for k, v in job.extra if k != "regime_objects"]
    derivation = job.finish(result, unit, used=used, **kw)
    if objects:
        object.__setattr__(derivation, "_regimes", objects[0])
    return derivation


def active_regime(model: Model, quantity: str, preset: str | None = None, **values: Any) -> tuple[str, float, str | None, float | None]:
    """(binding limiter or case, value, next bound, how far the next bound is); see
    :func:`symgpu.regimes.active_regime`."""
    from symgpu import regimes as regimes_module

    return regimes_module.active_regime(model, quantity, preset, **values)


def regime_list(derivation: Derivation) -> list[Regime]:
    """The :class:`Regime` objects of a ``regimes`` derivation."""
    return list(getattr(derivation, "_regimes", []))


# ================================================================================ solve
def solve(model: Model, quantity_or_equation: Any, for_: str = "n", *, target: Any = None,
          substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
          stop_at: Iterable[str] = (), omit: Iterable[Any] = (), relation: str = "==", kind: str | None = None,
          case: str | None = None, preset: str | None = None, values: Mapping[str, Any] | None = None,
          **given: Any) -> Derivation:
    """Solve a quantity's equation (or a relation) for ``for_`` in closed form.

    ``quantity_or_equation`` is a defined quantity / equation id (its equation
    ``lhs = rhs`` is solved, the left-hand symbol kept unless ``target`` or a value for it is
    given), an ``Eq(...)``/``a == b`` relation text, or a SymPy relation. Keyword values
    ``given`` are substitutions (``M="N"``, ``alpha=0``).

    Roots are solved over the reals, then filtered by the declared assumptions of the
    variable (dropped roots are recorded); with nested ``Min``/``Max``/``Piecewise`` each
    regime is solved and roots violating its conditions are dropped.

    ``relation`` (``">="``, ``">"``, ``"<="``, ``"<"``) solves the inequality
    ``quantity REL target`` instead, inverting ``floor``/``ceiling`` layer by layer (see
    :mod:`symgpu.inequalities`); the result is the bound on ``for_``, or with ``kind="max"``/
    ``"min"`` the largest/smallest admissible value (an integer for an integer variable).
    ``case`` picks one case of a quantity defined by cases. With ``preset``/``values`` a
    Piecewise result's applying branch is selected and evaluated.

    Raises:
        errors.DerivationError: no admissible root, or a result with the wrong unit.
    """
    job = _Job(model, "solve", str(quantity_or_equation), str(for_))
    job.omit = _omit_pairs(omit)
    _context(model, assume, job)  # records the declared and assumed relations in the job
    subs = dict(substitute or {})
    name_q = str(quantity_or_equation)
    if name_q in model.defining or name_q in model.equations:
        name_q = model.equation_for(name_q).definition.defines
    if name_q in given:
        target = given.pop(name_q)
    subs.update(given)
    expr, lhs = job.quantity_expression(quantity_or_equation, subs, stop_at, case=case)
    var = job.symbol(for_)
    if relation not in ("==", "="):
        return _solve_inequality(job, expr, lhs, var, target, relation, kind)
    if isinstance(expr, sympy.Eq):
        left, right = expr.lhs, expr.rhs
    else:
        left = lhs if target is None else job.parse(target, "target")
        right = expr
        if left is None:
            raise errors.UsageError(f"{model.id}: solving an expression needs a target value (target=...)")
    relation = sympy.Eq(left, right, evaluate=False)
    job.step("equation", relation, "the relation to solve for " + str(var))
    if lhs is not None and var == lhs and target is None:
        root = job.ctx.nice(right)
        unit = job.check_unit(root, var.name, "solution")
        return job.finish(root, unit, used=[root])
    if _has_pieces(right) or _has_pieces(left):
        found = _regimes(job, right - left if not isinstance(left, sympy.Symbol) or _has_pieces(left) else right, var, frozenset(stop_at), record=True) \
            if _has_pieces(left) else _regimes(job, right, var, frozenset(stop_at), record=True)
        pieces = []
        for regime in found:
            eq = sympy.Eq(left if not _has_pieces(left) else 0, regime.expression)
            for root in _solve_for(job, eq, var, f"regime {regime.name}"):
                conds = [job.ctx.tidy(c.relational.xreplace({var: root})) for c in regime.raw]
                if any(c is sympy.false for c in conds):
                    job.step("drop root", sympy.Eq(var, root), f"violates the conditions of regime {regime.name}")
                    continue
                conds = [c for c in conds if c is not sympy.true]
                job.step(f"solve regime {regime.name}", sympy.Eq(var, root), "root of the regime's value equation, inside its conditions" + (" when " + ", ".join(map(sympy.sstr, conds)) if conds else ""))
                pieces.append((root, sympy.And(*conds) if conds else sympy.true, regime.name))
        if not pieces:
            raise errors.DerivationError(f"{model.id}: {sympy.sstr(relation)} has no admissible solution for {var}")
        job.extra.append(("roots", [{"regime": n, "root": r, "when": c} for r, c, n in pieces]))
        result = pieces[0][0] if len(pieces) == 1 else sympy.Piecewise(*[(r, c) for r, c, _ in pieces])
        for r, _, _ in pieces:
            unit = job.check_unit(r, var.name, "solution")
        if isinstance(result, sympy.Piecewise) and (preset is not None or values):
            from symgpu import regimes as regimes_module

            regimes_module.select_branch(job, result, preset, values or {}, [n for _, _, n in pieces])
            job.extra.append(("value_at", _evaluate(model, result, preset, values or {}, model.unit_text(var.name))))
        return job.finish(result, unit, used=[relation])
    roots = _solve_for(job, relation, var, "the equation")
    if not roots:
        raise errors.DerivationError(f"{model.id}: {sympy.sstr(relation)} has no admissible solution for {var}")
    job.step("solve", sympy.Tuple(*[sympy.Eq(var, r) for r in roots]),
             "closed-form root" + ("s" if len(roots) > 1 else "") + " over the reals (sympy.solve), within the declared domain of " + str(var))
    unit = ""
    for root in roots:
        unit = job.check_unit(root, var.name, "solution")
    result = roots[0] if len(roots) == 1 else sympy.Tuple(*roots)
    if len(roots) > 1:
        job.extra.append(("undecided", "several roots remain admissible; their signs are not decided by the declared assumptions"))
    return job.finish(result, unit, used=[relation])


_RELATIONS = {">=": sympy.GreaterThan, ">": sympy.StrictGreaterThan, "<=": sympy.LessThan, "<": sympy.StrictLessThan}


def _solve_inequality(job: _Job, expr: sympy.Basic, lhs: sympy.Expr | None, var: sympy.Symbol, target: Any,
                      relation: str, kind: str | None) -> Derivation:
    """``quantity REL target`` solved for ``var`` by inverting layer by layer."""
    from symgpu import inequalities

    assert job.ctx is not None
    model = job.model
    if relation not in _RELATIONS:
        raise errors.UsageError(f"{model.id}: relation must be one of ==, {', '.join(_RELATIONS)} (got {relation!r})")
    if target is None:
        raise errors.UsageError(f"{model.id}: an inequality needs a target (quantity {relation} target)")
    if _has_pieces(expr):
        raise errors.DerivationError(f"{model.id}: the inequality for {job.quantity} has Min/Max/Piecewise in it; "
                                     "pick one case (case = ...) or a bound")
    bound_to = job.expand(job.parse(target, "target"))
    shown = _RELATIONS[relation](lhs if lhs is not None else expr, bound_to, evaluate=False)
    job.step("inequality", shown, f"the relation to solve for {var}")
    inverted, steps = inequalities.invert(_RELATIONS[relation](expr, bound_to, evaluate=False), var, job.ctx.sign, job.ctx.nonnegative)
    job.steps.extend(steps)
    bound = job.ctx.nice(inverted.rhs)
    inverted = type(inverted)(var, bound)
    job.step("bound", inverted, f"{job.quantity} {relation} {sympy.sstr(bound_to)} exactly when {sympy.sstr(inverted)}")
    result = bound
    if kind in ("max", "min"):
        want_upper = kind == "max"
        if isinstance(inverted, (sympy.LessThan, sympy.StrictLessThan)) != want_upper:
            raise errors.DerivationError(f"{model.id}: {sympy.sstr(inverted)} bounds {var} from "
                                         f"{'below' if want_upper else 'above'}: it has no {kind}imum")
        if var.is_integer:
            result, why = inequalities.integer_extreme(inverted, kind)
            job.step(kind + "imum", sympy.Eq(var, result), f"{var} is declared integer: {why}")
        elif isinstance(inverted, (sympy.StrictLessThan, sympy.StrictGreaterThan)):
            job.extra.append(("supremum", True))
            job.step("supremum" if want_upper else "infimum", sympy.Eq(var, result), "the bound is strict: not attained")
        else:
            job.step(kind + "imum", sympy.Eq(var, result), "the bound is attained")
    job.extra.append(("relation", inverted))
    unit = job.check_unit(bound, var.name, "bound")
    return job.finish(result, unit, used=[expr, bound_to])


# ================================================================================ boundary
def boundary(model: Model, quantity: Any, between: Sequence[str] | None = None, for_: str | None = None, *,
             substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
             stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """Where two regimes of ``quantity`` meet, solved for ``for_`` in closed form.

    Args:
        between: two regime names (see :func:`regimes`); ``None`` takes the only pair when
            there are two regimes, and every pair otherwise (the result is then a dict).
        for_: the variable to solve for.
    """
    if for_ is None:
        raise errors.UsageError("boundary needs the variable to solve for (for_=...)")
    job = _Job(model, "boundary", str(quantity), str(for_))
    job.omit = _omit_pairs(omit)
    _context(model, assume, job)
    name_q = str(quantity)
    stop = tuple(stop_at)
    if between is not None and not stop and name_q in model.defining:
        equation = model.defining[name_q]
        own = {n for n, _ in equation.limiters} | {c.id for c in equation.cases}
        keep = tuple(sorted(s.name for s in equation.rhs.free_symbols if s.name in model.defining))
        if keep and set(between) <= own:
            stop = keep
    expr, _ = job.quantity_expression(quantity, substitute, stop)
    var = job.symbol(for_)
    if stop and not tuple(stop_at):
        job.step("keep symbolic", sympy.Tuple(*[model.symbols[k] for k in stop]),
                 f"the regimes {', '.join(between or ())} are the limiters of {name_q}'s own equation, so its intermediate quantities stay symbols")
    found = _regimes(job, expr, var, frozenset(stop))
    by_name = {r.name: r for r in found}
    if between is not None:
        if len(between) != 2:
            raise errors.UsageError(f"{model.id}: boundary between needs two regime names, got {list(between)}")
        variants = [[r for r in found if r.name == b or r.name.split("#")[0] == b] for b in between]
        missing = [b for b, v in zip(between, variants) if not v]
        if missing:
            raise errors.UsageError(f"{model.id}: boundary between {list(between)}: regimes of {job.quantity} are {', '.join(by_name)}")
        candidates = list(itertools.product(*variants))
        # regimes of the same name differ in the cases of the other Min arguments: prefer a
        # pair in the same case context that one condition separates
        candidates.sort(key=lambda p: (_switch_condition(p[0], p[1], var) is None, not _same_context(p[0], p[1])))
        pairs = [candidates[0]]
    else:
        pairs = list(itertools.combinations(found, 2))
    results: dict[str, Any] = {}
    unit = model.unit_text(var.name)
    for ra, rb in pairs:
        label = f"{ra.name}|{rb.name}"
        try:
            root = _boundary_of(job, ra, rb, var, label)
        except errors.DerivationError:
            if between is not None:
                raise
            continue
        if root is None:
            if between is not None:
                raise errors.DerivationError(f"{model.id}: regimes {ra.name} and {rb.name} of {job.quantity} do not meet at any admissible {var}")
            continue
        for r in (root.args if isinstance(root, sympy.Tuple) else (root,)):
            job.check_unit(r, var.name, "boundary")
        results[label] = root
    if not results:
        raise errors.DerivationError(f"{model.id}: no two regimes of {job.quantity} meet at an admissible {var}")
    result = next(iter(results.values())) if len(results) == 1 else results
    job.extra.append(("boundaries", results))
    return job.finish(result, unit, used=[expr])


def _switch_condition(ra: Regime, rb: Regime, var: sympy.Symbol) -> tuple[_Cond, Regime] | None:
    """The condition (``h > 0`` or ``h >= 0``) of one regime whose opposite is a condition of
    the other: where its sign switches, so does the regime (for Min/Max regimes it compares
    the two arguments; for the cases of a Piecewise it is the case condition). Returns the
    non-strict one of the pair (the regime that takes the tie) and its regime."""
    for ca in ra.raw:
        if ca.h is None or var not in ca.h.free_symbols:
            continue
        for cb in rb.raw:
            if cb.h is not None and (ca.h + cb.h == 0 or sympy.cancel(ca.h + cb.h) == 0):
                return (cb, rb) if ca.strict and not cb.strict else (ca, ra)
    return None


def _same_context(ra: Regime, rb: Regime) -> bool:
    """Do the two regimes share their opaque (case) conditions, such as ``Eq(x, 0)``?"""
    return {c.boolean for c in ra.raw if c.h is None} == {c.boolean for c in rb.raw if c.h is None}


def _boundary_of(job: _Job, ra: Regime, rb: Regime, var: sympy.Symbol, label: str) -> Any:
    """Where ``ra`` switches to ``rb``, solved for ``var`` (None if nowhere admissible)."""
    from symgpu import inequalities

    assert job.ctx is not None
    switch = _switch_condition(ra, rb, var)
    h = switch[0].h if switch is not None else None
    if switch is not None and _has_staircase(h, var):
        cond, owner = switch
        other = rb if owner is ra else ra
        relation = cond.relational
        job.step("switch condition", relation, f"{owner.name} applies where this holds, {other.name} where it fails (the condition that separates them)")
        local = job.ctx.copy()
        context = [c.boolean for c in ra.raw if c.h is None and c.boolean in {d.boolean for d in rb.raw if d.h is None}]
        for condition in context:
            local.add(condition)
        if context:
            job.step("case context", sympy.And(*context), f"conditions shared by {ra.name} and {rb.name}, used to prove signs")
        inverted, steps = inequalities.invert(relation, var, local.sign, local.nonnegative)
        job.steps.extend(steps)
        bound = job.ctx.nice(inverted.rhs)
        inverted = type(inverted)(var, bound)
        job.step(f"boundary {label}", inverted,
                 f"{owner.name} applies exactly when {sympy.sstr(inverted)}, {other.name} on the other side: the threshold is the bound "
                 "(the staircase values stay equal on a whole interval, so the boundary is where the separating condition switches)")
        return bound
    if h is not None:
        roots = _solve_for(job, sympy.Eq(h, 0), var, f"the switching condition {label}")
        if roots:
            root = roots[0] if len(roots) == 1 else sympy.Tuple(*roots)
            job.step(f"boundary {label}", sympy.Eq(var, root),
                     f"{ra.name} and {rb.name} are separated by {sympy.sstr(sympy.GreaterThan(h, 0))}; it switches where {sympy.sstr(h)} = 0")
            return root
    # no single separating condition: where the two values meet
    eq = sympy.Eq(ra.expression, rb.expression)
    if var not in (ra.expression - rb.expression).free_symbols:
        return None
    roots = _solve_for(job, eq, var, f"the boundary {label}")
    if not roots:
        return None
    root = roots[0] if len(roots) == 1 else sympy.Tuple(*roots)
    job.step(f"boundary {label}", sympy.Eq(var, root), f"{ra.name} = {rb.name}: {sympy.sstr(eq)} solved for {var}")
    return root


# ================================================================================ limit
def _lift(ctx: _Context, expr: sympy.Expr) -> sympy.Expr:
    """Move Min/Max outward through sums and positive (or negative) factors."""
    if not _has_pieces(expr) or isinstance(expr, sympy.Piecewise):
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


def _staircase_limit(job: _Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str) -> sympy.Expr:
    """Replace each ``floor(g)``/``ceiling(g)`` of ``var`` by its one-sided limit at ``point``.

    Where ``g(point)`` is an integer n and g is strictly monotone there: approached from
    above (g -> n+) ``floor -> n`` and ``ceiling -> n + 1``; from below ``floor -> n - 1``
    and ``ceiling -> n``. Where ``g(point)`` is not an integer both are continuous."""
    assert job.ctx is not None
    side = 1 if direction == "+" else -1
    mapping = {}
    for node in sorted(expr.atoms(sympy.floor, sympy.ceiling), key=sympy.count_ops):
        g = node.args[0]
        if var not in g.free_symbols:
            continue
        at = job.ctx.nice(g.xreplace({var: point}))
        slope = job.ctx.sign(sympy.diff(g, var).xreplace({var: point}))
        if at.is_integer is True and slope in (1, -1):
            above = slope * side > 0  # g approaches its value at the point from above
            if isinstance(node, sympy.floor):
                value = at if above else at - 1
            else:
                value = at + 1 if above else at
            mapping[node] = value
            job.step("one-sided " + type(node).__name__, sympy.Eq(sympy.Symbol(sympy.sstr(node)), value),
                     f"{sympy.sstr(g)} -> {sympy.sstr(at)} (an integer) from {'above' if above else 'below'} as {var} -> "
                     f"{sympy.sstr(point)}{direction} (its slope in {var} is {'positive' if slope == 1 else 'negative'}): "
                     + ("floor(n + e) = n" if isinstance(node, sympy.floor) and above else
                        "floor(n - e) = n - 1" if isinstance(node, sympy.floor) else
                        "ceiling(n + e) = n + 1" if above else "ceiling(n - e) = n") + " for small e > 0")
        elif at.is_integer is False:
            mapping[node] = node.func(at)
        else:
            raise errors.DerivationError(f"{job.model.id}: cannot decide the one-sided limit of {sympy.sstr(node)} at "
                                         f"{var} = {sympy.sstr(point)}: is {sympy.sstr(at)} an integer?")
    return expr.xreplace(mapping) if mapping else expr


def _side_regime(job: _Job, expr: sympy.Expr, var: sympy.Symbol, point: sympy.Expr, direction: str) -> Regime:
    """The regime of ``expr`` that applies just above (``+``) or below (``-``) ``point``."""
    assert job.ctx is not None
    ctx = job.ctx
    side = 1 if direction == "+" else -1
    found = _regimes(job, expr, var, record=False)
    reasons: list[str] = []
    for regime in found:
        why = []
        ok = True
        for cond in regime.raw:
            if cond.h is None:
                ok = ctx.decide(cond.boolean.xreplace({var: point})) is True
                why.append(sympy.sstr(cond.boolean))
            else:
                at = ctx.nice(cond.h.xreplace({var: point}))
                s0 = ctx.sign(at)
                if s0 == 1:
                    why.append(f"{sympy.sstr(cond.relational)} holds at the point")
                    continue
                if s0 == 0:
                    slope = ctx.sign(sympy.diff(cond.h, var).xreplace({var: point}))
                    if slope is not None and slope * side > 0:
                        why.append(f"{sympy.sstr(cond.relational)}: 0 at the point and increasing towards the {direction} side")
                        continue
                ok = False
            if not ok:
                break
        if ok:
            job.step("select regime", regime.expression,
                     f"{regime.name} applies just {'above' if side == 1 else 'below'} {var} = {sympy.sstr(point)}: " + "; ".join(why))
            return regime
        reasons.append(regime.name)
    raise errors.DerivationError(f"{job.model.id}: no regime of {job.quantity} is proved to apply on the {direction} side of "
                                 f"{var} = {sympy.sstr(point)} (regimes: {', '.join(reasons)})")


def _limit(ctx: _Context, expr: sympy.Expr, var: sympy.Symbol, to: sympy.Expr, direction: str) -> sympy.Expr:
    expr = _lift(ctx, expr)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return expr.func(*[_limit(ctx, a, var, to, direction) for a in expr.args])
    if isinstance(expr, sympy.Piecewise) or _has_pieces(expr):
        raise errors.DerivationError(f"cannot take the limit of the piecewise expression {sympy.sstr(expr)} (no regime is selected as {var} -> {to})")
    return sympy.limit(expr, var, to, direction)


def _parse_to(job: _Job, to: Any) -> sympy.Expr:
    if isinstance(to, sympy.Basic):
        return to
    text = str(to).strip().lower()
    if text in ("oo", "inf", "infinity", "+oo", "+inf"):
        return sympy.oo
    if text in ("-oo", "-inf", "-infinity"):
        return -sympy.oo
    if isinstance(to, (int, float)):
        return _number(to)
    try:
        return _number(text)
    except (TypeError, ValueError):
        return job.parse(str(to), "to")


def limit(model: Model, quantity: Any, var: str, to: Any = "oo", *, direction: str | None = None,
          substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
          stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """Limit of ``quantity`` as ``var`` tends to ``to`` (``"oo"``, ``"0"``, a number or an expression).

    ``Min``/``Max`` are moved outward through sums and factors of known sign, and the
    limit taken argument by argument (they are continuous); positive variables approach
    finite points from above by default.
    """
    job = _Job(model, "limit", str(quantity), str(var))
    job.omit = _omit_pairs(omit)
    ctx = _context(model, assume, job)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    symbol = job.symbol(var)
    point = _parse_to(job, to)
    if direction is None:
        definition = model.symbol_definitions.get(symbol.name)
        direction = "+" if definition and {"positive", "nonnegative"} & set(definition.assumptions) else "+-"
    finite = not point.has(sympy.oo, -sympy.oo, sympy.zoo)
    if finite:
        # a finite point such as MSHRs/M_Read presumes its denominators nonzero
        for sym in sorted(sympy.denom(sympy.together(point)).free_symbols, key=str):
            definition = model.symbol_definitions.get(sym.name)
            if definition is not None and "nonnegative" in definition.assumptions and "positive" not in definition.assumptions:
                ctx.add(sympy.StrictGreaterThan(sym, 0), f"{sym} > 0 (the point {sympy.sstr(point)} is finite)")
    lifted = _lift(ctx, expr)
    if lifted != expr:
        job.step("lift Min/Max", lifted, "sums and factors of known sign moved inside Min/Max (x*Min(a,b) = Min(x*a, x*b) for x > 0)")
    side_text = {"+": " from above", "-": " from below"}.get(direction, "") if finite else ""
    how = " (Min/Max argument by argument: they are continuous)"
    if finite and direction in ("+", "-") and (lifted.has(sympy.Piecewise) or _has_staircase(lifted, symbol)):
        if _has_pieces(lifted):
            lifted = _side_regime(job, lifted, symbol, point, direction).expression
        lifted = _staircase_limit(job, lifted, symbol, point, direction)
        how = " inside the regime that applies on that side"
    try:
        value = _limit(ctx, lifted, symbol, point, direction)
    except (NotImplementedError, ValueError) as exc:
        raise errors.DerivationError(f"{model.id}: SymPy cannot take the limit of {job.quantity} as {var} -> {point}: {exc}") from None
    job.step("limit", value, f"limit as {var} -> {sympy.sstr(point)}" + side_text + how)
    back = ctx.back(_nice(value.xreplace(ctx.forward))) if ctx.forward else value
    result = ctx.nice(back)
    if result != value:
        job.step("simplify", result, "using the given assumptions")
    unit = ""
    if job.quantity in model.symbols:
        unit = job.check_unit(result, job.quantity, "limit")
    return job.finish(result, unit, used=[expr])


def limit_ratio(model: Model, quantity: Any, var: str, to: Any, ratio: Mapping[str, str] | None = None, *,
                substitute: Mapping[str, Any] | None = None, assume: Iterable[Any] | None = None,
                stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """The jump of ``quantity`` across ``var = to``: the ratio of its one-sided limits,
    ``ratio = {"above": "+", "below": "-"}`` (numerator ``above``, denominator ``below``)."""
    sides = dict(ratio or {"above": "+", "below": "-"})
    if set(sides) != {"above", "below"} or not set(sides.values()) <= {"+", "-"}:
        raise errors.UsageError(f"{model.id}: ratio must be {{above = \"+\", below = \"-\"}} (got {sides})")
    common = {"substitute": substitute, "assume": assume, "stop_at": stop_at, "omit": omit}
    upper = limit(model, quantity, var, to, direction=sides["above"], **common)
    lower = limit(model, quantity, var, to, direction=sides["below"], **common)
    if lower.result == 0:
        raise errors.DerivationError(f"{model.id}: the limit of {quantity} from the {sides['below']} side is 0; no ratio")
    job = _Job(model, "limit", str(quantity), str(var))
    job.steps = [Step(f"{sides['above']} side: {s.operation}", s.expression, s.justification) for s in upper.steps] \
        + [Step(f"{sides['below']} side: {s.operation}", s.expression, s.justification) for s in lower.steps]
    result = _nice(upper.result / lower.result)
    job.step("ratio", result, f"({sympy.sstr(upper.result)}) / ({sympy.sstr(lower.result)}): the limit from the "
             f"{sides['above']} side over the limit from the {sides['below']} side")
    job.extra.extend([("above", upper.result), ("below", lower.result)])
    derivation = job.finish(result, "1", used=[upper.result, lower.result])
    return Derivation(derivation.model, derivation.operation, derivation.quantity, derivation.variable, derivation.steps,
                      derivation.result, tuple(dict.fromkeys(upper.assumptions + lower.assumptions)), None, "1",
                      "closed form", derivation.extra)


# ================================================================================ extremum
@dataclass
class _Candidate:
    location: sympy.Expr
    value: sympy.Expr
    origin: str
    conditions: list[sympy.Basic]


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
    ``extra["candidates"]`` lists every form with its conditions).

    Returns:
        Derivation with ``result`` = extreme value, ``location`` = arg-extremum; with a
        preset or values, ``extra`` also carries their numbers.
    """
    if kind not in ("max", "min"):
        raise errors.UsageError(f"extremum kind must be 'max' or 'min', not {kind!r}")
    job = _Job(model, "extremum", str(quantity), str(over))
    job.omit = _omit_pairs(omit)
    ctx = _context(model, assume, job)
    expr, _ = job.quantity_expression(quantity, substitute, stop_at)
    var = job.symbol(over)
    if _has_staircase(expr, var):
        raise errors.DerivationError(
            f"{model.id}: {job.quantity} depends on {var} through floor/ceiling (a staircase): it has no derivative to set "
            f"to zero and its {kind}imum over {var} has no closed form here; ask for thresholds instead "
            f"(solve with relation = \">=\" and kind = \"max\", or boundary)")
    found = _regimes(job, expr, var, frozenset(stop_at), record=_has_pieces(expr))
    want = 1 if kind == "min" else -1  # sign of the second derivative / slope change
    candidates: list[_Candidate] = []
    for regime in found:
        derivative = _small_simplify(sympy.diff(regime.expression, var))
        if var not in derivative.free_symbols and ctx.sign(derivative) not in (None, 0):
            continue
        job.step("differentiate", sympy.Eq(sympy.Derivative(sympy.Function("f")(var), var), derivative),
                 f"slope of {regime.name if len(found) > 1 else job.quantity} in {var}")
        roots = _solve_for(job, sympy.Eq(derivative, 0), var, f"d{regime.name}/d{var} = 0")
        for root in roots:
            local = ctx.copy()
            conds = [local.tidy(c.relational.xreplace({var: root})) for c in regime.raw]
            if any(c is sympy.false for c in conds):
                continue
            second = _small_simplify(sympy.diff(regime.expression, var, 2).xreplace({var: root}))
            s = local.sign(second)
            if s == -want:
                job.step("reject critical point", sympy.Eq(var, root), f"second derivative {sympy.sstr(second)} has the wrong sign for a {kind}")
                continue
            if s is None:
                conds.append(local.tidy(sympy.StrictGreaterThan(second * want, 0)))
            job.step("critical point", sympy.Eq(var, root), f"zero slope; second derivative {sympy.sstr(second)} "
                     + ("proves a " + kind if s == want else "sign kept as a condition"))
            value = job.ctx.nice(regime.expression.xreplace({var: root}))
            candidates.append(_Candidate(root, value, f"critical point of {regime.name}", [c for c in conds if c is not sympy.true]))
    for ra, rb in itertools.combinations(found, 2):
        difference = ra.expression - rb.expression
        if var not in difference.free_symbols:
            continue
        try:
            points = _solve_for(job, sympy.Eq(ra.expression, rb.expression), var, f"{ra.name} = {rb.name}")
        except errors.DerivationError:
            continue
        for point in points:
            candidate = _boundary_candidate(job, ra, rb, var, point, want, kind)
            if candidate is not None:
                candidates.append(candidate)
    if not candidates:
        raise errors.DerivationError(f"{model.id}: {job.quantity} has no {kind}imum over {var} in closed form "
                                     f"(no critical point or regime boundary qualifies; it may be monotone — try limit)")
    # merge identical candidates
    merged: list[_Candidate] = []
    for cand in candidates:
        same = next((m for m in merged if sympy.cancel(m.location - cand.location) == 0), None)
        if same is None:
            merged.append(cand)
        elif len(cand.conditions) < len(same.conditions):
            merged[merged.index(same)] = cand
    merged.sort(key=lambda c: len(c.conditions))
    job.extra.append(("candidates", [{"origin": c.origin, "location": c.location, "value": c.value,
                                      "when": [sympy.sstr(x) for x in c.conditions]} for c in merged]))
    for cand in merged:
        job.check_unit(cand.value, job.quantity, f"{kind}imum value") if job.quantity in model.symbols else None
        _check_quiet(job, cand.location, var.name)
    unconditional = [c for c in merged if not c.conditions]
    if len(merged) == 1 or len(unconditional) == 1:
        best = unconditional[0] if unconditional else merged[0]
        location, value = best.location, best.value
        if best.conditions:
            job.extra.append(("valid_when", [sympy.sstr(c) for c in best.conditions]))
        job.step(kind + "imum", sympy.Eq(var, location), best.origin + (" valid when " + ", ".join(map(sympy.sstr, best.conditions)) if best.conditions else ""))
    else:
        location = sympy.Piecewise(*[(c.location, sympy.And(*c.conditions) if c.conditions else sympy.true) for c in merged])
        value = sympy.Piecewise(*[(c.value, sympy.And(*c.conditions) if c.conditions else sympy.true) for c in merged])
        job.step(kind + "imum", sympy.Eq(var, location), "the form that applies depends on conditions the assumptions do not decide")
    unit = model.unit_text(job.quantity) if job.quantity in model.symbols else ""
    if (preset is not None or values) and isinstance(location, sympy.Piecewise):
        from symgpu import regimes as regimes_module

        regimes_module.select_branch(job, location, preset, values or {}, [c.origin for c in merged])
    if preset is not None or values:
        for key, expr_, unit_ in (("value_at", value, unit), ("location_at", location, model.unit_text(var.name))):
            number = _evaluate(model, expr_, preset, values or {}, unit_)
            job.extra.append((key, number))
    job.extra.append(("location_unit", model.unit_text(var.name)))
    return job.finish(value, unit, location=location, used=[expr])


def _boundary_candidate(job: _Job, ra: Regime, rb: Regime, var: sympy.Symbol, point: sympy.Expr, want: int, kind: str) -> _Candidate | None:
    """Classify the meeting point of two regimes as a cusp extremum (or not)."""
    assert job.ctx is not None
    local = job.ctx.copy()
    conds: list[sympy.Basic] = []
    # the point must be admissible for var
    definition = job.model.symbol_definitions.get(var.name)
    if definition is not None and "positive" in definition.assumptions:
        c = local.tidy(sympy.StrictGreaterThan(point, 0))
        if c is sympy.false:
            return None
        if c is not sympy.true:
            conds.append(c)
            local.add(c)
    side = None  # +1: ra lies to the right of the point
    for regime, sign in ((ra, 1), (rb, -1)):
        for cond in regime.raw:
            if cond.h is None:
                continue
            at = cond.h.xreplace({var: point})
            s0 = local.sign(at)
            if s0 == 0 and var in cond.h.free_symbols:
                if side is None:
                    slope = local.sign(sympy.diff(cond.h, var).xreplace({var: point}))
                    if slope is not None and slope != 0:
                        side = slope * sign
                continue
            rel = sympy.GreaterThan(at, 0)
            verdict = local.decide(rel)
            if verdict is False:
                return None
            if verdict is None:
                tidy = local.tidy(rel)
                if tidy is sympy.false:
                    return None
                if tidy is not sympy.true and not any(_same_relation(tidy, c) for c in conds):
                    conds.append(tidy)
    if side is None:
        return None
    left, right = (rb, ra) if side == 1 else (ra, rb)
    slope_left = _small_simplify(sympy.diff(left.expression, var).xreplace({var: point}))
    slope_right = _small_simplify(sympy.diff(right.expression, var).xreplace({var: point}))
    # max: rising on the left (slope >= 0), falling on the right (slope <= 0); min: the reverse
    need_left = sympy.LessThan(slope_left * want, 0)
    need_right = sympy.GreaterThan(slope_right * want, 0)
    for need in (need_left, need_right):
        verdict = local.decide(need)
        if verdict is False:
            job.step("not a " + kind, sympy.Eq(var, point), f"where {left.name} meets {right.name} the slopes are {sympy.sstr(slope_left)} and {sympy.sstr(slope_right)}")
            return None
        if verdict is None:
            tidy = local.tidy(need)
            if tidy is sympy.false:
                return None
            if tidy is not sympy.true:
                conds.append(tidy)
    # tidy conditions again under the others (drops duplicates, solves through)
    final: list[sympy.Basic] = []
    for c in conds:
        if not any(_same_relation(c, f) for f in final):
            final.append(c)
    value = job.ctx.nice(left.expression.xreplace({var: point}))
    job.step("cusp", sympy.Eq(var, point),
             f"{left.name} (slope {sympy.sstr(slope_left)}) meets {right.name} (slope {sympy.sstr(slope_right)}): "
             f"a {kind} at the regime boundary, not a zero of the derivative" + (" when " + ", ".join(map(sympy.sstr, final)) if final else ""))
    return _Candidate(job.ctx.nice(point), value, f"boundary {left.name}|{right.name}", final)


# ================================================================================ fixed point
def _poles(expr: sympy.Expr, var: sympy.Symbol) -> list[sympy.Expr]:
    poles = []
    for node in sympy.preorder_traversal(expr):
        if node.is_Pow and node.exp.is_negative and var in node.base.free_symbols:
            try:
                if sympy.Poly(node.base, var).degree() == 1:
                    poles.extend(sympy.solve(node.base, var))
            except sympy.PolynomialError:
                continue
    return list(dict.fromkeys(poles))


def fixed_point(model: Model, quantity: Any, variable: str, *, substitute: Mapping[str, Any] | None = None,
                assume: Iterable[Any] | None = None, preset: str | None = None,
                values: Mapping[str, Any] | None = None, method: str = "auto", stop_at: Iterable[str] = (), omit: Iterable[Any] = ()) -> Derivation:
    """Solve the implicit relation ``variable = quantity(variable)``.

    The quantity must be ``Min(g(x), k1, k2, ...)`` (or just ``g(x)``) with the ``k`` free of
    ``x`` and ``g`` decreasing in ``x`` on the physical domain ``(0, first pole)``. Then the
    fixed point is ``Min(r, k1, k2, ...)`` with ``r`` the root of ``x = g(x)`` in the domain.
    When ``x = g(x)`` reduces to a polynomial of degree <= 2, ``r`` is in closed form
    (rationalised so that it has no cancellation and holds at a vanishing leading
    coefficient); otherwise (or with ``method="numeric"``) ``r`` is found numerically with
    ``mpmath.findroot`` (Anderson's bracketing method), which needs a preset or values.
    """
    job = _Job(model, "fixed_point", str(quantity), str(variable))
    job.omit = _omit_pairs(omit)
    ctx = _context(model, assume, job)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    x = job.symbol(variable)
    if x.name in model.symbols and job.quantity in model.symbols and model.dimension(x.name) != model.dimension(job.quantity):
        raise errors.DerivationError(f"{model.id}: {variable} and {job.quantity} have different units; a fixed point needs the same")
    if x not in expr.free_symbols:
        raise errors.DerivationError(f"{model.id}: {job.quantity} does not depend on {variable}; there is no implicit relation")
    job.step("fixed point", sympy.Eq(x, expr), f"the implicit relation: {variable} = {job.quantity}({variable})")
    lifted = _lift(ctx, expr)
    args = list(lifted.args) if isinstance(lifted, sympy.Min) else [lifted]
    g_terms = [a for a in args if x in a.free_symbols]
    bounds = [a for a in args if x not in a.free_symbols]
    if len(g_terms) != 1 or _has_pieces(g_terms[0]):
        raise errors.DerivationError(f"{model.id}: the fixed point needs {job.quantity} = Min(g({variable}), bounds free of {variable}); "
                                     f"got {len(g_terms)} terms depending on {variable}")
    g = g_terms[0]
    if bounds:
        job.step("split", sympy.Eq(x, sympy.Min(g, *bounds)), f"one term g({variable}) depends on {variable}; the bounds {', '.join(map(sympy.sstr, bounds))} do not")
    poles = [p for p in _poles(g, x) if ctx.sign(p) == 1]
    hi = poles[0] if len(poles) == 1 else (sympy.Min(*poles) if poles else sympy.oo)
    definition = model.symbol_definitions.get(x.name)
    lo = sympy.Integer(0) if definition and {"positive", "nonnegative"} & set(definition.assumptions) else -sympy.oo
    domain_ctx = ctx.copy()
    u = sympy.Dummy("u", positive=True)
    inside = hi * u / (1 + u) if hi is not sympy.oo else u
    slope = sympy.diff(g, x)
    s = domain_ctx.sign(slope.xreplace({x: inside})) if lo == 0 else None
    job.step("domain", sympy.And(sympy.StrictLessThan(lo, x), sympy.StrictLessThan(x, hi)) if hi is not sympy.oo else sympy.StrictLessThan(lo, x),
             f"{variable} ranges over (0, {sympy.sstr(hi)}): declared {'positive' if lo == 0 else 'real'}" + (f", below the pole of g at {sympy.sstr(hi)}" if poles else ""))
    if s == -1:
        job.step("monotone", sympy.StrictLessThan(slope, 0), f"g is decreasing in {variable} on the domain (proved from the declared signs)")
    else:
        job.step("monotone", slope, f"g decreasing in {variable} not proved symbolically; the Min argument below assumes it")
    numerator = sympy.numer(sympy.together(x - g))
    numerator = sympy.expand(numerator)
    try:
        poly = sympy.Poly(numerator, x)
        degree = poly.degree()
    except sympy.PolynomialError:
        poly, degree = None, -1
    job.step("polynomial", sympy.Eq(numerator, 0), f"{variable} = g({variable}) cleared of denominators: "
             + (f"a polynomial of degree {degree} in {variable}" if poly is not None else "not a polynomial"))
    root: Any = None
    how = "closed form"
    if poly is not None and degree in (1, 2) and method != "numeric":
        root = _closed_form_root(job, ctx, poly, x, lo, hi)
    if root is None:
        how, number = _numeric_root(job, g, x, lo, hi, bounds, preset, values or {})
        job.step("numeric root", sympy.Eq(x, number), how)
        result_number = min([number] + [_evaluate(model, b, preset, values or {}, model.unit_text(x.name)) for b in bounds])
        job.extra.append(("value_at", result_number))
        job.extra.append(("root_of_g", number))
        unit = model.unit_text(x.name)
        return job.finish(sympy.Float(result_number, 17), unit, method=how, used=[expr])
    result = sympy.Min(root, *bounds) if bounds else root
    if bounds:
        job.step("min with bounds", sympy.Eq(x, result),
                 "g is decreasing, so x = Min(g(x), k) has the solution Min(r, k): if r <= k then x = r; "
                 "if r > k then g(k) > g(r) = r > k, so x = k satisfies x = Min(g(k), k)")
    unit = job.check_unit(root, x.name, "fixed point")
    job.extra.append(("root_of_g", root))
    if preset is not None or values:
        job.extra.append(("value_at", _evaluate(model, result, preset, values or {}, model.unit_text(x.name))))
    return job.finish(result, unit, method=how, used=[expr])


def _closed_form_root(job: _Job, ctx: _Context, poly: sympy.Poly, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr | None:
    coeffs = poly.all_coeffs()
    if len(coeffs) == 2:
        a1, a0 = coeffs
        root = _nice(-a0 / a1)
        job.step("solve", sympy.Eq(x, root), "the relation is linear in " + str(x))
        return root
    a2, a1, a0 = [_nice(c) for c in coeffs]
    disc = _nice(a1**2 - 4 * a2 * a0)
    roots = [(-a1 + s * sympy.sqrt(disc)) / (2 * a2) for s in (1, -1)]
    job.step("quadratic roots", sympy.Tuple(*[sympy.Eq(x, r) for r in roots]), f"p({x}) = {sympy.sstr(poly.as_expr())}; both roots of the quadratic formula")
    p_lo = _nice(poly.as_expr().xreplace({x: lo})) if lo.is_finite else None
    p_hi = _nice(poly.as_expr().xreplace({x: hi})) if hi.is_finite else None
    s_lo = ctx.sign(p_lo) if p_lo is not None else None
    s_hi = ctx.sign(p_hi) if p_hi is not None else None
    if s_lo is not None and s_hi is not None and s_lo * s_hi == -1:
        reason = (f"p({sympy.sstr(lo)}) = {sympy.sstr(p_lo)} and p({sympy.sstr(hi)}) = {sympy.sstr(p_hi)} have opposite signs "
                  f"(proved from the declared signs), so exactly one root of the quadratic lies in ({sympy.sstr(lo)}, {sympy.sstr(hi)})")
    else:
        reason = "the signs of p at the domain ends are not decided; the root inside the domain is identified on samples"
    # which formula? check on random samples of the positive parameters
    choice = _pick_root(roots, x, lo, hi)
    if choice is None:
        job.step("select root", sympy.Tuple(*roots), reason + "; neither formula lies inside the domain for all samples: falling back to a numeric root")
        return None
    selected = roots[choice]
    s = 1 if choice == 0 else -1
    stable = _nice(2 * a0 / (-a1 - s * sympy.sqrt(disc)))
    job.extra.append(("rejected_root", roots[1 - choice]))
    job.step("select root", sympy.Eq(x, selected),
             reason + f"; it is the {'+' if s == 1 else '-'} root (the other lies outside the domain at every sample checked)")
    job.step("rationalise", sympy.Eq(x, stable),
             "multiply by the conjugate (a1**2 - disc = 4*a2*a0): the same root without cancellation, valid also where the x**2 coefficient vanishes")
    return stable


def _pick_root(roots: Sequence[sympy.Expr], x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, samples: int = 24) -> int | None:
    symbols = sorted(set().union(*[r.free_symbols for r in roots]) | (hi.free_symbols if isinstance(hi, sympy.Basic) else set()), key=str)
    rng = random.Random(20160101)
    wins = [0, 0]
    good_samples = 0
    for _ in range(samples * 3):
        values = {s: mpmath.mpf(10) ** rng.uniform(-2, 2) for s in symbols}
        try:
            lo_v = mpmath.mpf(sympy.N(lo.xreplace(values), 30)) if lo.is_finite else -mpmath.inf
            hi_v = mpmath.mpf(sympy.N(hi.xreplace(values), 30)) if hi is not sympy.oo else mpmath.inf
            inside = []
            for r in roots:
                v = sympy.N(r.xreplace(values), 30)
                inside.append(bool(v.is_real) and lo_v < mpmath.mpf(v) < hi_v)
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


def _numeric_root(job: _Job, g: sympy.Expr, x: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr, bounds: Sequence[sympy.Expr],
                  preset: str | None, values: Mapping[str, Any]) -> tuple[str, float]:
    model = job.model
    if preset is None and not values:
        raise errors.DerivationError(f"{model.id}: {x} = g({x}) has no closed form here (not a polynomial of degree <= 2); "
                                     "give a preset or values for a numeric root")
    from symgpu import numeric

    # NOTE: the root is found in coherent base units (prefixes that do not cancel are exact),
    # then expressed in the declared unit of x.
    mags = _base_magnitudes(model, preset, values)
    x_scale = numeric.unit_scale(model.units[x.name])
    g = numeric.base_expression(model, g)
    hi = numeric.base_expression(model, hi) if hi.is_finite else hi
    mapping = {model.symbols[k]: sympy.Rational(repr(float(v))) for k, v in mags.items() if model.symbols[k] in (g.free_symbols | (hi.free_symbols if hi.is_finite else set()))}
    missing = sorted(s.name for s in g.free_symbols - {x} if s not in mapping)
    if missing:
        raise errors.EvaluationError(f"{model.id}: the fixed point needs values for {', '.join(missing)}")
    g_num = g.xreplace(mapping)
    f = sympy.lambdify(x, x - g_num, modules="mpmath")
    lo_v = mpmath.mpf(0) if lo == 0 else None
    hi_v = mpmath.mpf(sympy.N(hi.xreplace(mapping), 40)) if hi.is_finite else None
    if lo_v is None or hi_v is None:
        raise errors.DerivationError(f"{model.id}: no finite bracket for the root of {x} = g({x})")
    with mpmath.workdps(40):
        eps = hi_v * mpmath.mpf(10) ** -30
        a, b = lo_v + eps, hi_v - eps
        fa, fb = f(a), f(b)
        if fa * fb > 0:
            raise errors.DerivationError(f"{model.id}: {x} - g({x}) does not change sign on ({lo_v}, {hi_v}); no bracketed root")
        root = mpmath.findroot(f, (a, b), solver="anderson", tol=mpmath.mpf(10) ** -35)
    how = (f"numeric: mpmath.findroot(solver='anderson') bracketed on (0, {mpmath.nstr(hi_v, 8)}), 40 digits — "
           f"{x} = g({x}) is not a polynomial of degree <= 2, so no closed form is used")
    return how, float(root) / float(x_scale)


# ================================================================================ evaluation
def _base_magnitudes(model: Model, preset: str | None, values: Mapping[str, Any]) -> dict[str, float]:
    from symgpu import numeric

    merged: dict[str, Any] = dict(model.constants)
    if preset is not None:
        merged.update(model.preset(preset))
    for key, value in values.items():
        if key not in model.symbols:
            raise errors.EvaluationError(f"{model.id}: unknown symbol '{key}' (declared: {', '.join(sorted(model.symbols))})")
        merged[key] = value
    return {k: numeric.to_magnitude(model, k, v) * float(numeric.unit_scale(model.units[k])) for k, v in merged.items()}


def _evaluate(model: Model, expr: Any, preset: str | None, values: Mapping[str, Any], unit: str | None = None) -> Any:
    """Magnitude of ``expr`` in ``unit`` (the declared unit it stands for) at a preset / values."""
    from symgpu import numeric

    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    return numeric.evaluate_expression(model, expr, unit or None, preset=preset, values=values).magnitude
def evaluate_result(model: Model, derivation: Derivation, preset: str | None = None, *, which: str = "result",
                    **values: Any) -> pint.Quantity:
    """Evaluate a derivation's result (or ``which="location"``) numerically, with units.

    Values are numbers in the symbols' declared units, pint quantities or quantity strings;
    they override the preset's values.
    """
    if which == "location":
        expr = derivation.location
        unit_name = derivation.variable
        unit = model.unit_text(unit_name) if unit_name in model.symbols else ""
    else:
        expr = derivation.result
        unit = derivation.unit
    from symgpu import numeric

    if not isinstance(expr, sympy.Basic):
        raise errors.EvaluationError(f"{model.id}: the result {expr!r} is not a single expression")
    return numeric.evaluate_expression(model, expr, unit or None, preset=preset, values=values)


# ================================================================================ identities
def simplify_expression(model: Model, expression: Any, *, substitute: Mapping[str, Any] | None = None,
                        assume: Iterable[Any] | None = None, stop_at: Iterable[str] = ()) -> Derivation:
    """Expand an expression's defined quantities through their equations and simplify it.

    ``expression`` is text (parsed by the model's safe parser) or a SymPy expression. The
    result carries no unit check of its own (the expression need not be a declared symbol);
    its dimension is recorded in ``extra["dimension"]``.
    """
    job = _Job(model, "simplify", str(expression))
    ctx = _context(model, assume, job)
    expr, _ = job.quantity_expression(expression, substitute, stop_at)
    result = ctx.nice(expr)
    if result != expr:
        job.step("simplify", result, "sympy.simplify (constants with positive values known positive)")
    try:
        job.extra.append(("dimension", dimensions.show(dimensions.settle(dimensions.dimension_of(result, job.dims())))))
    except dimensions.Mismatch as exc:
        raise errors.DerivationError(f"{model.id}: '{sympy.sstr(expr)}' is dimensionally inconsistent: {exc.problem}") from None
    return job.finish(result, "", used=[expr])


def substitute(model: Model, quantity: Any, substitute: Mapping[str, Any] | None = None, *,
               assume: Iterable[Any] | None = None, stop_at: Iterable[str] = (), case: str | None = None) -> Derivation:
    """A quantity in terms of inputs (quantities in ``stop_at`` kept as symbols), with the
    substitutions ``substitute`` (name -> expression) applied, simplified; ``case`` picks one
    case of a quantity defined by cases."""
    job = _Job(model, "substitute", str(quantity))
    ctx = _context(model, assume, job)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at, case=case)
    result = ctx.nice(expr)
    if result != expr:
        job.step("simplify", sympy.Eq(lhs, result, evaluate=False) if lhs is not None else result,
                 "sympy.simplify (constants with positive values known positive)")
    unit = job.check_unit(result, job.quantity, "result") if job.quantity in model.symbols else ""
    return job.finish(result, unit, used=[expr])


# ================================================================================ requests
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
    common = {"substitute": subs, "assume": assume, "omit": omit, "stop_at": stop}
    op = request.op
    if op == "solve":
        derivation = solve(model, quantity, for_=variable, target=get("target"), relation=str(get("relation", "==")),
                           kind=kind if get("kind") is not None else None, case=get("case"), preset=preset,
                           values=inputs, **common)
    elif op == "boundary":
        between = get("between")
        derivation = boundary(model, quantity, tuple(between) if between else None, for_=variable, **common)
    elif op == "extremum" and get("grid"):
        from symgpu import search

        derivation = search.grid_extremum(model, str(quantity), str(variable), str(get("grid")), kind, preset=preset, values=inputs)
    elif op == "extremum":
        derivation = extremum(model, quantity, over=variable, kind=kind, preset=preset, values=inputs, **common)
    elif op == "limit":
        point = get("to", get("point", "oo"))
        ratio = get("ratio")
        if ratio:
            derivation = limit_ratio(model, quantity, variable, point, dict(ratio), **common)
        else:
            derivation = limit(model, quantity, variable, point, direction=get("direction"), **common)
    elif op == "fixed_point":
        derivation = fixed_point(model, quantity, variable, preset=preset, values=inputs, **common)
    elif op == "regimes":
        derivation = regimes(model, quantity, over=variable, preset=preset, values=inputs, **common)
    elif op == "simplify":
        text = get("expression") or quantity
        if text is None:
            raise errors.UsageError(f"{model.id}: derivation {request.id}: simplify needs an expression")
        derivation = simplify_expression(model, text, substitute=subs, assume=assume, stop_at=stop)
    elif op == "substitute":
        derivation = substitute(model, quantity, subs, assume=assume, stop_at=stop, case=get("case"))
    else:
        raise errors.UsageError(f"{model.id}: derivation {request.id}: operation '{op}' is not supported by the engine")
    ctx = _Context(model)
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


def _equal(a: Any, b: Any, ctx: _Context | None = None) -> bool:
    """``simplify(a - b) == 0`` for expressions (False for anything else); constants with
    positive values are known positive."""
    if not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr):
        return False
    mapping = ctx.constants if ctx is not None else {}
    a, b = a.xreplace(mapping), b.xreplace(mapping)
    if a == b:
        return True
    if _has_pieces(a) or _has_pieces(b):
        if ctx is not None:
            a, b = _lift(ctx, a), _lift(ctx, b)
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


def _install_model_methods() -> None:
    """Make the operations available as methods (``model.solve(...)``, ``model.extremum(...)``)
    once this module is imported; existing attributes of Model are never replaced."""
    from symgpu.model import Model

    for name, function in (("solve", solve), ("regimes", regimes), ("boundary", boundary), ("extremum", extremum),
                           ("limit", limit), ("fixed_point", fixed_point), ("run_request", run_request)):
        if not hasattr(Model, name):
            setattr(Model, name, function)


_install_model_methods()
