"""A sweep plan: which expressions one compiled pass evaluates over a grid, with the fixed
values, the domain (``valid_when``) mask and the regime decision fused into it.

A plan is immutable data (its axes' arrays are made read-only), so a request made again with the
same model, quantities, preset, axis texts, values, checks and regime quantity gets the plan
built the first time (:data:`_PLANS`): no SymPy or pint work on a repeated sweep's path.

Assumptions (positive, integer, ...) of swept symbols are checked once per axis — a Cartesian
grid holds no value its axes lack — and those of fixed values once; domain conditions, which
depend on several symbols, are one more output of the same compiled function, so checked
evaluation costs one pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pint
import sympy

from symgpu import errors, suggest, units
from symgpu.evaluate import active, clocks, input_values, scaling, ties
from symgpu.memo import Memo, MemoFamily
from symgpu.model import Model, substitution
from symgpu.sweep import finite, tie_conditions
from symgpu.sweep.grid import Axis, Grid, parse_axis
from symgpu.sweep.output import REGIME, Column, OwnDomain
from symgpu.sweep.regimes import RegimeSpec, has_regimes, regime_outputs, regime_target

@dataclass(frozen=True)
class SweepPlan:
    """Everything a chunk evaluation needs (see :func:`build_plan`)."""

    model: Model
    quantities: tuple[str, ...]
    preset: str | None
    grid: Grid
    values: tuple[tuple[str, float], ...]  # fixed inputs the expressions use, declared units
    fixed: tuple[tuple[str, float], ...]  # the same in base units
    scales: tuple[float, ...]  # per axis: declared unit -> base units
    exprs: tuple[sympy.Basic, ...]  # quantities first, then the domain, then the regime's, then the near-tie flag
    out_units: tuple[Any, ...]
    domain: int | None  # index of the domain output (1.0 inside), None without checks
    regime: RegimeSpec | None
    checks: bool
    #: index of the output that is, per point, whether a case relation is within rounding of a tie
    #: (:func:`symgpu.evaluate.ties.near_condition`, decided again by :mod:`symgpu.sweep.settle_ties`); None: none can be
    near: int | None = None
    #: a case table's regime as one expression (:func:`symgpu.sweep.tie_conditions.case_code`): the numba backend
    #: compiles it as one more output, sharing the value's case conditions; None for a Min/Max or no regime
    case_code: sympy.Basic | None = None
    #: the quantities' expressions and the regime's case conditions as written (before :func:`tie_conditions.tie_aware`),
    #: and every expression the near-tie flag tests: what numba's fast pass is built from (:func:`fast_outputs`)
    written: tuple[sympy.Basic, ...] = ()
    case_conditions: tuple[sympy.Basic, ...] = ()
    tested: tuple[sympy.Basic, ...] = ()
    #: the quantities whose own ``valid_when`` conditions go beyond the domain every column shares (:attr:`domain`),
    #: each NaN where its own fail (:func:`masked`), and those conditions (per quantity, None for none)
    own_domains: tuple[OwnDomain, ...] = ()
    own_conditions: tuple[sympy.Basic | None, ...] = ()

    @property
    def code(self) -> int | None:
        """The index of :attr:`case_code` among the outputs of the function compiled with it (after :attr:`exprs`:
        :func:`symgpu.sweep.run.compile_plan`), or None without one."""
        return len(self.exprs) if self.case_code is not None else None

    def columns(self) -> list[Column]:
        """The output columns: axes, quantities, then the regime (if any)."""
        out = [Column(a.name, self.model.unit_text(a.name), "axis") for a in self.grid.axes]
        out += [Column(q, self.model.unit_text(q), "quantity") for q in self.quantities]
        if self.regime is not None:
            out.append(Column(REGIME, "", "regime"))
        return out

    def metadata(self) -> dict[str, Any]:
        """JSON-ready description of the sweep, stored with its output."""
        return {
            "model": self.model.id, "model_path": str(self.model.path), "quantities": list(self.quantities),
            "preset": self.preset, "grid": [a.text for a in self.grid.axes], "checks": self.checks,
            "values": {k: f"{v!r} {self.model.unit_text(k)}" for k, v in self.values},
            "units": {c.name: c.unit for c in self.columns()},
            "regime_of": self.regime.quantity if self.regime else None,
            "regime_labels": list(self.regime.labels) if self.regime else [],
        }


#: per model (weakly), the plans built for requests made of texts and numbers (:func:`_request_key`)
_PLANS: MemoFamily[tuple[Any, ...], SweepPlan] = MemoFamily("sweep.plan.plans", 16)
#: the most axis values (all axes together) a kept plan holds (a larger grid's plan is built afresh:
#: memory stays bounded, and building it is small next to sweeping it)
_KEPT_VALUES = 1 << 18
#: the value types a kept request may hold, each keyed by its type and repr (so 1 and 1.0, 0.0 and -0.0 differ)
_PLAIN = (str, int, float, bool)


def _request_key(quantities: Sequence[str], preset: str | None, grid: Grid | Sequence[str | Axis],
                 values: Mapping[str, Any] | None, checks: bool, regime_of: str | None) -> tuple[Any, ...] | None:
    """The request as a key of plain data, or None where it holds anything else (an :class:`Axis`
    or :class:`Grid`, a pint quantity, an array: those plans are built afresh)."""
    if isinstance(grid, Grid) or not all(type(a) is str for a in grid) or not all(type(q) is str for q in quantities):
        return None
    if not all(x is None or type(x) is str for x in (preset, regime_of)) or type(checks) is not bool:
        return None
    given = tuple(sorted((values or {}).items(), key=lambda kv: str(kv[0])))
    if not all(type(k) is str and type(v) in _PLAIN for k, v in given):
        return None
    return (tuple(quantities), preset, tuple(grid), tuple((k, type(v).__name__, repr(v)) for k, v in given), checks, regime_of)


def build_plan(model: Model, quantities: Sequence[str], *, preset: str | None = None,
               grid: Grid | Sequence[str | Axis] = (), values: Mapping[str, Any] | None = None,
               checks: bool = True, regime_of: str | None = None) -> SweepPlan:
    """Plan the sweep of ``quantities`` over ``grid`` at ``preset`` with fixed ``values``.

    Args:
        model: the model.
        quantities: quantities defined by equations (each one output column).
        preset: preset supplying hardware values.
        grid: a :class:`Grid`, or axes / axis texts (``"n=1:64"``).
        values: fixed inputs (numbers in the declared unit, quantities or quantity strings);
            a defined quantity given here is taken as given, as in ``evaluate``.
        checks: check assumptions (per axis) and ``valid_when`` domains (fused, per point).
        regime_of: the quantity whose active regime is a column (default: the first of
            ``quantities`` that is a Min/Max or has cases; ``""`` for none).

    Raises:
        errors.UsageError: no quantity, an axis naming no symbol or a quantity, a regime
            quantity without regimes.
        errors.EvaluationError: a value is missing, is an array, or breaks an assumption.
    """
    grid = grid if isinstance(grid, Grid) else tuple(grid)
    key = _request_key(quantities, preset, grid, values, checks, regime_of)
    if key is None:
        return _build(model, quantities, preset, grid, values, checks, regime_of)
    kept = _PLANS.of(model)
    plan = kept.get(key)
    if plan is None:
        plan = _build(model, quantities, preset, grid, values, checks, regime_of)
        if sum(a.size for a in plan.grid.axes) > _KEPT_VALUES:
            return plan
        for axis in plan.grid.axes:  # shared by every sweep of this request from now on
            axis.values.flags.writeable = False
        kept[key] = plan
    return plan


def in_declared_units(model: Model, grid: Grid, preset: str | None = None, values: Mapping[str, Any] | None = None) -> Grid:
    """``grid`` with each axis written with a unit (``L_M=0.2us:0.8us:log4``) read again at the exact ratio from that
    unit to its symbol's declared one (each value rounded once), the grid's parsing knowing no model (an outside
    tester's finding, round 14c, F3: the unit was refused, and the message did not say which unit a bare number is in);
    a unit that the clock, the warp size or the SM count relates to the declared one (``n=32thread/SM:...`` for a symbol
    in warp/SM, ``mem_lat=200ns:...`` for one in cycles) across those rates at ``preset`` and ``values``, as ``--set``
    is (:func:`symgpu.evaluate.clocks.moved_at_point`): refused where that rate is swept too.

    Raises:
        errors.UsageError: a unit the grammar does not read, or of another dimension than the symbol's declared unit
            that no rate known here relates to it.
    """
    if all(axis.converted for axis in grid.axes):
        return grid
    axes = []
    for axis in grid.axes:
        if axis.converted:
            axes.append(axis)
            continue
        declared = model.unit_text(axis.name)
        across = ""
        try:
            ratio = units.exact_factor(axis.unit, model.units[axis.name])
        except pint.DimensionalityError:
            ratio, across = _across_rates(model, grid, axis, preset, dict(values or {}))
        except (ValueError, pint.errors.PintError) as exc:
            raise errors.UsageError(f"{grid.option} {axis.text!r}: {axis.name} is in {declared} "
                                    f"({units.format_dimension(model.units[axis.name].dimensionality)}), the axis in "
                                    f"{axis.unit!r}: the unit does not parse ({' '.join(str(exc).split())[:160]}); give the "
                                    f"axis in {declared} or another unit of that dimension") from None
        axes.append(replace(parse_axis(axis.text, grid.option, ratio), across=across))
    return Grid(tuple(axes), grid.option)


def _across_rates(model: Model, grid: Grid, axis: Axis, preset: str | None, values: dict[str, Any]) -> tuple[Fraction, str]:
    """The exact ratio from ``axis``' unit to its symbol's declared one across the clock or warp size at the point
    (:func:`in_declared_units`), and those rates as a note says them."""
    declared, option = model.unit_text(axis.name), f"{grid.option} {axis.text!r}"
    need = f"{option}: {axis.name} is in {declared}, so the axis"
    one = units.quantity(f"1 {axis.unit}")
    found = None
    if clocks.exponents(one, model.units[axis.name], sm=False) is not None:
        found = clocks.moved_at_point(model, one, model.units[axis.name], preset=preset, values=values, need=need,
                                      give=lambda name, example: f"--set '{name}={example}'", instead=f"give the axis in {declared}")
    if found is None:
        raise errors.UsageError(f"{option}: {axis.name} is in {declared} "
                                f"({units.format_dimension(model.units[axis.name].dimensionality)}), the axis in "
                                f"{axis.unit!r}: its dimension is not the symbol's; give the axis in {declared} or another "
                                "unit of that dimension")
    rates = found[1]
    for rate in rates:
        if rate.name in grid.names:
            raise errors.UsageError(f"{need} needs the {clocks.rate_word(rate.rate)} {rate.name}, which is "
                                    f"swept too ({grid.option} {rate.name}=...): give the axis in {declared}")
    return (units.moved_factor(axis.unit, model.units[axis.name], [(r.value, r.power) for r in rates]),
            " and ".join(rate.said for rate in rates))


def _build(model: Model, quantities: Sequence[str], preset: str | None, grid: Grid | Sequence[str | Axis],
           values: Mapping[str, Any] | None, checks: bool, regime_of: str | None) -> SweepPlan:
    """:func:`build_plan` without the memo."""
    if not quantities:
        raise errors.UsageError("name at least one quantity to sweep")
    names = tuple(model.equation_for(q).definition.defines for q in quantities)
    if not isinstance(grid, Grid):
        grid = Grid(tuple(a if isinstance(a, Axis) else parse_axis(a) for a in grid))
    for axis in grid.axes:
        if axis.name not in model.symbols:
            raise errors.UsageError(f"{grid.option} {axis.text!r}: {model.id} has no symbol '{axis.name}' "
                                    f"(declared: {suggest.alternatives(axis.name, sorted(model.symbols))})")
    grid = in_declared_units(model, grid, preset, values)
    for axis in grid.axes:
        if axis.name in names:
            raise errors.UsageError(f"{grid.option} {axis.text!r}: {axis.name} is swept and asked for; sweep an input instead")
        input_values.to_magnitude(model, axis.name, axis.values, check=checks)  # assumptions, once per axis
    values = dict(values or {})
    swept = set(grid.names)
    both = sorted(swept & set(values))
    if both:
        raise errors.UsageError(f"{', '.join(both)} given both as {grid.option} and --set; give each once")
    # a value in a unit the clock, warp size or SM count relates to its declared one, moved across them (the command
    # line's --set was moved already), refused where that rate is swept
    values = clocks.values_at_point(model, preset, values, varied={a.name: f"{grid.option} {a.text!r}" for a in grid.axes})
    given = frozenset(k for k in set(values) | swept if k in model.defining) - set(names)
    merged = {k: v for k, v in input_values.merge_values(model, preset, values).items() if k not in swept}

    exprs: list[sympy.Basic] = []
    out_units: list[Any] = []

    def add(expr: sympy.Basic, unit: Any) -> int:
        exprs.append(expr)
        out_units.append(unit)
        return len(exprs) - 1

    def expand(expr: sympy.Basic) -> sympy.Basic:
        return expanded(model, expr, given)

    written = [model.expression(name, stop_at=given) for name in names]
    for name, expr in zip(names, written):
        add(tie_conditions.tie_aware(expr), model.units[name])  # cases decided as the regime column does
    known = swept | set(merged)
    regime = None
    if regime_of is None:  # the first with regimes, else the one quantity the first whose regimes come from one reads
        # (kernel_streaming's t_kernel = t_launch + t_body: t_body's; an outside tester's finding, round 14c, F4)
        target = next((n for n in names if has_regimes(model, n)), None) or \
            next((found[0] for found in (active.regime_sources(model, n, given) for n in names) if len(found) == 1), None)
    else:
        target = regime_target(model, model.equation_for(regime_of).definition.defines, given) if regime_of else None
    domain = None
    own: list[OwnDomain] = []
    own_conditions: list[sympy.Basic | None] = [None] * len(names)
    if checks:
        of = {name: _conditions(model, name, given, expand, known) for name in names}
        # every column's domain: the conditions all quantities share, and the regime quantity's, swept or not (its
        # column of labels has no regime where it has no value: kernel_streaming's t_kernel and t_memory at 1056
        # threads per block named t_body's regime, memory_bound, where t_body has none); a quantity's other
        # conditions make its own column NaN
        regime_domain = (of[target] if target in of else _conditions(model, target, given, expand, known)) if target else {}
        shared = {c: t for c, t in of[names[0]].items() if all(c in of[n] for n in names)} | regime_domain
        if shared:
            domain = add(sympy.And(*shared), None)
        for index, name in enumerate(names):
            rest = {c: t for c, t in of[name].items() if c not in shared}
            if rest:
                own.append(OwnDomain(name, tuple(dict.fromkeys(rest.values()))))
                own_conditions[index] = sympy.And(*rest)
                exprs[index] = masked(exprs[index], own_conditions[index])
    case_code = None
    case_conditions: tuple[sympy.Basic, ...] = ()
    quantities_written = tuple(written)
    if target:
        regime = regime_outputs(model, target, expand, add)
        written.append(expand(model.equation_for(target).rhs))
        if regime.kind == "cases":
            case_conditions = tuple(expand(case.condition) for case in model.equation_for(target).cases)
            case_code = tie_conditions.case_code(list(case_conditions))
    near_tie = ties.near_condition(model, written)

    used = set().union(*[{s.name for s in e.free_symbols} for e in exprs], {s.name for s in getattr(near_tie, "free_symbols", ())})
    missing = sorted(used - known)
    if missing:
        where = f" (not in preset '{preset}')" if preset else ""
        needing = [n for n, e in zip(names, exprs) if {s.name for s in e.free_symbols} & set(missing)] or list(names)
        raise errors.EvaluationError(
            f"{model.id}: {', '.join(needing)} need{'s' if len(needing) == 1 else ''} a value for {', '.join(missing)}{where}; "
            f"give {'them' if len(missing) > 1 else 'it'} with --set {missing[0]}=... or {grid.option} {missing[0]}=START:STOP")
    fixed_declared: list[tuple[str, float]] = []
    fixed_base: list[tuple[str, float]] = []
    for key in sorted(used - swept):
        magnitude = input_values.to_magnitude(model, key, merged[key], check=checks)
        if np.ndim(magnitude):
            raise errors.EvaluationError(f"{model.id}: {key} is an array; sweep it with {grid.option} {key}=... instead")
        fixed_declared.append((key, float(magnitude)))
        fixed_base.append((key, float(input_values.base_magnitude(model, key, merged[key], check=False))))
    scales = tuple(scaling.symbol_scale(model, a.name) for a in grid.axes)
    near = None
    if near_tie is not None:  # one more output of the same pass, sharing the relations' sides with the values and the regime
        near_tie = ties.for_inputs(model, near_tie, dict(fixed_declared) | {a.name: a.values for a in grid.axes})
        near = None if near_tie is sympy.false else add(near_tie, None)
    if regime is not None and regime.kind in ("min", "max"):
        spans = finite.input_spans(grid.names, [a.values for a in grid.axes], scales, fixed_base)
        regime = replace(regime, finite=tuple(finite.output_never_nan(model, exprs[t[1]], out_units[t[1]], spans)
                                              for t in regime.trees))
    return SweepPlan(model, names, preset, grid, tuple(fixed_declared), tuple(fixed_base), scales,
                     tuple(exprs), tuple(out_units), domain, regime, checks, near, case_code, quantities_written, case_conditions,
                     tuple(written), tuple(own), tuple(own_conditions))


def expanded(model: Model, expr: sympy.Basic, given: frozenset[str]) -> sympy.Basic:
    """``expr`` with each defined quantity not in ``given`` replaced by its expansion (``model.expression``), as
    SymPy's ``xreplace`` gives it: :func:`symgpu.model.substitution.xreplace` is that node for node, each rebuilt
    Min/Max taken from the one kept when the model expanded the same quantities (the regime quantity's expansion
    rebuilt volkov's and Hong & Kim's Min again, SymPy's search for dominated arguments each time: 2.4 % of a first
    sweep's CPU; ``tests/test_sweep_plan_expansion.py`` compares the two on every equation of the bundled models)."""
    mapping = {s: model.expression(s.name, stop_at=given) for s in expr.free_symbols
               if s.name in model.defining and s.name not in given}
    return substitution.xreplace(expr, mapping) if mapping else expr


def _conditions(model: Model, name: str, given: frozenset[str], expand: Any, known: set[str]) -> dict[sympy.Basic, str]:
    """The ``valid_when`` conditions of ``name``'s equations that the sweep can check (every symbol valued), each
    expanded as the sweep computes it, with its text as the model file writes it."""
    out: dict[sympy.Basic, str] = {}
    for equation in model.dependencies(name, stop_at=given):
        for condition, text in zip(equation.valid_when, equation.definition.valid_when):
            expanded = expand(condition)
            if {s.name for s in expanded.free_symbols} <= known:
                out.setdefault(expanded, text)
    return out


def masked(expr: sympy.Basic, condition: sympy.Basic | None) -> sympy.Basic:
    """``expr`` where ``condition`` holds, NaN elsewhere (a quantity's own domain; made after the tie rule has
    rewritten ``expr``'s own case conditions, so the domain's relations are compared as the shared domain's are)."""
    return expr if condition is None else sympy.Piecewise((expr, condition), (sympy.nan, True))


#: each plan's fast outputs (:func:`fast_outputs`), the plan kept with them
_FAST: Memo[int, tuple[SweepPlan, tuple[sympy.Basic, ...]]] = Memo("sweep.plan.fast", 64)


def fast_outputs(plan: SweepPlan) -> tuple[sympy.Basic, ...]:
    """What numba's fast pass computes after the plan's own outputs (:mod:`symgpu.sweep.fused`): the quantities with
    each case relation in its fast form (:func:`tie_conditions.tie_aware`), a case table's regime code likewise, and
    last where the point is clear of ties (:func:`tie_conditions.clear_of_ties` over every relation the values, the
    regime and the near-tie flag read, its tests of the inputs decided by :func:`ties.for_inputs`); () where no
    relation is read (the plan's outputs are then all there is). Built once per plan."""
    known = _FAST.get(id(plan))
    if known is not None and known[0] is plan:
        return known[1]
    relations = dict.fromkeys(ties.tested_relations(plan.tested))
    relations.update(dict.fromkeys(tie_conditions.rewritten_relations(plan.written, plan.case_conditions)))
    values = dict(plan.values) | {a.name: a.values for a in plan.grid.axes}
    clear = tie_conditions.clear_of_ties(plan.model, relations, values) if relations else sympy.false
    outputs: tuple[sympy.Basic, ...] = ()
    if clear is not sympy.false:
        outputs = tuple(masked(tie_conditions.tie_aware(e, fast=True), c) for e, c in zip(plan.written, plan.own_conditions or (None,) * len(plan.written)))
        if plan.case_code is not None:
            outputs += (tie_conditions.case_code(list(plan.case_conditions), fast=True),)
        outputs += (clear,)
    _FAST[id(plan)] = (plan, outputs)
    return outputs
