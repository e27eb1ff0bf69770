"""The NumPy sweep's buffered path gives the same answers as the plain one: a grid function
rewritten to write into buffers (evaluate.gridcode) returns the compiled function's values bit for
bit, its quantities in the caller's arrays; the tie interval holds exactly the doubles the rule
ties; a Min/Max's one grid-sized row compared once with it, and case tables coded by counting,
give the rule's regime at every point, near ties, NaN and infinities included."""

from __future__ import annotations

import numpy as np
import pytest
from numpy import equal, greater_equal, less, logical_and, minimum, nan, sqrt, where  # noqa: F401 - read by the rewritten code

import grid_programs
import symgpu
from symgpu.evaluate import active, compiler, gridcode
from symgpu.sweep import build_plan, sweep
from symgpu.sweep.decide import RegimeSpec, _binding, decide
from symgpu.sweep.chunks import count_spread


# functions shaped as lambdify prints them (common subexpressions, then one tuple)
def _printed(x, y, z, c, d):  # type: ignore[no-untyped-def]
    x0 = c * y
    x1 = x / (x0 + d) + z
    x2 = minimum(minimum(d, c / y), x1)
    x3 = x1 * z - x0 ** 2.0
    return (where(logical_and(greater_equal(x3, x2), less(z, c)), x2 + x3, where(less(x1, d), -x3, nan)),
            x1, x2, x3 ** (-1.0), sqrt(x3) + x1 * x1, equal(x1, x2), c + d)


def _grid(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(5, 1, 1)) * 3.0, rng.random((1, 7, 1)) + 0.5, rng.normal(size=(1, 1, 9))]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rewritten_function_gives_every_output_bit_for_bit_and_writes_targets_in_place(seed: int) -> None:
    coords = _grid(seed)
    constants = [np.float64(1.5), np.float64(0.25)]
    program = gridcode.buffered(_printed, 3, [0, 1])
    assert program is not None and program.floats_needed >= 1
    shape = (5, 7, 9)
    targets = [np.full(shape, -7.0), np.full(shape, -7.0)]
    floats = [np.full(shape, 99.0) for _ in range(program.floats_needed)]
    bools = [np.zeros(shape, dtype=bool) for _ in range(program.bools_needed)]
    with np.errstate(all="ignore"):
        want = _printed(*coords, *constants)
        got = program.function(*coords, *constants, targets, floats, bools)
    assert len(got) == len(want)
    for index, (a, b) in enumerate(zip(want, got)):
        assert np.asarray(a).dtype == np.asarray(b).dtype, index
        assert np.array_equal(np.broadcast_to(a, shape), np.broadcast_to(b, shape), equal_nan=True), index
    assert got[0] is targets[0] and got[1] is targets[1]


@pytest.mark.parametrize(("model_id", "quantity", "preset", "grid"), [
    ("volkov_2016", "memory_throughput", "maxwell", ["n=1:40", "alpha=0:30"]),
    ("hong_kim_2009", "Exec_cycles_app", "table2_example", ["Active_blocks_per_SM=1:4", "Comp_insts=1:30:7", "Mem_LD=100:400:50"]),
])
@pytest.mark.parametrize("regime_of", [None, ""])
def test_buffered_plan_function_equals_the_compiled_grid_function(model_id: str, quantity: str, preset: str, grid: list[str],
                                                                   regime_of: str | None) -> None:
    model = symgpu.load(model_id)
    plan = build_plan(model, [quantity], preset=preset, grid=grid, regime_of=regime_of)
    names, constants = plan.grid.names, [k for k, _ in plan.fixed]
    plain = compiler.fused_function(model, plan.exprs, names, constants, plan.out_units)
    program = compiler.grid_program(model, plan.exprs, names, constants, plan.out_units, len(plan.quantities))
    assert program is not None
    count = len(plan.grid.axes)
    coords = [a.values.reshape((1,) * k + (a.size,) + (1,) * (count - k - 1)) * s
              for k, (a, s) in enumerate(zip(plan.grid.axes, plan.scales))]
    shape = plan.grid.shape
    fixed = [np.float64(v) for _, v in plan.fixed]
    targets = [np.empty(shape) for _ in plan.quantities]
    with np.errstate(all="ignore"):
        want = plain(*coords, *fixed)
        got = program.function(*coords, *fixed, targets, [np.empty(shape) for _ in range(program.floats_needed)],
                               [np.empty(shape, dtype=bool) for _ in range(program.bools_needed)])
    for a, b in zip(want, got):
        assert np.array_equal(np.broadcast_to(a, shape), np.broadcast_to(b, shape), equal_nan=True)
    assert got[0] is targets[0]


def test_a_sweep_in_chunks_that_split_rows_equals_one_chunk() -> None:
    model = symgpu.load("volkov_2016")
    grid = ["n=1:50", "alpha=0:40"]
    whole = sweep(model, "memory_throughput", grid=grid, preset="maxwell", chunk_size=50 * 41)
    for chunk_size in (7, 41, 100, 333):
        parts = sweep(model, "memory_throughput", grid=grid, preset="maxwell", chunk_size=chunk_size)
        assert np.array_equal(parts.columns["memory_throughput"], whole.columns["memory_throughput"])
        assert np.array_equal(parts.regime_names(), whole.regime_names())


def _ulps(values: np.ndarray, count: int) -> np.ndarray:
    out = values.copy()
    for _ in range(abs(count)):
        out = np.nextafter(out, np.sign(count) * np.inf)
    return out


