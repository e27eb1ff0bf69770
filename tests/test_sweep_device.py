"""The GPU chunk path (:mod:`symgpu.sweep.device`) on this machine's CPU: a NumPy stand-in for CuPy whose
"device" arrays are a subclass of NumPy's with CuPy's ``get(out=)``, so that CI (which has no GPU)
runs the path's own logic: the domain counted at an output's own size, NaN set outside it, each
column copied into its slice, a case table's codes, and the near-tie offsets of a chunk of several
boxes. The real CuPy and JAX backends are compared with NumPy in ``test_sweep.py`` where a GPU is."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgpu
from symgpu.evaluate import compiler
from symgpu.sweep import backends, build_plan, sweep
from symgpu.sweep.backends import Backend
from symgpu.sweep.device import device_chunk
from symgpu.sweep.run import compile_plan, evaluate_chunk

PRESET = "table2_example"
# Eq. (22)-(24) by cases, points outside the domain (Uncoal_Mem_insts = 0), the exact tie at Mem_LD = 970,
# Comp_cycles > Mem_cycles by 1.4e-13 relative at Comp_insts = 1089, Mem_LD = 419.9999999999 (a near-tie point the
# scalar path settles: tests/test_cases_near_ties_agree_everywhere.py) and a grid whose chunks of 7 span several boxes
GRID = ["Active_blocks_per_SM=1:8", "Uncoal_Mem_insts=0,6", "Mem_LD=100,419.9999999999,969,970,2000", "Comp_insts=1,30,1089"]


class _OnDevice(np.ndarray):
    """An array "on the device": what CuPy's arrays offer the path (``get``, with ``out=``)."""

    def get(self, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            return np.array(self.view(np.ndarray))
        assert out.shape == self.shape and out.dtype == self.dtype and out.flags.c_contiguous, "CuPy's get(out=) refuses this"
        np.copyto(out, self.view(np.ndarray))
        return out


def _on_device(function: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        return result.view(_OnDevice) if isinstance(result, np.ndarray) else result
    return call


class _StandIn:
    """The CuPy names the path uses, on NumPy."""

    ndarray = _OnDevice
    asarray = staticmethod(_on_device(np.asarray))
    where = staticmethod(_on_device(np.where))
    broadcast_to = staticmethod(_on_device(np.broadcast_to))
    flatnonzero = staticmethod(_on_device(np.flatnonzero))
    minimum = staticmethod(_on_device(np.minimum))
    maximum = staticmethod(_on_device(np.maximum))
    abs = staticmethod(_on_device(np.abs))
    isnan = staticmethod(_on_device(np.isnan))
    logical_or = staticmethod(_on_device(np.logical_or))
    logical_and = staticmethod(_on_device(np.logical_and))
    count_nonzero = staticmethod(np.count_nonzero)
    any = staticmethod(np.any)

    @staticmethod
    def asnumpy(values: Any) -> np.ndarray:
        return np.array(np.asarray(values).view(np.ndarray))


STAND_IN = Backend("cupy", _StandIn)


@pytest.fixture(scope="module")
def hk() -> symgpu.api.Model:
    return symgpu.load("hong_kim_2009")


def _function(plan: Any) -> Any:
    """The plan's compiled function as the cupy backend builds it (a case table's code last), in NumPy's namespace."""
    exprs, units = plan.exprs, plan.out_units
    if plan.case_code is not None:
        exprs, units = exprs + (plan.case_code,), units + (None,)
    return compiler.fused_function(plan.model, exprs, plan.grid.names, [k for k, _ in plan.fixed], units)


@pytest.mark.parametrize("regime_of", [None, ""])
@pytest.mark.parametrize("span", [1, 7, 1000])
def test_device_chunks_agree_with_numpy_columns_codes_and_near_ties(hk: symgpu.api.Model, span: int, regime_of: str | None) -> None:
    # ranges of `span` points from 0: those of 7 cross the grid's rows (several boxes each), as a caller's may
    plan = build_plan(hk, ["Exec_cycles_app"], preset=PRESET, grid=GRID, regime_of=regime_of)
    assert plan.near is not None and plan.domain is not None
    numpy = backends.load("numpy")
    reference = [evaluate_chunk(plan, numpy, compile_plan(plan, numpy), start, min(start + span, plan.grid.size))
                 for start in range(0, plan.grid.size, span)]
    function = _function(plan)
    whole = np.full(plan.grid.size, -1.0)
    near = np.zeros(plan.grid.size, dtype=bool)
    for mine in reference:
        slices = {"Exec_cycles_app": whole[mine.start:mine.stop]}
        theirs = device_chunk(plan, STAND_IN, function, mine.start, mine.stop, slices)
        assert theirs.columns["Exec_cycles_app"] is slices["Exec_cycles_app"]  # written into the caller's slice
        assert (theirs.start, theirs.stop, theirs.outside) == (mine.start, mine.stop, mine.outside)
        assert theirs.near is not None and mine.near is not None and theirs.near.tolist() == mine.near.tolist()
        near[mine.start + mine.near] = True
        assert (theirs.regime is None) == (mine.regime is None) == (regime_of == "")
        if theirs.regime is not None:  # the reference's near-tie points are settled (settle_ties), the rest by the rule
            keep = ~near[mine.start:mine.stop]
            assert theirs.regime[keep].tolist() == mine.regime[keep].tolist()
    expected = sweep(hk, "Exec_cycles_app", preset=PRESET, grid=GRID, regime_of=regime_of)
    values = expected.columns["Exec_cycles_app"]
    np.testing.assert_array_equal(whole[~near], values[~near])  # the compiled pass's own values (not settled)
    assert np.isnan(values).sum() == expected.outside > 0 and near.any()


@pytest.mark.parametrize("span", [1, 7, 1000])
def test_device_min_regime_agrees_with_numpy_at_ties_between_limiters(hk: symgpu.api.Model, span: int) -> None:
    # MWP = Min(MWP_Without_BW, MWP_peak_BW, N), MWP_Without_BW itself capped at N: where the cap binds the first
    # and third arguments are equal (exact ties, which the rule gives to the first: decided on the host); at
    # Mem_LD = 970 MWP_Without_BW_full = (970 + 31 x 10)/320 = 4 = N for 1 block, and 1e-13 relative beside it;
    # Mem_Bandwidth from 3 to 10 GB/s moves the bandwidth bound across the departure bound (both bind somewhere);
    # MWP_peak_BW is linear in it, 1.201171875 at 6 GB/s for 1 block and Mem_LD = 100, where the departure bound is
    # 1.28125: at 6.4 GB/s x (1 - 1e-13) the bandwidth bound is 1e-13 relative below it, a tie the rule gives to
    # the first argument (departure_bound) where a plain comparison picks the second
    grid = ["Active_blocks_per_SM=1:8", "Mem_LD=100,969.9999999999,970,970.0000000001,5000",
            "Mem_Bandwidth=3e9,6e9,6399999999.99936,1e10"]
    plan = build_plan(hk, ["MWP"], preset=PRESET, grid=grid)
    assert plan.regime is not None and plan.regime.kind == "min"
    numpy = backends.load("numpy")
    function = _function(plan)
    for start in range(0, plan.grid.size, span):
        stop = min(start + span, plan.grid.size)
        mine = evaluate_chunk(plan, numpy, compile_plan(plan, numpy), start, stop)
        theirs = device_chunk(plan, STAND_IN, function, start, stop)
        assert theirs.regime is not None and mine.regime is not None
        assert theirs.regime.tolist() == mine.regime.tolist(), (start, stop)
        np.testing.assert_array_equal(theirs.columns["MWP"], mine.columns["MWP"])
    result = sweep(hk, "MWP", preset=PRESET, grid=grid)
    assert set(result.regime_names().tolist()) == {"departure_bound", "bandwidth_bound"}
    near = {"Active_blocks_per_SM": 1, "Mem_LD": 100, "Mem_Bandwidth": 6399999999.99936}
    assert float(hk.evaluate("MWP_peak_BW", PRESET, **near).magnitude) < float(hk.evaluate("MWP_Without_BW", PRESET, **near).magnitude)
    assert result.regime_names()[2] == "departure_bound"  # (1, 100, 6.4 GB/s - 1e-13): the rule's tie
