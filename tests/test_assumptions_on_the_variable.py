"""An ``--assume`` relation on the variable asked about bounds the question: a solve keeps the roots
that meet it, an extremum is taken over the range it leaves, a boundary outside it is none. An outside
tester found it ignored: ``solve volkov_2016 n_needed --for alpha --target 65 --preset h100 --assume
'alpha < 30'`` gave both roots (20.06 and 54.02), the maximum over ``alpha <= 40`` was the one at
48.14, and each answer said its check was skipped because the assumption "cannot be evaluated at the
point".
"""

from __future__ import annotations

import json
import numpy as np
import pytest

import symgpu


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def _n_needed(model: symgpu.Model, preset: str, alpha: float | np.ndarray) -> np.ndarray:
    return np.asarray(model.evaluate("n_needed", preset, values={"alpha": alpha}).magnitude, dtype=float)


@pytest.mark.parametrize("assume, inside", [("alpha < 30", lambda a: a < 30), ("alpha > 30", lambda a: a > 30)])
def test_a_solve_keeps_only_the_roots_that_meet_the_assumption(cli, volkov, assume, inside) -> None:
    # every root of n_needed = 65 on the evaluate path: sign changes of n_needed - 65 over a fine grid
    alphas = np.linspace(0.0, 200.0, 400001)
    gap = _n_needed(volkov, "h100", alphas) - 65.0
    crossings = alphas[:-1][np.sign(gap[:-1]) != np.sign(gap[1:])]
    assert len(crossings) == 2 and crossings[0] < 30 < crossings[1]
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "65", "--preset", "h100", "--assume", assume,
                         "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["certificate"]["checks"] and not answer["certificate"]["unchecked"]
    values = answer["value"] if isinstance(answer["value"], list) else [answer["value"]]
    expected = [c for c in crossings if inside(c)]
    assert len(values) == 1 and values[0] == pytest.approx(expected[0], abs=1e-3)
    assert "cannot be evaluated" not in out + err


def test_an_extremum_is_taken_over_the_range_the_assumption_leaves(volkov) -> None:
    answer = volkov.extremum("n_needed", over="alpha", kind="max", preset="maxwell", assume=["alpha <= 40"])
    alphas = np.linspace(0.0, 40.0, 40001)
    scanned = _n_needed(volkov, "maxwell", alphas)
    assert answer.extra.location_at == pytest.approx(40.0)
    assert answer.extra.value_at == pytest.approx(float(scanned.max()), rel=1e-12)
    assert float(scanned.max()) == float(scanned[-1])  # rising all the way to the bound: the cusp (48.14) lies beyond it
    assert answer.certificate is not None and answer.certificate.checks and not answer.certificate.unchecked


def test_a_boundary_outside_the_assumption_is_none(cli) -> None:
    base = ("boundary", "volkov_2016", "memory_throughput", "--between", "memory_bound", "issue_bound", "--for", "alpha",
            "--preset", "maxwell", "--set", "n=64")
    code, out, _ = cli(*base, "--assume", "alpha < 100")
    assert code == 0 and "value: 48.14" in out
    code, out, err = cli(*base, "--assume", "alpha < 10")
    assert code != 0 and "value:" not in out and "--assume" in err


def test_an_answer_derived_under_an_assumption_false_at_the_point_is_not_shown(cli, volkov) -> None:
    preset = volkov.presets["maxwell"]
    assert preset["mem_lat"].to("cycle").magnitude > preset["alu_lat"].to("cycle").magnitude  # the premise: false at maxwell
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "maxwell",
                         "--assume", "mem_lat < alu_lat")
    assert code != 0 and "value:" not in out
    assert "mem_lat < alu_lat does not hold at the given values" in err


def test_a_solve_without_regimes_keeps_only_the_roots_that_meet_the_assumption(cli) -> None:
    # the interval notes' P_K0 = 1000 threads with M = N: two roots (a quadratic), found here by sign changes on the evaluate path
    model = symgpu.load("interval_analysis")
    ns = np.linspace(6.0, 100.0, 94001)
    gap = model.evaluate("P_K0", "gtx1080", values={"M": ns, "N": ns}).magnitude - 1000.0
    crossings = ns[:-1][np.sign(gap[:-1]) != np.sign(gap[1:])]
    assert len(crossings) == 2 and crossings[0] < 20 < crossings[1] < 30
    base = ("solve", "interval_analysis", "P_K0", "--for", "N", "--set", "P_K0=1000", "--preset", "gtx1080", "--substitute", "M=N", "--json")
    code, out, err = cli(*base, "--assume", "N >= 20")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(crossings[1], abs=1e-3)
    code, out, err = cli(*base, "--assume", "N >= 30")
    assert code != 0 and "--assume N >= 30" in err


def test_an_assumption_false_at_the_point_refuses_a_one_case_inequality_too(cli) -> None:
    code, out, err = cli("solve", "occupancy", "blocks_register_limit", "--for", "regs_per_thread", "--relation", ">=", "--target", "12",
                         "--kind", "max", "--case", "per_warp_allocation", "-S", "reg_alloc_exception_factor=1",
                         "-S", "compat_subpartitions_per_SM=subpartitions_per_SM", "-p", "cc_7_0", "-s", "threads_per_block=128",
                         "--assume", "threads_per_block > 512")
    assert code != 0 and "value:" not in out and "threads_per_block > 512 does not hold" in err


def test_the_largest_admissible_value_respects_an_assumption_on_the_variable(cli) -> None:
    model = symgpu.load("interval_analysis")
    at = {"M": 16.0}
    assert model.evaluate("L_K0_time", "gtx1080", values={**at, "N": 50.0}).to("ns").magnitude < 1000.0  # the relation holds at 50
    code, out, err = cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", "<=", "--target", "1us", "--kind", "max",
                         "--preset", "gtx1080", "--set", "M=16", "--assume", "N <= 50")
    assert code == 0, err
    assert "value: 50 " in out


