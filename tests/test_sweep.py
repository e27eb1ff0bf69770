"""symgpu.sweep: grid parsing, chunked evaluation equal to point-by-point evaluation, the same
result for every chunk size and backend, regimes as active_regime decides them, fused checks."""

from __future__ import annotations

import importlib.util
import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

import symgpu
from conftest import read_fixture, toy_header
from symgpu import errors
from symgpu.evaluate import active
from symgpu.evaluate.active import active_regime
from symgpu.sweep import backends, build_plan, iter_chunks, parse_axis, sweep
from symgpu.sweep import fused, run
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.regimes import RegimeSpec

PRESET = "table2_example"


@pytest.fixture(scope="module")
def hk() -> symgpu.api.Model:
    return symgpu.load("hong_kim_2009")


def test_axis_range_with_default_step_is_inclusive() -> None:
    assert parse_axis("n=1:4").values.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_axis_range_with_step_and_list() -> None:
    assert parse_axis("alpha=0:8:2").values.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert parse_axis("a=1, 2,4").values.tolist() == [1.0, 2.0, 4.0]


def test_a_range_axis_is_each_decimal_point_rounded_once_and_counted_exactly() -> None:
    # START + i*STEP in exact decimals: 0.2*k and 0.1*k, each the double of its decimal (accumulated doubles gave
    # 0.6000000000000001 and 1.4000000000000001, 0.7000000000000001); 0.9999999999 holds 9 whole tenths: 10 points, none past STOP
    assert parse_axis("M=0.2:1.4:0.2").values.tolist() == [float(Fraction(2 * k, 10)) for k in range(1, 8)]
    assert parse_axis("M=0.1:0.7:0.1").values.tolist() == [float(Fraction(k, 10)) for k in range(1, 8)]
    assert parse_axis("x=-1.5:1.5:0.5").values.tolist() == [float(Fraction(k, 2)) for k in range(-3, 4)]
    assert Fraction("0.9999999999") // Fraction("0.1") == 9
    assert parse_axis("x=0:0.9999999999:0.1").values.tolist() == [float(Fraction(k, 10)) for k in range(10)]


def test_a_sweep_over_a_range_axis_gives_the_staircase_eval_gives_at_each_decimal(write_model: Callable[..., Path]) -> None:
    # batches = ceiling(M*W/7) at W = 10: at M = 1.4 it is 14/7 = 2 exactly (3 at the accumulated 1.4000000000000001),
    # and the same as evaluate at the decimal
    model = symgpu.load(write_model(toy_header("batches", "Batches", "A staircase.") + """
[symbols.M]
description = "requests per warp"
unit = "1"
assumptions = ["positive"]
[symbols.W]
description = "warps"
unit = "1"
assumptions = ["positive"]
[symbols.batches]
description = "batches"
unit = "1"
role = "output"
[[equations]]
id = "b"
defines = "batches"
rhs = "ceiling(M*W/7)"
source = { ref = "toy2026", locator = "1" }
""", name="batches"))
    result = sweep(model, "batches", grid=["M=0.2:1.4:0.2"], values={"W": 10})
    by_hand = [math.ceil(Fraction(2 * k, 10) * 10 / 7) for k in range(1, 8)]
    assert result.columns["batches"].tolist() == by_hand == [1, 1, 1, 2, 2, 2, 2]
    assert [model.evaluate("batches", values={"M": float(Fraction(2 * k, 10)), "W": 10}).magnitude for k in range(1, 8)] == by_hand


def test_log_axis_has_equal_ratios_and_exact_ends() -> None:
    axis = parse_axis("x=1e3:1e6:log4")
    assert axis.values[0] == 1e3 and axis.values[-1] == 1e6
    np.testing.assert_allclose(axis.values, [1e3, 1e4, 1e5, 1e6], rtol=1e-12)


