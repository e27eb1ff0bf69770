"""One rule for which limiter or case binds: evaluate.active decides it and names it, and the
sweep's regime column, the report chains, the plot branches and the kernel's limits agree with
it (names ``min_arg<i>``/``max_arg<i>``, ties within TIE to the first argument: named limiters
in file order, then the rest)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.evaluate import active
from symgpu.report import chains
from symgpu.report.plot_values import regime_branches
from symgpu.report.scenarios import Scenario, scenarios, supplied
from symgpu.sweep import sweep
from symgpu.sweep.grid import Axis
from symgpu.sweep.decide import _binding

#: axis values around a base point, as factors (a wide span crosses the regime boundaries)
FACTORS = (1 / 64, 1 / 8, 1 / 2, 1, 2, 8, 64)
#: pool of values for an input neither a preset nor a validation case supplies (declared unit)
POOL = tuple(4.0**k for k in range(9))
#: points compared per quantity besides the first point of each regime the sweep finds
SAMPLED = 10


def _regime_quantities(model: symgpu.Model) -> list[str]:
    return [q for q in model.quantities
            if model.equation_for(q).cases or isinstance(model.equation_for(q).rhs, (sympy.Min, sympy.Max))]


def _base_point(model: symgpu.Model, quantity: str) -> tuple[str, dict[str, float]]:
    """A preset and the quantity's other inputs (declared units) at which it evaluates: a
    validation case's inputs where one supplies them all, the rest drawn from POOL."""
    needs = set(model.inputs(quantity))
    options = [(p.id, scenario) for p in model.definition.presets for scenario in scenarios(model, p.id)]
    options.sort(key=lambda o: len(needs - supplied(model, o[1])))  # fewest drawn inputs first (stable)
    rng = np.random.default_rng(0)
    for preset, scenario in options[:20]:
        base = {k: float(v.to(model.units[k]).magnitude) for k, v in scenario.inputs if k in needs}
        missing = sorted(needs - supplied(model, scenario))
        for _ in range(40 if missing else 1):
            trial = {**base, **{name: float(rng.choice(POOL)) for name in missing}}
            try:
                model.evaluate(quantity, preset=preset, values=trial)
            except errors.SymgpuError:
                continue
            return preset, trial
    pytest.fail(f"{model.id}.{quantity}: no admissible point found")


def _axes(model: symgpu.Model, quantity: str, preset: str, base: dict[str, float]) -> list[Axis]:
    """Up to two of the quantity's inputs, each spread over FACTORS around its value at the base point."""
    hardware = model.preset(preset)
    known = {**{k: float(v.to(model.units[k]).magnitude) for k, v in hardware.items()}, **base}
    candidates = [n for n in model.inputs(quantity) if n not in model.constants and known.get(n, 0) > 0]
    # workload inputs (not in the preset) first, then the preset's, in name order
    candidates.sort(key=lambda n: (n in hardware, n))
    axes = []
    for name in candidates[:2]:
        integer = "integer" in model.symbol_definitions[name].assumptions
        values = sorted({max(1.0, float(round(known[name] * f))) if integer else known[name] * f for f in FACTORS})
        axes.append(Axis(name, np.array(values), f"{name}=" + ",".join(repr(v) for v in values)))
    return axes


