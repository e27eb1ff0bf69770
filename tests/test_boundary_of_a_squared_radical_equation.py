"""A root of a squared radical equation whose sign check the assumptions leave open carries that
check as its condition, so a point's numbers decide it (differential tester, seed 68: Volkov's
refined memory throughput between latency_bound and memory_bound over n was refused by its own
certificate, the extraneous root of the squared equation caught at a sampled point)."""

from __future__ import annotations

from fractions import Fraction

import sympy

import symgpu
from symgpu.derive import roots

BETWEEN = ("--between", "latency_bound", "memory_bound")


def test_an_undecided_candidate_of_the_squared_equation_comes_with_the_sign_it_needs():
    # sqrt(x) = x - a with a of unknown sign: squared, x**2 - (2a + 1)x + a**2 = 0, candidates
    # (2a + 1 +- sqrt(4a + 1))/2 (by hand); a candidate is a root only where x - a >= 0. At a = 2 they
    # are 4 (sqrt(4) = 2 = 4 - 2: a root) and 1 (sqrt(1) = 1, 1 - 2 = -1: none), brute force below.
    x = sympy.Symbol("x", positive=True)
    a = sympy.Symbol("a", real=True)
    found = roots.real_root_cases(sympy.Eq(sympy.sqrt(x), x - a), x)
    assert found is not None and len(found) == 2
    at = {}
    for root, condition in found:
        value = root.xreplace({a: 2})
        at[int(value)] = condition.xreplace({a: 2})
        assert (sympy.sqrt(value) == value - 2) is (at[int(value)] is sympy.true)
    assert at == {4: sympy.true, 1: sympy.false}
    assert sorted(roots.real_roots(sympy.Eq(sympy.sqrt(x), x - a), x), key=sympy.default_sort_key) == \
        sorted([r for r, _ in found], key=sympy.default_sort_key)  # real_roots still gives every candidate


def test_the_symbolic_boundary_says_where_its_root_is_one_and_passes_its_check(cli):
    code, out, err = cli("--no-cache", "boundary", "volkov_2016", "memory_throughput_refined", "--for", "n", *BETWEEN)
    assert code == 0, err
    assert "a root only where: " in out and "checked numerically" in out


def _g80_boundary_by_hand() -> Fraction:
    # x_latency_root solves x = n/(A + b*x/(C - x)) (the model's note), so it equals mem_thru = M where
    # n = M*(A + b*M/(C - M)), with M < C. g80 (the model file): A = a + alpha*alu_lat = 453 + 1*20,
    # b = 61, C = c/(bytes_per_inst*SMs*clock) = 81e9/(128*16*1.35e9) = 15/512, M = 0.0268 < C.
    big_a, b, c_ipc, m = Fraction(473), Fraction(61), Fraction(81) / (128 * 16 * Fraction(135, 100)), Fraction(268, 10000)
    assert c_ipc == Fraction(15, 512) and m < c_ipc
    return m * (big_a + b * m / (c_ipc - m))


def test_the_boundary_at_a_point_below_c_ipc_is_where_the_limiters_cross(cli):
    code, out, err = cli("--no-cache", "boundary", "volkov_2016", "memory_throughput_refined", "--for", "n", *BETWEEN,
                         "--preset", "g80", "--set", "alpha=1")
    assert code == 0, err
    value = float(out.split("value: ", 1)[1].split()[0])
    by_hand = float(_g80_boundary_by_hand())  # 30.2233897...
    assert abs(value - by_hand) <= 1e-8 * by_hand
    model = symgpu.load("volkov_2016")

    def gap(n: float) -> float:  # the latency root minus mem_thru (0.0268 winst/cycle/SM at g80), on the evaluate path
        return model.evaluate("x_latency_root", preset="g80", alpha=1, n=n).magnitude - 0.0268

    low, high = 1.0, 1000.0
    assert gap(low) < 0 < gap(high)
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if gap(mid) < 0 else (low, mid)
    assert abs(value - low) <= 1e-8 * value


def test_no_boundary_where_mem_thru_is_above_c_ipc_is_a_clear_refusal(cli):
    # maxwell_sfu (the model file): mem_thru = 1 winst/cycle/SM, C = 221e9/(128*16*1.266e9) = 0.0852 < 1;
    # the latency root stays below C for every n, so the memory bound never binds against it: no boundary.
    # The squared equation's candidate n = M*(A + b*M/(C - M)) = 1*(372 + 4*6 + 22/(0.0852 - 1)) = 371.95
    # is no root (the limiters differ by -0.915 there), and was shown to the certificate as one.
    assert Fraction(221) / (128 * 16 * Fraction(1266, 1000)) < 1
    code, out, err = cli("--no-cache", "boundary", "volkov_2016", "memory_throughput_refined", "--for", "n", *BETWEEN,
                         "--preset", "maxwell_sfu", "--set", "alpha=4")
    assert code == 1
    assert "do not meet" in err and "please report" not in err and "value:" not in out
    model = symgpu.load("volkov_2016")
    assert all(model.evaluate("x_latency_root", preset="maxwell_sfu", alpha=4, n=n).magnitude < 0.0853
               for n in (1, 371.95, 1e6))
