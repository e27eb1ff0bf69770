"""At a point, where two regimes meet at a number (``point_roots.meetings_here``: Hong & Kim's Exec_cycles_app over
Mem_Bandwidth at gtx280+tiled_matmul, 16 meeting points), the cusp test decides each sign by the point's numbers
(``point_roots.signs_at``) before the symbols: exactly at a rational point, by an interval enclosure that holds the
true root at a root given to 30 digits; never by a float's guess. Expected signs by hand, at the fixture
``diverging_at_zero``'s preset ``toy`` (a = 2, c = 3, p = 2, q = 1, K = 7)."""

from __future__ import annotations

from pathlib import Path

import sympy

import symgpu
from symgpu.derive import jobs, point_roots

MODEL = Path(__file__).parent / "fixtures" / "diverging_at_zero.toml"


def _symbols() -> tuple[jobs._Job, list[sympy.Symbol]]:
    model = symgpu.load(MODEL)
    job, _ = jobs.start(model, "extremum", "y", "n")
    return job, [model.symbols[name] for name in ("n", "p", "q", "K")]


def test_a_sign_at_a_rational_meeting_point_is_exact() -> None:
    job, (n, p, q, K) = _symbols()
    sign = point_roots.signs_at(job, n, sympy.Integer(5), [sympy.Integer(5)], "toy", {})
    assert sign is not None
    assert sign(n - p**2 - q**2) == 0  # 5 - 4 - 1
    tiny = sympy.Rational(1, 10**40)  # far below a double's resolution at 5
    assert sign(n - p**2 - q**2 - tiny) == -1
    assert sign(K * n - 35 + tiny) == 1  # 7*5 = 35


def test_a_sign_at_a_root_given_to_30_digits_holds_for_the_true_root_or_is_not_decided() -> None:
    job, (n, p, q, K) = _symbols()
    root = sympy.Float(sympy.sqrt(3).evalf(30), 30)  # a meeting point sqrt(3) as meetings_here gives it
    sign = point_roots.signs_at(job, n, root, [root], "toy", {})
    assert sign is not None
    assert sign(n**2 - p - q) is None  # n**2 - 3 is 0 at the true root: no sign claimed from the Float
    assert sign(n - p) == -1  # sqrt(3) - 2 = -0.268
    assert sign(K * n - 12) == 1  # 7*sqrt(3) = 12.124
    # -1e-20 at the true root; the enclosure over root*(1 -+ 1e-25) is about 2*3*1e-25 wide around it
    assert sign(n**2 - p - q - sympy.Rational(1, 10**20)) == -1


def test_no_numeric_signs_where_the_point_is_not_a_numeric_meeting_point() -> None:
    job, (n, p, _, _) = _symbols()
    assert point_roots.signs_at(job, n, sympy.Integer(5), None, "toy", {}) is None  # not from meetings_here
    assert point_roots.signs_at(job, n, p, [p], "toy", {}) is None  # a point in symbols
    assert point_roots.signs_at(job, n, sympy.Integer(5), [sympy.Integer(5)], None, {}) is None  # no point given


def test_a_meeting_point_in_a_scaled_unit_is_put_in_at_its_base_value() -> None:
    # meetings_here gives the point in the variable's declared unit (L_M = 58 ns); the expression is read in base
    # units, so the point goes in as 5.8e-8 s: L_M*Theta_M*eta_M = 5.8e-8 s * 1555e9 B/s * 0.902 = 81.4 B, below the
    # 12e6 B moved (1e6 elements x 3 operands x 4 B): negative. Read as 58 s it was 8.1e13 B: positive.
    model = symgpu.load("kernel_streaming")
    job, _ = jobs.start(model, "extremum", "t_kernel", "L_M")
    L_M, theta, eta, size, elements, operands = (model.symbols[n] for n in ("L_M", "Theta_M", "eta_M", "elem_size", "elements", "operands"))
    values = {"elements": 1000000, "operands": 3, "elem_size": 4}
    for point in (sympy.Integer(58), sympy.Float(58, 30)):
        sign = point_roots.signs_at(job, L_M, point, [point], "a100_pcie_40gb+neusight_fit", values)
        assert sign is not None
        assert sign(L_M * theta * eta - size * elements * operands) == -1
