"""Issue 25: every disagreement the differential tester found, as a regression test.

Each test asserts a value computed independently of the derivation engine: by hand (the
arithmetic is in the test) or by brute force on the evaluate path (``Model.evaluate`` on a
dense NumPy grid, sign changes refined by bisection). No expected number is copied from
symgpu's own output. Where the right behaviour is a refusal (a closed form the numeric
certificate catches, a step SymPy cannot decide), the test pins a loud one-line refusal and
shows by brute force why no number may be printed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.evaluate import evaluator

Cli = Callable[..., tuple[int, str, str]]


# ------------------------------------------------------------------ brute force on the evaluate path
def _on(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str,
        xs: np.ndarray, *, checks: bool = True) -> np.ndarray:
    """``quantity`` at every ``var`` in ``xs`` (declared units), by ``Model.evaluate``."""
    got = model.evaluate(quantity, preset, values={**values, var: xs}, checks=checks).magnitude
    return np.broadcast_to(np.asarray(got, dtype=float), xs.shape).copy()


def _at(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str, x: float,
        **kw: Any) -> float:
    return float(_on(model, quantity, preset, values, var, np.array([x]), **kw)[0])


def _brute_roots(model: symgpu.Model, quantity: str, preset: str | None, values: Mapping[str, Any], var: str,
                 target: float, xs: np.ndarray) -> list[float]:
    """Every root of ``quantity = target`` the grid brackets, each bisected 80 times; a sign change
    across a pole (the quantity far from the target there) is no root."""
    ys = _on(model, quantity, preset, values, var, xs) - target
    roots = []
    for i in np.nonzero(np.isfinite(ys[:-1]) & np.isfinite(ys[1:]) & (np.sign(ys[:-1]) != np.sign(ys[1:])))[0]:
        lo, hi, flo = float(xs[i]), float(xs[i + 1]), float(ys[i])
        if flo == 0.0:
            roots.append(lo)
            continue
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            fmid = _at(model, quantity, preset, values, var, mid) - target
            if fmid == 0.0:
                lo = hi = mid
                break
            if (fmid > 0) == (flo > 0):
                lo, flo = mid, fmid
            else:
                hi = mid
        root = 0.5 * (lo + hi)
        if abs(_at(model, quantity, preset, values, var, root) - target) <= 1e-9 * max(abs(target), 1.0):
            roots.append(root)
    return roots


def _value_line(out: str) -> tuple[float, str]:
    """The number and unit of the CLI's ``value:`` line."""
    match = re.search(r"^\s*value: (\S+) ([^(\n]*?)\s*(\(|$)", out, re.MULTILINE)
    assert match, out
    number = {"oo": "inf", "-oo": "-inf"}.get(match.group(1), match.group(1))
    return float(number), match.group(2)


def _one_line_refusal(code: int, out: str, err: str, expected_code: int) -> str:
    """A refusal: the exit code, no result on stdout, one line on stderr, no traceback."""
    text = (out + err).strip()
    assert code == expected_code, text
    assert "Traceback" not in text and "internal error" not in text, text
    assert len(err.strip().splitlines()) == 1, err
    assert "value:" not in out and "nan" not in out.lower(), out
    return err


def _roots_at(model: symgpu.Model, d: derive.Derivation, preset: str | None, values: Mapping[str, Any]) -> list[float]:
    """The roots a solve answer gives at a point (those whose regime conditions hold there)."""
    merged = derive.result_values(d, values)
    records = derive.roots_of(d)
    assert records is not None, d.result
    return sorted(float(r.value.magnitude) for r in
                  derive.applying_roots(model, records, preset, merged, model.unit_text(d.variable), d.variable))


# ================================================================== 1. numeric targets in a prefixed unit
def test_a_numeric_target_in_nanoseconds_gives_the_clock_that_hand_arithmetic_gives(cli: Cli):
    code, out, _ = cli("solve", "interval_analysis", "L_K0_time", "--for", "phi", "--target", "500",
                       "--preset", "gtx1080", "--set", "M=16", "--set", "N=16")
    assert code == 0, out
    value, unit = _value_line(out)
    # gtx1080: L_M = 400 cy, t_issue = 1 cy; L_K0 = L_M + t_issue*(M*N + M) = 400 + 256 + 16 = 672 cy; 672 cy / 500 ns
    assert unit == "GHz" and value == pytest.approx(672 / 500, rel=1e-9)
    # the same target with its unit, in microseconds, gives the same clock
    code, again, _ = cli("solve", "interval_analysis", "L_K0_time", "--for", "phi", "--target", "0.5 us",
                         "--preset", "gtx1080", "--set", "M=16", "--set", "N=16")
    assert code == 0 and _value_line(again) == pytest.approx((value, unit))