def _fixed_point_by_bisection(model: symgpu.Model, quantity: str, preset: str, at: dict[str, float], hi: float) -> float:
    """x = quantity(x) by bisection on x - quantity(x) over (0, hi), each value through Model.evaluate."""
    def gap(x: float) -> float:
        return x - float(model.evaluate(quantity, preset, values={**at, "x": x}).magnitude)
    lo = hi * 1e-9
    hi = hi * (1 - 1e-9)
    assert gap(lo) < 0 < gap(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gap(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


# (quantity, preset, inputs, the pole of g: c/(SMs*bytes_per_inst*clock), the bracket of the bisection)
FIXED_POINTS = [("memory_throughput_loaded", "kepler", {"n": 32.0, "alpha": 8.0}, 0.12),
                ("s6_5_model_two_term", "g80_two_term", {"n": 24.0, "alpha": 4.0}, 0.0256)]


@pytest.mark.parametrize("quantity, preset, at, hi", FIXED_POINTS)
def test_a_fixed_point_outside_an_assumption_on_its_variable_is_refused(cli, volkov, quantity, preset, at, hi) -> None:
    # one sign change of x - g(x) on (0, hi): the fixed point is unique there (0.0783938 and 0.0252184 by hand bisection)
    root = _fixed_point_by_bisection(volkov, quantity, preset, at, hi)
    base = ("fixed-point", "volkov_2016", quantity, "--var", "x", "--preset", preset,
            *[a for name, v in at.items() for a in ("--set", f"{name}={v:g}")])
    below, above = f"{root * 0.8:.6g}", f"{root * 1.2:.6g}"
    for assume in (f"x <= {below}", f"x >= {above}"):
        code, out, err = cli(*base, "--assume", assume)
        assert code == 1 and "value:" not in out, out
        assert "does not meet the assumption" in err and f"{root:.6g}" in err
    code, out, err = cli(*base, "--assume", f"x <= {above}", "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(root, rel=1e-9)


def test_a_grid_extremum_leaves_out_the_points_outside_an_assumption_on_its_variable(cli) -> None:
    model = symgpu.load("occupancy")
    at = {"regs_per_thread": 64, "smem_per_block": 0}
    # brute force: occupancy at every threads_per_block that meets the assumption
    scanned = {t: float(model.evaluate("occupancy", "cc_8_0", values={**at, "threads_per_block": t}).magnitude) for t in range(1, 257)}
    lowest = min(scanned.values())
    where = [t for t, v in scanned.items() if v == lowest]
    assert lowest < 0.5 and where[-1] <= 256  # (0.4375 at 193..224; the whole grid's minimum, 0.2656, lies at 513..544)
    base = ("extremum", "occupancy", "occupancy", "--over", "threads_per_block", "--min", "--preset", "cc_8_0",
            "--set", "regs_per_thread=64", "--set", "smem_per_block=0", "--json")
    code, out, err = cli(*base, "--grid", "1:1024", "--assume", "threads_per_block <= 256")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["value"] == pytest.approx(lowest, rel=1e-12)
    assert answer["location_value"] == where
    assert any("threads_per_block <= 256" in a for a in answer["assumptions"])
    code, out, err = cli(*base, "--grid", "300:1024", "--assume", "threads_per_block <= 256")
    assert code == 1 and "value" not in out and "threads_per_block <= 256 (--assume)" in err


@pytest.mark.parametrize("question, assume", [
    (("volkov_2016", "n_needed", "--var", "alpha", "--to", "0", "--preset", "maxwell"), "alpha >= 10"),
    (("volkov_2016", "memory_latency", "--var", "theta", "--to", "0", "--preset", "kepler"), "theta >= 100"),
    (("volkov_2016", "n_needed", "--var", "alpha", "--to", "0"), "alpha >= 10"),
    (("volkov_2016", "n_needed", "--var", "alpha", "--to", "oo", "--preset", "maxwell"), "alpha <= 40"),
    (("volkov_2016", "n_needed", "--var", "alpha", "--to", "oo"), "alpha <= 40"),
])
def test_a_limit_whose_point_an_assumption_on_its_variable_excludes_is_refused(cli, question, assume) -> None:
    # the limit point (0, or oo) lies outside the assumption, on every side: the question asked under it has no such limit
    code, out, err = cli("limit", *question, "--assume", assume)
    assert code == 1 and "value:" not in out and "result:" not in out
    assert f"{assume} (--assume)" in err


def test_a_limit_is_taken_from_the_side_an_assumption_on_its_variable_admits(cli, volkov) -> None:
    # alpha -> 10 under alpha <= 10: from below only (alpha is nonnegative, so from above by default)
    below = [float(_n_needed(volkov, "maxwell", 10 - d)) for d in (1e-6, 1e-9)]
    # by hand at alpha = 10 (maxwell): (mem_lat + 10*alu_lat)*Min(alu_thru/10, issue_thru/11, mem_thru), continuous there
    assert below[1] == pytest.approx(below[0], rel=1e-6)
    base = ("limit", "volkov_2016", "n_needed", "--var", "alpha", "--to", "10", "--preset", "maxwell", "--assume", "alpha <= 10")
    code, out, err = cli(*base, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["value"] == pytest.approx(below[1], rel=1e-8)
    assert any("from below" in c for c in answer["certificate"]["checks"])
    code, out, err = cli(*base, "--dir", "+")
    assert code == 1 and "value:" not in out and "alpha <= 10 (--assume)" in err and "--dir -" in err
