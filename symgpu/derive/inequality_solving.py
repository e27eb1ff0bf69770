"""``quantity REL target`` solved for a variable: the inequality inverted layer by layer
(:mod:`symgpu.derive.inequalities`), a rational one first cleared of its denominator (whose
sign must be proved), and the largest or smallest admissible value where asked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sympy

from symgpu import errors
from symgpu.derive import at_point, declared_range, inequalities, inequality_answers, inequality_domain, inequality_roots, jobs, solve_domain, solve_kind, target_value
from symgpu.proofs import forms
from symgpu.derive.derivation import Derivation, Step


_RELATIONS = {">=": sympy.GreaterThan, ">": sympy.StrictGreaterThan, "<=": sympy.LessThan, "<": sympy.StrictLessThan}
_FLIP = {sympy.GreaterThan: sympy.LessThan, sympy.StrictGreaterThan: sympy.StrictLessThan,
         sympy.LessThan: sympy.GreaterThan, sympy.StrictLessThan: sympy.StrictGreaterThan}


def solve_inequality(job: jobs._Job, expr: sympy.Basic, lhs: sympy.Expr | None, var: sympy.Symbol, target: Any,
                     relation: str, kind: str | None, *, quantity: Any = None, stop: frozenset[str] = frozenset(),
                     preset: str | None = None, values: Mapping[str, Any] | None = None, case: str | None = None) -> Derivation:
    """``quantity REL target`` (its case ``case`` where one was picked) solved for ``var`` by inverting layer by layer; with ``kind`` the largest or
    smallest admissible value (:mod:`symgpu.derive.solve_kind`: inside the declared sign and the
    ``valid_when`` domain of ``quantity`` below the kept quantities ``stop``, decided at the point
    ``preset``/``values`` where given)."""
    assert job.ctx is not None
    model = job.model
    if relation not in _RELATIONS:
        raise errors.UsageError(f"{model.id}: relation must be one of ==, {', '.join(_RELATIONS)} (got {relation!r})")
    if target is None:
        raise errors.UsageError(f"{model.id}: an inequality needs a target (quantity {relation} target)")
    # Abs(u) of the variable splits by the sign of u as Max(u, -u) does; a quantity of the variable and constants alone is at a
    # point with no values given
    kinked = forms.has_pieces(expr) or any(var in a.free_symbols for a in expr.atoms(sympy.Abs))
    point = preset is not None or bool(values) or (kinked and at_point.pinned(job, expr, var, None, {}) is not None)
    if kinked and not point:
        raise errors.DerivationError(f"{model.id}: the inequality for {job.quantity} has Min/Max/Piecewise/Abs in it, which is not "
                                     f"inverted layer by layer; {_piece_advice(model, job.quantity, case)}")
    parsed = job.parse_target(target, lhs) if lhs is not None else job.parse(target, "target")
    dimensioned = lhs is not None and lhs.name in model.units and not model.units[lhs.name].dimensionless
    if dimensioned and parsed.is_number and not parsed.is_zero and var != lhs:
        # a value in the quantity's declared unit ("12" or "12 block/SM" blocks per SM): the quantity's symbol stands for
        # it through the inversion and the unit check, and the number goes in at the end, as in an equation's solve
        # (a pure number of a dimensionless quantity goes in at once: its integrality then shapes the inversion)
        job.target_value = (lhs, parsed)
        bound_to: sympy.Expr = lhs
        relation_of = sympy.StrictGreaterThan if parsed > 0 else sympy.StrictLessThan
        job.ctx.add(relation_of(lhs, 0), f"{lhs} = {sympy.sstr(parsed)} {'>' if parsed > 0 else '<'} 0 (the target)")
    else:
        bound_to = job.expand(parsed)
    shown = _RELATIONS[relation](lhs if lhs is not None else expr, parsed if job.target_value else bound_to, evaluate=False)
    job.step("inequality", shown, f"the relation to solve for {var}")
    signs = _signs(job, var, preset, values)
    asked_text = f"{job.quantity} {relation} {_target_text(job, parsed)}"

    def by_regimes() -> Derivation:
        """At a point: the relation split into its regimes and steps there (:mod:`symgpu.derive.inequality_pieces`)."""
        domain = (*solve_domain.conditions(job, quantity, var, stop),
                  *(c for c in job.assumed if isinstance(c, sympy.core.relational.Relational) and var in c.free_symbols))
        return inequality_answers.answer(job, expr, bound_to, var, _RELATIONS[relation], kind, at_point.Given(preset, values or {}),
                                        domain, asked_text)

    if kinked:
        return by_regimes()
    try:
        inverted = _invert_rational(job, _RELATIONS[relation](expr, bound_to, evaluate=False), var, signs,
                                    lambda: solve_domain.conditions(job, quantity, var, stop),
                                    lambda rel: inequality_roots.by_roots(job, rel, var, preset, dict(values or {}), asked_text))
    except errors.NoAnswerHere:
        raise
    except inequality_roots.SeveralCrossings as several:  # the set between the crossings, decided at the point's numbers
        job.step("several crossings", _RELATIONS[relation](expr, bound_to, evaluate=False),
                 f"{several}: the relation is decided between them at the point's numbers")
        try:
            return by_regimes()
        except errors.NoAnswerHere:
            raise
        except errors.DerivationError as error:
            raise errors.DerivationError(f"{model.id}: solving {asked_text} for {var}: {several}; where it holds between them is not "
                                         f"decided: {str(error).removeprefix(f'{model.id}: ')}") from None
    except errors.DerivationError as error:  # every refusal names the model and the question
        said = str(error).removeprefix(f"{model.id}: ")
        named = errors.DerivationError(f"{model.id}: solving {asked_text} for {var}: {said}")
        if not point or not forms.has_staircase(expr, var):
            raise named from None
        # a staircase the symbols leave no layer-by-layer inversion of (1/floor(64/ceiling(t/32)): its divisor's sign): at the point
        job.step("by regimes at the point", _RELATIONS[relation](expr, bound_to, evaluate=False),
                 "no inversion in symbols: the staircase is inverted at the point's numbers, regime by regime")
        try:
            return by_regimes()
        except errors.NoAnswerHere:
            raise
        except errors.DerivationError:  # the inversion's own reason (its advice: an --assume, a value) is the one to give
            raise named from None
    if isinstance(inverted, sympy.logic.boolalg.BooleanAtom):  # the relation does not depend on var (here)
        inverted = _whole_range(job, var, bool(inverted), asked_text, preset, values)
    bound = job.ctx.nice(inverted.rhs)
    inverted = type(inverted)(var, bound, evaluate=False)  # a number the declared sign decides stays a bound
    job.step("bound", inverted, f"{job.quantity} {relation} {sympy.sstr(parsed if job.target_value else bound_to)} exactly when "
             f"{sympy.sstr(inverted)}")
    result = bound
    if kind is None:
        _admissible_somewhere(job, inverted, var, signs, preset, values, asked_text)
    if kind in ("max", "min"):
        domain = solve_domain.conditions(job, quantity, var, stop)
        # an assumption on the variable (--assume 'N <= 50') bounds the answer as a valid_when does
        domain = (*domain, *(c for c in job.assumed if isinstance(c, sympy.core.relational.Relational) and var in c.free_symbols))
        solve_domain.step(job, domain, var)
        at = None
        if preset is not None or values:
            at = {**(values or {}), **({job.target_value[0].name: float(job.target_value[1])} if job.target_value else {})}
        unit = model.unit_text(lhs.name) if dimensioned and lhs is not None and job.target_value else ""
        asked = f"{sympy.sstr(shown)}" + (f" {unit}" if unit not in ("", "1") else "")
        result = solve_kind.extreme(job, inverted, var, kind, domain, at, preset, expr, asked)
    job.extra = job.extra.with_(relation=inverted) if kind in ("max", "min") else job.extra.with_(relation=inverted, bound=True)
    unit = job.check_unit(bound, var.name, "bound")
    if kind in ("max", "min"):
        if result != bound:  # the bound itself was checked just above
            unit = job.check_unit(result, var.name, kind + "imum")
        solve_kind.target_into_conditions(job, result)
    else:  # the bound holds inside the valid_when domain only: at a point the set it leaves there, else said beside it
        domain = solve_domain.conditions(job, quantity, var, stop)
        cut = inequality_domain.cut(job, inverted, var, domain, preset, values or {}, asked_text, [expr, bound_to]) \
            if preset is not None or values else None
        if cut is not None:
            return cut
        if preset is None and not values:
            inequality_domain.stated(job, inverted, var, domain, asked_text)
    return job.finish(result, unit, used=[expr, bound_to])


def _admissible_somewhere(job: jobs._Job, inverted: sympy.Basic, var: sympy.Symbol, signs: Any, preset: str | None,
                          values: Mapping[str, Any] | None, asked: str) -> None:
    """Refuse a bound ``var < bound`` (``<=``) that the declared sign of ``var`` leaves no value under
    (``inst_latency <= -5/4`` for a positive latency), where the assumptions prove the bound's sign or,
    at a point (``preset``/``values``), its numbers decide it; note a lower bound below the declared range
    (every admissible value meets it). The inversion multiplied through by divisors whose sign the declared
    sign proves (``instruction_time*(alpha + 1) > 0`` for a positive ``alpha``), so the bound describes the
    relation over the admissible values only: one outside them is no answer (an outside tester's finding:
    ``warps_needed_refined <= 0.999`` printed ``alpha <= -108501`` for a positive ``alpha``).

    Raises:
        errors.NoAnswerHere: no value of ``var``'s declared sign meets the relation (exit 1)."""
    assert job.ctx is not None
    declared = declared_range.of(job.model, var)  # var's own sign (a substituted symbol's bounds it elsewhere)
    if not declared.relations:
        return
    left = declared.bounded(inverted, signs(inverted.rhs))
    if not left:
        return
    at = {**(values or {}), **({job.target_value[0].name: job.target_value[1]} if job.target_value is not None else {})}
    number = solve_kind.number_at(job, inverted.rhs, job.model.unit_text(var.name), at, preset) \
        if preset is not None or values else None
    shown = sympy.sstr(inverted) if number is None else f"{var} {inverted.rel_op} {number:.10g}"
    where = f" at {at_point.where_text(preset, dict(values or {}))}" if preset is not None or values else " whatever the inputs"
    if left == "none":
        raise errors.NoAnswerHere(f"{job.model.id}: no admissible {var} satisfies {asked}{where}: over the values {var} is declared "
                                  f"to take ({declared.word}) the relation holds only where {shown}, which leaves none (the model "
                                  f"gives no value for {sympy.sstr(declared.relations[0].negated)})")
    job.step("every admissible value", sympy.Tuple(*declared.relations),
             f"{shown} holds for every {var} the model gives a value for ({var} declared {declared.word}): {asked} holds at every "
             f"admissible {var}{where}")


