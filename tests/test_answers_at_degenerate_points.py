"""Issue 25, the last limit, solve and boundary disagreements of the differential tester (seed 1,
10,000 questions): answers at points where an input makes the closed form degenerate.

* a limit whose IEEE values along ``bytes_per_inst -> 0`` lose their digits to cancellation: the
  engine is right, the tester's oracle now decides in exact arithmetic (still the evaluate path);
* a limit at ``gmem2_insts = 0``, the end of its declared-nonnegative range, where the term that
  grows with ``gmem2_cpi`` vanishes: a case of its own;
* a solve where a regime's slope in the unknown is 0 at the point (``n = 2``): a range of roots;
* a boundary candidate where the quantity has no value (``0/0``) on one side: no switch there.

Every expected value is brute force on the evaluate path (``Model.evaluate``, its exact mode, the
tester's oracle) or arithmetic written here.
"""

from __future__ import annotations

import dataclasses
import math
import os
from fractions import Fraction
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.derive import certify
from symgpu.derive.certify_path import Asked
from symgpu.evaluate import active, evaluator

import differential_checks as checks

ROOT = Path(__file__).resolve().parent.parent
import differential_oracle as oracle
from differential_questions import Point, Question


def _point(preset: str | None, values: dict[str, float]) -> Point:
    return Point(preset, tuple(sorted(values.items())))


# ================================================================== limit: cancellation in IEEE arithmetic
H100_AT = {"alpha": 1.0, "n": 16.0}


def test_the_latency_root_tends_to_its_limit_in_exact_and_in_ieee_arithmetic():
    model = symgpu.load("volkov_2016_h100")
    answer = float(derive.evaluate_result(model, model.limit("x_latency_root", "bytes_per_inst", "0"), "maxwell", **H100_AT).magnitude)
    exact = [float(evaluator.exact(model, "x_latency_root", preset="maxwell", values={**H100_AT, "bytes_per_inst": 10.0 ** -k}).evalf(30))
             for k in (10, 15, 20)]
    ieee = float(model.evaluate("x_latency_root", "maxwell", values={**H100_AT, "bytes_per_inst": 1e-14}).magnitude)
    assert exact == pytest.approx([answer] * 3, rel=1e-9)
    assert ieee == pytest.approx(answer, rel=1e-9)  # the rationalised root keeps its digits (issue 31's seed-89 finding)
    # the textbook (q - sqrt(q**2 - 4*p*r))/(2*p), written here from the Maxwell preset (a = 372, b = 22 cycles,
    # alu_lat = 6 cycles, c = 221 GB/s, 16 SMs at 1.266 GHz), drifts away in IEEE arithmetic at the same point:
    # why the oracle also decides limits in exact arithmetic
    big_a, b, n = 372.0 + 1.0 * 6.0, 22.0, 16.0
    c_ipc = 221e9 / (16.0 * 1e-14 * 1.266e9)
    q, p, r = big_a * c_ipc + n, big_a - b, n * c_ipc
    textbook = (q - math.sqrt(q * q - 4.0 * p * r)) / (2.0 * p)
    assert abs(textbook - answer) > 1e-3 * answer


def test_the_tester_agrees_with_the_latency_root_limit():
    question = Question("limit", "volkov_2016_h100", "x_latency_root", "bytes_per_inst", _point("maxwell", H100_AT), to="0")
    verdict = checks.judge(question, limit=0)
    assert verdict.outcome == "agree", verdict.line()


def test_the_tester_decides_a_limit_in_exact_arithmetic_where_the_ieee_sequence_cancels(write_model):
    # the smaller root of z**2 - (1 + u)*z + u = (z - 1)*(z - u), u = 1e9*I*B/P_peak, in the textbook form: 1 for u > 1,
    # so P -> P_peak as I -> oo; in IEEE arithmetic (1 + u) - sqrt((1 + u)**2 - 4*u) is 0 once u passes ~1e16
    path = write_model(rhs="P_peak*(1 + 10**9*I*B/P_peak - sqrt((1 + 10**9*I*B/P_peak)**2 - 4*10**9*I*B/P_peak))/2")
    verdict = checks.judge(Question("limit", str(path), "P", "I", _point("toy", {"I": 1.0}), to="oo"), limit=0)
    assert verdict.outcome == "agree", verdict.line()
    assert "along 0, 0" in verdict.brute and "exactly along 1e+14" in verdict.brute  # P_peak = 100 TFLOP/s


