"""Which pairs of regimes a boundary examines: the condition that separates two regimes (:func:`switch_condition`), whether
they lie in the same case context (:func:`same_context`), the refusal of an all-pairs boundary over the cases of a case table
(:func:`refuse_case_pairs`; one pair is answered as if named, :func:`only_case_pair`), and whether both regimes of a pair reach a root of their separating condition (:func:`neighbours_at`):
an all-pairs boundary keeps a pair's root only there (an outside tester's finding, round 13, F1: fits|streams was said to meet
at footprint = L2, where the model goes from fits to spills and streams holds only beyond 4*L2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy
from sympy.core.relational import Relational

from symgpu import errors
from symgpu.proofs import forms
from symgpu.derive import at_point, jobs, point_roots, regime_conditions, regime_split
from symgpu.derive.regime_switch import same_context, switch_condition


def refuse_case_pairs(job: jobs._Job, pairs: Sequence[tuple[regime_split.Regime, regime_split.Regime]], var: sympy.Symbol) -> None:
    """A boundary asked without ``between`` over regimes in different cases of a ``Piecewise`` (their case conditions
    differ, and no one condition separates them) is refused at once: two cases switch where their condition switches,
    which only a named pair looks for (:mod:`.case_boundary`), not where their values meet, which SymPy solved for minutes
    (Hong & Kim's Exec_cycles_app over Uncoal_Mem_insts: eq22, eq23 and eq24 with each MWP limiter)."""
    cases = [(ra, rb) for ra, rb in pairs if not same_context(ra, rb) and switch_condition(ra, rb, var) is None]
    if not cases:
        return
    named = case_names(cases, var)
    example = f" ({', '.join(named)}: e.g. --between {named[0]} {named[1]})" if len(named) >= 2 else ""
    raise errors.DerivationError(
        f"{job.model.id}: {len(cases)} pairs of regimes of {job.quantity} are in different cases of a case table "
        f"({', '.join(f'{ra.name}|{rb.name}' for ra, rb in cases[:3])}{', …' if len(cases) > 3 else ''}): cases switch where their "
        f"condition switches, not where their values meet; name two cases with --between{example} "
        f"(API: boundary(quantity, (case, case), for_={str(var)!r}))")


def case_names(pairs: Sequence[tuple[regime_split.Regime, regime_split.Regime]], var: sympy.Symbol) -> list[str]:
    """The case ids of the pairs :func:`refuse_case_pairs` refuses (regimes in different cases of a case table), in order."""
    cases = [(ra, rb) for ra, rb in pairs if not same_context(ra, rb) and switch_condition(ra, rb, var) is None]
    return list(dict.fromkeys(n for ra, rb in cases for r in (ra, rb) for n in r.terms[:1]))


def only_case_pair(pairs: Sequence[tuple[regime_split.Regime, regime_split.Regime]], var: sympy.Symbol) -> tuple[str, str] | None:
    """The names of the two cases where a boundary asked without ``between`` has exactly one pair of regimes and that pair
    lies in different cases of a case table: with one pair there is nothing to choose, so it is answered as if named
    (an outside tester's finding, round 13c, F10: camp's camped|spread was refused). None otherwise."""
    if len(pairs) != 1:
        return None
    ra, rb = pairs[0]
    if same_context(ra, rb) or switch_condition(ra, rb, var) is not None or not ra.terms or not rb.terms or ra.terms[0] == rb.terms[0]:
        return None
    return ra.terms[0], rb.terms[0]


def neighbours_at(job: jobs._Job, ra: regime_split.Regime, rb: regime_split.Regime, var: sympy.Symbol, root: sympy.Basic,
                  label: str, memos: dict[sympy.Basic, dict[sympy.Basic, Any]] | None = None,
                  point: at_point.Given | None = None) -> sympy.Basic | None:
    """``root`` (a root, or a Tuple of roots) with only the roots where both regimes may hold beside it: no condition
    ``h >= 0`` of either, closed (``h > 0`` read as ``h >= 0``: it holds on one side of the root), is refuted there under
    the assumptions; each root left out said as a step. None where no root is left: the two regimes never meet.
    ``memos``: per root, the substitution's outcome per node (:func:`symgpu.proofs.forms.xreplaced`), which the pairs
    of one question share (their regimes repeat the same conditions and roots). At a ``point`` (a boundary asked there
    without ``between``) ``h`` at the root is first decided with the point's numbers put in exactly
    (:func:`symgpu.derive.point_roots.sign_here`), in symbols only where they leave it undecided."""
    assert job.ctx is not None
    kept: list[sympy.Basic] = []
    memos = {} if memos is None else memos
    for r in root.args if isinstance(root, sympy.Tuple) else (root,):
        memo = memos.setdefault(r, {})
        failing = next(((regime, cond) for regime in (ra, rb) for cond in regime.raw
                        if cond.h is not None and _refuted(job, forms.xreplaced(cond.h, {var: r}, memo)[0], point)), None)
        if failing is None:
            kept.append(r)
            continue
        regime, cond = failing
        where = f" at {at_point.where_text(point.preset, point.values)}" if point is not None else ""
        job.step("not neighbours", sympy.Eq(var, r), f"{ra.name} and {rb.name} do not meet here{where}: {regime.name} holds only where "
                 f"{sympy.sstr(cond.relational)}, which fails at and beside {var} = {sympy.sstr(r)} ({label} dropped)")
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else sympy.Tuple(*kept)


def _refuted(job: jobs._Job, h: sympy.Expr, point: at_point.Given | None) -> bool:
    """Is ``h >= 0`` (``h`` free of the variable: a condition at a root) false: at ``point`` where its numbers decide
    ``h``'s sign, else under the assumptions for every admissible input?"""
    assert job.ctx is not None
    try:
        sign = point_roots.sign_here(job, h, point) if point is not None else None
    except (ValueError, TypeError, ArithmeticError):  # no real number there (a root complex at the point): in symbols
        sign = None
    return sign < 0 if sign is not None else job.ctx.decide(sympy.GreaterThan(h, 0)) is False



def where_both_hold(job: jobs._Job, ra: regime_split.Regime, rb: regime_split.Regime, var: sympy.Symbol, root: sympy.Basic,
                    label: str) -> sympy.Basic:
    """Where two named regimes meet at ``root`` (a root of the condition separating them) when that alone does not make
    them meet: their values free of ``var`` (a case edge inside a limiter: ``q2`` stepping from ``t0`` to ``t0/4`` at
    ``t1 = 2.9`` beside a constant limiter, gen_11_63: q3_b binds below the edge only where t0 >= q3_b, q3_a above only
    where t0/4 < q3_b), or one of them not proved feasible (gen_12_53: q4_b+q5_a needs t0*ceiling(c0/c1) < t0). They
    switch there only where each holds on its side, so their other conditions are the answer's condition, each read on
    its regime's side (the separating relation, inside a case condition too, true on its own side and its opposite
    false), then closed and the root put in. ``True`` elsewhere, where no one condition separates them, or where the
    conditions are proved there."""
    assert job.ctx is not None
    stepped = var not in ra.expression.free_symbols and var not in rb.expression.free_symbols and ra.expression != rb.expression
    if not stepped and ra.feasible is not None and rb.feasible is not None:
        return sympy.true
    pair = next(((ca, cb) for ca in ra.raw for cb in rb.raw if ca.h is not None and cb.h is not None and var in ca.h.free_symbols
                 and regime_conditions.cancel_to_zero(ca.h, cb.h)), None)
    if pair is None:
        return sympy.true
    parts: list[sympy.Basic] = []
    for regime, own in zip((ra, rb), pair):
        assert own.h is not None
        sides = {}  # the separating relation as it may be written inside a case condition, read on this regime's side
        for atom in set().union(*(c.relational.atoms(Relational) for c in regime.raw if c is not own)):
            if var in atom.free_symbols and isinstance(atom, (sympy.StrictGreaterThan, sympy.GreaterThan, sympy.StrictLessThan, sympy.LessThan)):
                g = atom.lhs - atom.rhs if isinstance(atom, (sympy.StrictGreaterThan, sympy.GreaterThan)) else atom.rhs - atom.lhs
                if regime_conditions.cancel_to_zero(g, -own.h):
                    sides[atom] = sympy.true
                elif regime_conditions.cancel_to_zero(g, own.h):
                    sides[atom] = sympy.false
        for cond in regime.raw:
            if cond is own:
                continue
            closed = cond.relational if cond.h is None else sympy.GreaterThan(cond.h, 0)
            parts.append(closed.xreplace(sides).xreplace({var: root}))
    when = sympy.And(*dict.fromkeys(parts))
    if when is sympy.true or job.ctx.decide(when) is True:
        return sympy.true
    why = f"take values free of {var}" if stepped else "are not both proved to hold anywhere"
    job.step(f"where both hold {label}", when, f"{ra.name} and {rb.name} {why}: they switch at {var} = {sympy.sstr(root)}, "
             "a root of the condition separating them, only where each holds on its side of it")
    return when