@pytest.mark.parametrize(("text", "message"), [
    ("n1:4", r"^--grid 'n1:4': expected NAME=START:STOP\[:STEP\], NAME=START:STOP:logN or NAME=V1,V2,\.\.\., e\.g\. --grid n=1:64$"),
    ("n=4:1", r"^--grid 'n=4:1': STOP is smaller than START$"),
    ("n=1:4:0", r"^--grid 'n=1:4:0': STEP must be a positive number$"),
    ("x=0:10:log5", r"^--grid 'x=0:10:log5': a log range needs START > 0$"),
    ("x=1:10:logx", r"^--grid 'x=1:10:logx': logN needs a whole number N >= 2 of points, e\.g\. log20$"),
    ("n=1:1e9", r"^--grid 'n=1:1e9': 1000000000 points is too many \(at most 10000000\)$"),
    ("n=a:4", r"^--grid 'n=a:4': START 'a' is not a number \(a number, or a number and a unit such as 0\.2us; "
                  r"a bare number is in the symbol's declared unit\)$"),
])
def test_bad_axis_text_is_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(errors.UsageError, match=message):
        parse_axis(text)


def test_chunks_cover_the_grid_in_c_order() -> None:
    grid = Grid((parse_axis("a=1:3"), parse_axis("b=10,20"), parse_axis("c=5:8")))
    expected = list(itertools.product([1, 2, 3], [10, 20], [5, 6, 7, 8]))
    got = []
    for start, stop in grid.chunks(5):
        got += list(zip(*[c.tolist() for c in grid.chunk(start, stop)]))
    assert got == [tuple(map(float, p)) for p in expected]


def test_table2_point_matches_hand_arithmetic(hk: symgpu.api.Model) -> None:
    # Table 2 erratum text: Eq. (23) gives 4380 x 20/2.28125 + 22 x 1.28125 (Rep = 1)
    result = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=["Active_blocks_per_SM=4,5"])
    assert result.columns["Exec_cycles_app"][1] == pytest.approx(4380 * 20 / 2.28125 + 22 * 1.28125, rel=1e-14)
    assert result.regime_names()[1] == "eq23"


def test_sweep_equals_point_by_point_evaluation_and_active_regime(hk: symgpu.api.Model) -> None:
    result = sweep(hk, ["Exec_cycles_app", "MWP"], preset=PRESET,
                   grid=["Active_blocks_per_SM=1:8", "Mem_LD=100:1000:150", "Comp_insts=1,27,1000"], chunk_size=11)
    names = result.regime_names()
    for i in range(result.columns["Mem_LD"].size):
        point = {k: float(result.columns[k][i]) for k in ("Active_blocks_per_SM", "Mem_LD", "Comp_insts")}
        for quantity in ("Exec_cycles_app", "MWP"):
            expected = float(hk.evaluate(quantity, preset=PRESET, values=point).magnitude)
            assert result.columns[quantity][i] == pytest.approx(expected, rel=1e-12)
        assert names[i] == active_regime(hk, "Exec_cycles_app", PRESET, **point)[0]
    assert {"eq22", "eq23", "eq24"} <= set(names)


def test_min_quantity_regime_names_the_limiter(hk: symgpu.api.Model) -> None:
    result = sweep(hk, "MWP", preset=PRESET, grid=["Active_blocks_per_SM=1:8", "Mem_LD=100:5000:700"])
    names = result.regime_names()
    for i in range(names.size):
        point = {k: float(result.columns[k][i]) for k in ("Active_blocks_per_SM", "Mem_LD")}
        assert names[i] == active_regime(hk, "MWP", PRESET, **point)[0]


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1 << 18])
def test_result_is_the_same_for_every_chunk_size(hk: symgpu.api.Model, chunk_size: int) -> None:
    grid = ["Active_blocks_per_SM=1:8", "Mem_LD=100:900:50"]
    reference = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=grid, chunk_size=1000)
    other = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=grid, chunk_size=chunk_size)
    np.testing.assert_allclose(other.columns["Exec_cycles_app"], reference.columns["Exec_cycles_app"], rtol=1e-12)
    assert (other.regime == reference.regime).all()