# ================================================================== limit: a nonnegative input at 0
WARP_AT = {"cuda_cpi": 0.25, "cuda_insts": 100.0, "dual_issues": 5.0, "gmem2_insts": 0.0, "gmem_cpi": 12.3, "gmem_insts": 5.0,
           "inst_latency": 6.0, "insts_in_execution": 3.0, "issue_cpi": 0.25, "n": 8.0, "reissues": 15.0, "sfu_cpi": 1.0,
           "sfu_insts": 5.0, "single_issues": 125.0, "smem2_cpi": 2.0, "smem2_insts": 10.0, "smem_cpi": 1.0, "smem_insts": 10.0,
           "warp_latency": 544.0}


@pytest.fixture(scope="module")
def warp_limit() -> tuple[symgpu.Model, derive.Derivation]:
    model = symgpu.load("volkov_2016")
    return model, model.limit("warp_throughput", "gmem2_cpi", "oo")


def test_warp_throughput_without_gmem2_loads_keeps_its_value_as_gmem2_cpi_grows(warp_limit):
    model, limit = warp_limit
    # Min(n/warp_latency, 1/Max(25, 36.25, 5, 12.3*5 + 0, 30)) = Min(8/544, 1/61.5)
    by_hand = min(8.0 / 544.0, 1.0 / max(0.25 * 100, 0.25 * (5 + 15 + 125), 1.0 * 5, 12.3 * 5, 2.0 * 10 + 1.0 * 10))
    far = model.evaluate("warp_throughput", values={**WARP_AT, "gmem2_cpi": np.array([1e3, 1e9, 1e15])}).magnitude
    assert far == pytest.approx([by_hand] * 3, rel=1e-12)
    assert float(derive.evaluate_result(model, limit, None, **WARP_AT).magnitude) == pytest.approx(by_hand, rel=1e-12)


def test_warp_throughput_with_gmem2_loads_tends_to_zero_as_gmem2_cpi_grows(warp_limit):
    model, limit = warp_limit
    at = {**WARP_AT, "gmem2_insts": 3.0}
    far = model.evaluate("warp_throughput", values={**at, "gmem2_cpi": np.array([1e6, 1e9, 1e12])}).magnitude
    assert np.all(np.diff(far) < 0) and far[-1] < 1e-12  # 1/(3*gmem2_cpi + 61.5) -> 0
    assert float(derive.evaluate_result(model, limit, None, **at).magnitude) == 0.0


# ================================================================== solve: a slope that is 0 at the point
BAGH_AT = {"alpha": 11.0, "n": 2.0}


@pytest.fixture(scope="module")
def flat_solve() -> tuple[symgpu.Model, derive.Derivation]:
    model = symgpu.load("prior_baghsorkhi")
    return model, model.solve("Warp_latency", for_="alu_lat", target=440.0, preset="g80", values=BAGH_AT)


def test_warp_latency_at_two_warps_is_440_on_the_whole_range_the_answer_gives(flat_solve):
    model, d = flat_solve
    # at n = 2: 11*alu + Max(4 + Max(0, 33 - 11*alu), 444 - (11*alu + 4)) = 440 while 440 - 11*alu >= 4, alu = alu_lat/2 >= 4:
    # every alu_lat up to 2*436/11
    top = 2 * 436 / 11
    xs = np.linspace(0.05, 1.2 * top, 400)
    ys = model.evaluate("Warp_latency", "g80", values={**BAGH_AT, "alu_lat": xs}).magnitude
    holds = np.abs(ys - 440.0) <= 1e-9 * 440.0
    assert np.array_equal(holds, xs <= top)
    ranges = derive.applying_ranges(model, d, "g80", {**BAGH_AT, "Warp_latency": 440.0})
    claimed = [any(active.condition_holds(model, f.when, "g80", {**BAGH_AT, "Warp_latency": 440.0, "alu_lat": x})[0] for f in ranges)
               for x in xs]
    assert np.array_equal(np.array(claimed), holds)


def test_the_tester_agrees_with_the_range_of_roots_at_two_warps():
    question = Question("solve", "prior_baghsorkhi", "Warp_latency", "alu_lat", _point("g80", BAGH_AT), target=440.0, numeric_target=True)
    verdict = checks.judge(question, limit=0)
    assert verdict.outcome == "agree", verdict.line()


