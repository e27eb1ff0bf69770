"""Issue 25, extrema: the ends of a domain are candidates, every candidate holds only inside the
variable's declared range and the ``valid_when`` domains, and the answer is the candidate that
beats every other one that holds. Expected values come from brute force on the evaluate path."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive

_MDM = {"LLCMissRate": 0.5, "L_DRAMService": 0.3733333, "L_NoCService": 0.1706667, "M_Read": 5.0, "M_Write": 1.0}


def _scan(model: symgpu.Model, quantity: str, preset: str | None, values: dict[str, float], var: str,
          xs: np.ndarray) -> np.ndarray:
    got = model.evaluate(quantity, preset, values={**values, var: xs}).magnitude  # valid_when checked
    return np.broadcast_to(np.asarray(got, dtype=float), xs.shape)


def test_a_maximum_at_the_end_of_a_valid_when_domain_is_that_end(cli):
    # S_Mem_MDM_MSHR rises with W on all of W <= W_max = 64 (table1): the maximum is at W = 64, not at the
    # cusp W = MSHRs/M_Read = 25.6 that the engine used to give
    model = symgpu.load("mdm_2019")
    xs = np.linspace(0.5, 64.0, 1271)
    ys = _scan(model, "S_Mem_MDM_MSHR", "table1", _MDM, "W", xs)
    assert np.all(np.diff(ys) > 0)
    code, out, err = cli("extremum", "mdm_2019", "S_Mem_MDM_MSHR", "--over", "W", "--max", "--preset", "table1",
                         *[a for k, v in _MDM.items() for a in ("--set", f"{k}={v}")])
    assert code == 0, err
    value_line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    assert f"at W = {xs[-1]:g} warp/SM" in value_line
    assert float(value_line.split()[1]) == pytest.approx(ys[-1], rel=1e-6)


def test_the_maximum_at_a_point_compares_the_cusp_with_the_domain_end_and_the_symbolic_form_says_when_it_holds():
    # without a point the answer is the papers' form (the cusp) with the conditions it needs printed beside it: past
    # the cusp the quantity is flat only without writes (M_Write*(L_DRAMService + L_NoCService) <= 0); with writes the
    # domain's end W = 64 beats it. It is checked at the model's validation cases, which have no writes;
    # asked at a point, every candidate is compared by its numbers
    model = symgpu.load("mdm_2019")
    symbolic = model.extremum("S_Mem_MDM_MSHR", over="W", kind="max")
    # (since the cusp's condition M_Write*(L_DRAMService + L_NoCService) <= 0 holds only as an equality of nonnegative
    # inputs, the answer is a Piecewise: the cusp where it holds, the domain's end W_max elsewhere)
    assert isinstance(symbolic.location, sympy.Piecewise) and model.symbols["M_Write"] in symbolic.location.free_symbols
    assert symbolic.location.args[-1] == (model.symbols["W_max"], True)
    no_writes = {**_MDM, "M_Write": 0.0}
    ys = _scan(model, "S_Mem_MDM_MSHR", "table1", no_writes, "W", np.linspace(0.5, 64.0, 1271))
    assert float(derive.evaluate_result(model, symbolic, "table1", **no_writes).magnitude) == pytest.approx(ys.max(), rel=1e-6)
    for m_write in (0.0, 1.0):
        values = {**_MDM, "M_Write": m_write}
        ys = _scan(model, "S_Mem_MDM_MSHR", "table1", values, "W", np.linspace(0.5, 64.0, 1271))
        answer = model.extremum("S_Mem_MDM_MSHR", over="W", kind="max", preset="table1", values=values)
        value = float(derive.evaluate_result(model, answer, "table1", **values).magnitude)
        where = float(derive.evaluate_result(model, answer, "table1", which="location", **values).magnitude)
        assert value == pytest.approx(ys.max(), rel=1e-6)
        assert 0 < where <= 64.0


def test_a_minimum_location_is_inside_the_declared_range():
    # cycles_per_warp = Max(..., gmem_cpi*gmem_insts + gmem2_cpi*gmem2_insts, ...) rises with gmem_insts >= 0 once memory
    # binds; here another term binds at gmem_insts = 0, so the minimum 36.25 = issue_cpi*(single + dual + reissues)
    # = 0.25*145 is reached at gmem_insts = 0 (the old answer put it at gmem_insts = -7.05)
    model = symgpu.load("volkov_2016_h100")
    values = {"cuda_cpi": 0.25, "cuda_insts": 100.0, "dual_issues": 5.0, "gmem2_cpi": 24.6, "gmem2_insts": 5.0,
              "gmem_cpi": 12.3, "issue_cpi": 0.25, "reissues": 15.0, "sfu_cpi": 1.0, "sfu_insts": 5.0,
              "single_issues": 125.0, "smem2_cpi": 2.0, "smem2_insts": 10.0, "smem_cpi": 1.0, "smem_insts": 10.0}
    xs = np.concatenate([[0.0], np.geomspace(1e-3, 1e4, 701)])
    ys = _scan(model, "cycles_per_warp", "h100_stream", values, "gmem_insts", xs)
    # without a point the papers' forms hold nowhere here: the symbolic answer's last branches are the domain's ends
    # (the minimum is at the end gmem_insts = 0), so it is right here too; asked at the point, by the numbers
    symbolic = model.extremum("cycles_per_warp", over="gmem_insts", kind="min")
    at_point = model.extremum("cycles_per_warp", over="gmem_insts", kind="min", preset="h100_stream", values=values)
    for answer in (symbolic, at_point):
        value = float(derive.evaluate_result(model, answer, "h100_stream", **values).magnitude)
        where = float(derive.evaluate_result(model, answer, "h100_stream", which="location", **values).magnitude)
        assert where == 0
        assert value == pytest.approx(ys.min(), rel=1e-9)


def test_a_lower_valid_when_bound_is_an_attained_end_not_an_open_one():
    # interval_analysis P_K0x is valid for L_F/t_issue <= N <= 2*L_M/t_issue (m2200: 6 <= N <= 800) and falls with N there:
    # the maximum is at N = 6, not "approached as N -> 0" (outside the domain)
    model = symgpu.load("interval_analysis")
    values = {"M": 16.0, "n_X": 19.0}
    xs = np.linspace(6.0, 800.0, 7941)
    ys = _scan(model, "P_K0x", "m2200", values, "N", xs)
    assert int(np.argmax(ys)) == 0
    answer = model.extremum("P_K0x", over="N", kind="max")
    assert float(derive.evaluate_result(model, answer, "m2200", **values).magnitude) == pytest.approx(ys[0], rel=1e-9)
    assert float(derive.evaluate_result(model, answer, "m2200", which="location", **values).magnitude) == pytest.approx(6.0)
