"""A solve's answers that are not isolated roots, and the records of its roots.

Where the relation holds on whole ranges of the unknown (an identity, a regime whose value does
not depend on it, a relation the unknown dropped out of) the answer is the range, each restricted
to the quantity's ``valid_when`` domain (:mod:`symgpu.derive.solve_domain`): the model gives no
value outside it, so "every value" means every value inside it, and the answer says so. The root
records (``[{regime, root, when, domain}]``) of a closed-form solve carry the domain beside their
regime's conditions, with a numeric target put in where the base units keep its meaning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import sympy

from symgpu import errors
from symgpu.derive import jobs, regime_split, solve_domain, target_value
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import FlatRange, RootRecord, TargetValue
from symgpu.model import substitution


def keep_target(job: jobs._Job) -> None:
    """A numeric target stays the value of its quantity (extra ``target_value``), as in every range."""
    if job.target_value is not None:
        symbol, number = job.target_value
        job.extra = job.extra.with_(target_value=TargetValue(symbol.name, number))
        job.step("target value", sympy.Eq(symbol, number, evaluate=False),
                 f"the target {sympy.sstr(number)} is the value of {symbol} wherever the answer is evaluated")
        job.target_value = None


def every_value(job: jobs._Job, relation: sympy.Basic, var: sympy.Symbol, domain: Sequence[sympy.Basic]) -> Derivation:
    """Both sides are equal whatever ``var`` is: every value inside the domain is a root (``True``
    where the domain does not depend on ``var``)."""
    unit = job.model.unit_text(var.name)
    if not domain:
        job.extra = job.extra.with_(holds_for=sympy.true)  # e.g. a term carrying the unknown vanishes at an input's 0
        job.step("identity", relation, f"both sides are equal whatever {var} is: every {var} is a root")
        return job.finish(sympy.true, unit, used=[relation])
    where = sympy.And(*domain)
    job.step("identity", relation, f"both sides are equal whatever {var} is: every {var} where the model gives "
             f"{job.quantity} a value (its valid_when domain, {sympy.sstr(where)}) is a root")
    job.extra = job.extra.with_(ranges=(FlatRange("every regime", sympy.true, where),))
    job.extra = job.extra.with_(holds_for=where)
    job.extra = job.extra.with_(note=f"the relation holds for every {var} inside the model's valid_when domain, and for none outside it")
    keep_target(job)
    return job.finish(where, unit, used=[relation])


def independent(job: jobs._Job, relation: sympy.Eq, var: sympy.Symbol, domain: Sequence[sympy.Basic]) -> Derivation:
    """The relation does not involve ``var`` (a term carrying it vanished): every value inside the
    domain is a root where the two sides are equal, none elsewhere."""
    equal = sympy.Eq(relation.lhs, relation.rhs, evaluate=False)
    where = sympy.And(*domain)
    job.extra = job.extra.with_(ranges=(FlatRange("every regime", equal, where),))
    holds = sympy.And(equal, where) if domain else equal
    job.extra = job.extra.with_(holds_for=holds)
    keep_target(job)
    job.step("independent of " + str(var), equal, f"the relation does not involve {var}: where it holds every {var} is a root"
             + (f" inside the model's valid_when domain ({sympy.sstr(where)})" if domain else ""))
    return job.finish(holds, job.model.unit_text(var.name), used=[relation])


def flat_only(job: jobs._Job, flats: Sequence[FlatRange], relation: sympy.Basic, var: sympy.Symbol) -> Derivation:
    """Roots only on whole regimes whose value does not depend on ``var``, where their sides are equal."""
    holds = sympy.Or(*[sympy.And(f.equal, f.when) for f in flats])
    job.extra = job.extra.with_(holds_for=holds)
    keep_target(job)
    return job.finish(holds, job.model.unit_text(var.name), used=[relation])


def vanishing_slope(job: jobs._Job, regime: regime_split.Regime, side: sympy.Expr, var: sympy.Symbol,
                    domain: Sequence[sympy.Basic]) -> FlatRange | None:
    """A regime whose value is linear in ``var``, ``slope*var + rest``, with a slope not proved
    nonzero: where the slope is 0 the value does not depend on ``var`` (Baghsorkhi's warp latency in
    its latency regime at ``n = 2``: ``alpha*(2 - n)/n``), and where ``side`` is then its value the
    relation holds on the whole regime, a range of roots that the regime's root (a quotient by the
    slope) does not give. Its flat-regime record (``equal``: slope 0 and equal sides), recorded as
    a step; None where the value is not linear in ``var`` or its slope is proved nonzero."""
    assert job.ctx is not None
    slope = sympy.diff(regime.expression - side, var)
    if slope.is_number or var in slope.free_symbols or job.ctx.sign(slope) in (1, -1):
        return None  # not linear in var, or a slope that is never 0
    slope = sympy.factor(sympy.together(slope))
    # the value at slope 0: linear in var, it is the value at var = 0 (``expression - slope*var`` can keep var where SymPy
    # does not see the two forms cancel: Volkov's ``s_fork*log(ilp/ilp_ref)`` left ``log((1/ilp_ref)**s_fork)``)
    rest = regime.expression.xreplace({var: sympy.Integer(0)})
    if var in rest.free_symbols or rest.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        rest = sympy.cancel(regime.expression - slope*var)
    equal = sympy.And(sympy.Eq(slope, 0), sympy.Eq(side, rest))
    if equal is sympy.false:
        return None
    job.step(f"flat regime {regime.name} where its slope is 0", equal,
             f"in regime {regime.name} the value is linear in {var} with slope {sympy.sstr(slope)}: where that is 0 and the sides "
             f"are equal, every {var} of the regime is a root (the relation holds on a range)")
    return FlatRange(f"{regime.name} (slope 0)", equal, sympy.And(*regime.conditions, *domain))


def solution_set(job: jobs._Job, identities: Sequence[regime_split.Regime], var: sympy.Symbol,
                 relation: sympy.Basic, domain: Sequence[sympy.Basic]) -> Derivation:
    """The relation holds on whole regimes (no isolated root): the result is the range of
    ``var`` where it holds, each regime's conditions solved as bounds on ``var``, and the domain."""
    assert job.ctx is not None
    ranges = []
    for regime in identities:
        uppers: list[sympy.Expr] = []
        lowers: list[sympy.Expr] = []
        others: list[sympy.Basic] = []
        for cond in regime.raw:
            if cond.h is None or var not in cond.h.free_symbols:
                others.append(cond.relational)
                continue
            slope = job.ctx.sign(sympy.diff(cond.h, var))
            roots = jobs._solve_for(job, sympy.Eq(cond.h, 0), var, f"a condition of regime {regime.name}") \
                if slope in (1, -1) and sympy.diff(cond.h, var, 2) == 0 else []
            if len(roots) != 1:
                others.append(cond.relational)
                continue
            (uppers if slope == -1 else lowers).append(job.ctx.nice(roots[0]))
        parts = []
        # each bound SymPy's Min/Max of them, built without SymPy's search where every one is proved kept (min_max)
        if lowers:
            parts.append(sympy.GreaterThan(var, substitution.min_max(sympy.Max, tuple(lowers)), evaluate=False))
        if uppers:
            parts.append(sympy.LessThan(var, substitution.min_max(sympy.Min, tuple(uppers)), evaluate=False))
        parts.extend(others)
        parts.extend(domain)
        for bound in lowers + uppers:
            job.check_unit(bound, var.name, "bound")
        ranges.append(sympy.And(*parts) if parts else sympy.true)
        job.step(f"range of regime {regime.name}", ranges[-1], f"{sympy.sstr(relation)} holds throughout regime {regime.name}"
                 + (", inside the model's valid_when domain" if domain else ""))
    result = ranges[0] if len(ranges) == 1 else sympy.Or(*ranges)
    job.extra = job.extra.with_(ranges=tuple(FlatRange(r.name, sympy.true, w) for r, w in zip(identities, ranges)))
    job.extra = job.extra.with_(holds_for=result)
    job.extra = job.extra.with_(note=f"the relation holds on a whole range of {var}, not at isolated points")
    return job.finish(result, job.model.unit_text(var.name), used=[relation])