def test_a_solve_that_leaves_out_a_range_of_roots_is_refused_by_its_certificate(flat_solve):
    model, d = flat_solve
    centre = 20.0  # alu_lat at preset g80
    xs = oracle.grid(model, "alu_lat", centre)
    _, plateaus = oracle.roots(model, "Warp_latency", _point("g80", BAGH_AT), "alu_lat", 440.0, xs,
                               oracle.evaluate_on(model, "Warp_latency", _point("g80", BAGH_AT), "alu_lat", xs))
    assert plateaus and plateaus[0].high > 8.0  # the range reaches past the throughput regime (alu_lat <= n/alu_thru = 8)
    without = dataclasses.replace(d, certificate=None, extra=d.extra.with_(
        ranges=tuple(f for f in d.extra.ranges or () if "slope" not in f.regime)))
    asked = Asked("solve", "Warp_latency", "alu_lat", "g80", tuple(BAGH_AT.items()), target=440.0)
    with pytest.raises(errors.CertificateError, match=r"holds on a range of alu_lat .* neither the answer's roots nor its ranges"):
        certify.certify(model, without, asked)


# ================================================================== boundary: no value on one side
HONG_AT = {"Active_blocks_per_SM": 5.0, "Coal_Mem_insts": 0.0, "Comp_insts": 0.0, "Departure_del_uncoal": 10.0, "Mem_LD": 420.0,
           "Threads_per_block": 128.0, "Uncoal_per_mw": 32.0}


def test_cwp_has_no_boundary_where_it_is_undefined_at_zero_uncoalesced_loads():
    model = symgpu.load("hong_kim_2009_intended")
    d = model.boundary("CWP", between=("computation_bound", "warp_bound"), for_="Uncoal_Mem_insts")
    # only uncoalesced loads: CWP_full = (730*U + 4*U)/(4*U) = 183.5 > N = 5*128/32 = 20 for every U > 0, 0/0 at U = 0
    assert math.isnan(float(model.evaluate("CWP", values={**HONG_AT, "Uncoal_Mem_insts": 0.0}).magnitude))
    point = _point(None, {**HONG_AT, "Uncoal_Mem_insts": 10.0})
    xs = oracle.grid(model, "Uncoal_Mem_insts", 10.0)
    assert set(oracle.regime_labels(model, "CWP", point, "Uncoal_Mem_insts", xs[xs > 0])) == {"warp_bound"}
    assert derive.applying_boundaries(model, d, None, HONG_AT) == ()


@pytest.mark.parametrize("n", [0.5, 17.0, 64.0])  # n/issue_units - 1: negative, positive, positive
def test_a_limit_through_a_min_times_a_factor_of_open_sign_is_taken_part_by_part(n):
    # NO_alu = Max(0, Min(p*(alu_lat - 1), 1)*(n/issue_units - 1) - alu_lat + 1): the factor of the Min has no declared
    # sign, so the Min could not be lifted and the limit as alu_lat -> 0 was refused ("no regime is selected")
    model = symgpu.load("prior_huang")
    answer = model.limit("NO_alu", var="alu_lat", to="0")
    alpha, mem_lat = 3.0, float(model.preset("fermi")["mem_lat"].magnitude)
    issue_units = float(model.preset("fermi")["issue_units"].magnitude)
    hand = max(0.0, 1.0 - (n / issue_units - 1.0) * (alpha + 1.0) / mem_lat)  # the Min at alu_lat = 0 is -(1 + alpha)/mem_lat
    got = float(derive.evaluate_result(model, answer, "fermi", alpha=alpha, n=n).magnitude)
    near = float(model.evaluate("NO_alu", "fermi", values={"alpha": alpha, "n": n, "alu_lat": 1e-9}).magnitude)
    assert got == pytest.approx(hand, rel=1e-12) and near == pytest.approx(hand, rel=1e-6)


def test_a_minimum_approached_as_bandwidth_vanishes_is_no_minimum():
    # memory_throughput_ilp = Min(issue, latency, BW/(SMs*bytes_per_inst*clock), Piecewise(...)) falls to 0 with BW:
    # the open end BW -> 0 was dropped (its limit, through a Piecewise whose branch does not depend on BW, was refused)
    # and a plateau edge was given as the minimum
    model = symgpu.load("volkov_2016_ilp")
    at = {"alpha": 4.0, "ilp": 1.0, "n": 8.0}
    bws = np.geomspace(1e-9, 1.0, 50)
    ys = np.asarray(model.evaluate("memory_throughput_ilp", "g80", values={**at, "BW": bws}).magnitude, dtype=float)
    assert np.all(np.diff(ys) > 0) and ys[0] < 1e-9  # rises with BW from 0: no attained minimum
    # the answer says so: no minimum, the infimum 0 approached as BW -> 0 (tester round 13a, F5: it was a refusal)
    answer = model.extremum("memory_throughput_ilp", over="BW", kind="min", preset="g80", values=at)
    assert answer.location is None and "no minimum: the infimum 0 winst/cycle/SM is approached as BW -> 0" in answer.extra.elsewhere
    assert float(derive.evaluate_result(model, answer, "g80", **at).magnitude) == 0.0
    limit = model.limit("memory_throughput_ilp", var="BW", to="0")
    assert float(derive.evaluate_result(model, limit, "g80", **at).magnitude) == 0.0


