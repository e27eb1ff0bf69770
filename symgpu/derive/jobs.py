"""The working state of one derivation: steps, substitutions, assumptions and unit checks (the model's one check of an
expression against a symbol's dimension, :mod:`symgpu.model.counted_dimensions`, the counts of the equations used left out);
also the root solver the operations share (:func:`_solve_for`: roots in the variable's declared domain). A solve's numeric
target is put in by :mod:`symgpu.derive.target_value`, the omitted limiters left out by :mod:`symgpu.derive.omitted_limiters`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pint
import sympy

from symgpu import errors, units
from symgpu.memo import Tally
from symgpu.derive import declared_range, omitted_limiters, result_form, signs, target_value
from symgpu.units import dimensions
from symgpu.evaluate import input_values, one_sided
from symgpu.derive.derivation import Derivation, Extras, Step
from symgpu.model import counted_dimensions
from symgpu.derive.roots import cases as root_cases, real_root_cases, transcendental_in
from symgpu.derive.transcendental_roots import BISECTED, DIGITS
from symgpu.proofs import forms
from symgpu.proofs.signs import SignReasoner

if TYPE_CHECKING:
    from symgpu.model import Model

#: the most characters of an expression a unit-check failure quotes
MAX_SHOWN = 240


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
    ctx: SignReasoner | None = None
    extra: Extras = field(default_factory=Extras)
    omit: tuple[tuple[str, str], ...] = ()
    substituted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    #: (quantity symbol, number): a numeric target in its declared unit, solved with the symbol (its unit checked), put in by :meth:`finish`
    target_value: tuple[sympy.Symbol, sympy.Expr] | None = None
    #: the relations given as ``assume`` (``alpha <= 40``), parsed: one on the variable bounds its domain
    assumed: tuple[sympy.Basic, ...] = ()
    #: inputs put in as 0 at the point a question is asked at (:func:`symgpu.derive.limit_cases.pin_zeros`): the
    #: table of regime names puts them into its terms and case values too, so a regime keeps the model's names
    zeros: dict[sympy.Symbol, sympy.Expr] = field(default_factory=dict)

    def keep(self, stop_at: Iterable[str], *unknowns: Any) -> tuple[str, ...]:
        """``stop_at`` plus every unknown that is itself a defined quantity: the variable asked about stays a symbol."""
        stop = tuple(str(s) for s in stop_at)
        added = [str(u) for u in unknowns if u is not None and str(u) in self.model.defining and str(u) not in stop]
        self.kept.extend(added)
        if added:
            self.step("keep symbolic", sympy.Tuple(*[self.model.symbols[n] for n in added]),
                      f"{', '.join(added)} is the unknown of the question, so its own equation is not substituted")
        return stop + tuple(added)

    def _record_substituted(self, names: Iterable[str]) -> None:
        for name in names:
            if name != self.quantity and name not in self.substituted:
                self.substituted.append(name)

    def step(self, operation: str, expression: Any, justification: str) -> None:
        if not isinstance(expression, sympy.Basic):
            expression = sympy.sympify(expression, strict=True) if not isinstance(expression, (list, tuple)) else sympy.Tuple(*expression)
        self.steps.append(Step(operation, expression, justification))

    def assumptions(self, *symbols_of: Any) -> tuple[str, ...]:
        names: set[str] = set()
        for expr in symbols_of:
            if isinstance(expr, sympy.Basic):
                names |= {s.name for s in forms.free_symbols(expr) if not isinstance(s, sympy.Dummy)}
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
        if self.target_value is not None and isinstance(result, sympy.Basic):
            put = target_value.put(self.model, result, *self.target_value)
            result, self.extra = put.result, self.extra if put.kept is None else self.extra.with_(target_value=put.kept)
            self.steps.append(put.step)
        method = f"{method}, with roots found by bisection" if any(s.operation == BISECTED for s in self.steps) else method
        if isinstance(result, sympy.Basic):  # Min/Max of known constants folded, the unit the formula is written in
            result, unit, steps = result_form.settled(self.model, result, unit)
            self.steps.extend(Step(*step) for step in steps)
        location, self.extra = result_form.settled_where(self.model, location, self.extra, f"{self.operation} of {self.quantity}")
        self.extra = result_form.settled_extras(self.model, self.extra, (self.operation, self.quantity, self.variable), result, location, unit)
        if self.substituted and self.extra.substituted is None:
            self.extra = self.extra.with_(substituted=tuple(self.substituted))
        return Derivation(
            model=self.model.id, operation=self.operation, quantity=self.quantity, variable=self.variable,
            steps=tuple(self.steps),
            result=result, assumptions=self.assumptions(result, location, *used), location=location, unit=unit,
            method=method, extra=self.extra)

    # ---------------------------------------------------------------- expressions
    def parse(self, value: Any, where: str) -> sympy.Basic:
        """A caller value as SymPy: SymPy objects pass, numbers become exact, text goes
        through the model's safe parser, pint quantities are converted only by the caller."""
        if isinstance(value, sympy.Basic):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return forms.exact_number(value)
        if isinstance(value, str):
            return self.model.parse(value, where, boolean=any(op in value for op in ("<", ">", "==")) or value.strip().startswith(("Eq(", "Ne(", "And(", "Or(")))
        raise errors.UsageError(f"{where}: cannot use {value!r} (give a number, a SymPy expression or expression text)")

    def parse_target(self, value: Any, quantity: sympy.Symbol) -> sympy.Basic:
        """A solve target for ``quantity``: what :meth:`parse` reads, or a value with a unit (a
        pint quantity, or text such as ``"500 ns"`` that is no expression of the model) as an
        exact number in ``quantity``'s declared unit.

        Raises:
            errors.UsageError: neither an expression nor a value in a unit of ``quantity``.
        """
        if not isinstance(value, (str, pint.Quantity)):
            return self.model.as_target(self.parse(value, "target"), quantity.name, self.counts)
        if isinstance(value, str):
            try:
                return self.model.as_target(self.parse(value, "target"), quantity.name, self.counts)
            except errors.SymgpuError as problem:
                try:
                    units.quantity(value)
                except (ValueError, pint.UndefinedUnitError):
                    raise problem from None
        try:
            magnitude = input_values.to_magnitude(self.model, quantity.name, value, check=False)
        except errors.EvaluationError as exc:
            raise errors.UsageError(f"target {str(value)!r}: {exc}") from None
        exact = units.exact_magnitude(value, self.model.units.get(quantity.name)) if isinstance(value, str) else None  # 1/33, not its double
        return sympy.Rational(exact) if exact is not None else sympy.nsimplify(magnitude, rational=True)

    def symbol(self, name: Any) -> sympy.Symbol:
        if isinstance(name, sympy.Symbol):
            return name
        return self.model.symbol(str(name))

    def expand(self, expr: sympy.Basic, stop_at: frozenset[str] = frozenset(), *, record: bool = True) -> sympy.Basic:
        """Substitute the defining equations of every defined quantity in ``expr``.

        ``record=False`` for expansions that only name or match terms (regime names, omitted
        limiters): their quantities are not substituted into the expression worked on, so the
        summary's "substituted:" line does not list them."""
        mapping = {}
        for sym in sorted(expr.free_symbols, key=str):  # sorted: the 'substituted' list is the same every run
            if sym.name in self.model.defining and sym.name not in stop_at:
                mapping[sym] = self.model.expression(sym.name, stop_at=stop_at)
                for equation in self.model.dependencies(sym.name, stop_at=stop_at):
                    self.counts.update(c.strip("[]") for c in equation.definition.counts)
                    if record:
                        self._record_substituted([equation.definition.defines])
        return expr.xreplace(mapping) if mapping else expr

    def quantity_expression(self, quantity: Any, substitute: Mapping[str, Any] | None,
                            stop_at: Iterable[str] = (), case: str | None = None) -> tuple[sympy.Expr, sympy.Expr | None]:
        """Return (expression in inputs, left-hand symbol or None) with substitutions applied.

        ``case`` selects one case of a quantity defined by ``cases``: its value replaces the
        Piecewise, and its condition (with the negations of the earlier cases) is assumed."""
        # an intermediate quantity put in by ``substitute`` stays a symbol until it is (expanded, it would not be there to replace)
        stop = frozenset(stop_at) | {name for name in (substitute or {}) if name in self.model.defining and name != quantity}
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
            self._record_substituted(d.definition.defines for d in deps)
            sources = "; ".join(f"{d.id} ({d.definition.source.locator})" for d in deps)
            self.step("definition", sympy.Eq(lhs, equation.rhs, evaluate=False), f"equation {equation.id}, {equation.definition.source}")
            if len(deps) > 1 or rhs != equation.rhs:
                self.step("substitute", sympy.Eq(lhs, rhs, evaluate=False), f"intermediate quantities replaced by their equations: {sources}")
            expr = rhs
        else:  # a name the model does not know is said as eval says it (``equation_for``), not as the model file's fault
            if isinstance(quantity, str) and quantity.strip().isidentifier() and quantity.strip() not in self.model.symbols:
                self.model.equation_for(quantity.strip())
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
                parsed = self.parse(value, f"substitute.{name}")
                self._check_substitution(name, value, parsed)
                mapping[sym] = self.expand(parsed, stop)
            self.substitution.update(mapping)
            try:  # an input put in as 0 where a Min divides by it: the limit from above (evaluate's IEEE inf)
                expr = one_sided.substitute(expr, mapping)
            except errors.EvaluationError as exc:
                raise errors.DerivationError(f"{self.model.id}: substituting into {self.quantity}: {exc}") from None
            shown = sympy.Eq(lhs, expr, evaluate=False) if lhs is not None and not isinstance(expr, sympy.Eq) else expr
            self.step("substitute", shown, "given: " + ", ".join(f"{k} = {sympy.sstr(v)}" for k, v in mapping.items()))
        return expr, lhs

    def _check_substitution(self, name: str, text: Any, parsed: sympy.Basic) -> None:
        """A substitution's value has the dimension of the symbol it replaces (a bare number is read in
        the symbol's declared unit, so it has every dimension).

        Raises:
            errors.UsageError: the dimensions differ, or the value's own are inconsistent.
        """
        if not isinstance(parsed, sympy.Expr) or parsed.is_number:
            return
        fix = f"give {name} a value of its declared unit ({self.model.unit_text(name) or 'dimensionless'}) in --substitute (API: substitute=)"
        where = f"{self.model.id}: substitute {name}={text}: the value"
        self._dimension_as(parsed, name, lambda problem: errors.UsageError(f"{where} is dimensionally inconsistent: {problem}; {fix}"),
                           lambda found, expected: errors.UsageError(f"{where} has dimension {found}, but {name} is {expected}; {fix}"))

    def _omit_terms(self, expr: sympy.Basic, stop: frozenset[str]) -> sympy.Basic:
        """Drop the Min/Max arguments named by ``omit`` ((equation id or "", limiter name) pairs)."""
        pruned = self.without_omitted(expr, stop)
        if pruned == expr:
            raise errors.UsageError(f"{self.model.id}: the terms to omit ({', '.join(n for _, n in self.omit)}) do not occur in {self.quantity}")
        self.step("omit bounds", pruned, "the request drops the bound" + ("s " if len(self.omit) > 1 else " ")
                  + ", ".join(n for _, n in self.omit) + " (a variant of the model)")
        return pruned

    def without_omitted(self, expr: sympy.Basic, stop: frozenset[str]) -> sympy.Basic:
        """``expr`` with the Min/Max arguments named by ``omit`` dropped (``expr`` itself where none occurs); no step
        (:func:`symgpu.derive.omitted_limiters.without`)."""
        return omitted_limiters.without(self.model, self.omit, lambda term: self.expand(term, stop, record=False), expr)

    # ---------------------------------------------------------------- units
    def dims(self) -> Mapping[sympy.Symbol, Any]:
        """Every symbol's dimension, those the equations used count as pure numbers left out."""
        return self.model.uncounted_dims(self.counts)

    def dimension(self, expr: sympy.Basic) -> Any:
        """``expr``'s dimension in :meth:`dims` (:func:`symgpu.model.counted_dimensions.reading`).

        Raises:
            dimensions.Mismatch: no form of ``expr`` read is consistent.
        """
        return counted_dimensions.reading(expr, self.dims())

    def _dimension_as(self, expr: sympy.Basic, name: str, inconsistent: Callable[[str], errors.SymgpuError],
                      differs: Callable[[str, str], errors.SymgpuError]) -> Any:
        """``expr``'s dimension, which must be symbol ``name``'s (the model's one check, :meth:`~symgpu.model.checks.ModelChecks.
        dimension_as`, the counts of the equations used left out); raises ``inconsistent(problem)`` where ``expr``'s own
        dimensions are inconsistent, ``differs(found, expected)`` (shown) where it has another."""
        try:
            return self.model.dimension_as(expr, name, self.counts)
        except dimensions.Mismatch as exc:
            raise inconsistent(exc.problem) from None
        except counted_dimensions.Differs as exc:
            raise differs(exc.found, exc.expected) from None

    def check_unit(self, expr: Any, name: str, what: str, *, step: str = "unit check", about: str = "") -> str:
        """Check that ``expr`` has the dimension of symbol ``name``; return the unit text. The step is labelled ``step``,
        its reason ``about`` first where given (an extremum's value at a candidate: what it is, then its unit checked)."""
        unit = self.model.unit_text(name)
        if not isinstance(expr, sympy.Basic) or expr.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) or expr.is_zero:
            return unit  # a bare 0 (or infinity) has every dimension
        text = sympy.sstr(expr)  # cut, so that the reason after it is never lost in a long expression
        shown = text if len(text) <= MAX_SHOWN else f"{text[:MAX_SHOWN]} … ({len(text)} characters)"
        where = f"{self.model.id}: {what} '{shown}'"
        found = self._dimension_as(expr, name, lambda problem: errors.DerivationError(f"{where} is dimensionally inconsistent: {problem}"),
                                   lambda found, expected: errors.DerivationError(
                                       f"{where} has dimension {found}, but {name} is {expected} (unit {unit}); the model's equations "
                                       "or the request are inconsistent"))
        counted = f" (counting {', '.join(sorted(self.counts))} as pure numbers)" if self.counts else ""
        self.step(step, sympy.Eq(self.model.symbols[name], expr, evaluate=False),
                  f"{about}{'; its ' if about else ''}dimension {dimensions.show(found)} equals the declared unit of {name} [{unit}]{counted}")
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