@pytest.mark.parametrize("backend", ["numba", "cupy", "jax"])
def test_optional_backends_agree_with_numpy(hk: symgpu.api.Model, backend: str) -> None:
    if not backends.available(backend):
        pytest.skip(f"backend {backend} is not available here")
    grid = ["Active_blocks_per_SM=1:8", "Mem_LD=100:900:50", "Comp_insts=1,30,500"]
    reference = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=grid)
    other = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=grid, backend=backend, chunk_size=100)
    np.testing.assert_allclose(other.columns["Exec_cycles_app"], reference.columns["Exec_cycles_app"], rtol=1e-12)
    assert (other.regime == reference.regime).all()


def test_missing_backend_package_says_how_to_install() -> None:
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("cupy is installed")
    with pytest.raises(errors.UsageError, match=r"^backend 'cupy' needs the package cupy: pip install 'symgpu\[gpu\]'$"):
        backends.load("cupy")


def test_points_outside_the_domain_are_nan_and_counted(hk: symgpu.api.Model) -> None:
    # Eq. (22)-(24) hold only when 0 < Mem_insts = Coal_Mem_insts + Uncoal_Mem_insts (here Coal = 0)
    result = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=["Uncoal_Mem_insts=0,6", "Mem_LD=100,200"])
    values = result.columns["Exec_cycles_app"]
    assert np.isnan(values[:2]).all() and np.isfinite(values[2:]).all()
    assert result.outside == 2
    assert result.regime_names()[:2].tolist() == ["", ""]


def test_checks_off_skips_the_domain_mask(hk: symgpu.api.Model) -> None:
    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=["Uncoal_Mem_insts=0,6"], checks=False)
    assert plan.domain is None


def test_axis_breaking_an_assumption_is_refused(hk: symgpu.api.Model) -> None:
    with pytest.raises(errors.EvaluationError, match=r"^hong_kim_2009: Mem_LD = -1 cycle violates the declared assumption 'positive'; give a positive value$"):
        build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=["Mem_LD=-1:5"])


def test_axis_naming_no_symbol_is_refused(hk: symgpu.api.Model) -> None:
    with pytest.raises(errors.UsageError, match=r"^--grid 'bogus=1:2': hong_kim_2009 has no symbol 'bogus' \(declared: .*\)$"):
        build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=["bogus=1:2"])


def test_missing_value_names_the_symbol_and_the_options(hk: symgpu.api.Model) -> None:
    with pytest.raises(errors.EvaluationError, match=r"^hong_kim_2009: MWP needs a value for .*; give (it|them) with --set \w+=\.\.\. or --grid \w+=START:STOP$"):
        build_plan(hk, ["MWP"], grid=["Mem_LD=100:200"])


def test_chunks_never_exceed_the_chunk_size(hk: symgpu.api.Model) -> None:
    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=["Active_blocks_per_SM=1:8", "Mem_LD=100:1000"])
    sizes = [c.columns["Exec_cycles_app"].size for c in iter_chunks(plan, chunk_size=1000)]
    assert max(sizes) <= 1000 and sum(sizes) == 8 * 901
    # each chunk a box of the grid (whole Mem_LD rows here), so subexpressions broadcast over it
    assert sizes == [901] * 8


def test_exact_tie_of_a_discontinuous_model_is_decided_as_evaluate_decides_it(hk: symgpu.api.Model) -> None:
    # Mem_LD = 970: MWP_Without_BW_full = (970 + 31 x 10)/320 = 4 = N (1 block of 4 warps): Eq. (22) applies,
    # and Eq. (22) and (23) differ by Comp_cycles there, so the tie must be computed as evaluate computes it
    result = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=["Active_blocks_per_SM=1", "Mem_LD=970"])
    expected = hk.evaluate("Exec_cycles_app", preset=PRESET, values={"Active_blocks_per_SM": 1, "Mem_LD": 970})
    assert result.columns["Exec_cycles_app"][0] == float(expected.magnitude)
    assert result.regime_names()[0] == "eq22"