def test_a_quantity_that_grows_without_bound_as_occupancy_vanishes_has_no_maximum():
    # CYCcompute = alpha*Max(1/alu_thru, alu_lat/n) + issue_lat grows like alpha*alu_lat/n as n -> 0: the open end was
    # dropped (alpha*Max(...) -> alpha*oo was refused) and the cusp n = alu_lat*alu_thru was given as the maximum
    model = symgpu.load("prior_baghsorkhi")
    ns = np.geomspace(1e-9, 1.0, 40)
    ys = np.asarray(model.evaluate("CYCcompute", "g80", values={"alpha": 32.0, "n": ns}).magnitude, dtype=float)
    assert np.all(np.diff(ys) < 0) and ys[0] > 1e9
    with pytest.raises(errors.DerivationError, match="no maximum over n.*tends to inf .*as n -> 0"):
        model.extremum("CYCcompute", over="n", kind="max", preset="g80", values={"alpha": 32.0})
    limit = model.limit("CYCcompute", var="n", to="0")
    assert math.isinf(float(derive.evaluate_result(model, limit, "g80", alpha=32.0).magnitude))
    issue_lat = float(model.evaluate("issue_lat", "g80").magnitude) if "issue_lat" in model.defining else \
        float(model.preset("g80")["issue_lat"].magnitude) if "issue_lat" in model.preset("g80") else float(model.constants["issue_lat"].magnitude)
    assert float(derive.evaluate_result(model, limit, "g80", alpha=0.0).magnitude) == issue_lat  # alpha = 0: no ALU term


_SYNCH = {"Active_SMs": 16.0, "Active_blocks_per_SM": 5.0, "Blocks": 80.0, "Coal_Mem_insts": 0.0, "Comp_insts": 71.0,
          "Departure_del_coal": 4.0, "Departure_del_uncoal": 10.0, "Freq": 1350000000.0, "Mem_Bandwidth": 86400000000.0,
          "Mem_LD": 420.0, "Synch_insts": 6.0, "Threads_per_block": 128.0, "Uncoal_Mem_insts": 6.0, "Uncoal_per_mw": 32.0}


def test_an_open_end_whose_symbolic_limit_is_undecided_is_taken_with_the_given_values():
    # Hong & Kim's Synch_cost falls with Load_bytes_per_warp towards a value it never reaches (MWP's bandwidth term -> 0,
    # so NpWB - 1 -> -1): which Min argument wins far out is undecided for symbols, so that end was dropped and a
    # plateau edge given as the minimum; with the given values put in, the limit is taken and the answer says none
    model = symgpu.load("hong_kim_2009")
    xs = np.geomspace(1e3, 1e15, 60)
    ys = np.asarray(model.evaluate("Synch_cost", None, values={**_SYNCH, "Load_bytes_per_warp": xs}).magnitude, dtype=float)
    assert np.all(np.diff(ys) <= 0) and ys[-1] < ys[0]
    # the answer says none: the infimum is approached as Load_bytes_per_warp -> oo (tester round 13a, F5: it was a refusal);
    # by hand NpWB - 1 -> -1: -Blocks*Departure_del_uncoal*Synch_insts*Uncoal_per_mw/Active_SMs = -80*10*6*32/16 = -9600
    answer = model.extremum("Synch_cost", over="Load_bytes_per_warp", kind="min", values=_SYNCH)
    assert answer.location is None and "no minimum: the infimum -9600 cycle is approached as Load_bytes_per_warp -> oo" in answer.extra.elsewhere
    said = float(derive.evaluate_result(model, answer, None, **_SYNCH).magnitude)
    assert said == -80 * 10 * 6 * 32 / 16 and said == pytest.approx(ys[-1], rel=1e-9)  # what the values tend to far out


