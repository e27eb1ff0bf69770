"""A boundary answered at a point is checked only where its regimes can bind there (round-10 finding 6):
kernel_gemm's roofline boundary over M has a closed form per branch of P_sustained = Min(P_fp32,
P_board/e_flop); at a100_pcie_40gb the power bound binds for every M, so the clock-bound crossing is no
boundary there, and its check refused the whole answer. Expected value by bisection of Model.evaluate."""

from __future__ import annotations

import re

from conftest import bisect_sign_change
import symgpu

AT = {"K_out": 4096, "K_red": 4096, "elem_size": 4}
PRESET = "a100_pcie_40gb+neusight_fit"


def test_gemm_roofline_boundary_over_m_at_a100_is_where_the_power_bound_compute_time_meets_dram_time(cli):
    code, out, err = cli("--no-cache", "boundary", "kernel_gemm", "t_roofline", "--for", "M", "-p", PRESET,
                         *[a for k, v in AT.items() for a in ("-s", f"{k}={v}")])
    assert code == 0, err
    model = symgpu.load("kernel_gemm")

    def excess(m: float) -> float:  # t_math - t_dram (both in the quantity's unit)
        t_math = model.evaluate("t_math", preset=PRESET, M=m, **AT)
        return (t_math - model.evaluate("t_dram", preset=PRESET, M=m, **AT).to(t_math.units)).magnitude

    expected = bisect_sign_change(excess, 1, 4096)  # 21.281207 (the tester's bisection); the clock bound's 23.5877 is none here
    values = [float(v) for v in re.findall(r"^  value: ([0-9.e+-]+)", out, re.M)]
    assert values and all(abs(v - expected) < 1e-8 * expected for v in values)