def _whole_range(job: jobs._Job, var: sympy.Symbol, holds: bool, asked: str, preset: str | None,
                 values: Mapping[str, Any] | None) -> sympy.Basic:
    """The answer where the inversion left a relation free of ``var`` (its coefficient is 0: exactly so at the
    point, ``warps_needed_refined <= 1`` at GT200): every admissible value, as the declared range (``alpha > 0``),
    or none (refused saying so).

    Raises:
        errors.NoAnswerHere: the relation holds for no value of ``var`` (exit 1).
        errors.DerivationError: it holds for every value, and ``var`` has no declared sign to state that as a bound."""
    where = f" at {at_point.where_text(preset, dict(values or {}))}" if preset is not None or values else " whatever the inputs"
    if not holds:
        raise errors.NoAnswerHere(f"{job.model.id}: no admissible {var} satisfies {asked}{where}: the relation does not depend on {var} "
                                  f"there (the steps leave {var} with the factor 0) and it is false (--full shows the steps)")
    declared = declared_range.of(job.model, var)
    if not declared.relations:
        raise errors.DerivationError(f"{job.model.id}: {asked} holds for every {var}{where}: the relation does not depend on {var} there "
                                     "(the steps leave it with the factor 0), so it bounds nothing")
    job.step("independent of the variable", declared.relations[0],
             f"the relation does not depend on {var}{where} (the steps leave it with the factor 0) and holds: every {var} the model "
             f"gives a value for ({var} declared {declared.word}) satisfies it")
    return declared.relations[0]