def equation_records(job: jobs._Job, roots: Sequence[tuple[sympy.Expr, sympy.Basic]], var: sympy.Symbol,
                     domain: Sequence[sympy.Basic]) -> list[RootRecord]:
    """The roots of an equation without regimes (each with the condition it needs:
    :func:`symgpu.derive.jobs._solve_checked`) as records whose conditions are the domain at each
    root (a root the assumptions put outside it, or whose own condition is refuted, is dropped).

    Raises:
        errors.DerivationError: every root lies outside the domain.
    """
    records = []
    for root, needs in roots:
        if needs is not sympy.true and job.ctx is not None and job.ctx.refuted(needs):
            job.step("drop root", sympy.Eq(var, root), f"a root of the squared equation only: {sympy.sstr(needs)} is refuted")
            continue
        inside = solve_domain.inside(job, domain, var, root)
        if inside is not None:
            if needs is not sympy.true:
                job.step("root of the squared equation", needs,
                         f"{var} = {sympy.sstr(root)} solves the equation with its square root squared away; it solves the equation "
                         "itself only where this holds (elsewhere the square root's sign is wrong), which the declared assumptions "
                         "leave open: at a point its numbers decide")
            records.append(RootRecord("the equation", root, needs, sympy.And(*inside)))
    if not records:
        raise errors.DerivationError(f"{job.model.id}: every root for {var} lies outside the domain where the model gives {job.quantity} "
                                     f"a value (declared signs of {var} and of what it replaced, valid_when): no admissible solution")
    return records