def _expected(model: symgpu.Model, quantity: str, preset: str, point: dict[str, float]) -> str:
    """evaluate.active's regime at the point ("" where it finds none: outside a domain, no case applies)."""
    try:
        return active.active_regime(model, quantity, preset, **point)[0]
    except errors.SymgpuError:
        return ""


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_sweep_regime_column_equals_active_regime_at_sampled_points(model_id: str) -> None:
    model = symgpu.load(model_id)
    if not model.definition.presets or not _regime_quantities(model):
        pytest.skip("no preset, or no Min/Max or cases quantity")
    checked = 0
    mismatches = []
    for quantity in _regime_quantities(model):
        preset, base = _base_point(model, quantity)
        axes = _axes(model, quantity, preset, base)
        fixed = {k: v for k, v in base.items() if k not in {a.name for a in axes}}
        result = sweep(model, quantity, grid=axes, preset=preset, values=fixed, regime_of=quantity)
        names = result.regime_names()
        # the first point of every regime the sweep found, then seeded samples
        picks = list(dict.fromkeys(int(np.argmax(names == n)) for n in dict.fromkeys(names)))
        rng = np.random.default_rng(len(quantity))
        picks += [int(i) for i in rng.choice(names.size, size=min(SAMPLED, names.size), replace=False) if int(i) not in picks]
        for i in picks:
            point = {**fixed, **{a.name: float(result.columns[a.name][i]) for a in axes}}
            want = _expected(model, quantity, preset, point)
            checked += 1
            if names[i] != want:
                mismatches.append(f"{quantity} at {preset} {point}: sweep {names[i]!r}, active_regime {want!r}")
    assert not mismatches, f"{len(mismatches)} of {checked} points disagree:\n" + "\n".join(mismatches[:10])
    assert checked > 0


def test_every_bundled_regime_quantity_with_a_preset_is_swept() -> None:
    # the parametrised test above covers every model; this counts what it covers (86 when written)
    count = sum(len(_regime_quantities(m)) for m in map(symgpu.load, symgpu.list_models()) if m.definition.presets)
    assert count >= 80


# ---------------------------------------------------------------------------- the rule itself
def test_min_binding_is_the_first_argument_within_tie_of_the_smallest() -> None:
    # exact tie: the first; a gap of half TIE is a tie too; a gap of 10 TIE is not
    assert active.binding_index([3.0, 3.0, 5.0], "min") == 0
    assert active.binding_index([3.0 * (1 + active.TIE / 2), 3.0, 5.0], "min") == 0
    assert active.binding_index([3.0 * (1 + 10 * active.TIE), 3.0, 5.0], "min") == 1
    assert active.binding_index([5.0, 3.0, 3.0], "max") == 0
    assert active.binding_index([5.0 * (1 - active.TIE / 2), 5.0], "max") == 0
    assert active.binding_index([1.0, math.nan, 0.5], "min") == -1
    assert active.binding_index([1.0, math.inf], "max") == 1


def test_binding_on_arrays_is_the_scalar_rule_point_by_point() -> None:
    rng = np.random.default_rng(1)
    rows = rng.choice([1.0, 2.0, 2.0 * (1 + active.TIE / 3), 3.0, math.nan], size=(3, 200))
    for kind in ("min", "max"):
        got = active.binding_index(list(rows), kind)
        for j in range(rows.shape[1]):
            column = rows[:, j]
            if np.isnan(column).any():
                want = -1
            else:
                best = column.min() if kind == "min" else column.max()
                want = next(i for i, v in enumerate(column) if abs(v - best) <= 1e-12 * max(abs(v), abs(best)))
            assert got[j] == want == active.binding_index(list(column), kind)


@pytest.mark.parametrize("kind", ["min", "max"])
def test_a_sweep_decides_rows_over_fewer_axes_at_their_size_by_the_same_rule(kind: str) -> None:
    # rows that broadcast (a full row, rows over one axis, a constant), near ties across the
    # groups, NaN and infinities: the regime the sweep's NumPy backend computes is the rule's

    rng = np.random.default_rng(7)
    pool = [1.0, 2.0, 2.0 * (1 + active.TIE / 3), 2.0 * (1 - 3 * active.TIE), 2.0 * (1 + 3 * active.TIE), 3.0, 0.0, -2.0,
            math.inf, -math.inf, math.nan]
    shape = (7, 9)
    for _ in range(40):
        rows = [rng.choice(pool, size=shape), rng.choice(pool, size=(1, 9)), rng.choice(pool, size=(7, 1)),
                np.asarray(rng.choice(pool))]
        order = rng.permutation(len(rows))
        rows = [rows[i] for i in order] + ([rng.choice(pool, size=shape)] if rng.random() < 0.5 else [])
        want = active.binding_index([np.broadcast_to(r, shape) for r in rows], kind)
        assert (_binding(kind, rows, shape) == want).all()