def _target_text(job: jobs._Job, parsed: sympy.Expr) -> str:
    """The target as the question gave it (its number with its unit where the quantity has one)."""
    if job.target_value is None:
        return sympy.sstr(parsed)
    unit = job.model.unit_text(job.target_value[0].name)
    return sympy.sstr(job.target_value[1]) + ("" if unit in ("", "1") else f" {unit}")


def _signs(job: jobs._Job, var: sympy.Symbol, preset: str | None, values: Mapping[str, Any] | None) -> _Signs:
    """The sign reasoner's ``sign``; where it proves none of an expression free of ``var``, the sign with the
    numeric target put in where that reads the same in base units (``instruction_time*(1 - T)`` at ``T = 5`` is
    negative: an outside tester's finding), and at a point (``preset``/``values``) the sign the expression has
    there (exact numbers, the target's included; 0 where it is exactly 0 there, which leaves the relation free of
    ``var``), added to the assumptions the answer states: Hong & Kim's ``Uncoal_per_mw - 1`` is 31 at gtx280 (an
    outside tester's finding: inequalities at a fully given point were refused for a divisor's unproved sign)."""
    at = dict(values or {})
    if job.target_value is not None:
        at[job.target_value[0].name] = job.target_value[1]
    return _Signs(job, var, preset, values is not None and bool(values), at)