def target_into(job: jobs._Job, records: list[RootRecord]) -> list[RootRecord]:
    """``records`` with the numeric target put in where the base units keep its meaning (as
    :meth:`jobs._Job.finish` does for the result); elsewhere the target stays the value of its
    quantity for the records, the ranges and the result alike."""
    if job.target_value is None:
        return records
    symbol, number = job.target_value
    put = {symbol: number}
    sides = [r.lhs - r.rhs for d in records for condition in (d.when, d.inside, d.conditions if d.conditions is not None else sympy.true)
             for r in condition.atoms(sympy.core.relational.Relational)]
    if not all(target_value.same_in_base_units(job.model, e, symbol, number) for e in [d.root for d in records] + sides):
        keep_target(job)
        return records
    if job.extra.ranges is not None:
        job.extra = job.extra.with_(ranges=tuple(dataclasses.replace(f, equal=f.equal.xreplace(put)) for f in job.extra.ranges))
    return [dataclasses.replace(d, root=d.root.xreplace(put), when=d.when.xreplace(put), domain=d.inside.xreplace(put),
                                conditions=None if d.conditions is None else d.conditions.xreplace(put)) for d in records]


def no_solution(model_id: str, relation: sympy.Basic, var: sympy.Symbol) -> errors.DerivationError:
    """The refusal of a relation with no admissible root for ``var``, in one readable line: the relation as
    ``quantity = value``, a long value cut short with its length said."""
    said = f"{sympy.sstr(relation.lhs)} = {sympy.sstr(relation.rhs)}" if isinstance(relation, sympy.Eq) else sympy.sstr(relation)
    if len(said) > 160:
        said = f"{said[:150]}… ({len(said)} characters)"
    return errors.DerivationError(f"{model_id}: {said} has no admissible solution for {var} (no root of it meets the regimes' "
                                  f"conditions, the declared range of {var} and the valid_when domain); sweep the quantity over {var} for "
                                  "the values it takes")
