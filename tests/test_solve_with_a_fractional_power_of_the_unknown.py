"""The unknown under a fractional power of itself (a user's Volkov variant with
``Latency = alpha**(3/2)*alu_lat + mem_lat``): ``solve`` ran for minutes with no output (SymPy
squared the radical away and simplified its checks without end). Now ``alpha = u**2`` makes each
regime's equation a polynomial in ``u``: the memory-bound root comes in closed form, the regimes whose
roots are only Cardano's formula in symbols have none, and at a point the numbers rule those out."""

from __future__ import annotations

import re

import sympy

from symgpu.derive import roots
from tests.conftest import FIXTURES

MODEL = str(FIXTURES / "volkov_superlinear_alu.toml")
A, M, MT, I = sympy.symbols("alu_lat mem_lat mem_thru issue_thru", positive=True)
ALPHA = sympy.Symbol("alpha", nonnegative=True)


def test_memory_bound_root_of_a_three_halves_power_is_the_two_thirds_power(cli):
    code, out, err = cli("--no-cache", "solve", MODEL, "n_needed", "--for", "alpha", "--target", "40", "--preset", "maxwell")
    assert code == 0, err
    value = float(re.search(r"^  value: ([0-9.]+)", out, re.M).group(1))
    # by hand, memory-bound at maxwell (mem_thru 0.0814, mem_lat 368, alu_lat 6):
    # 0.0814*(6*alpha**1.5 + 368) = 40  ->  alpha = ((40/0.0814 - 368)/6)**(2/3) = 20.566749...**(2/3) = 7.5066084
    expected = ((40 / 0.0814 - 368) / 6) ** (2 / 3)
    assert abs(value - expected) < 1e-8 * expected
    assert "a scan of alpha finds no other" in out


def test_issue_bound_root_with_no_closed_form_is_found_with_the_numbers_in(cli):
    code, out, err = cli("--no-cache", "solve", MODEL, "n_needed", "--for", "alpha", "--target", "200", "--preset", "maxwell")
    assert code == 0, err
    value = float(re.search(r"^  value: ([0-9.]+) \(issue_bound\)", out, re.M).group(1))

    def excess(alpha: float) -> float:  # the model at maxwell by hand: Latency*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1))
        return (6 * alpha ** 1.5 + 368) * min(0.0814, 4 / alpha, 4 / (alpha + 1)) - 200

    low, high = 48.2, 100.0  # issue-bound beyond alpha = (4 - 0.0814)/0.0814 = 48.14; excess(48.2) < 0 < excess(100)
    assert excess(low) < 0 < excess(high)
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if excess(mid) < 0 else (low, mid)
    assert abs(value - low) < 1e-8 * low


def test_regime_whose_roots_are_only_cardanos_formula_is_refused_quickly_without_a_point(cli):
    code, out, err = cli("--no-cache", "solve", MODEL, "n_needed", "--for", "alpha", "--target", "40")
    assert code != 0 and out == ""
    assert re.search(r"no closed form for regime (alu|issue)_bound", err)


def test_binomial_in_the_square_root_has_its_real_root_and_a_full_cubic_none():
    memory = sympy.Eq(MT * (ALPHA ** sympy.Rational(3, 2) * A + M), 40)
    # the other two cube roots carry I (real only where the radicand is negative, then u < 0): the solve drops them
    (root,) = [r for r in roots.real_roots(memory, ALPHA) if not r.has(sympy.I)]
    point = {A: 6, M: 368, MT: sympy.Rational(407, 5000)}
    assert sympy.simplify(memory.lhs.xreplace({ALPHA: root}).xreplace(point) - 40) == 0
    issue = sympy.Eq(I * (ALPHA ** sympy.Rational(3, 2) * A + M) / (ALPHA + 1), 40)  # i*a*u**3 - 40*u**2 + i*m - 40
    assert roots.real_roots(issue, ALPHA) is None


def test_numbers_only_cubic_in_the_square_root_gives_its_exact_real_roots():
    # 4*(6*u**3 + 368) = 40*(u**2 + 1) with u = sqrt(alpha): 24u^3 - 40u^2 + 1432 = 0 has one real root, negative
    # (its value at the local minimum u = 10/9 is 24*1000/729 - 40*100/81 + 1432 > 0): no alpha >= 0
    assert roots.real_roots(sympy.Eq(4 * (6 * ALPHA ** sympy.Rational(3, 2) + 368) / (ALPHA + 1), 40), ALPHA) == []
    # at 200: 4*(6u^3 + 368) = 200(u^2 + 1): 24u^3 - 200u^2 + 1272 = 0: two positive roots
    found = roots.real_roots(sympy.Eq(4 * (6 * ALPHA ** sympy.Rational(3, 2) + 368) / (ALPHA + 1), 200), ALPHA)
    f = lambda a: 4 * (6 * a ** 1.5 + 368) / (a + 1) - 200
    assert len(found) == 2 and all(abs(f(float(r))) < 1e-9 for r in found)