def test_a_numeric_target_in_gigabytes_per_second_scales_the_clock_by_the_bandwidth_ratio(cli: Cli):
    code, out, _ = cli("solve", "volkov_2016_ilp", "BW_at_mem_clock", "--for", "mem_clock", "--target", "300",
                       "--set", "BW_measured=224", "--set", "mem_clock_measured=3.5")
    assert code == 0, out
    # BW_at_mem_clock = BW_measured * mem_clock / mem_clock_measured, so mem_clock = 300/224 * 3.5 GHz
    assert _value_line(out) == pytest.approx((300 / 224 * 3.5, "GHz"))
    code, units, _ = cli("solve", "volkov_2016_ilp", "BW_at_mem_clock", "--for", "mem_clock", "--target", "300 GB/s",
                         "--set", "BW_measured=224 GB/s", "--set", "mem_clock_measured=3500 MHz")
    assert code == 0 and _value_line(units) == pytest.approx((300 / 224 * 3.5, "GHz"))


def test_a_solve_for_memory_latency_with_a_gb_per_s_target_is_the_root_brute_force_finds():
    model = symgpu.load("prior_huang")
    values = {"alpha": 1e9, "n": 64.0}
    target = 2.765595240089726e-05  # GB/s (the tester's target; the old answer was off by 1e9, the prefix)
    d = model.solve("memory_bandwidth_rr", for_="mem_lat", target=repr(target), preset="maxwell", values=values)
    answer = float(derive.evaluate_result(model, d, "maxwell", **values).magnitude)
    brute = _brute_roots(model, "memory_bandwidth_rr", "maxwell", values, "mem_lat", target, np.geomspace(1, 1e9, 400))
    assert len(brute) == 1 and answer == pytest.approx(brute[0], rel=1e-9)


# ================================================================== 2. roots in several regimes
def test_a_solve_with_a_root_in_each_regime_returns_both_roots_brute_force_finds():
    model = symgpu.load("prior_baghsorkhi")
    values = {"n": 2.0}
    target = 0.10008639892574542
    d = model.solve("instruction_throughput", for_="alpha", target=repr(target), preset="g80", values=values)
    brute = _brute_roots(model, "instruction_throughput", "g80", {**values}, "alpha", target, np.geomspace(1e-3, 1e5, 800))
    assert len(brute) == 2  # the old answer (a first-match Piecewise) gave only the first
    assert _roots_at(model, d, "g80", values) == pytest.approx(brute, rel=1e-7)


def test_n_needed_over_alpha_gives_the_chosen_root_and_the_one_past_the_cusp():
    model = symgpu.load("volkov_2016")
    target = _at(model, "n_needed", "maxwell", {}, "alpha", 8.0)  # the target is the quantity at alpha = 8
    d = model.solve("n_needed", for_="alpha", target=repr(target), preset="maxwell")
    brute = _brute_roots(model, "n_needed", "maxwell", {}, "alpha", target, np.geomspace(1e-2, 1e4, 600))
    assert len(brute) == 2 and brute[0] == pytest.approx(8.0, rel=1e-9)
    assert _roots_at(model, d, "maxwell", {}) == pytest.approx(brute, rel=1e-7)


# ================================================================== 3. flat regimes give a range
def test_a_target_equal_to_a_flat_regime_holds_on_the_range_brute_force_finds(cli: Cli):
    model = symgpu.load("volkov_2016_ilp")
    values = {"alpha": 4.0, "n": 8.0}
    code, out, _ = cli("solve", "volkov_2016_ilp", "arithmetic_time", "--for", "alu_lat", "--target", "4.0",
                       "--preset", "g80", "--set", "alpha=4.0", "--set", "n=8.0")
    assert code == 0 and "holds for every alu_lat where alu_lat <= n/alu_thru" in out, out
    d = model.solve("arithmetic_time", for_="alu_lat", target="4.0", preset="g80", values=values)
    (flat,) = derive.applying_ranges(model, d, "g80", values)
    # arithmetic_time = Max(1/alu_thru, alu_lat/n) = Max(4, alu_lat/8) at g80 (alu_thru 0.25): 4 exactly for alu_lat <= 32
    xs = np.concatenate([np.linspace(0.5, 64, 128), [32.0]])
    on_target = _on(model, "arithmetic_time", "g80", values, "alu_lat", xs) == 4.0
    assert np.array_equal(on_target, xs <= 8 / 0.25)
    from symgpu.evaluate.active import condition_holds
    assert [condition_holds(model, flat.when, "g80", {**values, "alu_lat": float(x)})[0] for x in xs] == list(on_target)


