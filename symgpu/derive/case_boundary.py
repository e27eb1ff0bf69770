"""Where a quantity defined by cases switches from one case to another.

The cases of a ``Piecewise`` are chosen by their conditions, first match: between case ``A``
and a later case ``B`` the model switches where ``A``'s condition (the one that separates
them) changes its truth value, which is where one of its relations has a root, while the rest
of the condition lets that relation decide (the other parts of an ``or`` false, of an
``and`` true) and the conditions of the cases before ``A``, between ``A`` and ``B`` and of
``B`` itself leave ``B`` the case on the other side. The values of the two cases need not
meet there (Hong & Kim's Eq. (23)/(24) jump), so solving ``A = B`` answers a different question.

Each root is returned with the conditions under which it is the switch (``when``); a root of
a relation holding a ``Min``/``Max`` is solved on each branch of it, inside that branch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import sympy

from symgpu import errors
from symgpu.memo import Memo
from symgpu.proofs import forms
from symgpu.derive import jobs, regime_conditions, regime_split
from symgpu.derive.extra_records import RootRecord

_NONE = (sympy.true, True)


def case_pair(job: jobs._Job, expr: sympy.Basic, between: Sequence[str],
              stop: frozenset[str]) -> tuple[sympy.Piecewise, int, int] | None:
    """The ``Piecewise`` in ``expr`` that has both of ``between`` among its case ids, and their
    positions (first, second in the order given); None when they are not two cases of one."""
    if len(between) != 2 or between[0] == between[1]:
        return None
    names = regime_split._names(job, stop)
    for node in sympy.preorder_traversal(expr):
        if not isinstance(node, sympy.Piecewise):
            continue
        labels = regime_split.case_labels(names, node)
        if between[0] in labels and between[1] in labels:
            return node, labels.index(between[0]), labels.index(between[1])
    return None


def composite_pair(job: jobs._Job, expr: sympy.Basic, between: Sequence[str],
                   stop: frozenset[str]) -> tuple[sympy.Piecewise, int, int, tuple[sympy.Basic, ...]] | None:
    """Two regimes named ``case+limiter...`` (a case whose value holds a ``Min``/``Max``, as the regime table names it:
    Hong & Kim's ``memory_bound+peak_bandwidth``) in two different cases of one ``Piecewise``: the pair as
    :func:`case_pair` gives it, and for each name the conditions of its limiters, closed (``h >= 0``: at the switch a
    limiter need only bind beside it, so it may tie there), which a root of the case switch must meet. The regimes
    switch where the case condition does, not where their values meet. None where the names are not such a pair (or
    a name is no branch of its case's value)."""
    if len(between) != 2:
        return None
    plain = tuple(b.split("#")[0] for b in between)
    cases = tuple(p.split("+")[0] for p in plain)
    if cases == tuple(between) or cases[0] == cases[1]:
        return None
    pair = case_pair(job, expr, cases, stop)
    if pair is None:
        return None
    piecewise, first, second = pair
    names = regime_split._names(job, stop)
    within: list[sympy.Basic] = []
    for case, name, index in zip(cases, plain, (first, second)):
        options = [conds for labels, conds, _ in regime_split._branches(piecewise.args[index][0], names, [0])
                   if "+".join(dict.fromkeys((case,) + labels)) == name]
        if not options:
            return None
        within.append(sympy.Or(*[sympy.And(*[_closed(c.relational) for c in conds]) for conds in options]))
    return piecewise, first, second, tuple(w for w in within if w is not sympy.true)


def written(job: jobs._Job, between: Sequence[str], stop: frozenset[str]) -> dict[sympy.Basic, str]:
    """The relations of the model's case conditions (of the equation with both cases) as
    expanded in the question -> as the model file writes them (``CWP >= MWP``), for naming roots."""
    out: dict[sympy.Basic, str] = {}
    for equation in job.model.equations.values():
        ids = [c.id for c in equation.cases]
        if not all(b in ids for b in between):
            continue
        for case in equation.cases:
            for atom in _atoms(case.condition, None):
                key = job.expand(atom, stop, record=False).xreplace(job.substitution)
                out.setdefault(key, sympy.sstr(atom))
    return out


def _atoms(condition: sympy.Basic, var: sympy.Symbol | None) -> list[sympy.Basic]:
    """The relations (``Eq`` included) in ``condition`` that depend on ``var`` (any, for None), in order."""
    if isinstance(condition, (sympy.And, sympy.Or, sympy.Not)):
        return list(dict.fromkeys(a for arg in condition.args for a in _atoms(arg, var)))
    if isinstance(condition, sympy.core.relational.Relational) and (var is None or var in condition.free_symbols):
        return [condition]
    return []


def _decides(condition: sympy.Basic, atom: sympy.Basic) -> sympy.Basic:
    """Where ``condition``'s truth follows ``atom``'s: the other parts of an ``or`` false,
    of an ``and`` true (the Boolean derivative of ``condition`` with respect to ``atom``)."""
    if condition == atom:
        return sympy.true
    if isinstance(condition, sympy.Not):
        return _decides(condition.args[0], atom)
    if isinstance(condition, (sympy.And, sympy.Or)):
        inside = [a for a in condition.args if a.has(atom)]
        if len(inside) != 1:  # the atom in several parts: no simple rule; its root is kept unconditioned
            return sympy.true
        others = [a for a in condition.args if a is not inside[0]]
        rest = [o if isinstance(condition, sympy.And) else sympy.Not(o) for o in others]
        return sympy.And(_decides(inside[0], atom), *rest)
    return sympy.true


def _pieces(condition: sympy.Basic) -> list[sympy.Basic]:
    """``condition`` as the conditions that must all hold (an ``And`` split)."""
    if condition in _NONE:
        return []
    return list(condition.args) if isinstance(condition, sympy.And) else [condition]


def switch_roots(job: jobs._Job, piecewise: sympy.Piecewise, first: int, second: int, var: sympy.Symbol,
                 stop: frozenset[str], label: str, names: dict[sympy.Basic, str] | None = None,
                 within: Sequence[sympy.Basic] = ()) -> list[RootRecord]:
    """The roots where ``piecewise`` switches between its cases ``first`` and ``second``, each as
    :class:`~symgpu.derive.extras.RootRecord` (``when``: the conditions, at the root, under which it is the switch).
    ``within``: further conditions on the variable that must hold at a root (the named limiters of
    :func:`composite_pair`), put in there as the other cases' conditions are.

    Raises:
        errors.DerivationError: the separating condition does not depend on ``var``.
    """
    assert job.ctx is not None
    i, j = sorted((first, second))
    conditions = [c for _, c in piecewise.args]
    separating = conditions[i]
    atoms = _atoms(separating, var)
    if not atoms:
        raise errors.DerivationError(f"{job.model.id}: the condition that separates {label.replace('|', ' and ')}, "
                                     f"{sympy.sstr(separating)}, does not depend on {var}: they do not switch as {var} varies")
    job.step("separating condition", separating,
             "the first of the two cases applies where this holds; the later one needs it false (first match): "
             "the boundary is where it switches, not where the two values meet")
    context = ([sympy.Not(c) for c in conditions[:i]] + [sympy.Not(c) for c in conditions[i + 1:j]] + _pieces(conditions[j])
               + list(within))
    found: list[RootRecord] = []
    for atom in atoms:
        h = atom.lhs - atom.rhs
        try:
            branches = regime_split._regimes(job, h, var, stop, record=False, simplified=False, witnessed=False)  # no feasibility read
        except errors.DerivationError:
            continue
        decides = _pieces(_decides(separating, atom))
        for branch in branches:
            # only a value that depends on var is simplified (simplify brings in no symbol)
            if var not in branch.expression.free_symbols:
                continue
            branch = dataclasses.replace(branch, expression=job.ctx.nice(branch.expression))
            if var not in branch.expression.free_symbols:
                continue
            where = f"{sympy.sstr(atom)}" + (f" on its branch {branch.name}" if branch.name != "all" else "")
            try:
                roots = jobs._solve_for(job, sympy.Eq(branch.expression, 0), var, where)
            except errors.DerivationError:
                continue
            for root in roots:
                at = {var: root}
                memo: dict[sympy.Basic, tuple[sympy.Basic, bool]] = {}  # each node put in once for every condition below
                own = [c.xreplace(at, memo).relational for c in _closure(branch, atom, var, root)]
                # the other cases' conditions at the root (their Min/Max rebuilt there), only for a root
                # the branch's own conditions leave (put in once: both checks below read them)
                refuted = any(job.ctx.refuted(c) for c in own if not too_large_to_tidy(c))
                others = [] if refuted else [forms.xreplaced(p, at, memo)[0] for c in decides + context for p in _pieces(c)]
                conds = [sympy.false] if refuted else _tidied(job, own + [_closed(p) for p in others])
                if any(c is sympy.false for c in conds):
                    job.step("drop root", sympy.Eq(var, root), f"a root of {where}, but the cases do not switch there")
                    continue
                when = [c for c in dict.fromkeys(conds) if c is not sympy.true]
                condition = sympy.And(*when) if when else sympy.true
                job.step(f"switch {label}", sympy.Eq(var, root), f"{where} changes there"
                         + (" when " + ", ".join(map(sympy.sstr, when)) if when else ""))
                strict = _tidied(job, [forms.xreplaced(c.relational, at, memo)[0] for c in branch.raw] + others)
                # the cases only tie at the root where a case's own conditions fail there: a switch a point must confirm
                found.append(RootRecord(f"{label} where {(names or {}).get(atom) or sympy.sstr(atom)} switches", root, condition,
                                        tie=any(c is sympy.false for c in strict)))
    return found


#: the most operations (``sympy.count_ops``) of a condition at a root that is decided and tidied (factored): a larger one is
#: kept as it is (a point checks it by its numbers). Hong & Kim's Exec_cycles_app, where eq23 switches to eq24 along Uncoal_Mem_insts,
#: has one of 182 whose factoring ran for minutes
MAX_TIDIED_OPS = 150


#: :func:`too_large_to_tidy`'s verdict per condition: a root's conditions are asked several times over (whether one is refuted,
#: then tidied, for the switch's ``when`` and again for its ``strict`` check), and ``sympy.count_ops`` walks the whole of one at
#: a root with square roots in it each time (Hong & Kim's eq23/eq24 over Uncoal_Mem_insts: 144 counts of 40 conditions)
_TOO_LARGE: Memo[sympy.Basic, bool] = Memo("derive.case_boundary.too_large", 4096)


def too_large_to_tidy(condition: sympy.Basic) -> bool:
    """Has ``condition`` more than :data:`MAX_TIDIED_OPS` operations (kept as it is, decided at a point by its numbers)?
    Memoised per condition (an immutable expression: its count of operations never changes)."""
    found = _TOO_LARGE.get(condition)
    if found is None:
        found = _TOO_LARGE[condition] = sympy.count_ops(condition) > MAX_TIDIED_OPS
    return found


def _tidied(job: jobs._Job, conditions: Sequence[sympy.Basic]) -> list[sympy.Basic]:
    """``tidy_unless_refuted`` of the conditions at a root, each of more than :data:`MAX_TIDIED_OPS` operations kept as it
    is, neither decided nor tidied."""
    assert job.ctx is not None
    if any(job.ctx.refuted(c) for c in conditions if not too_large_to_tidy(c)):
        return [sympy.false]
    return [c if too_large_to_tidy(c) else job.ctx.tidy(c) for c in conditions]


def _closed(condition: sympy.Basic) -> sympy.Basic:
    """A strict relation as its closure (``a > b`` as ``a >= b``): the other cases' conditions at a
    root hold just beside it, so at the root itself they may be tied (Volkov's HK ``Time``: where
    ``CWP`` leaves ``n``, ``CWP = MWP = n``, and ``compute_bound`` needs ``MWP > CWP`` just past it).
    Whether the regimes really switch at a point is checked there (:func:`symgpu.derive.results.applying_boundaries`).
    A negated ``and``/``or`` (the condition of a case between the two, ``Not(CWP >= MWP or ...)``) is closed part by part
    (De Morgan): Hong & Kim's eq22 meets eq24 where ``CWP = MWP = N``, where eq23's ``CWP >= MWP`` holds at the root itself."""
    if isinstance(condition, sympy.Not) and isinstance(condition.args[0], (sympy.And, sympy.Or)):
        parts = [_closed(sympy.Not(a)) for a in condition.args[0].args]
        return sympy.Or(*parts) if isinstance(condition.args[0], sympy.And) else sympy.And(*parts)
    if isinstance(condition, sympy.StrictGreaterThan):
        return sympy.GreaterThan(condition.lhs, condition.rhs)
    if isinstance(condition, sympy.StrictLessThan):
        return sympy.LessThan(condition.lhs, condition.rhs)
    return condition


def _closure(branch: regime_split.Regime, atom: sympy.Basic, var: sympy.Symbol, root: sympy.Expr) -> list[regime_split._Cond]:
    """The branch's conditions for a root of its expression ``h`` that lies on the branch's own
    edge: a strict condition ``g > 0`` with ``g = 0`` at the root fails there, yet the root is a
    switch of ``atom`` when, across the edge, ``h`` leaves 0 on the side that changes the atom's
    truth (the branch on the other side is then flat, ``h = 0``, which has no root of its own).
    That edge condition is replaced by the one for the direction: ``h' * g'`` at the root has
    the sign the relation needs (``<`` and ``>=``: negative; ``>`` and ``<=``: positive; ``Eq``:
    nonzero). A corner (two strict conditions at 0) or a tangent (``h' * g' = 0``) stays dropped."""
    edges = [c for c in branch.raw if c.strict and c.h is not None and var in c.h.free_symbols
             and regime_conditions.cancel_to_zero(c.h.xreplace({var: root}), sympy.Integer(0))]
    if len(edges) != 1 or not isinstance(atom, sympy.core.relational.Relational):
        return list(branch.raw)
    edge = edges[0]
    slope = sympy.diff(branch.expression, var) * sympy.diff(edge.h, var)
    sign = {"<": -1, ">=": -1, ">": 1, "<=": 1}.get(atom.rel_op)
    if sign is None and atom.rel_op not in ("==", "!="):
        return list(branch.raw)
    direction = regime_split._Cond(sign * slope, strict=True) if sign is not None else regime_split._Cond(None, boolean=sympy.Ne(slope, 0))
    return [direction if c is edge else c for c in branch.raw]