def test_a_staircase_whose_argument_grows_without_bound_is_squeezed_not_put_at_infinity():
    # c*floor(R/(c*K)) as c -> 0+: floor's argument grows without bound, so the one-sided staircase rule does not apply;
    # the limit is R/K (floor(y)/y -> 1). The engine put floor(zoo) in and failed with an internal KeyError
    model = symgpu.load("occupancy")
    at = {"regs_per_thread": 65.0, "smem_per_block": 0.0, "threads_per_block": 512.0}
    preset = model.preset("cc_6_1")
    unit = float(preset["reg_alloc_unit"].magnitude)
    hand = float(preset["regs_per_SM"].magnitude) / (unit * math.ceil(65.0 * 32.0 / unit))
    answer = model.limit("warps_by_registers_compat", "compat_subpartitions_per_SM", "0", preset="cc_6_1", values=at)
    assert float(derive.evaluate_result(model, answer, "cc_6_1", **at).magnitude) == pytest.approx(hand, rel=1e-12)
    near = float(model.evaluate("warps_by_registers_compat", "cc_6_1", values={**at, "compat_subpartitions_per_SM": 1e-9}).magnitude)
    assert near == pytest.approx(hand, rel=1e-6)


def test_a_two_sided_limit_at_a_pole_is_refused_not_printed_as_complex_infinity(write_model):
    # I*B*I/(I - P_peak/B) tends to +oo from above the pole and -oo from below: no value, and SymPy's zoo is no answer
    model = symgpu.load(str(write_model(rhs="I*B*I/(I - P_peak/B)")))
    with pytest.raises(errors.DerivationError, match=r"came out as zoo, which is no value .* ask one-sided \(--dir \+ or -\)"):
        derive.limit(model, "P", "I", "P_peak/B", direction="+-")
    above = derive.limit(model, "P", "I", "P_peak/B", direction="+")
    assert above.result == sympy.oo


def test_an_answer_sympy_cannot_print_to_numpy_is_evaluated_with_numbers_put_in_not_an_internal_error():
    # found by differential.py --questions 10000 --seed 1 once the linear factoring let this derivation finish in
    # 2 s: the minimum of dram_throughput_ilp over ilp has ITE(...Min(0, .../alpha)...) conditions that SymPy's
    # NumPy printer fails on (PolynomialError); it was an internal error. At alpha = 0.5 no branch holds (NaN: "no
    # minimum"), and brute force agrees: the quantity falls towards 0 as ilp -> 0 and is 138 GB/s from ilp = 2 on
    # (ilp bounded: without a bound the end ilp -> oo, whose limit is not taken without values, cannot be compared
    # with the others, and the question is refused: tests/test_caught_closed_forms_refused_with_their_reason.py)
    model = symgpu.load("volkov_2016_ilp")
    answer = model.extremum("dram_throughput_ilp", over="ilp", kind="min", assume=["ilp <= 64"])
    assert answer.certificate is not None and answer.certificate.checked
    xs = np.array([1e-3, 1e-2, 0.1, 1.0, 2.0, 16.0])
    brute = np.asarray(model.evaluate("dram_throughput_ilp", "gt200", values={"alpha": 0.5, "n": 8.0, "ilp": xs}).magnitude, dtype=float)
    assert np.all(np.diff(brute) >= 0) and brute[0] < brute[1] / 5
    assert math.isnan(float(derive.evaluate_result(model, answer, "gt200", alpha=0.5, n=8.0).magnitude))
    assert answer.extra.elsewhere is not None and "no minimum" in answer.extra.elsewhere