# ================================================================== 4. a zero input takes the unknown away
@pytest.mark.parametrize(("model_id", "quantity", "var", "preset", "values", "span", "outside"), [
    ("prior_baghsorkhi", "arithmetic_throughput", "alu_lat", "g80", {"alpha": 0.0, "n": 24.0}, (1e-3, 1e6), None),
    # the two Huang models are valid only where the queue's rho < 1: few requests per instruction, a wide pin bandwidth
    ("prior_huang", "arithmetic_throughput_bw", "reqs_per_inst", "kepler", {"alpha": 0.0, "n": 48.0}, (1e-3, 1.0), 1e4),
    ("prior_huang_gto", "arithmetic_throughput_bw", "pin_BW", "synthetic", {"alpha": 0.0, "n": 16.0}, (200.0, 1e6), 1.0),
])
def test_no_arithmetic_gives_zero_throughput_for_every_value_of_the_unknown_where_the_model_gives_one(
        cli: Cli, model_id: str, quantity: str, var: str, preset: str, values: dict[str, float], span: tuple[float, float],
        outside: float | None):
    model = symgpu.load(model_id)
    # alpha = 0 arithmetic instructions per memory access: zero arithmetic throughput, whatever var is
    xs = np.geomspace(*span, 60)
    assert np.all(_on(model, quantity, preset, values, var, xs) == 0.0)
    d = model.solve(quantity, for_=var, target="0", preset=preset, values=values)
    code, out, _ = cli("solve", model_id, quantity, "--for", var, "--target", "0", "--preset", preset,
                       *[a for k, v in values.items() for a in ("--set", f"{k}={v}")])
    if outside is None:  # no valid_when on the way: every value
        assert d.result is sympy.true
        assert code == 0 and f"holds for every {var}: the relation does not depend on {var} here" in out, out
        return
    # past rho = 1 evaluate refuses the point: "every value" holds only inside the domain, and says so
    with pytest.raises(errors.DomainError):
        _on(model, quantity, preset, values, var, np.array([outside]))
    (flat,) = derive.applying_ranges(model, d, preset, values)
    claims = [symgpu.evaluate.active.condition_holds(model, flat.when, preset, {**values, var: float(x)})[0] for x in [*xs, outside]]
    assert claims == [True] * len(xs) + [False]
    assert code == 0 and f"holds for every {var} where" in out and "valid_when domain" in out, out


_OCCUPANCY = {"cuda_cpi": 0.25, "cuda_insts": 100.0, "dual_issues": 5.0, "reissues": 15.0, "single_issues": 125.0,
              "issue_cpi": 0.25, "sfu_cpi": 1.0, "sfu_insts": 5.0, "gmem2_cpi": 24.6, "gmem2_insts": 5.0, "gmem_insts": 0.0,
              "smem2_cpi": 2.0, "smem2_insts": 10.0, "smem_cpi": 1.0, "smem_insts": 10.0, "warp_latency": 544.0}


def test_no_gmem_instructions_make_needed_occupancy_hold_for_every_gmem_cpi_or_for_none(cli: Cli):
    model = symgpu.load("volkov_2016_ilp")
    # Max(cuda 0.25*100, issue 0.25*145, sfu 1*5, gmem 24.6*5 + gmem_cpi*0, smem 2*10 + 1*10) = 123: 544/123
    occupancy = 544 / 123
    ys = _on(model, "needed_occupancy", None, _OCCUPANCY, "gmem_cpi", np.geomspace(1e-3, 1e3, 50))
    assert np.allclose(ys, occupancy, rtol=1e-12)
    sets = [a for k, v in _OCCUPANCY.items() for a in ("--set", f"{k}={v}")]
    code, out, _ = cli("solve", "volkov_2016_ilp", "needed_occupancy", "--for", "gmem_cpi", "--target", repr(occupancy), *sets)
    assert code == 0 and "holds for every gmem_cpi where" in out, out
    d = model.solve("needed_occupancy", for_="gmem_cpi", target=repr(occupancy), values=_OCCUPANCY)
    assert derive.applying_ranges(model, d, None, _OCCUPANCY)
    code, out, err = cli("solve", "volkov_2016_ilp", "needed_occupancy", "--for", "gmem_cpi", "--target", "5", *sets)
    assert "the relation holds for no gmem_cpi" in _one_line_refusal(code, out, err, 1)


