"""An inequality split at a point into the regions of a Min inside a sum solves the rest inside each region only, so a case
of another term that has no value there is not inverted there (an outside tester's finding: MDM's S_Total_MDM <= 8000 for
M_Read, ``--kind max``, was refused quoting Eq. 4's non-divergent M with Eq. 8's divergent case, which needs
M_Read*W > #MSHRs). Expected values by brute force over ``Model.evaluate``."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

POINT = {"W": 40, "M_Write": 1, "LLCMissRate": 0.5}


def test_the_largest_read_count_within_a_stall_budget_is_found(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("mdm_2019")
    reads = np.arange(0.0, 20.0, 1e-3)
    total = np.asarray(model.evaluate("S_Total_MDM", "table1_gpumech_service", values={**POINT, "M_Read": reads}).to("cycle").magnitude)
    within = np.flatnonzero(total <= 8000)
    assert within.size and np.all(np.diff(within) == 1)  # one run from 0 on
    largest = float(reads[within[-1]])
    code, out, err = cli("solve", "mdm_2019", "S_Total_MDM", "--preset", "table1_gpumech_service", "--set", "W=40", "--set", "M_Write=1",
                         "--set", "LLCMissRate=0.5", "--for", "M_Read", "--relation", "<=", "--target", "8000", "--kind", "max")
    assert code == 0, err
    value = float(out.split("value: ")[1].split()[0])
    assert largest <= value < largest + 1e-3
    beside = np.asarray([value, value * (1 + 1e-9)])
    at = np.asarray(model.evaluate("S_Total_MDM", "table1_gpumech_service", values={**POINT, "M_Read": beside}).to("cycle").magnitude)
    assert at[0] <= 8000 < at[1]
    assert value == pytest.approx(6.4, abs=1e-12)  # by hand: S_Mem*ceiling(40*M_Read/128) <= 8000 up to 40*M_Read = 256