def test_the_same_answer_read_back_from_the_store_is_checked_too(tmp_path, monkeypatch):
    # the stored answer is parsed back unevaluated, and SymPy's unevaluated printing failed on it where the
    # fresh one printed (PolynomialError from the first lambdify attempt: an internal error on the second run)
    monkeypatch.setenv("SYMGPU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SYMGPU_NO_CACHE", raising=False)
    ask = [sys.executable, "-m", "symgpu", "extremum", "volkov_2016_ilp", "dram_throughput_ilp", "--over", "ilp", "--min",
           "--assume", "ilp <= 64"]
    for _ in range(2):
        done = subprocess.run(ask, capture_output=True, text=True, timeout=600, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0 and "checked numerically" in done.stdout, done.stderr


# ================================================================== solve: a root in rounding noise (differential seed 89)
# Maxwell preset: a = 372, b = 22, alu_lat = 6 cycles, c = 221 GB/s, 16 SMs at 1.266 GHz, 128 B/winst
NOISE_AT = {"alpha": 1e9, "n": 8.0}


def _maxwell_root_parts(alpha: float, n: float) -> tuple[Fraction, Fraction, Fraction]:
    big_a = Fraction(372) + Fraction(alpha) * 6
    c_ipc = Fraction(221 * 10**9) / (16 * 128 * Fraction("1.266") * 10**9)
    return big_a, c_ipc, Fraction(n)


def test_the_latency_root_keeps_its_digits_where_the_textbook_quadratic_formula_cancels():
    model = symgpu.load("volkov_2016")
    ieee = float(model.evaluate("x_latency_root", "maxwell", values=NOISE_AT).magnitude)
    exact = float(evaluator.exact(model, "x_latency_root", preset="maxwell", values=NOISE_AT).evalf(30))
    assert ieee == pytest.approx(exact, rel=1e-14)
    big_a, c_ipc, n = (float(v) for v in _maxwell_root_parts(**NOISE_AT))
    q, p, r = big_a * c_ipc + n, big_a - 22.0, n * c_ipc
    textbook = (q - math.sqrt(q * q - 4.0 * p * r)) / (2.0 * p)  # the form the model file had: 10 of 16 digits lost
    assert abs(textbook - exact) > 1e-12 * exact


def test_a_solve_for_b_at_a_huge_intensity_is_checked_and_gives_the_root_of_the_quadratic(cli):
    target = 1.3333332505885067e-09  # the value seed 89 drew, the IEEE latency root at b = 22 in the textbook form
    code, out, err = cli("solve", "volkov_2016", "x_latency_root", "--for", "b", "--target", repr(target), "--preset", "maxwell",
                         "--set", "alpha=1000000000.0", "--set", "n=8.0")
    assert code == 0, err
    assert "checked numerically at preset maxwell" in out  # command-line values keep their units in the exact re-check
    # x*(A + b*x/(C - x)) = n solved for b by hand: b = (n/x - A)*(C - x)/x
    big_a, c_ipc, n = _maxwell_root_parts(**NOISE_AT)
    x = Fraction(repr(target))
    b = (n / x - big_a) * (c_ipc - x) / x
    # the root is ill-conditioned here (x moves by ~1e-27 per cycle of b: one unit in the last place of the
    # target moves b by ~100 cycles), so the IEEE value of the closed form is good to ~1e-5, not to its 10 digits
    value = float(out.split("value: ")[1].split(" cycle")[0])
    assert value == pytest.approx(float(b), rel=1e-5)


@pytest.fixture
def textbook_volkov(tmp_path: Path) -> Path:
    """A user's copy of ``volkov_2016`` with the latency root in the textbook form (q - sqrt(q**2 - 4*p*r))/(2*p)."""
    text = (ROOT / "equations" / "volkov_2016.toml").read_text(encoding="utf-8")
    rationalised = 'rhs = "2*n*c_ipc/((a + alpha*alu_lat)*c_ipc + n + sqrt(((a + alpha*alu_lat)*c_ipc - n)**2 + 4*b*n*c_ipc))"'
    textbook = ('rhs = "((a + alpha*alu_lat)*c_ipc + n - sqrt(((a + alpha*alu_lat)*c_ipc + n)**2 - 4*(a + alpha*alu_lat - b)*n*c_ipc))'
                '/(2*(a + alpha*alu_lat - b))"')
    assert text.count(rationalised) == 1
    path = tmp_path / "volkov_2016.toml"
    path.write_text(text.replace(rationalised, textbook), encoding="utf-8")
    return path


def test_sign_changes_in_rounding_noise_are_no_missing_roots_for_the_certificate_or_the_tester(textbook_volkov):
    model = symgpu.load(str(textbook_volkov))
    b = np.geomspace(10.0, 1e4, 400)
    ieee = model.evaluate("x_latency_root", "maxwell", values={**NOISE_AT, "b": b}).magnitude
    target = 1.3333332505885067e-09
    assert np.count_nonzero(np.diff(np.sign(ieee - target))) > 2  # the noise: the IEEE values cross the target over and over
    answer = model.solve("x_latency_root", for_="b", target=repr(target), preset="maxwell", values=NOISE_AT)
    assert "a scan of b finds no other" in answer.certificate.text()
    question = Question("solve", str(textbook_volkov), "x_latency_root", "b", _point("maxwell", {**NOISE_AT, "b": 22.0}), target=target)
    verdict = checks.judge(question, limit=0)
    assert verdict.outcome == "agree", verdict.line()
