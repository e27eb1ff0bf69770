"""At a point that gives every input but the unknown, a regime equation of degree 2 or more whose
coefficients hold many symbols is solved with the numbers in first: its closed-form roots are radicals
in all of them, whose regime conditions and second derivatives took minutes to decide. GPUMech's GTO
throughput solved for alpha took 4 min 49 s (23 closed-form roots, conditions of 74 000 characters),
its bandwidth-term throughput's maximum over n ran past 120 s; both are answered in seconds now."""

from __future__ import annotations

import re

import numpy as np
import sympy

import symgpu
from symgpu.derive import jobs, point_roots


def _value(out: str) -> float:
    found = re.search(r"value: ([0-9.e+-]+)", out)
    assert found, out
    return float(found.group(1))


def test_a_quadratic_in_many_symbols_is_solved_with_the_numbers_in_and_a_linear_or_few_symbol_one_is_not() -> None:
    bw = symgpu.load("prior_huang_bw")
    job, _ = jobs.start(bw, "solve", "arithmetic_throughput", "n")
    x = job.symbol("n")  # warp/SM: a bare number is n's value in warp/SM however it is read
    a, b, c, d, e = sympy.symbols("a b c d e", positive=True)
    assert point_roots.numbers_first(job, a * x**2 + b * c * x + d * e, x)  # degree 2, coefficients in a, b, c, d, e
    assert point_roots.numbers_first(job, (a * x**2 + b * x + c) / (d * x + e) - 1, x)  # the numerator counts
    assert not point_roots.numbers_first(job, a * x + b * c * d * e, x)  # linear: its closed form is cheap
    assert not point_roots.numbers_first(job, a * x**2 + b * x + c * d, x)  # four symbols: the closed form is kept
    # under a root in five symbols: squared away, radicals in all of them (Volkov H100's dram_throughput for alpha: minutes)
    assert point_roots.numbers_first(job, sympy.sqrt(x * a + b) * c + d * e, x)
    assert not point_roots.numbers_first(job, sympy.sqrt(x * a + b) * c + d, x)  # four symbols: the closed form is kept
    clock = job.symbol("clock")  # GHz: a bare 3 evaluated alone reads as 3 Hz, so its closed form is kept
    assert not point_roots.numbers_first(job, a * clock**2 + b * c * clock + d * e, clock)


def test_gpumech_gto_throughput_solved_for_alpha_at_a_point_is_answered_right(cli) -> None:
    code, out, err = cli("--no-cache", "solve", "prior_huang_gto", "arithmetic_throughput", "--for", "alpha", "--target", "3",
                         "--preset", "synthetic", "--set", "n=20")
    assert code == 0, err
    # brute force over Model.evaluate: the sign changes of throughput - 3 on a grid of alpha, each bisected
    gto = symgpu.load("prior_huang_gto")

    def excess(alpha: np.ndarray | float) -> np.ndarray:
        return np.asarray(gto.evaluate("arithmetic_throughput", "synthetic", values={"n": 20.0, "alpha": alpha}).magnitude) - 3

    grid = np.linspace(1e-3, 1000, 100001)
    signs = np.sign(excess(grid))
    brackets = [(grid[i], grid[i + 1]) for i in np.nonzero(signs[:-1] * signs[1:] < 0)[0]]
    assert len(brackets) == 1
    low, high = brackets[0]
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if np.sign(excess(mid)) == np.sign(excess(low)) else (low, mid)
    assert abs(_value(out) - low) <= 1e-8 * low  # 1.59292035 (= 180/113)


def test_gpumech_bandwidth_term_maximum_over_n_at_a_point_is_answered_right(cli) -> None:
    code, out, err = cli("--no-cache", "extremum", "prior_huang_bw", "arithmetic_throughput", "--over", "n", "--max", "--preset", "kepler",
                         "--set", "alpha=8", "--assume", "n <= 48")
    assert code == 0, err
    # brute force over Model.evaluate: the best of a grid of n in (0, 48] where the model has a value, refined by
    # golden-section search on the bracket around it (the throughput rises, then falls towards the singular n)
    bw = symgpu.load("prior_huang_bw")

    def rate(n: np.ndarray | float) -> np.ndarray:
        return np.asarray(bw.evaluate("arithmetic_throughput", "kepler", values={"alpha": 8.0, "n": n}).magnitude)

    grid = np.linspace(0.01, 48, 4801)
    values = rate(grid)
    best = int(np.nanargmax(values))
    low, high = grid[best - 1], grid[best + 1]
    ratio = (5 ** 0.5 - 1) / 2
    for _ in range(80):
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (left, high) if rate(left) < rate(right) else (low, right)
    where = (low + high) / 2
    assert abs(_value(out) - float(rate(where))) <= 1e-8 * float(rate(where))  # 28.1854 op/cycle/SM
    at = re.search(r"at n = ([0-9.]+) warp/SM", out)
    assert at and abs(float(at.group(1)) - where) <= 1e-5 * where, out  # n = 45.2128
