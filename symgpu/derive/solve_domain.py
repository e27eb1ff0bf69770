"""Where a solve's answer can hold: the ``valid_when`` domain of its quantity, in the unknown.

A closed-form root of ``quantity = target`` is a root only where the evaluate path gives the
quantity a value: every ``valid_when`` condition of the equations on the way to it holds
(:func:`symgpu.evaluate.evaluator.inside_domain`, :func:`symgpu.evaluate.evaluator.evaluate`).
A quadratic's second root can lie past a pole (Volkov §6.4's loaded latency beyond
``theta_loaded < c``), and an identity or a flat regime ("every value") holds only inside the
domain (Huang's bandwidth delay, ``rho < 1``). Here those conditions are expanded as the solve
expands its quantity, so that a root's (or a range's) own conditions carry them and every
reader of a solve (the command line, the certificate, the differential tester) applies them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import sympy

from symgpu.derive import declared_range, jobs

if TYPE_CHECKING:
    from symgpu.model import Model


def conditions(job: jobs._Job, quantity: Any, var: sympy.Symbol, stop: frozenset[str]) -> tuple[sympy.Basic, ...]:
    """The ``valid_when`` conditions of the equations ``quantity`` is computed from (below the
    kept quantities ``stop``) that depend on ``var``, with intermediate quantities replaced by
    their equations and the job's substitutions put in, as the solve's own expression.
    ``()`` for an expression that is not a defined quantity."""
    model = job.model
    name = str(quantity)
    if name not in model.defining and name not in model.equations:
        return ()
    found: list[sympy.Basic] = []
    for condition in valid_when(model, model.equation_for(name).definition.defines, stop):
        expanded = job.expand(condition, stop, record=False)
        if job.substitution:
            try:
                expanded = expanded.xreplace(job.substitution)
            except (TypeError, ValueError):  # a substitution that leaves the condition undecidable: not a condition in var
                continue
        if not isinstance(expanded, sympy.Basic) or expanded.has(sympy.zoo, sympy.nan) or var not in expanded.free_symbols:
            continue
        tidied = job.ctx.tidy(expanded, var) if job.ctx is not None else expanded  # solved for var where it enters linearly
        if tidied is not sympy.true:
            found.append(tidied)
    return tuple(dict.fromkeys(found))


def valid_when(model: Model, quantity: str, stop: frozenset[str]) -> Iterator[sympy.Basic]:
    """Every ``valid_when`` condition of the equations ``quantity`` is computed from (itself first, below
    the kept quantities ``stop``), as written: each reader expands them its own way (:func:`conditions`,
    :func:`symgpu.derive.extremum_domain.domain_conditions`)."""
    for equation in model.dependencies(quantity, stop_at=stop):
        yield from equation.valid_when


def declared(job: jobs._Job, var: sympy.Symbol) -> tuple[sympy.Basic, ...]:
    """The unknown's declared sign as a relation (``positive``: ``var > 0``; ``nonnegative``:
    ``var >= 0``), and that of every symbol substituted by an expression in it (``--substitute
    M=N-20``, ``M`` positive: ``N - 20 > 0``): the evaluate path refuses a value outside them, so a
    closed-form root outside them (Volkov's ``memory_latency = 250`` solved for ``b``: ``b = -35``
    at Kepler) is no root. A root carries them among its domain conditions; a range answer does not
    (every value of ``var`` it speaks of is one of its declared sign)."""
    out = list(declared_range.of(job.model, var).relations)
    for symbol, value in job.substitution.items():
        if isinstance(value, sympy.Expr) and var in value.free_symbols:
            out.extend(r.xreplace({r.lhs: value}) for r in declared_range.of(job.model, symbol).relations)
    return tuple(r for r in dict.fromkeys(out) if r is not sympy.true)


def at(domain: Sequence[sympy.Basic], var: sympy.Symbol, value: sympy.Basic) -> list[sympy.Basic]:
    """The domain's conditions with ``var`` at ``value`` (a root), those that became ``True`` left out."""
    out = []
    for condition in domain:
        try:
            put = condition.xreplace({var: value})
        except (TypeError, ValueError):  # SymPy cannot order the sides: kept as written, decided numerically at a point
            if not isinstance(condition, sympy.core.relational.Relational):
                continue
            put = condition.func(condition.lhs.xreplace({var: value}), condition.rhs.xreplace({var: value}), evaluate=False)
        if put is not sympy.true:
            out.append(put)
    return out


def inside(job: jobs._Job, domain: Sequence[sympy.Basic], var: sympy.Symbol, root: sympy.Basic) -> list[sympy.Basic] | None:
    """The domain's conditions at ``root`` that the declared assumptions leave open (to be decided
    at a point), or None where one of them is refuted: the root is never inside the domain (a step
    says so)."""
    assert job.ctx is not None
    open_ = []
    for condition in at(domain, var, root):
        verdict = False if condition is sympy.false else job.ctx.decide(condition)
        if verdict is False:
            job.step("drop root", sympy.Eq(var, root), f"outside the domain where the model gives {job.quantity} a value "
                     f"({sympy.sstr(condition)} fails whatever the inputs)")
            return None
        if verdict is None:
            open_.append(condition)
    return open_


def step(job: jobs._Job, domain: Sequence[sympy.Basic], var: sympy.Symbol) -> None:
    """The domain recorded as a step of the derivation (nothing when it is unrestricted)."""
    if domain:
        job.step("domain", sympy.Tuple(*domain),
                 f"the model gives {job.quantity} a value only where these valid_when conditions hold: a root for {var} (or a "
                 "range of them) is one only inside them, so each carries them among its conditions")
