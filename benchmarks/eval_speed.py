"""Benchmark: compiled evaluation of an interval-analysis quantity vs hand-written NumPy and SymPy.

Sweeps P_K0 (threads to saturate bandwidth, MXV-LCS) over 10**6 (M, N) points on the GTX 1080
preset and prints, from one run, the median time of

* ``model.evaluate`` (lambdify-compiled, units checked and converted) relative to a hand-written
  NumPy version of the same formula (target: at most 1.25x after warm-up), and
* per-point SymPy ``subs``/``evalf`` relative to compiled evaluation (per point, from a sample).

Run: ``python benchmarks/eval_speed.py [--points N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import symgpu


def median_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sympy-sample", type=int, default=200)
    args = parser.parse_args()

    model = symgpu.load("interval_analysis")
    rng = np.random.default_rng(0)
    N = rng.integers(6, 400, size=args.points).astype(float)
    M = rng.integers(1, 64, size=args.points).astype(float)
    values = model.preset("gtx1080")
    theta = values["Theta_M"].to("B/s").magnitude
    phi = values["phi"].to("Hz").magnitude
    L_M = values["L_M"].to("cycle").magnitude
    S = model.constants["S_elt"].to("B/thread").magnitude
    t = model.constants["t_issue"].to("cycle").magnitude

    def hand() -> np.ndarray:
        return theta * (L_M + (M * N + M) * t) / (S * (M + N) * phi)

    def compiled() -> np.ndarray:
        return model.evaluate("P_K0", preset="gtx1080", M=M, N=N).magnitude

    def compiled_unchecked() -> np.ndarray:
        return model.evaluate("P_K0", preset="gtx1080", checks=False, M=M, N=N).magnitude

    np.testing.assert_allclose(compiled(), hand(), rtol=1e-12)  # same numbers, and warm-up
    t_hand = median_time(hand, args.repeat)
    t_compiled = median_time(compiled, args.repeat)
    compiled_unchecked()
    t_unchecked = median_time(compiled_unchecked, args.repeat)

    expr = model.expression("P_K0")
    subs = {model.symbols[k]: v.magnitude for k, v in values.items() if model.symbols[k] in expr.free_symbols}
    subs.update({model.symbols[k]: v.magnitude for k, v in model.constants.items()})
    sample = range(args.sympy_sample)

    def sympy_points() -> None:
        for i in sample:
            point = dict(subs)
            point[model.symbols["M"]] = M[i]
            point[model.symbols["N"]] = N[i]
            expr.subs(point).evalf()

    t_sympy_point = median_time(sympy_points, 3) / args.sympy_sample
    t_compiled_point = t_compiled / args.points

    print(f"P_K0 over {args.points} points (median of {args.repeat} runs)")
    print(f"  hand-written NumPy     : {t_hand * 1e3:9.2f} ms")
    print(f"  symgpu, checks=False   : {t_unchecked * 1e3:9.2f} ms  (units converted; no assumption/domain scans)")
    print(f"  symgpu, checked        : {t_compiled * 1e3:9.2f} ms  (+ assumption and valid_when scans of every array)")
    print(f"  compiled / hand NumPy  : {t_unchecked / t_hand:9.2f}x  (target <= 1.25x)")
    print(f"  checked / hand NumPy   : {t_compiled / t_hand:9.2f}x")
    print(f"  SymPy subs/evalf       : {t_sympy_point * 1e6:9.2f} us per point ({args.sympy_sample}-point sample)")
    print(f"  SymPy / compiled       : {t_sympy_point / t_compiled_point:9.0f}x per point")


if __name__ == "__main__":
    main()
