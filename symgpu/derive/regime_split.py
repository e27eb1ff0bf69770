"""Regimes of a piecewise quantity: the branches of its nested ``Min``/``Max``/``Piecewise``.

Branch enumeration, condition tidying and feasibility checks, and the public
:func:`regimes` operation. (:mod:`symgpu.evaluate.active` picks the regime active at given inputs.)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import sympy

from symgpu import errors, suggest, textfiles
from symgpu.memo import memoised
from symgpu.derive import feasibility, name_reads
from symgpu.derive import jobs
from symgpu.derive.derivation import Derivation
from symgpu.derive.extra_records import RegimeRow
from symgpu.evaluate import active, evaluator
from symgpu.derive import at_point
# NOTE: _Cond is also used through regime_split by case_boundary, solving and stored
from symgpu.derive.regime_conditions import _Cond, _conds_of, _covering_sibling, _opposition, _tied
from symgpu.proofs import forms, relations, whole_parts
from symgpu.proofs.signs import SignReasoner
from symgpu.units import dimensions

if TYPE_CHECKING:
    from symgpu.model import Model

#: the most branches enumerated before a nested Min/Max/Piecewise is refused
MAX_BRANCHES = 512


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
    # the value as its branch builds it, before it is simplified: read by the unit check of a table just split,
    # not stored with a cached derivation and not compared
    built: sympy.Expr | None = field(default=None, compare=False, repr=False)

    def row(self) -> RegimeRow:
        """The regime as a row of the regimes table (conditions and value as text)."""
        return RegimeRow(self.name, tuple(_text(c) for c in self.conditions), _text(self.expression), tuple(self.terms), self.feasible)


@memoised("derive.regime_split.text", 8192)
def _text(condition: sympy.Basic) -> str:
    """``sympy.sstr`` of one regime condition or value (memoised: the regimes of a quantity share most of theirs)."""
    return sympy.sstr(condition)


def _names(job: jobs._Job, stop: frozenset[str] = frozenset()) -> name_reads.NameTable:
    """Expanded limiter terms and case values -> their names (from every equation that has limiters or cases; each lookup in
    the table is recorded for the derivation store, :mod:`.name_reads`)."""
    put = {**job.substitution, **job.zeros}
    names = name_reads.NameTable(name_reads.Context(str(job.quantity), tuple(sorted(stop)), tuple(put.items())))
    deps = []
    try:
        deps = [e.id for e in job.model.dependencies(job.quantity, stop_at=stop)] if job.quantity in job.model.defining else []
    except errors.UsageError:
        deps = []
    # an equation with neither limiters nor cases names nothing: not read (a question's model builds only what it reads)
    naming = [d.id for d in job.model.definition.equations if d.limiters or d.cases]
    ordered = [job.model.equations[i] for i in deps if i in naming] + [job.model.equations[i] for i in naming if i not in deps]
    reached = frozenset(deps)
    own: set[sympy.Basic] = set()  # case values named by a case of an equation the quantity reads
    for equation in ordered:
        for name, term in equation.limiters:
            expanded = job.expand(term, stop, record=False)
            key = expanded.xreplace(put)
            names.setdefault(("term", key), name)
            if job.omit:  # the term as the omission leaves it (t_math without P_sustained's power_bound)
                try:
                    names.setdefault(("term", job.without_omitted(expanded, stop).xreplace(put)), name)
                except errors.UsageError:  # the omission empties a Min/Max of the term: that term is gone
                    pass
        for case in equation.cases:
            key = job.expand(case.value, stop, record=False).xreplace(put)
            if ("case", key) not in names:
                names[("case", key)] = case.id
                if equation.id in reached:
                    own.add(key)
            elif names[("case", key)] != case.id and (key not in own or equation.id in reached):
                # cases of two tables with this value (occupancy's 0 blocks), both read by the quantity or neither: it
                # names neither; a case the quantity reads keeps its name beside one of an equation it does not read
                # (the dependencies come first)
                names[("case", key)] = AMBIGUOUS
        for index, case_id in _case_table(job, equation, stop, put):
            names.setdefault(("cases", index), case_id)
    for (kind, key), name in names.items():  # the case tables by their conditions, once (read by each Piecewise: _table_ids)
        if kind == "cases":
            names.case_tables.setdefault(key[0], {})[int(key[1])] = name
    return names


def _case_table(job: jobs._Job, equation: Any, stop: frozenset[str], put: Mapping[sympy.Basic, sympy.Basic]) -> list[tuple[sympy.Tuple, str]]:
    """An equation's case table by its conditions as a whole, as SymPy states them in a ``Piecewise`` (relations made
    canonical, false cases and those after a true one dropped): ((conditions, position), case id) for each case left. A
    case keeps its id where arithmetic outside the table changes its value (SymPy moves ``n/Time`` into the pieces,
    ``Piecewise((n/(mem_lat + Comp_p), ...), ...)``, and leaves the conditions as they are)."""
    if not equation.cases:
        return []
    marks = [sympy.Dummy(f"case{index}") for index in range(len(equation.cases))]  # distinct values: no pieces merged
    table = sympy.Piecewise(*[(mark, job.expand(case.condition, stop, record=False).xreplace(put))
                              for mark, case in zip(marks, equation.cases)])
    if not isinstance(table, sympy.Piecewise):
        return []
    conditions = sympy.Tuple(*[condition for _, condition in table.args])
    return [(sympy.Tuple(conditions, sympy.Integer(k)), equation.cases[marks.index(value)].id)
            for k, (value, _) in enumerate(table.args) if value in marks]


#: the name of a case value that cases of different ids share: a lookup of it gives the generated name
AMBIGUOUS = ""


def _lookup(names: Mapping[Any, str], kind: str, key: sympy.Basic, fallback: str) -> str:
    if isinstance(names, name_reads.NameTable):
        name_reads.note(names, kind, key)
    if (kind, key) in names:
        return names[(kind, key)] or fallback
    for (k, expr), name in names.items():
        if k == kind and isinstance(expr, sympy.Basic) and expr.free_symbols == key.free_symbols:
            try:
                if sympy.cancel(expr - key) == 0:
                    return name or fallback
            except (TypeError, ValueError, sympy.PolynomialError):
                continue
    return fallback


def case_labels(names: Mapping[Any, str], node: sympy.Piecewise) -> list[str]:
    """The names of ``node``'s pieces: the case ids of the model's case table whose conditions ``node`` has (SymPy
    moves arithmetic on a case table into its values, ``n/Time`` as ``Piecewise((n/(mem_lat + Comp_p), ...), ...)``,
    but leaves the conditions), else each value looked up among the cases' values, else ``piece<k>``."""
    by_table = _table_ids(names, tuple(condition for _, condition in node.args))
    return [by_table[k] or _lookup(names, "case", value, f"piece{k + 1}") for k, (value, _) in enumerate(node.args)]