BACKEND_CASES = {
    # Eq. (22)-(24) by cases, points outside the domain (Uncoal_Mem_insts = 0) and the exact tie at Mem_LD = 970
    "cases+domain+tie": ("hong_kim_2009", "Exec_cycles_app", PRESET,
                         ["Active_blocks_per_SM=1:8", "Uncoal_Mem_insts=0,6", "Mem_LD=100,400,969,970,971,2000", "Comp_insts=1,30,500"]),
    "min regime": ("hong_kim_2009", "MWP", PRESET, ["Active_blocks_per_SM=1:8", "Mem_LD=100:5000:70"]),
    # MWP's bandwidth bound 1e-13 relative below its departure bound at 6.4 GB/s x (1 - 1e-13), 1 block, Mem_LD = 100
    # (a tie the rule gives to the first argument, where a plain comparison picks the second), and MWP_Without_BW
    # capped at N: tied exactly with N wherever the cap binds (test_sweep_device.py)
    "min regime near ties": ("hong_kim_2009", "MWP", PRESET, ["Active_blocks_per_SM=1:8", "Mem_LD=100,970,5000",
                                                              "Mem_Bandwidth=3e9,6e9,6399999999.99936,1e10"]),
}


@pytest.mark.parametrize("regime_of", [None, ""])
@pytest.mark.parametrize("chunk_size", [1, 7, 1000])
@pytest.mark.parametrize("case", sorted(BACKEND_CASES))
@pytest.mark.parametrize("backend", ["numba", "cupy", "jax"])
def test_optional_backends_agree_with_numpy_for_every_column(backend: str, case: str, chunk_size: int, regime_of: str | None) -> None:
    # regime_of "": the value columns alone (on a GPU, computed and reduced on the device: sweep.device)
    if not backends.available(backend):
        pytest.skip(f"backend {backend} is not available here")
    name, quantity, preset, grid = BACKEND_CASES[case]
    model = symgpu.load(name)
    reference = sweep(model, quantity, preset=preset, grid=grid, regime_of=regime_of)
    other = sweep(model, quantity, preset=preset, grid=grid, backend=backend, chunk_size=chunk_size, regime_of=regime_of)
    assert reference.columns.keys() == other.columns.keys()
    for column, values in reference.columns.items():
        np.testing.assert_allclose(other.columns[column], values, rtol=1e-12, atol=0, err_msg=column)
    assert np.isnan(reference.columns[quantity]).any() == (case == "cases+domain+tie")
    if case == "min regime near ties" and regime_of is None:
        assert reference.regime_names()[2] == "departure_bound" and set(reference.regime_names()) == {"departure_bound", "bandwidth_bound"}
    assert other.outside == reference.outside
    assert (reference.regime is None) == (other.regime is None) == (regime_of == "")
    assert other.regime is None or (other.regime == reference.regime).all()
    chunks = list(iter_chunks(build_plan(model, [quantity], preset=preset, grid=grid, regime_of=regime_of), backend, chunk_size))
    np.testing.assert_allclose(np.concatenate([c.columns[quantity] for c in chunks]), reference.columns[quantity], rtol=1e-12, atol=0)
    assert sum(c.outside for c in chunks) == reference.outside


def test_numba_backend_scales_declared_units_as_numpy_does(write_model: Callable[..., Path]) -> None:
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    model = symgpu.load(write_model(read_fixture("scales"), name="scales"))
    # B/s, GHz and ns: axes whose declared units are not base units
    grids = {"per_cycle": ["BW=1e9:9e9:4e9", "clock=0.5:2:0.25"], "whole": ["L=1:40:3", "clock=0.5:2:0.25"]}
    results = {}
    for quantity, grid in grids.items():
        reference = sweep(model, quantity, grid=grid)
        results[quantity] = other = sweep(model, quantity, grid=grid, backend="numba", chunk_size=5)
        for column, values in reference.columns.items():
            np.testing.assert_allclose(other.columns[column], values, rtol=1e-12, atol=0, err_msg=column)
    # by hand: 1 GB/s / 0.5 GHz = 2 B/cycle; ceiling(1 ns x 0.5 GHz) = ceiling(0.5) = 1 cycle
    assert results["per_cycle"].columns["per_cycle"][0] == 2.0
    assert results["whole"].columns["whole"][0] == 1.0


