"""A solve whose target names a quantity that depends on the unknown (Hong & Kim's ``--target CWP``
solved for N) is checked with the target read at each value of the unknown, not left unchecked (an
outside tester's finding: a range the model's own evaluation contradicts was printed with exit 0 and
the false reason "CWP = nan"); and the range keeps every argument of the quantity's Min/Max (a later
finding: Eq. (17)'s cap ``Active_warps_per_SM``, whose expansion is the same as N's own equation, was
written as N and so dropped, and the range was refused by its check instead of being right)."""

from __future__ import annotations

import json

import numpy as np

import symgpu
from symgpu.evaluate import evaluator

POINT = ("-p", "table2_example", "-s", "Coal_Mem_insts=6", "-s", "Uncoal_Mem_insts=0", "-s", "Mem_Bandwidth=1000e9",
         "-s", "Active_blocks_per_SM=1")
VALUES = {"Coal_Mem_insts": 6, "Uncoal_Mem_insts": 0, "Mem_Bandwidth": 1000e9, "Active_blocks_per_SM": 1}


def _equal_at(model: symgpu.Model, n: float) -> bool:
    at = {**VALUES, "N": n}
    mwp = model.evaluate("MWP", "table2_example", values=at).magnitude
    cwp = model.evaluate("CWP", "table2_example", values=at).magnitude
    return bool(np.isclose(mwp, cwp, rtol=1e-12, atol=0))


def test_mwp_equals_cwp_for_n_up_to_the_active_warps_that_cap_eq17() -> None:
    model = symgpu.load("hong_kim_2009")
    # by hand at this point: Active_warps_per_SM = 1 block x 128 threads / 32 = 4 caps MWP_Without_BW (Eq. 17);
    # MWP_Without_BW_full = 420/4 = 105, MWP_peak_BW = 1000e9 x 420/(1e9 x 128 x 16) = 205, CWP_full = 1 + 6 x 420/(4 x 33) = 20.09:
    # MWP = min(4, N), CWP = min(20.09, N): equal exactly when N <= 4
    grid = np.arange(0.25, 30.0, 0.25)
    holds = [n for n in grid if _equal_at(model, float(n))]  # brute force on the evaluate path
    assert holds == [n for n in grid if n <= 4.0]
    d = model.solve("MWP", for_="N", target="CWP", preset="table2_example", values=VALUES)
    assert d.certificate is not None and d.certificate.checked
    bound = evaluator.evaluate_expression(model, d.result.rhs, "warp/SM", preset="table2_example", values=VALUES).magnitude
    assert d.result.lhs == model.symbols["N"] and float(bound) == 4.0


def test_the_range_at_the_point_is_printed_and_checked(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "hong_kim_2009", "MWP", "--for", "N", "--target", "CWP", *POINT, "--json")
    assert code == 0 and err == "", err
    answer = json.loads(out)
    assert "Active_blocks_per_SM*Threads_per_block/Threads_per_warp" in answer["extra"]["holds_for"]