def start(model: Model, operation: str, quantity: Any, variable: Any = "", *, assume: Iterable[Any] | None = None, omit: Iterable[Any] = ()) -> tuple[_Job, SignReasoner]:
    """Every operation's first step: its job (the ``omit`` limiters left out) and its sign reasoner (declared and ``assume`` relations)."""
    _STARTED.add()
    job = _Job(model, operation, str(quantity), str(variable), omit=_omit_pairs(omit))
    job.assumed = model.in_one_dimension(tuple(job.parse(a, "assume") for a in (assume or ())), _counted(job, quantity))  # BW > peak: refused
    job.ctx = ctx = signs.reasoner(model, list(job.assumed))
    return job, ctx


def _counted(job: _Job, quantity: Any) -> frozenset[str]:
    """The dimensions the equations defining ``quantity`` (a name, or an expression of defined quantities) count as pure numbers
    (:meth:`~symgpu.model.checks.ModelChecks.counted`), before the job expands it; none for text it cannot read (refused later)."""
    if isinstance(quantity, str) and quantity not in job.model.defining and quantity not in job.model.equations:
        try:
            quantity = job.parse(quantity, "quantity")
        except errors.SymgpuError:
            return frozenset()
    return job.model.counted(quantity)


def _domain_ok(job: _Job, var: sympy.Symbol, value: sympy.Expr) -> tuple[bool, str]:
    """Is ``value`` allowed for ``var`` by its declared assumptions? (False only if refuted.)"""
    assert job.ctx is not None
    if value.has(sympy.I) or value.is_real is False:
        return False, "not real"
    if value.has(sympy.zoo, sympy.nan):
        return False, "undefined"
    word = declared_range.of(job.model, var).word
    s = job.ctx.sign(value)
    if word == "positive" and s is not None and s <= 0:
        return False, f"{var} is declared positive but this root is {'zero' if s == 0 else 'negative'}"
    if word == "nonnegative" and s == -1:
        return False, f"{var} is declared nonnegative but this root is negative"
    return True, ""