def test_tie_interval_holds_exactly_the_doubles_the_rule_ties() -> None:
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.random(400) * 10.0 ** rng.integers(-300, 300, 400), -rng.random(100) * 1e5,
                             [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e-310, 1.7e308, -1.7e308, 1.0, 3.0]])
    bounds = active.tie_interval(values)
    assert bounds is not None
    lo, hi = bounds
    for edge in (lo, hi, values):
        for count in range(-4, 5):
            probe = _ulps(edge, count)
            with np.errstate(invalid="ignore"):
                inside = (probe >= lo) & (probe <= hi)
            assert np.array_equal(inside, active.tied(probe, values)), count


def _near(base: np.ndarray, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Values at, a few ulps from and a few TIE from ``base`` (broadcast to ``shape``)."""
    bounds = active.tie_interval(base)
    assert bounds is not None
    choices = [np.broadcast_to(x, shape) for x in (base, bounds[0], bounds[1], _ulps(bounds[0], -1), _ulps(bounds[1], 1),
                                                    _ulps(bounds[1], -2), base * (1 + 3e-12), base * (1 - 3e-12), base * 2.0, base * 0.5)]
    pick = rng.integers(0, len(choices), size=shape)
    return np.choose(pick, choices)


@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_grid_sized_row_first_is_the_rule_at_its_tie_edges(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (80, 60)
    low = [rng.random((1, 60)) * 4.0 + 0.1, np.float64(1.7), rng.random((1, 60)) * 4.0 + 0.1]
    low[2][0, :10] = low[0][0, :10]  # two smaller rows tied: the first of them binds
    spread = np.broadcast_arrays(*low)
    best = (np.minimum if kind == "min" else np.maximum).reduce(spread)
    first = _near(best, rng, shape)
    for rows in ([first, *low], [first, *low[::-1]]):
        want = active.binding_index(np.broadcast_arrays(*rows), kind)
        into = np.full(first.size, 99, dtype=np.int16)
        assert np.array_equal(_binding(kind, rows, shape, into, np.empty(2 * first.size, dtype=bool)), want)
        assert np.array_equal(into.reshape(shape), want)
    first[3, 4] = np.nan  # a NaN anywhere: the rule's -1 there, the rest as before
    rows = [first, *low]
    assert np.array_equal(_binding(kind, rows, shape), active.binding_index(np.broadcast_arrays(*rows), kind))


def _first_case_by_rule(trees: tuple, out: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:  # type: ignore[type-arg]
    def holds(tree: tuple) -> np.ndarray:  # type: ignore[type-arg]
        if tree[0] == "const":
            return np.full(shape, tree[1])
        if tree[0] in ("and", "or"):
            parts = [holds(t) for t in tree[1]]
            return np.logical_and.reduce(parts) if tree[0] == "and" else np.logical_or.reduce(parts)
        _, op, left, right, _ = tree
        return np.broadcast_to(active.relation_holds(op, out[left], out[right]), shape)

    code = np.full(shape, -1)
    for index in reversed(range(len(trees))):
        code[holds(trees[index])] = index
    return code


@pytest.mark.parametrize("otherwise", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_case_codes_by_counting_are_the_first_case_that_holds(otherwise: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (70, 90)
    small = rng.random((1, 90)) * 2.0
    out = [_near(small, rng, shape), small, rng.random((70, 1)), rng.random((1, 90)), np.float64(0.5)]
    out[0][5, 5] = np.nan
    trees = (("and", (("rel", "==", 0, 1, None), ("rel", "<", 2, 3, None))),
             ("or", (("rel", ">=", 0, 1, None), ("rel", ">", 2, 4, None))),
             ("rel", "<=", 3, 4, None))
    if otherwise:
        trees += (("const", True),)
    spec = RegimeSpec("q", "cases", tuple(f"case{i}" for i in range(len(trees))), trees)
    want = _first_case_by_rule(trees, out, shape)
    assert np.array_equal(decide(spec, out, shape, None, np.empty(2 * 70 * 90, dtype=bool)), want)
    assert (want == -1).any() != otherwise


@pytest.mark.parametrize("model_id", symgpu.list_models())
def test_every_bundled_regime_sweep_computes_the_same_bits_buffered(model_id: str) -> None:
    for quantity, plan, plain, program in grid_programs.regime_plans(model_id):
        if program is None:
            continue
        coords, shape, fixed_values = grid_programs.axes_and_values(plan)
        with np.errstate(all="ignore"):
            want = plain(*coords, *fixed_values)
            got = grid_programs.run_program(program, coords, fixed_values, shape, [np.empty(shape)])
        for index, (a, b) in enumerate(zip(want, got)):
            assert np.array_equal(np.broadcast_to(a, shape), np.broadcast_to(b, shape), equal_nan=True), (quantity, index)


def test_a_domain_over_fewer_axes_is_counted_at_its_size_as_the_broadcast_grid_would_count_it() -> None:
    rng = np.random.default_rng(4)
    for own, grid in [((1, 5, 1), (3, 5, 7)), ((5, 1), (3, 5, 7)), ((3, 5, 7), (3, 5, 7)), ((7,), (3, 5, 7)), ((1, 1, 1), (3, 1, 7))]:
        inside = rng.random(own) < 0.5
        brute = sum(1 for point in np.ndindex(*grid) if inside[tuple(p if n > 1 else 0 for p, n in zip(point[len(grid) - inside.ndim:], own))])
        assert count_spread(inside, grid) == brute