@pytest.mark.parametrize("kind", ["min", "max"])
def test_numba_regime_of_a_min_or_max_is_the_rule_at_near_ties_nan_and_infinities(kind: str) -> None:
    # three arguments, each an axis over values with near ties (within and beyond TIE), NaN and
    # infinities of both signs: the loop's fast decision and its second pass give the rule's answer
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    import numba  # noqa: PLC0415 - optional

    pool = np.array([1.0, 2.0, 2.0 * (1 + active.TIE / 3), 2.0 * (1 - 3 * active.TIE), 0.0, -2.0,
                     np.inf, -np.inf, np.nan])
    grid = Grid(tuple(Axis(name, pool, name) for name in ("a", "b", "c")))
    spec = RegimeSpec("q", kind, ("a", "b", "c"), (("arg", 1), ("arg", 2), ("arg", 3)))

    def outputs(row, fixed):  # type: ignore[no-untyped-def]
        a, b, c = row
        return (0.0, a, b, c)

    plan = fused.layout(object(), [a.values for a in grid.axes], (1.0, 1.0, 1.0), 1, None, spec)
    out, codes = np.empty((1, grid.size)), np.empty(grid.size, dtype=np.int16)
    fused.run(numba, outputs, plan, (), grid.boxes(0, grid.size), 0, out, codes)
    want = active.binding_index(list(np.meshgrid(pool, pool, pool, indexing="ij")), kind).reshape(-1)
    assert (codes == want).all()


def test_grid_code_uses_neither_reduce_nor_select_and_computes_what_numpy_does() -> None:
    # the grid printer's code runs on CuPy too, which has no logical_and.reduce (seen failing on an
    # H200, CuPy 14.2: data/h200/run0/run.log) and whose select takes neither True nor scalar choices,
    # as SymPy's own CuPy printer writes them
    from symgpu.evaluate.printers import GridPrinter

    x, y = sympy.symbols("x y")
    expr = sympy.Piecewise((x * y, sympy.And(x > 1, y < 2, x < y)), (2.0, sympy.Or(x < 0, y > 5)), (x + y, True))
    text = GridPrinter().doprint(expr)
    assert ".reduce(" not in text and "select(" not in text
    printed = sympy.lambdify([x, y], expr, modules=[{}], printer=GridPrinter())
    xs, ys = np.meshgrid(np.linspace(-1, 3, 41), np.linspace(-1, 7, 33))
    by_hand = np.where((xs > 1) & (ys < 2) & (xs < ys), xs * ys, np.where((xs < 0) | (ys > 5), 2.0, xs + ys))
    np.testing.assert_array_equal(printed(xs, ys), by_hand)


def test_numba_chunks_written_into_a_whole_sweeps_arrays_fill_them() -> None:
    # the chunked path with the result's arrays (sweep's own numba path runs one loop instead): each chunk's MWP and regime
    # codes land in their slices, none left as the sentinel; expected values from Model.evaluate point by point
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    model = symgpu.load("hong_kim_2009")
    plan = build_plan(model, ["MWP"], preset=PRESET, grid=["Active_blocks_per_SM=1:8", "Mem_LD=100,970,5000"], regime_of="MWP")
    columns = {"MWP": np.full(plan.grid.size, -1.0)}
    codes = np.full(plan.grid.size, -1, dtype=np.int16)
    chunks = list(run._chunks(plan, "numba", 5, False, run._Whole(columns, codes)))
    assert sum(c.stop - c.start for c in chunks) == 24 and (codes >= 0).all()
    expected = [model.evaluate("MWP", PRESET, values={"Active_blocks_per_SM": b, "Mem_LD": m}).magnitude
                for b in range(1, 9) for m in (100, 970, 5000)]
    np.testing.assert_allclose(columns["MWP"], expected, rtol=1e-12, atol=0)