_STARTED = Tally("derive.jobs.started")  # derivations computed (:func:`start`; none for one the store serves)


def _solve_cases(job: _Job, equation: sympy.Basic, var: sympy.Symbol, label: str) -> list[tuple[sympy.Expr, sympy.Basic]]:
    """Roots of ``equation`` for ``var`` (solved over the reals) as ``[(root, condition)]``, in
    the declared domain of ``var``, with the dropped roots recorded as a step. A root SymPy gives
    only where a condition holds (``Piecewise((r, cond), (nan, True))``) comes with that condition,
    and so does a root of a squared radical equation whose check is left open (:func:`symgpu.derive.roots.real_root_cases`)."""
    return [(root, sympy.And(case, needs)) for root, case, needs in _root_cases(job, equation, var, label)]


def _root_cases(job: _Job, equation: sympy.Basic, var: sympy.Symbol, label: str) -> list[tuple[sympy.Expr, sympy.Basic, sympy.Basic]]:
    """:func:`_solve_cases`' roots as ``(root, case, needs)``: the condition of SymPy's ``Piecewise``
    case and the one its squared check leaves open, apart."""
    assert job.ctx is not None
    found = real_root_cases(equation, var)
    if found is None:
        inside = [sympy.sstr(f) for f in transcendental_in(equation, var)]
        why = (f" ({var} sits inside {', '.join(inside)} and outside it: no closed form; ask at a point that gives every "
               f"other input (--preset, --set) for its roots found numerically, or sweep {var}: "
               f"symgpu sweep {job.model.id} {job.quantity} --grid {var}=START:STOP:STEP ...)"
               if inside else "")
        if inside:
            raise errors.NoClosedForm(f"{job.model.id}: SymPy finds no closed form for {label}: {sympy.sstr(equation)} in {var}{why}",
                                      reason=f"{var} sits inside {', '.join(inside)} and outside it: SymPy finds no closed form")
        raise errors.DerivationError(f"{job.model.id}: SymPy finds no closed form for {label}: {sympy.sstr(equation)} in {var}")
    if found and transcendental_in(equation, var):  # numbers alone: its roots found by bisection (transcendental_roots)
        job.step(BISECTED, sympy.Tuple(*[r for r, _ in found]), f"{label}: {var} sits inside {', '.join(map(sympy.sstr, transcendental_in(equation, var)))} and outside it, no closed form; the roots found numerically between the zeros of its derivative, by bisection to {DIGITS} digits")
    kept: list[tuple[sympy.Expr, sympy.Basic, sympy.Basic]] = []
    dropped: list[tuple[sympy.Expr, str]] = []
    for root, needs in found:
        root = job.ctx.nice(root)
        for value, condition in root_cases(root) or [(root, sympy.true)]:
            ok, why = _domain_ok(job, var, value)
            if ok:
                kept.append((value, condition, needs))
            else:
                dropped.append((value, why))
    if dropped:
        job.step("filter roots", sympy.Tuple(*[r for r, _ in dropped]),
                 "dropped: " + "; ".join(f"{sympy.sstr(r)}: {w}" for r, w in dropped))
    return kept