# ================================================================== 5. roots outside the declared sign are no roots
def test_a_negative_latency_root_is_left_out_and_the_positive_root_is_the_brute_force_root():
    model = symgpu.load("prior_baghsorkhi")
    values = {"alpha": 32.0, "n": 24.0}
    target = 1.0176568652771636
    d = model.solve("arithmetic_throughput", for_="alu_lat", target=repr(target), preset="g80", values=values)
    brute = _brute_roots(model, "arithmetic_throughput", "g80", values, "alu_lat", target, np.geomspace(1e-3, 1e6, 900))
    assert len(brute) == 1 and 751 < brute[0] < 752
    assert _roots_at(model, d, "g80", values) == pytest.approx(brute, rel=1e-7)


# ================================================================== 6. limits SymPy could not decide, now decided at the point
# (they were one-line refusals, "SymPy could not decide a step (ValueError: ... 'zoo' is not comparable)"; a
# regime's condition that SymPy cannot compare near the point is now decided by the point's exact numbers)
def test_a_limit_sympy_could_not_decide_equals_the_model_beside_the_point():
    model = symgpu.load("prior_hong_kim_fixed")
    values = {"alpha": 32, "n": 10}
    d = model.limit("arithmetic_throughput", "SMs", "0", preset="gt200", values=values)
    answer = float(symgpu.derive.evaluate_result(model, d, "gt200", **values).magnitude)
    near = [float(model.evaluate("arithmetic_throughput", preset="gt200", SMs=s, **values).magnitude) for s in (1e-6, 1e-9)]
    assert answer == pytest.approx(near[0], rel=1e-12) and answer == pytest.approx(near[1], rel=1e-12)


def test_a_limit_that_grows_without_bound_beside_the_point_is_infinite():
    model = symgpu.load("prior_sim")
    values = {"alpha": 1.0, "n": 2.0}
    d = model.limit("Texec", "alu_thru", "0", preset="kepler", values=values)
    beside = [float(model.evaluate("Texec", preset="kepler", alu_thru=t, **values).magnitude) for t in (1e-3, 1e-6, 1e-9)]
    assert beside[0] < beside[1] < beside[2] and beside[2] > 1e9  # it grows as 1/alu_thru
    assert symgpu.derive.evaluate_result(model, d, "kepler", **values).magnitude == float("inf")


def test_a_limit_to_minus_infinity_times_a_sign_evaluates_where_it_used_to_raise_type_error(cli: Cli):
    # N_pw = Active_blocks_per_SM*Threads_per_block*ind/(Threads_per_warp*(mem - ind)) = 5*T*3/(32*3) = 5T/32 at the
    # table2 example (5 blocks/SM, 32 threads/warp): it grows without bound; the closed form -oo*|i-m|/(i-m) is +oo here
    model = symgpu.load("hong_kim_2009_intended")
    values = {"ind_mem_req": 3.0, "mem_req": 6.0}
    ts = np.array([1e3, 1e6, 1e9])
    assert _on(model, "N_pw", "table2_example", values, "Threads_per_block", ts, checks=False) == pytest.approx(5 * ts / 32)
    code, out, err = cli("limit", "hong_kim_2009_intended", "N_pw", "--var", "Threads_per_block", "--to", "oo",
                         "--preset", "table2_example", "--set", "ind_mem_req=3.0", "--set", "mem_req=6.0")
    assert code == 0, err
    assert _value_line(out)[0] == math.inf


# ================================================================== 7. a boundary where another regime binds
_MWP = ("boundary", "hong_kim_2009_intended", "MWP_pw", "--for", "Active_blocks_per_SM", "--preset", "table2_example",
        "--set", "ind_mem_req=1", "--set", "mem_req=6")
