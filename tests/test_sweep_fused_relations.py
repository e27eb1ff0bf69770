"""The numba sweep's regime decisions are evaluate.active's rule point by point: a case table's
code computed by the fused function from its conditions written by the tie rule
(``tie_conditions.case_code``, the function's last output), and a Min/Max's binding argument with
its near ties settled only in the rows the loop marked, whole grids and grids cut into chunks that
start mid-row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy
from conftest import FIXTURES

import symgpu
from symgpu.evaluate import active, compiler, scaling, stepwise, ties
from symgpu.sweep import backends, fused, tie_conditions
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.regimes import RegimeSpec

LARGEST = float(np.finfo(np.float64).max)
#: near ties of 2 (within TIE, on its edge, beyond it), signed zeros, subnormals, gaps that
#: overflow, infinities and NaN
POOL = np.array([1.0, 2.0, 2.0 * (1 + active.TIE / 3), 2.0 * (1 - active.TIE / 3), 2.0 * (1 + active.TIE),
                 2.0 * (1 - 3 * active.TIE), 2.0 * (1 + 3 * active.TIE), 0.0, -0.0, -2.0, 5e-324, -5e-324,
                 1e-310, LARGEST, -LARGEST, np.inf, -np.inf, np.nan])


def _numba():  # type: ignore[no-untyped-def]
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    import numba  # noqa: PLC0415 - optional

    return numba


def _codes(numba, spec: RegimeSpec, grid: Grid, outputs, chunk: int, code: int | None = None) -> np.ndarray:  # type: ignore[no-untyped-def]
    # the grid through fused.run in chunks of `chunk` points (each chunk's boxes, as the sweep hands them)
    plan = fused.layout(object(), [a.values for a in grid.axes], (1.0,) * len(grid.axes), 1, None, spec, None, code)
    codes = np.full(grid.size, 99, dtype=np.int16)
    for start in range(0, grid.size, chunk):
        stop = min(grid.size, start + chunk)
        out = np.empty((1, stop - start))
        fused.run(numba, outputs, plan, (), grid.boxes(start, stop), start, out, codes[start:stop])
    return codes


@pytest.mark.parametrize("op", active.RELATIONS)
def test_each_relation_of_a_case_table_is_the_rule_at_ties_zeros_overflow_infinities_and_nan(op: str) -> None:
    numba = _numba()
    model = symgpu.load(FIXTURES / "two_reals.toml")
    a_, b_ = model.symbols["a"], model.symbols["b"]
    grid = Grid(tuple(Axis(name, POOL, name) for name in ("a", "b")))
    # case 0: a op b; case 1: a - b op 0 (a bare literal: the other side's magnitude is the scale); none: -1
    relation = {"==": sympy.Eq, "!=": sympy.Ne, ">": sympy.StrictGreaterThan, ">=": sympy.GreaterThan,
                "<": sympy.StrictLessThan, "<=": sympy.LessThan}[op]
    code = tie_conditions.case_code([relation(a_, b_, evaluate=False), relation(a_ - b_, 0, evaluate=False)])
    function = compiler.fused_function(model, [a_, code], ["a", "b"], [], [None, None], backend="numba")
    spec = RegimeSpec("q", "cases", ("both", "zero"), (("const", False), ("const", False)))  # decided by the code alone

    a, b = np.meshgrid(POOL, POOL, indexing="ij")
    with np.errstate(all="ignore"):
        gap = a - b
        want = np.where(active.relation_holds(op, a, b), 0, np.where(active.relation_holds(op, gap, 0.0, np.abs(gap)), 1, -1)).reshape(-1)
    # the rule by relation_number, one pair of floats at a time, agrees with its array form here
    by_number = [active.relation_number(active.RELATION_CODES[op], x, y, active.larger_magnitude(x, y)) for x, y in zip(map(float, a.flat), map(float, b.flat))]
    assert np.array_equal(np.array(by_number), active.relation_holds(op, a, b).reshape(-1))
    for chunk in (grid.size, 5):
        assert np.array_equal(_codes(numba, spec, grid, function, chunk, code=1), want), chunk


@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("chunk", [729, 7, 4])
def test_min_or_max_near_ties_are_settled_in_the_marked_rows_of_every_chunk(kind: str, chunk: int) -> None:
    numba = _numba()
    pool = np.array([1.0, 2.0, 2.0 * (1 + active.TIE / 3), 2.0 * (1 - 3 * active.TIE), 0.0, -2.0, np.inf, -np.inf, np.nan])
    grid = Grid(tuple(Axis(name, pool, name) for name in ("a", "b", "c")))
    spec = RegimeSpec("q", kind, ("a", "b", "c"), (("arg", 1), ("arg", 2), ("arg", 3)))

    def outputs(row, fixed):  # type: ignore[no-untyped-def]
        a, b, c = row
        return (0.0, a, b, c)

    want = active.binding_index(list(np.meshgrid(pool, pool, pool, indexing="ij")), kind).reshape(-1)
    assert np.array_equal(_codes(numba, spec, grid, outputs, chunk), want)


#: POOL, with pairs on both sides of the fast pass's edge (CLEAR of the sides' summed magnitudes) and of the near-tie
#: test's (NEAR of the larger one)
EDGES = np.concatenate([POOL, [2.0 * (1 + f * tie_conditions.CLEAR) for f in (0.9, 1.1, 2.1)],
                        [2.0 * (1 + f * float(stepwise.NEAR)) for f in (0.9, 1.1)], [3.0, 1e300, 7.5]])


@pytest.mark.parametrize("op", active.RELATIONS)
def test_a_relations_fast_form_is_the_rule_wherever_it_is_clear_of_ties_and_clear_is_never_near(op: str) -> None:
    numba = _numba()
    model = symgpu.load(FIXTURES / "two_reals.toml")
    a_, b_ = model.symbols["a"], model.symbols["b"]
    relation = {"==": sympy.Eq, "!=": sympy.Ne, ">": sympy.StrictGreaterThan, ">=": sympy.GreaterThan,
                "<": sympy.StrictLessThan, "<=": sympy.LessThan}[op]
    found = 0
    for written in (relation(a_, b_, evaluate=False), relation(a_ - b_, 0, evaluate=False)):  # a bare literal side too
        piecewise = sympy.Piecewise((1.0, written), (0.0, True))
        # the clear test last, written as the sweep compiles it (unfolded: its selects as they are)
        outputs = [tie_conditions.tie_aware(piecewise, fast=True), ties.near_condition(model, [piecewise]),
                   tie_conditions.clear_of_ties(model, [written])]
        function = numba.njit(compiler.fused_function(model, outputs, ["a", "b"], [], [None] * 3, backend="numba", unfolded=1))
        for x in EDGES:
            for y in EDGES:
                fast, near, clear = function((float(x), float(y)), ())
                with np.errstate(all="ignore"):
                    left, right = (x, y) if written.rhs != 0 else (x - y, 0.0)
                    rule = active.relation_number(active.RELATION_CODES[op], left, right, active.larger_magnitude(left, right))
                assert not (clear and near), (op, x, y)  # a point the near-tie flag would raise is never left to the fast pass
                if clear:
                    found += 1
                    assert bool(fast) == bool(rule), (op, written, x, y)
        assert function((2.0, 2.0), ())[2] == 1.0 and function((2.0, 3.0), ())[2] == 1.0  # an exact tie and a clear gap
        assert function((np.nan, 2.0), ())[2] == 0.0 and function((np.inf, 2.0), ())[2] == 0.0
        if written.rhs != 0:  # a difference within the tie of two sides (against a bare 0 only 0 is a tie)
            assert function((2.0, 2.0 * (1 + active.TIE)), ())[2] == 0.0
    assert found > len(EDGES) ** 2  # most pairs are clear


def test_a_zero_difference_is_equal_finite_sides_in_compiled_code_at_subnormals_zeros_and_infinities() -> None:
    # the fast forms and the clear test read l == r as d == 0 (tie_conditions.clear_of_ties): true only where gradual
    # underflow holds in the compiled loop (no subnormal flushed) and inf - inf is NaN
    numba = _numba()
    gap_is_zero = numba.njit(lambda x, y: x - y == 0.0)
    tiny = np.array([5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308])
    for x in np.concatenate([EDGES, tiny, -tiny]):
        for y in np.concatenate([EDGES, tiny, -tiny]):
            assert gap_is_zero(float(x), float(y)) == bool(x == y and np.isfinite(x)), (x, y)


#: around the whole-number limit (2**53) of the decimal test, the products and sums of decimal_tie_beyond_whole's preset,
#: and shared_min_tie's 0.1*3 against 0.30000000000000004
WHOLE = 2.0 ** 53
AROUND_WHOLE = np.array([WHOLE, np.nextafter(WHOLE, 0), np.nextafter(WHOLE, np.inf), WHOLE / 2, np.nextafter(WHOLE / 2, np.inf),
                         WHOLE - 1, 1e16, 1e17, 1e8 + 1, 1e16 + 2e8, 0.1, 0.3, 0.30000000000000004, 3.0])


def _far_or_exact(model, relation):  # type: ignore[no-untyped-def]
    # the clear test of sessions 27-30, the oracle: d beyond CLEAR of |l| + |r|, or d == 0 between sides that are equal
    # decimals (stepwise.may_be_unequal with |l| + |r| as the magnitude)
    left, right = relation.lhs, relation.rhs
    gap = left - right
    size = sympy.Add(sympy.Abs(left, evaluate=False), sympy.Abs(right, evaluate=False), evaluate=False)
    far = sympy.StrictGreaterThan(sympy.Mul(1 / tie_conditions.CLEAR, sympy.Abs(gap, evaluate=False), evaluate=False), size, evaluate=False)
    doubt = stepwise.may_be_unequal(model, left, right, relation.free_symbols, size)
    return sympy.Or(far, sympy.And(sympy.Eq(gap, 0, evaluate=False), sympy.Not(doubt)))


@pytest.mark.parametrize(("fixture", "written"), [
    ("two_reals", "a > b"), ("two_reals", "a - b >= 0"), ("two_reals", "Eq(a, b)"), ("two_reals", "a*b < a + b"),
    ("decimal_tie_beyond_whole", "x + 1 > y"), ("decimal_tie_beyond_whole", "a*a > b"), ("decimal_tie_beyond_whole", "t + 1 > u"),
    ("shared_min_tie", "Min(n, x*y) > Min(n, z)"), ("shared_min_tie", "Min(n, x*y) <= n")])
def test_the_clear_test_holds_only_where_far_or_exact_holds_at_ties_ulps_zeros_infinities_nan_and_the_whole_limit(fixture: str, written: str) -> None:
    # the clear test (a select per relation: d beyond CLEAR of |l| + |r|, or a bound at d == 0 between sides that are
    # surely equal decimals) is at least as strict as the test it replaced, far or exact (_far_or_exact): every point
    # that one leaves to the tie rule it leaves too. Both compiled by numba as the sweep compiles them, at every
    # combination of the inputs' edge values (in base units: t and u are in ns)
    numba = _numba()
    model = symgpu.load(FIXTURES / f"{fixture}.toml")
    relation = sympy.sympify(written, locals=dict(model.symbols))
    names = sorted(s.name for s in relation.free_symbols)
    function = numba.njit(compiler.fused_function(model, [_far_or_exact(model, relation), tie_conditions.clear_of_ties(model, [relation])],
                                                  names, [], [None, None], backend="numba", unfolded=1))
    pool = np.unique(np.concatenate([EDGES, -EDGES, AROUND_WHOLE])) if len(names) < 3 else np.unique(np.concatenate([POOL[:8], AROUND_WHOLE]))
    pools = [pool * scaling.symbol_scale(model, name) for name in names]
    both = only_old = 0
    for point in itertools.product(*pools):
        old, new = function(tuple(float(v) for v in point), ())
        assert not (new and not old), (written, point)
        both += bool(new and old)
        only_old += bool(old and not new)
    assert both > 10 * only_old, (both, only_old)  # as strict, not much stricter: a point it adds goes through the rule
    if fixture == "decimal_tie_beyond_whole":  # the bound and the decimal test's limit are one literal in base units (ns)
        side = sympy.Add(sympy.Abs(relation.lhs, evaluate=False), sympy.Abs(relation.rhs, evaluate=False), evaluate=False)
        limit = scaling.base_expression(model, sympy.StrictGreaterThan(side, stepwise.WHOLE_LIMIT)).rhs
        bounds = [p.args[0][0] for p in scaling.base_expression(model, tie_conditions.clear_of_ties(model, [relation])).atoms(sympy.Piecewise)]
        assert bounds == [limit], (bounds, limit)