@dataclass(frozen=True)
class _Signs:
    """:func:`_signs`: the sign of an expression (``__call__``) and what a refusal for an unproved one advises (``advice``)."""

    job: jobs._Job
    var: sympy.Symbol
    preset: str | None
    given: bool  # values were given (a point, with or without a preset)
    at: Mapping[str, Any]  # the values and the numeric target

    def __call__(self, expr: sympy.Expr) -> int | None:
        job, var = self.job, self.var
        assert job.ctx is not None
        found = job.ctx.sign(expr)
        if found is not None or var in expr.free_symbols or not expr.free_symbols:
            return found
        if job.target_value is not None and job.target_value[0] in expr.free_symbols \
                and target_value.same_in_base_units(job.model, expr, *job.target_value):
            found = job.ctx.sign(expr.xreplace({job.target_value[0]: job.target_value[1]}))
            if found is not None:
                return found
        if self.preset is None and not self.given:
            return None
        return at_point.sign_at(job, expr, var, self.preset, self.at, zero=True)

    def advice(self, expr: sympy.Expr) -> str:
        """Beside ``--assume``: ask at a point, or, asked at one already, what keeps its numbers from deciding ``expr``'s sign."""
        if self.preset is None and not self.given:
            return inequalities.ASK_AT_A_POINT
        where = at_point.where_text(self.preset, {k: v for k, v in self.at.items() if self.job.target_value is None
                                                   or k != self.job.target_value[0].name})
        missing = at_point.unvalued(self.job, expr, self.preset, self.at)
        if missing:
            named = ", ".join(missing)
            return (f"assume the sign of {named} (--assume '{missing[0]} > 0', say): the question is asked at {where}, but there "
                    f"{named} {'has' if len(missing) == 1 else 'have'} no value (a quantity kept as a symbol, --keep, is not "
                    "evaluated at the point), so the point's numbers do not decide it")
        return f"the numbers at {where} do not decide it either (exact arithmetic left its sign open)"


def _invert_rational(job: jobs._Job, relation: sympy.Basic, var: sympy.Symbol, signs: _Signs,
                     domain: Callable[[], tuple[sympy.Basic, ...]] = tuple,
                     crossing: Callable[[sympy.Basic], sympy.Basic] | None = None) -> sympy.Basic:
    """``relation`` inverted layer by layer (:func:`inequalities.invert`); where that cannot
    isolate ``var`` and both sides are rational in it, both sides are first multiplied by
    the common denominator, whose sign must be proved (a negative one flips the relation),
    and the numerator collected as ``a*var + b``; where they are not rational, or the numerator is not
    linear in ``var``, ``crossing`` (:func:`inequality_roots.by_roots`: the equation's roots and the sign
    beside them at a point).
    The steps are recorded in ``job``."""
    assert job.ctx is not None
    try:
        inverted, steps = inequalities.invert(relation, var, signs, job.ctx.nonnegative, signs.advice)
    except errors.DerivationError as error:
        difference = relation.lhs - relation.rhs
        reason: errors.DerivationError = error
        if difference.is_rational_function(var):
            numerator, denominator = sympy.fraction(sympy.together(difference))
            if var in denominator.free_symbols:
                mark = len(job.steps)
                try:
                    cleared = _cleared(job, relation, numerator, denominator, var, signs, domain)
                    inverted, steps = inequalities.invert(cleared, var, signs, job.ctx.nonnegative, signs.advice)
                    job.steps.extend(steps)
                    return inverted
                except errors.NoAnswerHere:
                    raise
                except errors.DerivationError as cleared_error:  # a numerator not linear in var: its roots, at a point
                    del job.steps[mark:]
                    reason = cleared_error
        if crossing is None:
            raise reason from None
        job.steps.append(Step("inversion", relation, f"no layer-by-layer inversion ({reason}): read from the roots of the equation"))
        try:
            return crossing(relation)
        except (errors.NoAnswerHere, inequality_roots.SeveralCrossings):
            raise
        except errors.DerivationError as other:  # the inversion's own reason first (its advice: an --assume)
            raise errors.DerivationError(f"{reason}; {other}") from None
    job.steps.extend(steps)
    return inverted