# table2_example: Mem_L = Mem_LD + Departure_del_uncoal*(Uncoal_per_mw - 1) = 420 + 10*31 = 730 cy (no coalesced loads),
# so MWP_Without_BW = Min(730/(10*32), 4*A) = Min(2.28125, 4A); MWP_peak_BW = Mem_Bandwidth*730/(16 SMs*1 GHz*128 B);
# N_pw = A*128/32 * 1/(6 - 1) = 0.8A, with A = Active_blocks_per_SM. MWP_pw = Min of the three.


def _mwp_limiters(bandwidth: float, a: float) -> dict[str, float]:
    model = symgpu.load("hong_kim_2009_intended")
    values = {"ind_mem_req": 1.0, "mem_req": 6.0, "Mem_Bandwidth": bandwidth, "Active_blocks_per_SM": a}
    return {name: float(model.evaluate(quantity, "table2_example", values=values).magnitude) for name, quantity in
            (("departure_bound", "MWP_Without_BW"), ("bandwidth_bound", "MWP_peak_BW"), ("parallel_warp_bound", "N_pw"))}


def test_a_boundary_where_the_named_regimes_switch_is_the_hand_computed_one(cli: Cli):
    code, out, _ = cli(*_MWP, "--between", "departure_bound", "parallel_warp_bound")
    assert code == 0, out
    # 0.8A = 2.28125 (peak-BW bound 8e10*730/2.048e12 = 28.5 binds nowhere near)
    assert _value_line(out) == pytest.approx((2.28125 / 0.8, "block/SM"))
    below, above = (_mwp_limiters(8e10, 2.28125 / 0.8 * f) for f in (0.999, 1.001))
    assert min(below, key=below.__getitem__) == "parallel_warp_bound" and min(above, key=above.__getitem__) == "departure_bound"


def test_no_boundary_where_a_third_regime_binds_on_both_sides(cli: Cli):
    # with Mem_Bandwidth 5 GB/s the peak-BW bound is 5e9*730/2.048e12 = 1.78 < 2.28125: it binds on both sides of A = 2.85
    for a in (2.28125 / 0.8 * 0.999, 2.28125 / 0.8 * 1.001):
        limiters = _mwp_limiters(5e9, a)
        assert min(limiters, key=limiters.__getitem__) == "bandwidth_bound"
    err = _one_line_refusal(*cli(*_MWP, "--set", "Mem_Bandwidth=5e9", "--between", "departure_bound", "parallel_warp_bound"), 1)
    assert "departure_bound and parallel_warp_bound do not meet" in err
    code, out, _ = cli(*_MWP, "--set", "Mem_Bandwidth=5e9", "--between", "bandwidth_bound", "parallel_warp_bound")
    assert code == 0 and _value_line(out) == pytest.approx((5e9 * 730 / 2.048e12 / 0.8, "block/SM"))


# ================================================================== 8. limits at a boundary value, extrema the scan beats
_MDM = {"LLCMissRate": 0.5, "L_DRAMService": 0.3733333, "L_NoCService": 0.1706667}


def test_the_memory_latency_limit_with_no_writes_is_the_finite_mshr_bound(cli: Cli):
    code, out, _ = cli("limit", "mdm_2019", "S_Mem", "--var", "M_Read", "--to", "oo", "--preset", "table1", "--set", "M_Write=0",
                       "--set", "W=4", *[a for k, v in _MDM.items() for a in ("--set", f"{k}={v}")])
    assert code == 0, out
    # table1: SMs 28, MSHRs 128, L_MinLLC 120, L_MinDRAM 220; past M_Read*W > MSHRs the queues hold MSHRs requests:
    # 0.5*220 + 120 + (0.3733333 + 0.1706667)*28*128
    bound = 0.5 * 220 + 120 + (0.3733333 + 0.1706667) * 28 * 128
    assert _value_line(out) == pytest.approx((bound, "cycle"), rel=1e-12)
    model = symgpu.load("mdm_2019")
    far = _on(model, "S_Mem", "table1", {**_MDM, "W": 4.0, "M_Write": 0.0}, "M_Read", np.array([1e3, 1e6, 1e9]), checks=False)
    assert far == pytest.approx(bound, rel=1e-12)


