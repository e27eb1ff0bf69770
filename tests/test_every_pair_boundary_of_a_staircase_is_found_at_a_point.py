"""A boundary asked without ``--between`` at a point, of a quantity whose Min/Max has a staircase limiter in the variable,
finds the switch the named pair finds (an outside tester's finding: kernel_gemm's t_body over K_red said "no two regimes
of t_body meet at an admissible K_red" while ``--between compute_bound memory_bound`` answered 891). Expected values by
brute force over ``Model.evaluate``."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu

PRESET = "h100_sxm+neusight_fit"
POINT = {"M": 4096, "K_out": 4096, "blocks": 132, "tile_m": 128, "tile_n": 128}


def _memory_binds(model: symgpu.Model, k: np.ndarray, split_k: int) -> np.ndarray:
    values = {**POINT, "split_k": split_k, "K_red": k}
    compute, dram = (np.broadcast_to(model.evaluate(q, PRESET, values=values).to("s").magnitude, k.shape) for q in ("t_compute", "t_dram"))
    return dram >= compute  # t_body = Max(t_compute, t_dram)


@pytest.mark.parametrize("split_k", [3, 1])
def test_the_gemm_body_turns_compute_bound_where_brute_force_sees_it_without_naming_the_pair(cli, split_k: int) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("kernel_gemm")
    k = np.arange(0.25, 20000.0, 0.25)
    binds = _memory_binds(model, k, split_k)
    switches = np.flatnonzero(binds[:-1] != binds[1:])
    assert len(switches) == 1 and binds[switches[0]]  # memory-bound below, compute-bound above, once
    below, above = float(k[switches[0]]), float(k[switches[0] + 1])
    sets = [a for name, v in {**POINT, "split_k": split_k}.items() for a in ("--set", f"{name}={v}")]
    code, out, err = cli("boundary", "kernel_gemm", "t_body", "--preset", PRESET, *sets, "--for", "K_red")
    assert code == 0, err
    value = float(out.split("value: ")[1].split()[0])
    assert below <= value < above
    # the edge itself: memory binds at it, compute just above it
    assert _memory_binds(model, np.asarray([value]), split_k)[0]
    assert not _memory_binds(model, np.asarray([value * (1 + 1e-9)]), split_k)[0]
    assert "checked numerically" in out