def _cleared(job: jobs._Job, relation: sympy.Basic, numerator: sympy.Expr, denominator: sympy.Expr,
             var: sympy.Symbol, signs: Any, domain: Callable[[], tuple[sympy.Basic, ...]] = tuple) -> sympy.Basic:
    """``numerator/denominator REL 0`` multiplied by ``denominator`` (its sign proved, or at a point
    decided there: ``signs``; else proved inside the quantity's ``valid_when`` domain, ``domain()``, where
    alone the model gives it a value: ``c - theta > 0`` where ``theta < c``), the numerator collected in
    ``var`` when it is linear in it."""
    assert job.ctx is not None
    op = type(relation)
    sign = signs(denominator)
    den = sympy.sstr(denominator)
    if sign not in (1, -1):
        sign = _sign_in_domain(job, denominator, domain())
    if sign not in (1, -1):
        raise errors.DerivationError(
            f"{job.model.id}: cannot isolate {var} in {sympy.sstr(relation)}: multiplying through by the denominator {den} "
            f"needs its sign, which the assumptions do not prove; add --assume '{den} > 0' (or '< 0'; in a model file's "
            f"request, assume = [\"{den} > 0\"])")
    kept = op if sign == 1 else _FLIP[op]
    job.step("multiply by the denominator", kept(numerator, 0, evaluate=False),
             f"{den} > 0, so multiplying by {den} keeps the direction" if sign == 1
             else f"{den} < 0, so multiplying by {den} flips the direction")
    poly = sympy.Poly(numerator, var)
    if poly.degree() == 1:
        slope, offset = numerator.diff(var), numerator.xreplace({var: sympy.Integer(0)})  # as written, not expanded
        numerator = sympy.Mul(slope, var, evaluate=False) + offset if slope != 1 else var + offset
        job.step("collect", kept(numerator, 0, evaluate=False), f"the numerator is linear in {var}: its terms collected")
    elif poly.degree() < 1:
        raise errors.DerivationError(f"{job.model.id}: {sympy.sstr(kept(numerator, 0))} does not depend on {var}: no bound on {var}")
    else:
        raise errors.DerivationError(f"{job.model.id}: cleared of its denominator, {sympy.sstr(relation)} has a numerator of degree "
                                     f"{poly.degree()} in {var}; only a linear one is isolated (substitute or assume to make it linear)")
    return kept(numerator, 0, evaluate=False)


def _sign_in_domain(job: jobs._Job, expr: sympy.Expr, domain: tuple[sympy.Basic, ...]) -> int | None:
    """The sign of ``expr`` proved with the ``valid_when`` conditions ``domain`` assumed (the model gives the
    quantity no value outside them, so the relation is asked inside them only), recorded as a step; None where
    they prove none (an outside tester's finding: Volkov's ``c - theta`` was refused though ``theta < c``)."""
    assert job.ctx is not None
    if not domain:
        return None
    local = job.ctx.copy()
    used = [c for c in domain if local.add(c)]
    sign = local.sign(expr) if used else None
    if sign in (1, -1):
        job.step("sign in the domain", sympy.Tuple(*used), f"{sympy.sstr(expr)} {'>' if sign == 1 else '<'} 0 where these valid_when conditions "
                 "hold, and the model gives the quantity a value only there")
        return sign
    return None


def _piece_advice(model: Any, quantity: Any, case: str | None = None) -> str:
    """What to ask instead of an inequality over a Min/Max/Piecewise: a case of a quantity defined by
    cases (unless ``case``, the one picked, still has pieces: then not again), else the equation (its
    crossings) or one argument kept with ``omit``."""
    equation = model.equation_for(quantity) if isinstance(quantity, str) and (quantity in model.defining or quantity in model.equations) else None
    crossings = ("ask it at a point (--preset, --set), where each Min/Max/Piecewise argument is inverted at the point's numbers "
                 "and the regimes' answers joined")
    if equation is not None and equation.cases and case is None:
        return f"pick one case (case = {', '.join(c.id for c in equation.cases)}) or a bound"
    if case is not None:
        return (f"its case {case} still has them, through the quantities it reads: {crossings}, or --substitute "
                "the quantity that holds them")
    named = [name for name, _ in equation.limiters] if equation is not None else []
    keep = f" or omit the other limiters ({', '.join(named)}) to keep one" if named else ""
    return f"{crossings}{keep}"