def _solve_for(job: _Job, equation: sympy.Basic, var: sympy.Symbol, label: str) -> list[sympy.Expr]:
    """The roots of :func:`_solve_cases` that hold unconditionally; a root that holds only under
    a condition of its own is recorded as left out (the callers take roots that always hold). A
    root whose squared check is left open is among them, as ``sympy.solve`` keeps one (the answer's
    checks at points decide it); :func:`_solve_checked` gives it with its condition."""
    return [r for r, _ in _solve_checked(job, equation, var, label)]


def _solve_checked(job: _Job, equation: sympy.Basic, var: sympy.Symbol, label: str) -> list[tuple[sympy.Expr, sympy.Basic]]:
    """:func:`_solve_for`'s roots, each with the condition its squared check leaves open (``true``
    for most): a caller whose root records carry it lets a point's numbers decide it."""
    found = _root_cases(job, equation, var, label)
    conditional = [(r, c) for r, c, _ in found if c is not sympy.true]
    if conditional:
        job.step("filter roots", sympy.Tuple(*[r for r, _ in conditional]),
                 "left out: " + "; ".join(f"{sympy.sstr(r)}: a root only where {sympy.sstr(c)}" for r, c in conditional))
    return [(r, needs) for r, c, needs in found if c is sympy.true]