def _table_ids(names: Mapping[Any, str], conditions: tuple[sympy.Basic, ...]) -> list[str | None]:
    """The case ids of the first case table (in the name table's order) whose conditions are ``conditions``, in order
    (:func:`_case_table`); None for each where no table's are."""
    if isinstance(names, name_reads.NameTable):
        name_reads.note(names, "cases", sympy.Tuple())  # every case table is read (a class of its own: name_reads.class_of)
        tables = names.case_tables
    else:
        tables = {}
        for (kind, key), name in names.items():
            if kind == "cases" and isinstance(key, sympy.Tuple) and len(key) == 2:
                tables.setdefault(key[0], {})[int(key[1])] = name
    ids = tables.get(sympy.Tuple(*conditions))
    if ids is None:
        return [None] * len(conditions)
    return [ids.get(k) for k in range(len(conditions))]


def _branches(expr: sympy.Basic, names: Mapping[Any, str], counter: list[int]) -> list[tuple[tuple[str, ...], tuple[_Cond, ...], sympy.Expr]]:
    """All (labels, conditions, value) branches of ``expr``."""
    if not forms.has_pieces(expr):
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
                within = list(base)
                for j, other in enumerate(values):
                    if j == i:
                        continue
                    h = other - value if kind == "Min" else value - other
                    within.append(_Cond(h, strict=j < i))
                label = _lookup(names, "term", args[i], f"{kind.lower()}_arg{i + 1}")
                out.append((labels + (label,), tuple(within), value))
            if len(out) > MAX_BRANCHES:
                raise errors.DerivationError(f"more than {MAX_BRANCHES} branches: the expression is too nested to enumerate")
        return out
    if isinstance(expr, sympy.Piecewise):
        out = []
        previous: list[sympy.Basic] = []
        labels_here = case_labels(names, expr)
        for index, (value, condition) in enumerate(expr.args):
            conds = tuple(c for p in previous for c in _conds_of(p, negate=True)) + tuple(_conds_of(condition))
            label = labels_here[index]
            for labels, sub, val in _branches(value, names, counter):
                out.append(((label,) + labels, conds + sub, val))
            previous.append(condition)
        return out
    child = [_branches(a, names, counter) for a in expr.args]
    out = []
    for combo in itertools.product(*child):
        labels = tuple(l for ls, _, _ in combo for l in ls)
        conds = tuple(c for _, cs, _ in combo for c in cs)
        # a floor/ceiling as SymPy builds it, its evaluation skipped where proved
        out.append((labels, conds, whole_parts.rebuilt(expr.func, [v for _, _, v in combo])))
        if len(out) > MAX_BRANCHES:
            raise errors.DerivationError(f"more than {MAX_BRANCHES} branches: the expression is too nested to enumerate")
    return out