def test_binding_order_ranks_the_runner_up_by_the_same_rule() -> None:
    assert active.binding_order([4.0, 1.0, 4.0, 2.0], "min") == (1, 3, 0, 2)
    assert active.binding_order([4.0, 1.0, 4.0, 2.0], "max") == (0, 2, 3, 1)
    assert active.binding_order([1.0, math.nan], "min") == ()


@pytest.mark.parametrize(("op", "left", "right", "holds"), [
    ("<", 1.0, 1.0 + 1e-13, False), ("<=", 1.0 + 1e-13, 1.0, True), (">", 2.0, 1.0, True),
    ("==", 1.0, 1.0 + 1e-13, True), ("!=", 1.0, 1.0 + 1e-13, False), (">=", 1.0, 2.0, False),
])
def test_relations_count_sides_within_tie_as_equal(op: str, left: float, right: float, holds: bool) -> None:
    assert bool(active.relation_holds(op, left, right)) is holds
    assert active.relation_holds(op, np.array([left, 5.0]), np.array([right, 5.0]))[0] == holds


def test_a_verdict_without_its_numbers_is_the_verdict_with_them() -> None:
    a, b = sympy.symbols("a b", positive=True)
    values = {a: sympy.Integer(2), b: sympy.Integer(3)}   # a < b

    def side(expr: sympy.Expr) -> float:
        return float(expr.xreplace(values))
    for condition, holds in [(a < b, True), (a > b, False), (sympy.Not(a > b), True), (sympy.And(a < b, b < 1), False),
                             (sympy.Or(a > b, a < 4), True), (sympy.true, True)]:
        assert active.condition_verdict(condition, side, shown=False) == (holds, "")
        assert active.condition_verdict(condition, side)[0] is holds
    assert active.condition_verdict(a < b, side)[1] == "a < b: 2 < 3 (base units)"


def test_a_condition_is_true_at_a_preset_exactly_when_it_holds_there(ia: symgpu.Model) -> None:
    s = ia.symbols
    n, m = s["N"], s["M"]
    for values, truths in (({"N": 16, "M": 16}, (False, True, False)), ({"N": 4, "M": 16}, (False, True, True))):
        for condition, holds in zip((n > m, n <= m, sympy.And(n > 0, m > 2 * n)), truths):
            assert active.condition_true(ia, condition, "gtx1080", values) is holds
            assert active.condition_holds(ia, condition, "gtx1080", values)[0] is holds
            assert active.condition_holds_here(ia, condition, "gtx1080", values) is holds


# ----------------------------------------------------------------- one naming scheme everywhere
def _unnamed_min_max(model: symgpu.Model) -> list[Any]:
    return [e for e in model.equations.values()
            if isinstance(e.rhs, (sympy.Min, sympy.Max)) and len(e.limiters) < len(e.rhs.args)]


def test_an_unnamed_argument_is_named_by_its_position_in_the_min_or_max() -> None:
    found = 0
    for model in map(symgpu.load, symgpu.list_models()):
        for equation in _unnamed_min_max(model):
            prefix = "min" if isinstance(equation.rhs, sympy.Min) else "max"
            named = {sympy.srepr(t): n for n, t in equation.limiters}
            want = tuple(named.get(sympy.srepr(a), f"{prefix}_arg{i + 1}") for i, a in enumerate(equation.rhs.args))
            assert active.argument_labels(equation) == want
            quantity = equation.definition.defines
            plotted = {name for name, _, _ in regime_branches(model, quantity)}
            assert plotted == set(want), f"{model.id}.{quantity}: plot branches {plotted} != {want}"
            found += 1
    assert found > 0


