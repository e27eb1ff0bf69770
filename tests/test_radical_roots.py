"""Roots with the unknown under a square root (issue 31: Volkov's H100 loaded-latency model solved
for n took minutes in SymPy's symbolic checks): the candidates are screened at random points, a
candidate that is a root nowhere is dropped, the answer agrees with a bisection of the evaluate
path, and exact sign refutation skips points where a symbolic exponent becomes huge."""

from __future__ import annotations

import re

import sympy

import symgpu
from symgpu import cli
from symgpu.derive import roots
from symgpu.proofs import exact_signs


def _bisect(f, low: float, high: float) -> float:
    for _ in range(200):
        mid = (low + high) / 2
        if (f(mid) < 0) == (f(low) < 0):
            low = mid
        else:
            high = mid
    return (low + high) / 2


def test_h100_loaded_latency_solved_for_warps_agrees_with_a_bisection_of_the_model(capsys):
    command = ["--no-cache", "solve", "volkov_2016_h100", "dram_throughput", "--for", "n", "--target", "2000 GB/s",
               "--preset", "h100_fit", "--set", "ilp=1", "--set", "alpha=0"]
    assert cli.main(command) == 0
    printed = capsys.readouterr().out
    answer = float(re.search(r"^  value: ([0-9.]+) \S+ \[warp/SM\]", printed, re.M).group(1))
    model = symgpu.load("volkov_2016_h100")

    def excess(n: float) -> float:
        return model.evaluate("dram_throughput", preset="h100_fit", ilp=1, alpha=0, n=n).to("GB/s").magnitude - 2000

    assert excess(1) < 0 < excess(64)  # the target lies between 1 and 64 warps per SM: one crossing (the model rises in n)
    assert abs(answer - _bisect(excess, 1, 64)) < 1e-6 * answer


def test_a_candidate_of_the_squared_equation_that_is_a_root_nowhere_is_dropped():
    # y = 2*n*k/(n*p + q + sqrt((q - n*p)**2 + 4*n*r)), the shape of the loaded-latency root: squaring
    # gives n = 0 too, where the right side is 0 and y > 0, so no value of the parameters makes it a root
    n, y, k, p, q, r = sympy.symbols("n y k p q r", positive=True)
    target = y - 2 * n * k / (n * p + q + sympy.sqrt((q - n * p) ** 2 + 4 * n * r))
    found = roots._radical_roots(target, n)
    assert found and all(root != 0 for root in found)
    # each kept candidate is a root where the parameters put y below the plateau k/p: y = 1, k = 3, p = 1, q = 2, r = 5
    point = {y: 1, k: 3, p: 1, q: 2, r: 5}
    assert any(abs(complex(target.xreplace({n: root.xreplace(point)}).xreplace(point).evalf(30))) < 1e-20 for root in found)


def test_exact_sign_refutation_skips_a_point_whose_symbolic_exponent_would_be_huge():
    x, s, c = sympy.symbols("x s c", positive=True)
    exponents = exact_signs.symbolic_exponents(x ** (s * c * 10**6) - 2)
    assert exponents == (s * c * 10**6,)
    assert not exact_signs.modest_at(exponents, {s: sympy.Integer(2), c: sympy.Integer(3)})  # 6 million: skipped
    assert exact_signs.modest_at((s * c,), {s: sympy.Integer(2), c: sympy.Integer(3)})
    # x**(s*c*10**6) - 2 takes both signs (x < 1 and x > 1), but at every sample point s*c*10**6 is at
    # least 250000: each point is skipped, so it is not refuted (before, 3**(6*10**6) and the like were
    # computed, a million digits each, and the two signs found)
    assert exact_signs.refuted(x ** (s * c * 10**6) - 2) is False