def _bounds_infeasible(ctx: SignReasoner, conditions: Sequence[sympy.Basic], var: sympy.Symbol | None) -> bool:
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
    if ctx.declared.declared_positive(var.name):
        lows.append((sympy.Integer(0), True))
    for (lo, s1), (hi, s2) in itertools.product(lows, highs):
        s = ctx.sign(hi - lo)
        if s == -1 or (s == 0 and (s1 or s2)):
            return True
    return False


def _shown(job: jobs._Job, conds: Sequence[_Cond], over: sympy.Symbol | None) -> list[sympy.Basic]:
    """A regime's conditions as its table shows them: each tidied, the same relation once."""
    assert job.ctx is not None
    shown: list[sympy.Basic] = []
    seen: set[sympy.Basic] = set()
    for cond in conds:
        tidy = job.ctx.tidy(cond.relational, over) if cond.h is not None else cond.relational
        if tidy is not sympy.true:
            relations.add_new_relation(tidy, shown, seen)
    return shown


@memoised("derive.regime_split.conjunction", 4096)
def _conjunction(conditions: tuple[sympy.Basic, ...]) -> sympy.Basic:
    """``And`` of a regime's conditions (built once: the steps and the result both use it)."""
    return sympy.And(*conditions) if conditions else sympy.true


