"""A domain that reads no swept symbol is decided once per box of the numba loop (``fused.Layout.steady``), not per
point: the columns, regime codes, near-tie flags and the count of points outside are those of the per-point test,
inside the domain and outside it, over whole grids and grids cut into chunks that start mid-row."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu.sweep import backends, fused, sweep
from symgpu.sweep.grid import Axis, Grid
from symgpu.sweep.regimes import RegimeSpec


def _numba():  # type: ignore[no-untyped-def]
    if not backends.available("numba"):
        pytest.skip("backend numba is not available here")
    import numba  # noqa: PLC0415 - optional

    return numba


def _outputs(row, fixed):  # type: ignore[no-untyped-def]
    # the value a*b, the domain (whether the fixed input is positive: no swept symbol), a Min over a and b
    a, b = row
    return (a * b, 1.0 if fixed[0] > 0.0 else 0.0, a, b)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("chunk", [7, 50])
def test_steady_domain_gives_the_per_point_columns_codes_and_count(sign: float, chunk: int) -> None:
    numba = _numba()
    a_values, b_values = np.array([1.0, 2.0, 3.0, 5.0]), np.array([0.5, 2.0, 4.0, 1.0, 3.0])
    grid = Grid((Axis("a", a_values, "a"), Axis("b", b_values, "b")))
    spec = RegimeSpec("q", "min", ("a", "b"), (("arg", 2), ("arg", 3)))
    per_point = fused.layout(object(), [a.values for a in grid.axes], (1.0, 1.0), 1, 1, spec)
    steady = fused.layout(object(), [a.values for a in grid.axes], (1.0, 1.0), 1, 1, spec, steady=True)
    assert steady.steady and not per_point.steady
    a, b = np.meshgrid(a_values, b_values, indexing="ij")
    # by hand: inside, a*b and the first smaller of a, b (0: a, 1: b); outside, NaN and -1 everywhere
    want = (a * b).reshape(-1) if sign > 0 else np.full(grid.size, np.nan)
    want_codes = np.where(b < a, 1, 0).reshape(-1) if sign > 0 else np.full(grid.size, -1)
    for layout in (per_point, steady):
        out, codes, outside = np.empty((1, grid.size)), np.empty(grid.size, dtype=np.int16), 0
        for start in range(0, grid.size, chunk):
            stop = min(grid.size, start + chunk)
            outside += fused.run(numba, _outputs, layout, (sign,), grid.boxes(start, stop), start, out[:, start:stop],
                                 codes[start:stop])[0]
        np.testing.assert_array_equal(out[0], want)
        np.testing.assert_array_equal(codes, want_codes)
        assert outside == (0 if sign > 0 else grid.size)


@pytest.mark.parametrize("values", [None, {"Uncoal_Mem_insts": 0, "Coal_Mem_insts": 0}])
@pytest.mark.parametrize("regime_of", ["", None])
def test_hong_kim_numba_sweep_with_its_steady_domain_matches_the_numpy_backend_bit_for_bit(values, regime_of) -> None:  # type: ignore[no-untyped-def]
    # Hong & Kim's domain (Uncoal_Mem_insts + Coal_Mem_insts > 0) reads only fixed inputs: decided once; with no memory
    # instructions every point is outside it
    _numba()
    model = symgpu.load("hong_kim_2009")
    grid = ["Active_blocks_per_SM=1:8", "Comp_insts=1:30", "Mem_LD=100:140"]
    got, want = (sweep(model, "Exec_cycles_app", grid=grid, preset="table2_example", values=values, regime_of=regime_of,
                       backend=backend) for backend in ("numba", "numpy"))
    known = fused._LAYOUTS.get(id(got.plan))
    assert known is not None and known[1].steady
    column, expected = np.asarray(got.columns["Exec_cycles_app"]), np.asarray(want.columns["Exec_cycles_app"])
    assert np.array_equal(column.view(np.int64), expected.view(np.int64))
    assert got.outside == want.outside == (0 if values is None else 8 * 30 * 41)
    if regime_of is None:
        assert got.regime is not None and want.regime is not None and np.array_equal(got.regime, want.regime)