def test_a_limit_where_the_model_has_no_value_is_refused_not_answered(cli: Cli):
    # Eq. (4) holds for W <= W_max (table1: 64 warps per SM): as W -> oo the model has no value at all
    code, out, err = cli("limit", "mdm_2019", "S_Mem", "--var", "W", "--to", "oo", "--preset", "table1", "--set", "M_Write=0",
                         "--set", "M_Read=4", *[a for k, v in _MDM.items() for a in ("--set", f"{k}={v}")])
    assert code == 2 and "W <= W_max" in err and "value:" not in out


def test_a_maximum_of_a_quantity_that_grows_without_bound_is_refused(cli: Cli):
    # CPI grows without bound in mem_lat: no finite maximum at all (the old answer, 0.375, was refused by the certificate)
    grid = np.geomspace(1.0, 1e14, 57)
    ys = _on(symgpu.load("prior_huang_gto"), "CPI_final_printed", "maxwell", {"alpha": 1e9, "n": 64.0}, "mem_lat", grid)
    assert np.all(np.diff(ys) >= 0) and ys[-1] > 100 * ys[0]
    err = _one_line_refusal(*cli("extremum", "prior_huang_gto", "CPI_final_printed", "--over", "mem_lat", "--max", "--preset",
                                 "maxwell", "--set", "alpha=1000000000.0", "--set", "n=64.0"), 2)
    assert "CPI_final_printed has no maximum over mem_lat: it tends to oo as mem_lat -> oo" in err


@pytest.mark.parametrize(("argv", "quantity", "var", "values"), [
    (("extremum", "prior_hong_kim", "Time", "--over", "n", "--min", "--preset", "gt200", "--set", "alpha=32.0"),
     "Time", "n", {"alpha": 32.0}),
    (("extremum", "prior_baghsorkhi", "arithmetic_throughput", "--over", "alu_lat", "--max", "--preset", "g80",
      "--set", "alpha=11.0", "--set", "n=2.0"), "arithmetic_throughput", "alu_lat", {"alpha": 11.0, "n": 2.0}),
    (("extremum", "hong_kim_2009_intended", "MWP_pw", "--over", "mem_req", "--max", "--preset", "table2_example",
      "--set", "ind_mem_req=3.0"), "MWP_pw", "mem_req", {"ind_mem_req": 3.0}),
])
def test_an_extremum_whose_old_candidate_did_not_hold_is_the_brute_force_one_or_refused(cli: Cli, argv: tuple[str, ...],
                                                                                        quantity: str, var: str,
                                                                                        values: dict[str, float]):
    # the old answer was a candidate whose regime conditions fail here (its value was not the quantity at its
    # location); now the answer is the candidate that holds (a plateau's edge) or a one-line refusal
    preset = argv[argv.index("--preset") + 1]
    kind = argv[argv.index(var) + 1][2:]
    model = symgpu.load(argv[1])
    xs = np.geomspace(1e-3, 1e4, 4001)
    ys = _on(model, quantity, preset, values, var, xs, checks=False)
    ys[~evaluator.inside_domain(model, quantity, preset, {**values, var: xs}, len(xs))] = np.nan  # valid_when: no value outside
    brute = np.nanmax(ys) if kind == "max" else np.nanmin(ys)
    code, out, err = cli(*argv)
    if code == 0:
        assert _value_line(out)[0] == pytest.approx(brute, rel=1e-6), out
    else:
        err = _one_line_refusal(code, out, err, 2)
        assert f"no candidate for the {kind}imum of {quantity} over {var} holds" in err or "the extremum is not decided" in err


def test_a_maximum_on_a_plateau_is_the_plateau_value_not_nan(cli: Cli):
    # brute force: arithmetic_throughput rises with mem_thru to a plateau; the old answer's location Piecewise had no
    # branch at this point (NaN); the plateau's edge is now a candidate
    ys = _on(symgpu.load("prior_zhang_owens"), "arithmetic_throughput", "kepler", {"alpha": 16.0, "n": 4.0}, "mem_thru",
             np.geomspace(1e-4, 1e3, 36))
    assert np.all(np.diff(ys) >= 0) and ys[-1] == ys[-10]
    code, out, err = cli("extremum", "prior_zhang_owens", "arithmetic_throughput", "--over", "mem_thru", "--max",
                         "--preset", "kepler", "--set", "alpha=16.0", "--set", "n=4.0")
    assert code == 0, err
    assert _value_line(out)[0] == pytest.approx(ys[-1], rel=1e-9)


