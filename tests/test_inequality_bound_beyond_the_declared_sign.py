"""An inequality's bound that the variable's declared sign leaves no value on the side of is no answer:
no admissible value satisfies the relation, and that is said (exit 1); one that every admissible value
meets is said to be met by all of them (an outside tester's finding: ``warps_needed_refined <= 0.999``
at GT200 printed ``alpha <= -108501``, exit 0, "checked", for a positive ``alpha``). The inversion
multiplies through by ``instruction_time*(alpha + 1)``, positive only for the admissible ``alpha``, so
its bound describes the relation over those values alone; the certificate fails such a bound too.

By hand, at GT200 (``mem_lat = 434``, ``instruction_time = 4``): ``warps_needed_refined = 1 + 434/(4*(alpha
+ 1))`` lies in (1, 109.5) for every ``alpha > 0``; Hong & Kim's ``Time_latency_fixed = 434 + 24*alpha``
exceeds 434; Volkov's ``latency_unloaded = a + alpha*alu_lat`` at ``h100_fit_alpha0`` is at least ``a``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify, checked
from symgpu.derive.certify_path import Asked

ALPHAS = np.concatenate([np.geomspace(1e-9, 1e9, 2001), np.linspace(0.01, 100.0, 2001)])


def _warps(alpha: np.ndarray) -> np.ndarray:
    model = symgpu.load("prior_cuda_guide")
    return np.asarray(model.evaluate("warps_needed_refined", "gt200", values={"alpha": alpha}).magnitude, dtype=float)


def test_no_positive_alpha_needs_fewer_than_one_warp(cli) -> None:  # type: ignore[no-untyped-def]
    assert _warps(ALPHAS).min() > 1.0  # brute force: no admissible alpha meets <= 0.999
    code, out, err = cli("--no-cache", "solve", "prior_cuda_guide", "warps_needed_refined", "--for", "alpha", "--target", "0.999",
                         "--relation", "<=", "-p", "gt200")
    assert code == 1 and out == "", out
    assert "no admissible alpha satisfies warps_needed_refined <= 999/1000" in err
    # by hand: for alpha > 0, 1 + 434/(4*(alpha + 1)) <= 0.999 <=> alpha + 1 <= -434/(4*0.001) = -108500
    assert "the relation holds only where alpha <= -108501" in err and "(positive)" in err


def test_no_positive_alpha_needs_fewer_than_one_warp_through_the_api() -> None:
    model = symgpu.load("prior_cuda_guide", cache=False)
    with pytest.raises(errors.NoAnswerHere, match="no admissible alpha"):
        model.solve("warps_needed_refined", "alpha", target=0.999, relation="<=", preset="gt200")


def test_the_smallest_alpha_refusal_does_not_claim_where_the_relation_holds_on_the_real_line(cli) -> None:  # type: ignore[no-untyped-def]
    # on the real line warps_needed_refined <= 0.999 holds on -108501 <= alpha < -1, so "holds only for alpha <= -108501" is false
    code, out, err = cli("--no-cache", "solve", "prior_cuda_guide", "warps_needed_refined", "--for", "alpha", "--target", "0.999",
                         "--relation", "<=", "-p", "gt200", "--kind", "min")
    assert code == 1 and out == ""
    assert "over admissible alpha the relation holds only where alpha <= -108501" in err
    assert "the relation holds only for" not in err


@pytest.mark.parametrize("target, bound", [("0.5", "-218"), ("-1", "-55.25")])
def test_a_lower_bound_below_the_declared_sign_is_met_by_every_alpha(cli, target: str, bound: str) -> None:  # type: ignore[no-untyped-def]
    assert (_warps(ALPHAS) >= float(target)).all()  # brute force: every admissible alpha meets it
    code, out, err = cli("--no-cache", "solve", "prior_cuda_guide", "warps_needed_refined", "--for", "alpha", "--target", target,
                         "--relation", ">=", "-p", "gt200")
    assert code == 0, err
    assert f"value: alpha >= {bound}" in out
    assert "every alpha meets it here: the bound lies below the declared range (alpha positive)" in out
    assert "holds at every admissible scanned value" in out


@pytest.mark.parametrize("model_id, quantity, target, preset, low", [
    ("prior_hong_kim", "Time_latency_fixed", "400", "gt200", 434.0),     # 434 + 24*alpha > 400
    ("volkov_2016_ilp", "latency_unloaded", "100", "h100_fit_alpha0", 100.0),  # a + alpha*alu_lat >= a > 100
])
def test_a_linear_upper_bound_below_the_declared_sign_has_no_admissible_value(cli, model_id: str, quantity: str, target: str,  # type: ignore[no-untyped-def]
                                                                              preset: str, low: float) -> None:
    model = symgpu.load(model_id)
    values = np.asarray(model.evaluate(quantity, preset, values={"alpha": np.concatenate([[0.0], ALPHAS])}, checks=False).magnitude)
    assert values[1:].min() > low and values[1:].min() > float(target)
    code, out, err = cli("--no-cache", "solve", model_id, quantity, "--for", "alpha", "--target", target, "--relation", "<=", "-p", preset)
    assert code == 1 and out == "", out
    assert f"no admissible alpha satisfies {quantity} <= {target}" in err


def test_the_certificate_fails_a_bound_that_leaves_no_admissible_value() -> None:
    # Time_latency_fixed = 434 + 24*alpha <= 500 at GT200 <=> alpha <= 66/24 = 2.75 (right); alpha <= -17/12 (the bound of
    # <= 400) leaves no positive alpha, and a scan over positive alpha alone finds no point that contradicts it
    model = symgpu.load("prior_hong_kim", cache=False)
    right = checked.solve(model, "Time_latency_fixed", "alpha", target=500, relation="<=", preset="gt200")
    assert right.certificate is not None and "with alpha <= 2.75 " in right.certificate.checks[0]
    wrong = dataclasses.replace(right, result=sympy.Rational(-17, 12), certificate=None)
    asked = Asked("solve", "Time_latency_fixed", "alpha", preset="gt200", target=400, relation="<=")
    with pytest.raises(errors.CertificateError, match=r"the bound alpha <= -1.41\d+ leaves no admissible value \(alpha is declared positive\)"):
        certify.certify(model, wrong, asked)


def _rho_per_warp() -> float:
    # Huang's rho = lambda*s = n*cores*reqs_per_inst*bytes_per_req*clock/(mem_lat*pin_BW): linear in n, through 0
    model = symgpu.load("prior_huang")
    one, two = (float(model.evaluate("rho", "fermi", values={"n": n}).magnitude) for n in (1.0, 2.0))
    assert two == pytest.approx(2 * one) and one > 0
    return one


def test_a_relation_every_admissible_n_meets_is_answered_so(cli) -> None:  # type: ignore[no-untyped-def]
    # rho >= 0 for every n > 0 (the inversion divides by the positive slope: n >= 0, which SymPy decided True and crashed on)
    assert _rho_per_warp() > 0
    code, out, err = cli("--no-cache", "solve", "prior_huang", "rho", "--for", "n", "--target", "0", "--relation", ">=", "-p", "fermi")
    assert code == 0, err
    assert "value: n >= 0" in out and "every n meets it here" in out


def test_a_relation_no_admissible_n_meets_is_refused_saying_so(cli) -> None:  # type: ignore[no-untyped-def]
    bound = -1 / _rho_per_warp()  # rho < -1 <=> n < -1/(rho per warp) < 0: no positive n
    code, out, err = cli("--no-cache", "solve", "prior_huang", "rho", "--for", "n", "--target", "-1", "--relation", "<", "-p", "fermi")
    assert code == 1 and out == ""
    assert "no admissible n satisfies rho < -1 at preset fermi" in err and f"n < {bound:.10g}" in err


def test_a_relation_every_admissible_n_meets_has_its_infimum_approached_at_zero(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--no-cache", "solve", "prior_huang", "rho", "--for", "n", "--target", "-1", "--relation", ">=", "-p", "fermi",
                         "--kind", "min")
    assert code == 0, err
    assert "value: 0 warp/SM" in out and "approached, not attained" in out


def test_a_relation_every_admissible_n_meets_without_a_point_is_checked_at_the_presets(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--no-cache", "solve", "prior_huang", "rho", "--for", "n", "--target", "-1", "--relation", ">=")
    assert code == 0, err
    assert f"rho >= -1 holds at every admissible scanned value (2400 of 2400 decided): the bound n >= {-1 / _rho_per_warp():.10g}" in out


# A target that makes the unknown's coefficient exactly 0 at the point: the relation no longer depends on it there.
# By hand at GT200: warps_needed_refined = 1 + 434/(4*(alpha + 1)) > 1 for every alpha > 0 (<= 1 nowhere, > 1 everywhere);
# hk_fix_ratio = (434 + 24*alpha)/(438 + 4*alpha) < 6 since 434 + 24*alpha < 6*(438 + 4*alpha) = 2628 + 24*alpha.

def test_a_target_that_zeroes_the_coefficient_and_holds_nowhere_is_refused_saying_so(cli) -> None:  # type: ignore[no-untyped-def]
    assert _warps(ALPHAS).min() > 1.0
    code, out, err = cli("--no-cache", "solve", "prior_cuda_guide", "warps_needed_refined", "--for", "alpha", "--target", "1",
                         "--relation", "<=", "-p", "gt200")
    assert code == 1 and out == ""
    assert "no admissible alpha satisfies warps_needed_refined <= 1 warp/SM at preset gt200: the relation does not depend on alpha" in err


def test_a_target_that_zeroes_the_coefficient_and_holds_everywhere_is_every_admissible_value(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("--no-cache", "solve", "prior_cuda_guide", "warps_needed_refined", "--for", "alpha", "--target", "1",
                         "--relation", ">", "-p", "gt200")
    assert code == 0, err
    assert "value: alpha > 0" in out and "every alpha meets it here: the bound lies at the edge of the declared range" in out
    assert "warps_needed_refined > 1 holds at every admissible scanned value" in out


@pytest.mark.parametrize("relation, code_wanted", [(">=", 1), ("<", 0)])
def test_hong_kims_ratio_against_six_is_decided_whatever_alpha(cli, relation: str, code_wanted: int) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("prior_hong_kim")
    ratio = np.asarray(model.evaluate("hk_fix_ratio", "gt200", values={"alpha": ALPHAS}, checks=False).magnitude, dtype=float)
    assert ratio.max() < 6.0
    code, out, err = cli("--no-cache", "solve", "prior_hong_kim", "hk_fix_ratio", "--for", "alpha", "--target", "6", "--relation", relation,
                         "-p", "gt200")
    assert code == code_wanted, err
    if code_wanted:
        assert "no admissible alpha satisfies hk_fix_ratio >= 6 at preset gt200" in err
    else:
        assert "value: alpha > 0" in out and "every alpha meets it here" in out


def test_a_divisor_the_numeric_target_signs_is_divided_by_without_a_point(cli) -> None:  # type: ignore[no-untyped-def]
    # threads_needed_agarwal = (R + L)/(R + C), R = instruction_time*(alpha + 1), L = mem_lat: <= 5 needs 4*R >= L - 5*C, the
    # divisor instruction_time*(1 - 5) < 0 flips it: alpha >= (mem_lat - 5*C - 4*instruction_time)/(4*instruction_time);
    # at GT200 (mem_lat = 434, instruction_time = 4, C = 0) that is 418/16 = 26.125
    code, out, err = cli("--no-cache", "solve", "prior_agarwal", "threads_needed_agarwal", "--for", "alpha", "--target", "5",
                         "--relation", "<=")
    model = symgpu.load("prior_agarwal")
    at = [float(model.evaluate("threads_needed_agarwal", "gt200", values={"alpha": a}).magnitude) for a in (26.0, 26.125, 26.25)]
    assert at[0] > 5 and at[1] == pytest.approx(5) and at[2] < 5
    assert code == 0, err
    assert "result: alpha >= (-5*C - 4*instruction_time + mem_lat)/(4*instruction_time)" in out
    assert "with alpha >= 26.125 " in out
