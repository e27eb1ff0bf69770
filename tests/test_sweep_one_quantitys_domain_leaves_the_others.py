"""``symgpu sweep`` of several quantities where one quantity's ``valid_when`` fails at a point: only that quantity's
column is NaN there; the other columns and the regime column keep their values, and the summary names the quantity
and its condition.

Outside tester, round 13a, F3: one domain for the whole row, so ``dram_throughput`` and ``capacity_h100`` were NaN
and the regime empty wherever ``n_for_throughput``'s ``x_target < capacity_h100`` failed, under the note
"256 points outside the model's domain (valid_when)". The expected values are the tiny roofline's arithmetic written
out here: P = min(P_peak, I*B), I_needed = T/B where T < P_peak.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu.sweep.run import sweep

#: the toy preset: P_peak = 100 TFLOP/s, B = 2 TB/s
P_PEAK, B = 100e12, 2e12
INTENSITIES = (1.0, 10.0, 100.0)  # FLOP/B: I*B = 2, 20, 200 TFLOP/s (no tie with the peak)
TARGETS = (50e12, 150e12)  # FLOP/s: the second is above the peak, outside I_needed's domain

EXTRA = """
[symbols.T]
description = "target throughput"
unit = "FLOP/s"
assumptions = ["positive"]

[symbols.I_needed]
description = "intensity that reaches the target at the bandwidth"
unit = "FLOP/B"
role = "output"

[[equations]]
id = "needed"
defines = "I_needed"
rhs = "T/B"
valid_when = ["T < P_peak"]
source = { ref = "toy2026", locator = "Eq. (2)" }
"""


def expected(i: float, t: float) -> tuple[float, float, str]:
    """P, I_needed (NaN outside its domain) and P's regime, by hand."""
    p = min(P_PEAK, i * B)
    needed = t / B if t < P_PEAK else math.nan
    return p, needed, "min_arg1" if P_PEAK < i * B else "min_arg2"


@pytest.fixture
def model_file(write_model) -> Path:
    return write_model(extra_equation=EXTRA)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_only_the_quantity_whose_domain_fails_is_nan_and_the_summary_names_it(cli, model_file, tmp_path, backend):
    output = tmp_path / f"s_{backend}.csv"
    argv = ("sweep", model_file, "P", "I_needed", "-p", "toy", "-g", "I=" + ",".join(map(str, INTENSITIES)),
            "-g", "T=5e13,1.5e14", "-o", output, "--format", "csv", "--backend", backend, "--no-progress")
    for _ in range(2):  # the second run of the request too (no stored plan replays it without the note)
        code, out, err = cli(*argv)
        assert code == 0, err
        assert "3 points outside I_needed's domain (T < P_peak): NaN" in out
        assert "outside the model's domain" not in out
        with output.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == len(INTENSITIES) * len(TARGETS)
        for row in rows:
            i, t = float(row["I [FLOP/B]"]), float(row["T [FLOP/s]"])
            p, needed, regime = expected(i, t)
            assert float(row["P [FLOP/s]"]) == pytest.approx(p, rel=1e-15)
            got = float(row["I_needed [FLOP/B]"])
            assert (math.isnan(got) and math.isnan(needed)) or got == pytest.approx(needed, rel=1e-15)
            assert row["regime"] == regime  # P's regime stands where I_needed has no value
        assert f"regimes of P: min_arg1 2, min_arg2 4" in out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_in_memory_sweep_keeps_the_other_columns_where_one_domain_fails(model_file, backend):
    model = symgpu.load(str(model_file))
    result = sweep(model, ["I_needed", "P"], preset="toy", grid=["I=1,10,100", "T=5e13,1.5e14"], backend=backend)
    grid = [(i, t) for i in INTENSITIES for t in TARGETS]  # the last axis varies fastest
    hand = [expected(i, t) for i, t in grid]
    np.testing.assert_allclose(result.columns["P"], [h[0] for h in hand], rtol=1e-15)
    np.testing.assert_allclose(result.columns["I_needed"], [h[1] for h in hand], rtol=1e-15)  # NaN where expected NaN
    assert list(result.regime_names()) == [h[2] for h in hand]
    assert result.outside == 0  # no condition every column shares failed
    # the same values as each quantity swept alone, where each has one
    alone = sweep(model, "P", preset="toy", grid=["I=1,10,100", "T=5e13,1.5e14"], backend=backend)
    np.testing.assert_array_equal(alone.columns["P"], result.columns["P"])