def test_a_latency_limit_at_zero_load_is_the_unloaded_latency(cli: Cli):
    code, out, _ = cli("limit", "volkov_2016", "Latency_loaded", "--var", "c", "--to", "0", "--preset", "kepler",
                       "--set", "alpha=4.0", "--set", "theta=3.8", "--set", "x=0.0")
    assert code == 0, out
    # x = 0: no load term; kepler a = 300 cy, alu_lat = 9 cy: a + alpha*alu_lat = 300 + 4*9 (the old answer, 304, subtracted b = 32)
    assert _value_line(out) == pytest.approx((300 + 4 * 9, "cycle"))


# ================================================================== answers still refused where brute force has one
def _right_or_refused(cli: Cli, argv: tuple[str, ...], right: float) -> None:
    """Either the right value (brute force) or a loud one-line certificate refusal (exit 1), never another number."""
    code, out, err = cli(*argv)
    if code == 0:
        assert _value_line(out)[0] == pytest.approx(right, rel=1e-7), out
    else:
        assert _one_line_refusal(code, out, err, 1).startswith("symgpu: check failed:")


def test_mem_cycles_grow_without_bound_in_uncoalesced_loads_or_the_limit_is_refused(cli: Cli):
    model = symgpu.load("hong_kim_2009")
    values = {"Coal_Mem_insts": 0.0, "Departure_del_uncoal": 10.0, "Mem_LD": 420.0, "Uncoal_per_mw": 32.0,
              "inst_ops_rate": 8.0, "ops_full_rate": 8.0}
    # no coalesced loads: Mem_cycles = Mem_L * Uncoal_Mem_insts with Mem_L = 420 + 10*(32 - 1) = 730 cycles
    ks = np.array([1e2, 1e4, 1e6])
    assert _on(model, "Mem_cycles", None, values, "Uncoal_Mem_insts", ks) == pytest.approx(730 * ks)
    _right_or_refused(cli, ("limit", "hong_kim_2009", "Mem_cycles", "--var", "Uncoal_Mem_insts", "--to", "oo",
                            *[a for k, v in values.items() for a in ("--set", f"{k}={v}")]), math.inf)


def test_instruction_throughput_over_alu_thru_gives_the_brute_force_root_or_is_refused(cli: Cli):
    model = symgpu.load("prior_baghsorkhi")
    values = {"alpha": 11.0, "n": 2.0}
    target = 0.0017198062809423047
    (root,) = _brute_roots(model, "instruction_throughput", "g80", values, "alu_thru", target, np.geomspace(1e-6, 1e3, 900))
    _right_or_refused(cli, ("solve", "prior_baghsorkhi", "instruction_throughput", "--for", "alu_thru", "--target", repr(target),
                            "--preset", "g80", "--set", "alpha=11.0", "--set", "n=2.0"), root)


def test_a_boundary_between_two_named_limiters_is_where_they_cross_not_where_an_inner_min_switches():
    # prior_sim CWP = Min(n, 1 + mem_lat/(arith_cpi*(alpha + 1))): at fermi with alpha = 32, n = 8 the
    # answer was alu_lat = n/alu_thru = 8, where arith_cpi's own Max switches; the two named limiters
    # cross where the brute force (active_regime on a grid, then bisection) finds the switch
    from symgpu.evaluate import active

    model = symgpu.load("prior_sim")
    values = {"alpha": 32.0, "n": 8.0}

    def regime(x: float) -> str:
        return active.active_regime(model, "CWP", "fermi", **values, alu_lat=x)[0]

    grid = np.linspace(1.0, 100.0, 991)
    names = [regime(x) for x in grid]
    i = next(k for k in range(len(grid) - 1) if names[k] != names[k + 1])
    lo, hi = grid[i], grid[i + 1]
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if regime(mid) == names[i] else (lo, mid)
    answer = model.boundary("CWP", ("occupancy", "cwp_full"), for_="alu_lat", preset="fermi", values=values)
    found = symgpu.derive.applying_boundaries(model, answer, "fermi", values)
    assert [float(r.value.magnitude) for r in found] == pytest.approx([(lo + hi) / 2], rel=1e-9)
    assert answer.certificate is not None and answer.certificate.checked