def test_report_chains_name_and_pick_the_binding_argument_as_active_regime_does() -> None:
    checked = 0
    for model in map(symgpu.load, symgpu.list_models()):
        for preset in (p.id for p in model.definition.presets):
            scenario = Scenario(preset)
            for equation in [e for e in model.equations.values() if isinstance(e.rhs, (sympy.Min, sympy.Max))]:
                quantity = equation.definition.defines
                if set(model.inputs(quantity)) - supplied(model, scenario):
                    continue
                try:
                    steps = chains.chain(model, scenario, [quantity])
                    want = active.active_regime(model, quantity, preset)
                except errors.SymgpuError:
                    continue
                state = steps[-1]["regime"]
                assert (state["active"], state["next"]) == (want[0], want[2]), f"{model.id}.{quantity} at {preset}"
                assert not any(a["name"].startswith("argument ") for a in state["arguments"])
                checked += 1
    assert checked > 10


def test_tied_limits_all_bind_in_the_kernel_answer_and_the_first_is_active_regimes() -> None:
    # occupancy at cc_3_5, 256 threads/block, 32 regs/thread, no shared memory: warps (64/8 = 8)
    # and registers (65536 / (32*256) = 8) tie at 8 blocks, below the 16 block slots
    from symgpu.kernel import occupancy

    result = occupancy.compute("cc_3_5", 256, 32, 0)
    assert int(result.active_blocks.magnitude) == 8
    assert set(result.limiting) >= {"warp_limit", "register_limit"}
    occ = occupancy.occupancy_model()
    name = active.active_regime(occ, "active_blocks_per_SM", "cc_3_5", threads_per_block=256, regs_per_thread=32, smem_per_block=0)[0]
    # ties are settled in file order of the limiters: warp_limit is declared first
    assert [n for n, _ in occ.equation_for("active_blocks_per_SM").limiters][0] == "warp_limit"
    assert name == result.limiting[0] == "warp_limit"


def test_every_combination_of_tie_and_order_picks_the_same_argument_in_sweep_and_evaluate() -> None:
    # roofline-like check on arrays vs scalars for all orderings of three values with one tie
    for values in set(itertools.permutations([2.0, 2.0, 7.0])):
        for kind in ("min", "max"):
            arrays = [np.full(3, v) for v in values]
            assert (active.binding_index(arrays, kind) == active.binding_index(list(values), kind)).all()
            assert active.binding_index(list(values), kind) == active.binding_order(list(values), kind)[0]


def test_tie_order_is_the_named_limiters_in_file_order_then_the_rest() -> None:
    occ = symgpu.load("occupancy")
    equation = occ.equation_for("active_blocks_per_SM")
    order = [equation.rhs.args[i] for i in active.argument_order(equation)]
    assert order == [term for _, term in equation.limiters]
    for model in map(symgpu.load, symgpu.list_models()):
        for equation in _unnamed_min_max(model):
            order = active.argument_order(equation)
            named = [equation.rhs.args.index(t) for _, t in equation.limiters]
            assert list(order) == named + sorted(set(range(len(equation.rhs.args))) - set(named))


def test_an_otherwise_case_says_the_earlier_condition_is_false() -> None:
    # MDM at table1 with M_Read*W = 2*64 = 128 = MSHRs: case md needs M_Read*W > MSHRs, which fails, so nmd ('otherwise')
    # applies because it is false (an outside tester's finding: the report quoted it as the reason without saying so)
    from symgpu.report.scenarios import Scenario

    model = symgpu.load("mdm_2019")
    ureg = symgpu.units.registry()
    scenario = Scenario("table1", "", (("W", ureg.Quantity(64, "warp/SM")), ("M_Read", ureg.Quantity(2, "req/warp")),
                                       ("M_Write", ureg.Quantity(0, "req/warp")), ("L_NoCService", ureg.Quantity(1, "cycle/req"))))
    state = chains.chain(model, scenario, ["S_NoC"])[-1]["regime"]
    assert state["active"] == "nmd"
    assert state["text"].startswith("case nmd applies (M_Read*W > MSHRs is false: ")