def _regimes(job: jobs._Job, expr: sympy.Expr, over: sympy.Symbol | None, stop: frozenset[str] = frozenset(), record: bool = True,
             simplified: bool = True, witnessed: bool = True) -> list[Regime]:
    """The feasible branches of ``expr`` as :class:`Regime` records (recorded as steps unless ``record`` is
    False). ``simplified``: each value simplified (``job.ctx.nice``); False leaves each as its branch builds
    it, for a caller that simplifies only the values it uses; ``witnessed`` False leaves every ``feasible`` None, no
    witness sought (:func:`feasibility.witnesses`), for a caller that reads none (both with ``record`` False: steps show them)."""
    assert job.ctx is not None
    assert (simplified and witnessed) or not record  # a step shows the simplified value and the regimes without a witness
    names = _names(job, stop)
    raw = _branches(expr, names, [0])
    dropped: list[str] = []
    degenerate: list[tuple[str, sympy.Expr]] = []
    surfaces: list[tuple[sympy.Expr, tuple[_Cond, ...], sympy.Expr]] = []  # each degenerate regime's surface, conditions, value
    used: dict[str, int] = {}
    kept: list[tuple[str, tuple[sympy.Basic, ...], sympy.Expr, tuple[str, ...], tuple[_Cond, ...]]] = []
    for labels, conds, value in raw:
        kept_raw: list[_Cond] = []
        shown: list[sympy.Basic] = []
        seen: set[sympy.Basic] = set()
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
            relations.add_new_relation(tidy, shown, seen)
        name = "+".join(dict.fromkeys(labels)) or "all"
        surface = None
        if not infeasible:
            infeasible, surface = _opposition(kept_raw)
        if infeasible or _bounds_infeasible(job.ctx, shown, over):
            dropped.append(name)
            continue
        if surface is not None:
            degenerate.append((name, surface))
            surfaces.append((surface, tuple(kept_raw), value))
            continue
        used[name] = used.get(name, 0) + 1
        if used[name] > 1:
            name = f"{name}#{used[name]}"
        kept.append((name, tuple(shown), value, tuple(labels), tuple(kept_raw)))
    for surface, conds, value in surfaces:  # the surface a dropped regime held on stays covered (MDM's tie M_Read*W = MSHRs)
        index = _covering_sibling(kept, surface, conds, value)
        if index is not None:
            own_name, _, sibling, own_labels, own_raw = kept[index]
            relaxed = tuple(_Cond(c.h, False) if c.strict and c.h is not None and _tied(c.h, surface) else c for c in own_raw)
            kept[index] = (own_name, tuple(_shown(job, relaxed, over)), sibling, own_labels, relaxed)
    feasible = feasibility.witnesses(job.model, [[c.relational for c in k[4]] for k in kept]) if witnessed else [None] * len(kept)
    out = [Regime(name, shown, job.ctx.branch_form(value) if simplified else value, labels, raw, verdict, value)
           for (name, shown, value, labels, raw), verdict in zip(kept, feasible)]
    if record:
        for regime in out:
            job.step(f"regime {regime.name}", _piece(regime),
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
                     "kept: their conditions are not proved contradictory, but no sample of the inputs the declared assumptions allow satisfies them all")
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
            numerically; ``extra.active_regimes``, ties listing several).

    Returns:
        A Derivation whose ``result`` is the Piecewise of the feasible regimes and whose
        ``extra.regimes`` lists each as a :class:`~symgpu.derive.extra_records.RegimeRow`.
    """
    job, _ = jobs.start(model, "regimes", quantity, over or "", assume=assume, omit=omit)
    stop_at = job.keep(stop_at, over)
    expr, lhs = job.quantity_expression(quantity, substitute, stop_at)
    var = job.symbol(over) if over else None
    found = _regimes(job, expr, var, frozenset(stop_at))
    result = _table(found)
    job.extra = job.extra.with_(regimes=tuple(r.row() for r in found))
    unit = model.unit_text(job.quantity) if job.quantity in model.symbols else ""
    if unit:
        _check_values(job, found, job.quantity, expr)
    if (preset is not None or values) and (var is None or at_point.valued(model, var.name, preset, values or {})):
        # the regimes' conditions read a quantity kept as a symbol: valued at the point from its equation
        # (a table over a variable the point leaves free is the table along it: no regime is active at the point)
        at_point.active_regimes(job, found, preset, evaluator.with_kept(model, expr, preset, values or {}, leave=[over] if over else []))
    return replace(job.finish(result, unit, used=[expr]), regimes=tuple(found))


def _piece(regime: Regime) -> sympy.Basic:
    """The regime as a one-pair ``Piecewise``: its value under its conditions as the regime
    table states them (built unevaluated: SymPy's evaluation would restate each relation in
    its canonical form, ``x > y`` as ``y < x``, so that the step no longer reads like the
    table's row, and it redoes that for every regime); its value where it has no condition;
    evaluated where the value is itself piecewise or the conditions contradict each other."""
    condition = _conjunction(regime.conditions)
    if condition is sympy.true:
        return regime.expression
    # a piecewise value is folded into the pair, and a contradiction gives nan, as SymPy evaluates them
    evaluate = condition is sympy.false or isinstance(regime.expression, sympy.Piecewise)
    return sympy.Piecewise((regime.expression, condition), evaluate=evaluate)


#: regimes up to which the result is SymPy's evaluated ``Piecewise`` (see :func:`_table`)
EVALUATED_TABLE = 16


def _table(found: Sequence[Regime]) -> sympy.Basic:
    """The regimes as one ``Piecewise`` (the value of the first regime whose conditions hold;
    where several hold, at a tie, their values are equal).

    Up to :data:`EVALUATED_TABLE` regimes (or where a regime's value is itself piecewise),
    SymPy's evaluation: it merges neighbouring pieces of equal value and, where the last
    condition is the negation of an earlier one, states it as ``True`` (otherwise). Larger
    tables are built unevaluated, a piece per regime in the table's order: the evaluation's
    merged pieces, with ``Or``-ed conditions, no longer line up with the table, and it takes
    a second on the 284 occupancy regimes. Either way the value is undefined (``nan``) at
    inputs no regime's conditions cover (outside the model's domain)."""
    if len(found) == 1:
        return found[0].expression
    pairs = [(r.expression, _conjunction(r.conditions)) for r in found]
    evaluate = len(pairs) <= EVALUATED_TABLE or any(isinstance(value, sympy.Piecewise) for value, _ in pairs)
    return sympy.Piecewise(*pairs, evaluate=evaluate)


def _check_quiet(job: jobs._Job, expr: sympy.Expr, name: str, source: sympy.Basic | None = None,
                 built: sympy.Expr | None = None) -> None:
    """``expr`` has ``name``'s dimension (no step recorded). A regime value that fails is accepted
    where the value as its branch built it (``built``) has it, read unexpanded, or differs from it only
    by one power of the unit of a Min/Max of ``source`` (the quantity split) with a bare number among
    its arguments: simplifying ``(1 + x/(alpha + 1))`` puts ``alpha`` beside the bare 1, which the model
    reads in ``x``'s unit, and a regime that picks the 1 of ``Max(1, CWP - 1)`` (1 warp/SM) drops it
    from a product."""
    steps = len(job.steps)
    try:
        job.check_unit(expr, name, "regime value")
    except errors.DerivationError:
        literal = _literal_dimensions(job, source) if source is not None else []
        if built is None or not _consistent_as_built(job, built, name, literal):
            raise
    del job.steps[steps:]


def _check_values(job: jobs._Job, found: Sequence[Regime], name: str, source: sympy.Basic) -> None:
    """:func:`_check_quiet` of each regime's value: each distinct value (with its value as built) once, in the table's
    order, so the first refused is the first row's that is (the check is a function of them: the 228 occupancy
    regimes have 14 values)."""
    for value, built in dict.fromkeys((r.expression, r.built) for r in found):
        _check_quiet(job, value, name, source, built)


def _consistent_as_built(job: jobs._Job, built: sympy.Expr, name: str, literal: Sequence[Any]) -> bool:
    try:
        found = job.dimension(built)
    except dimensions.Mismatch:
        return False
    expected = job.dims()[job.model.symbols[name]]
    return found == expected or any(found == expected * d**k for d in literal for k in (-1, 1))


def _literal_dimensions(job: jobs._Job, expr: sympy.Basic) -> list[Any]:
    """The dimensions of the Min/Max in ``expr`` that have a bare nonzero number among dimensioned arguments."""
    found: list[Any] = []
    for node in expr.atoms(sympy.Min, sympy.Max):
        if any(a.is_number and a != 0 for a in node.args) and not all(a.is_number for a in node.args):
            try:
                dim = dimensions.settle(dimensions.dimension_of(node, job.dims()))
            except dimensions.Mismatch:
                continue
            if dim != dimensions.DIMENSIONLESS and dim not in found:
                found.append(dim)
    return found


#: the longest refusal that names regimes (a quantity may have hundreds: occupancy's 228)
NAMES_MESSAGE = 400


def unknown_names(model: Model, quantity: str, between: Sequence[str], missing: Sequence[str], found: Sequence[Regime]) -> str:
    """The refusal of ``boundary --between`` naming a regime ``quantity`` does not have: short (at most about
    :data:`NAMES_MESSAGE` characters), the regimes that have every part of the name first (``a+b`` in
    ``a+c+b``), else the closest names, and where to list them all."""
    bases = list(dict.fromkeys(r.name.split("#")[0] for r in found))
    offers = []
    for name in missing:
        parts = name.split("+")
        offers += [b for b in bases if _has_parts(b.split("+"), parts) and b not in offers] or \
            [b for b in suggest.closest(name, bases, 3) if b not in offers]
    offers.sort(key=len)  # the plainest first
    head = f"{model.id}: boundary between {' and '.join(between)}: {quantity} has no regime {', '.join(missing)} ({len(found)} regimes)"
    tail = f"; name two of `symgpu regimes {model.id} {quantity}` (same --substitute)"
    room = max(NAMES_MESSAGE - len(head) - len(tail), 80)
    shown = ""
    for count in range(len(offers), 0, -1):
        shown = textfiles.listing(offers, limit=count, width=120)
        if len(shown) <= room:
            break
    return head + (f"; perhaps {shown}" if offers else "") + tail


def _has_parts(parts: Sequence[str], wanted: Sequence[str]) -> bool:
    """Are ``wanted`` among ``parts``, in order?"""
    rest = iter(parts)
    return all(any(p == w for p in rest) for w in wanted)


def active_regime(model: Model, quantity: str, preset: str | None = None, **values: Any) -> tuple[str, float, str | None, float | None]:
    """(binding limiter or case, value, next bound, how far the next bound is); see
    :func:`symgpu.evaluate.active.active_regime`."""
    return active.active_regime(model, quantity, preset, **values)


def regime_list(derivation: Derivation) -> list[Regime]:
    """The :class:`Regime` objects of a ``regimes`` derivation."""
    return list(derivation.regimes)
