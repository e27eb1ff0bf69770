"""The smallest admissible value of an inequality over a ceiling, at the exact edge of a step, is
checked in exact arithmetic: in IEEE doubles 4096/(4096/817) is 817.0000000000001, its ceiling 818,
and the certificate refused the right answer ("check failed ... please report")."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest

Cli = Callable[..., tuple[int, str, str]]


def test_the_smallest_split_k_at_a_step_edge_is_answered(cli: Cli) -> None:
    # from the model file and the presets (Fractions): P_sustained = Min(19492 GFLOP/s, 250 W/14.2 pJ) = 250/14.2e-12 flop/s,
    # waves = ceiling(1024/108) = 10, t_compute = 10*1*108*2*128*128*c/(0.839*P_sustained) = 2.3958 us*c (c = ceiling(4096/split_k)),
    # t_dram = 4 B*3*4096**2/(0.902*1555 GB/s) = 143.5 us; t_kernel = 41.4 us + max(t_compute, t_dram) <= 2 ms holds for
    # c <= 817 (the compute time binds there), so the smallest split_k is 4096/817, attained
    power = Fraction(250) / Fraction(142, 10**13)
    per_step = Fraction(10 * 108 * 2 * 128 * 128) / (Fraction(839, 1000) * power)
    assert math.floor((Fraction(2, 1000) - Fraction(414, 10**7)) / per_step) == 817
    assert per_step * 817 > Fraction(4 * 3 * 4096**2) / (Fraction(902, 1000) * 1555 * 10**9)
    edge = Fraction(4096, 817)
    assert math.ceil(Fraction(4096) / edge) == 817 and math.ceil(Fraction(4096) / (edge - Fraction(1, 10**12))) == 818
    assert math.ceil(4096 / (4096 / 817)) == 818  # what IEEE doubles give at the edge
    code, out, err = cli("solve", "kernel_gemm", "t_kernel", "--for", "split_k", "--relation", "<=", "--target", "2 ms",
                         "--kind", "min", "-p", "a100_pcie_40gb+neusight_fit", "-s", "K_out=4096", "-s", "M=4096", "-s", "tile_m=128",
                         "-s", "tile_n=128", "-s", "blocks=1024", "-s", "K_red=4096")
    assert code == 0, err
    value = float(next(x for x in out.splitlines() if x.strip().startswith("value:")).split()[1])
    assert value == pytest.approx(float(edge), rel=1e-9)
