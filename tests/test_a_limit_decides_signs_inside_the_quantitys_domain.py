"""A limit decides signs under its quantity's ``valid_when`` conditions free of the variable, as an extremum does
(:func:`symgpu.derive.extremum_outer.assume`, read through :mod:`symgpu.derive.limit_domain`): the model gives the quantity
a value only there, so a branch of the answer that holds nowhere inside is no answer. Volkov's two-term loaded latency
``a + b*theta/(c - theta) + b_2*theta/(c_2 - theta) + alpha*alu_lat`` (valid when ``theta < c`` and ``theta < c_2``,
``theta = x*bytes_per_inst*SMs*clock``) as ``b -> oo`` was SymPy's Piecewise over the sign of ``x/(theta - c)`` with a
``-oo`` branch where it is positive, which holds nowhere inside ``theta < c``; inside, the limit is ``oo`` where ``x > 0`` and
the constant ``a + alpha*alu_lat`` where ``x = 0``. Volkov's ``n_large_alpha = alu_lat*alu_thru + alu_thru*mem_lat/alpha``
(valid when ``alpha > 0``) as ``mem_lat -> oo`` was refused (``oo*sign(1/alpha)``, the sign left open); inside it is ``oo``,
and as ``mem_lat -> 0`` it had a branch at ``alpha = 0``. Hong & Kim's ``N_pw`` (valid when ``0 < ind_mem_req < mem_req``) as
``Active_blocks_per_SM -> oo`` had a ``-oo`` branch and a ``0`` one, both outside; inside it is ``oo``.

The expected values are by hand from the preset's numbers (``theta = 0.01*128*16*1.35 GB/s = 27.648 GB/s``) and by brute force
on ``Model.evaluate`` (growing the variable at fixed admissible inputs), never from the limit's own answer.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

import symgpu
from symgpu import derive

MODEL, QUANTITY, PRESET = "volkov_2016", "Latency_loaded_2term", "g80_two_term"
#: G80's two-term fit: a = 441, c = 71 GB/s, b_2 = 156, c_2 = 121 GB/s; x in winst/cycle/SM (16 SMs, 128 B/winst, 1.35 GHz)
WORKLOAD = {"alpha": 2.0, "alu_lat": 20.0}
X = 0.01
THETA = Fraction(16 * 128) * Fraction(135, 100) * Fraction(1, 100)  # GB/s at x = 0.01: 27.648
A, C, B2, C2, ALU = 441, 71, 156, 121, 2 * 20
GROWING = (0, 1, 10, 1000, 10**6, 10**9)


def _by_hand(b: Fraction, theta: Fraction) -> Fraction:
    """The two-term latency at ``b`` and ``theta`` (GB/s), exactly."""
    return A + b * theta / (C - theta) + B2 * theta / (C2 - theta) + ALU


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load(MODEL)


@pytest.fixture(scope="module")
def latency_limit(volkov: symgpu.Model) -> derive.Derivation:
    return volkov.limit(QUANTITY, "b", "oo")


def test_inside_the_domain_the_latency_grows_without_bound_in_b_where_x_is_positive(volkov: symgpu.Model) -> None:
    assert 0 < THETA < C < C2  # x = 0.01 is inside theta < c and theta < c_2
    previous = -math.inf
    for b in GROWING:
        value = volkov.evaluate(QUANTITY, PRESET, values={**WORKLOAD, "x": X, "b": float(b)}).magnitude
        assert value == pytest.approx(float(_by_hand(Fraction(b), THETA)), rel=1e-12)
        assert value > previous
        previous = value
    assert previous > 10**8  # the slope theta/(c - theta) = 0.64 > 0: beyond any bound as b grows


def test_the_limit_as_b_grows_is_oo_where_x_is_positive_and_the_constant_where_x_is_0(
        volkov: symgpu.Model, latency_limit: derive.Derivation) -> None:
    assert derive.evaluate_result(volkov, latency_limit, PRESET, **WORKLOAD, x=X).magnitude == math.inf
    flat = [volkov.evaluate(QUANTITY, PRESET, values={**WORKLOAD, "x": 0.0, "b": float(b)}).magnitude for b in GROWING]
    assert flat == [A + ALU] * len(GROWING)  # brute force: at x = 0 the latency does not change with b
    assert derive.evaluate_result(volkov, latency_limit, PRESET, **WORKLOAD, x=0.0).magnitude == A + ALU


def test_the_limit_shows_no_branch_that_holds_nowhere_inside_the_domain(latency_limit: derive.Derivation) -> None:
    result = latency_limit.result
    assert isinstance(result, sympy.Piecewise) and not result.has(-sympy.oo)  # the -oo branch lay outside theta < c
    x = next(s for s in result.free_symbols if s.name == "x")
    (first, where), (last, otherwise) = result.args
    assert first == sympy.oo and where == (x > 0) and otherwise == sympy.true  # inside the domain: oo where x > 0
    assert sympy.sstr(last) == "a + alpha*alu_lat"  # the constant where x = 0 (valued at the preset above)
    assert any("valid_when: the model gives Latency_loaded_2term a value only there" in a
               for a in map(str, latency_limit.assumptions))


def test_n_large_alpha_grows_without_bound_with_mem_lat_inside_alpha_positive(volkov: symgpu.Model) -> None:
    # was refused: oo*sign(1/alpha), the sign of 1/alpha left open though the model gives it a value only where alpha > 0
    inputs = {"alpha": 4.0, "alu_lat": 3.0, "alu_thru": 1.0}
    previous = -math.inf
    for mem_lat in (12, 1000, 10**6, 10**9):  # by hand: 3*1 + 1*mem_lat/4
        value = volkov.evaluate("n_large_alpha", values={**inputs, "mem_lat": float(mem_lat)}).magnitude
        assert value == pytest.approx(3 + mem_lat / 4, rel=1e-12) and value > previous
        previous = value
    answer = volkov.limit("n_large_alpha", "mem_lat", "oo")
    assert answer.result == sympy.oo
    assert any(str(a).startswith("alpha > 0 (valid_when") for a in answer.assumptions)


def test_n_large_alpha_as_mem_lat_goes_to_0_shows_no_branch_at_alpha_0(volkov: symgpu.Model) -> None:
    # was Piecewise((oo, Eq(alpha, 0)), (alu_lat*alu_thru, True)): alpha = 0 lies outside alpha > 0
    inputs = {"alpha": 4.0, "alu_lat": 3.0, "alu_thru": 1.0}
    near = [volkov.evaluate("n_large_alpha", values={**inputs, "mem_lat": m}).magnitude for m in (1e-3, 1e-6, 1e-9)]
    assert near == pytest.approx([3 + m / 4 for m in (1e-3, 1e-6, 1e-9)], rel=1e-12)  # by hand: tends to 3*1
    answer = volkov.limit("n_large_alpha", "mem_lat", "0")
    assert not isinstance(answer.result, sympy.Piecewise)
    assert derive.evaluate_result(volkov, answer, **inputs).magnitude == pytest.approx(3.0, rel=1e-12)


def test_hong_kims_parallel_warps_grow_without_bound_inside_0_lt_ind_mem_req_lt_mem_req() -> None:
    # N_pw = N*ind_mem_req/(mem_req - ind_mem_req), N = Active_blocks_per_SM*Threads_per_block/32, valid when
    # 0 < ind_mem_req < mem_req: the -oo branch (ind_mem_req > mem_req) and the 0 one (ind_mem_req = 0) lay outside
    hong_kim = symgpu.load("hong_kim_2009")
    inputs = {"Threads_per_block": 64.0, "ind_mem_req": 4.0, "mem_req": 100.0}
    previous = -math.inf
    for blocks in (1, 8, 10**4, 10**8):
        value = hong_kim.evaluate("N_pw", values={**inputs, "Active_blocks_per_SM": float(blocks)}).magnitude
        assert value == pytest.approx(blocks * 64 / 32 * 4 / 96, rel=1e-12) and value > previous
        previous = value
    assert hong_kim.limit("N_pw", "Active_blocks_per_SM", "oo").result == sympy.oo
