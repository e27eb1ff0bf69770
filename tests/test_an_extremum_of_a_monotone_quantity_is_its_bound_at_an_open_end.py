"""An extremum asked in symbols, with no candidate, of a quantity whose slope in the variable has a sign the assumptions
decide over its whole declared range, is answered at the open end it is approached at: "no minimum: the infimum L is
approached as x -> end, and no x attains it", L the limit operation's own limit (the differential tester's seed 236:
Volkov's needed_concurrency = inst_latency*inst_peak_thru over inst_peak_thru was refused, "it may be monotone — try
limit", though asked at a point it was answered). Expected values by hand (the formulas' limits) and by brute force on
Model.evaluate; the certificate's monotone scan and the tester's judging of such an answer both fail a wrong one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import derive, errors
from symgpu.derive import certify_path, extremum_monotone

import differential_checks as checks
from conftest import FIXTURES
from differential_questions import Point, Question

CONCURRENCY = ("extremum", "volkov_2016", "needed_concurrency", "--over", "inst_peak_thru")
G80 = {"inst_latency": 24.0}


def _along(model: symgpu.Model, quantity: str, preset: str | None, var: str, xs: np.ndarray, values: dict[str, float]) -> np.ndarray:
    return np.asarray([float(model.evaluate(quantity, preset, values={**values, var: x}).magnitude) for x in xs])


def test_a_product_rising_in_the_variable_has_no_minimum_and_its_infimum_0_is_approached_as_it_vanishes(cli) -> None:
    # by hand: inst_latency*inst_peak_thru -> 0 as inst_peak_thru -> 0+, positive at every inst_peak_thru > 0
    ys = _along(symgpu.load("volkov_2016"), "needed_concurrency", "g80", "inst_peak_thru", np.geomspace(1e-9, 1e3, 25), G80)
    assert np.all(ys > 0) and np.all(np.diff(ys) > 0) and ys[0] < 1e-6
    code, out, err = cli("--no-cache", *CONCURRENCY, "--min")
    assert code == 0, err
    assert "result: 0  [winst/SM]" in out
    assert ("no minimum: the infimum 0 winst/SM is approached as inst_peak_thru -> 0 from above (needed_concurrency falls "
            "towards it), and no inst_peak_thru attains it") in out
    assert "its slope in inst_peak_thru, inst_latency, is positive over its domain" in out
    assert "rises along a" in out and "as its slope's sign says" in out  # the monotone scan in the certificate


def test_its_maximum_still_grows_without_bound() -> None:
    with pytest.raises(errors.DerivationError, match="tends to oo as inst_peak_thru -> oo"):
        symgpu.load("volkov_2016").extremum("needed_concurrency", over="inst_peak_thru", kind="max")


def test_a_ratio_falling_in_the_variable_has_its_infimum_0_as_it_grows() -> None:
    # by hand: regs_per_SM/subpartitions_per_SM -> 0 as subpartitions_per_SM -> oo
    model = symgpu.load("occupancy")
    answer = model.extremum("regs_per_subpartition", over="subpartitions_per_SM", kind="min")
    assert answer.result == 0 and answer.location is None
    assert answer.extra.elsewhere.startswith("no minimum: the infimum 0 reg/scheduler is approached as subpartitions_per_SM -> oo")
    ys = _along(model, "regs_per_subpartition", "cc_1_0", "subpartitions_per_SM", np.geomspace(1.0, 1e12, 13), {})
    assert np.all(ys > 0) and np.all(np.diff(ys) < 0) and ys[-1] < 1e-6 * ys[0]


def test_a_bound_in_symbols_is_the_quantity_as_the_variable_vanishes_by_brute_force() -> None:
    # Tcomp rises in alpha in each of its regimes: its infimum is its value as alpha -> 0+, Max(alu_lat, n/alu_thru)
    model = symgpu.load("prior_sim")
    answer = model.extremum("Tcomp", over="alpha", kind="min")
    assert answer.location is None and "alpha -> 0 from above" in answer.extra.elsewhere
    at = {"n": 8.0}
    bound = float(derive.evaluate_result(model, answer, "kepler", **at).magnitude)
    ys = _along(model, "Tcomp", "kepler", "alpha", np.geomspace(1e-12, 1e3, 31), at)
    assert np.all(ys >= bound * (1 - 1e-12)) and ys[0] == pytest.approx(bound, rel=1e-9) and ys[-1] > 2 * bound


def test_a_limit_infinite_where_a_condition_holds_is_the_supremum_elsewhere_said_so() -> None:
    # by hand: n*(alpha + 1)/(issue_units*(alpha*alu_lat + mem_lat)) -> n*(alpha + 1)/(issue_units*alpha*alu_lat) as mem_lat -> 0+
    # where alpha > 0; at alpha = 0 it is n/(issue_units*mem_lat), without bound
    model = symgpu.load("prior_huang")
    answer = model.extremum("IPC_rr", over="mem_lat", kind="max")
    alpha = next(s for s in answer.result.free_symbols if s.name == "alpha")
    assert answer.extra.valid_when == (sympy.StrictGreaterThan(alpha, 0),)
    assert "no maximum: the supremum" in answer.extra.elsewhere and "where Eq(alpha, 0), it grows without bound as mem_lat -> 0 from above" \
        in answer.extra.elsewhere
    at = {"alpha": 32.0, "n": 8.0}
    bound = float(derive.evaluate_result(model, answer, "kepler", **at).magnitude)
    ys = _along(model, "IPC_rr", "kepler", "mem_lat", np.geomspace(1e-12, 1e4, 33), at)
    assert np.all(ys <= bound * (1 + 1e-12)) and ys[0] == pytest.approx(bound, rel=1e-9) and ys[-1] < 0.5 * bound


def test_a_domain_cut_by_a_valid_when_lower_bound_decides_the_slope_and_the_bound_is_at_oo() -> None:
    # N_pw = k*ind_mem_req/(mem_req - ind_mem_req) where mem_req > ind_mem_req: falls to 0 as mem_req -> oo
    model = symgpu.load("hong_kim_2009")
    answer = model.extremum("N_pw", over="mem_req", kind="min")
    assert answer.result == 0 and answer.location is None and "mem_req -> oo" in answer.extra.elsewhere
    at = {"Active_blocks_per_SM": 8.0, "Threads_per_block": 256.0, "ind_mem_req": 4.0}
    ys = _along(model, "N_pw", "8800gtx", "mem_req", 4.0 + np.geomspace(1e-6, 1e12, 19), at)
    assert np.all(ys > 0) and np.all(np.diff(ys) < 0) and ys[-1] < 1e-9 * ys[0]


def test_a_scan_stepping_against_the_claimed_sign_fails_the_certificate() -> None:
    model = symgpu.load("volkov_2016")
    asked = certify_path.Asked("extremum", "needed_concurrency", "inst_peak_thru", to="min")
    right = extremum_monotone.Monotone("refused", None, "0", "+", True, ("inst_latency",), ())
    assert extremum_monotone._monotone_scans(model, asked, right)  # it rises: said at each point
    wrong = extremum_monotone.Monotone("refused", None, "oo", None, False, ("-inst_latency",), ())
    with pytest.raises(errors.CertificateError, match="falls with inst_peak_thru throughout"):
        extremum_monotone._monotone_scans(model, asked, wrong)


def test_the_refusal_survives_pickling_whole() -> None:
    import pickle
    refused = extremum_monotone.Monotone("m: refused", None, "0", "+", True, ("x",), (sympy.Symbol("a") > 0,))
    back = pickle.loads(pickle.dumps(refused))
    assert (str(back), back.to, back.side, back.rises, back.slopes, back.outer) == \
        ("m: refused", "0", "+", True, ("x",), (sympy.Symbol("a") > 0,))


_QUESTION = Question("extremum", "volkov_2016", "needed_concurrency", "inst_peak_thru", Point("g80", (("inst_latency", 24.0), ("inst_peak_thru", 2.0))), kind="min")


def _with_bound(bound: sympy.Expr) -> tuple[object, float]:
    answer, _ = checks.ask(_QUESTION, 30.0)
    assert isinstance(answer, symgpu.derive.Derivation), answer
    return dataclasses.replace(answer, result=bound), 0.0


def test_the_tester_agrees_with_the_infimum_and_fails_a_wrong_bound() -> None:
    assert checks.judge(_QUESTION).outcome == "agree"
    beaten = checks.judge(_QUESTION, answer_of=lambda q, limit: _with_bound(sympy.Integer(1)))
    assert (beaten.outcome, beaten.reason) == ("disagree", "extremum: a point of the scan beats the bound it says is approached")
    # -1 is beaten by no point, but the quantity tends to 0, not -1, at either end
    below = checks.judge(_QUESTION, answer_of=lambda q, limit: _with_bound(sympy.Integer(-1)))
    assert (below.outcome, below.reason) == ("disagree", "extremum: the bound it says is approached is the quantity's limit at neither end (0, oo)")


SCALED = str(FIXTURES / "scaled_saturation.toml")  # y = s*K*n/(n + 1), s of either sign, K and n positive


@pytest.mark.parametrize("kind", ["max", "min"])
def test_the_refusal_stands_where_the_slopes_sign_is_not_decided(kind: str) -> None:
    with pytest.raises(errors.NoExtremumCandidate, match=f"y has no {kind}imum over n wherever it changes with n: as n -> oo it tends to K[*]s"):
        symgpu.load(SCALED).extremum("y", over="n", kind=kind)


@pytest.mark.parametrize(("sign", "kind", "end", "bound"), [
    ("s > 0", "max", "n -> oo", "K*s"), ("s > 0", "min", "n -> 0 from above", "0"),
    ("s < 0", "max", "n -> 0 from above", "0"), ("s < 0", "min", "n -> oo", "K*s")])
def test_an_assumed_sign_decides_which_end_bounds_it(sign: str, kind: str, end: str, bound: str) -> None:
    # by hand: s*K*n/(n + 1) runs monotonically from 0 (n -> 0+) to s*K (n -> oo), rising where s > 0, falling where s < 0
    model = symgpu.load(SCALED)
    answer = model.extremum("y", over="n", kind=kind, assume=[sign])
    assert sympy.sstr(answer.result) == bound and answer.location is None
    assert answer.extra.elsewhere.startswith(f"no {kind}imum: the {'supremum' if kind == 'max' else 'infimum'} {bound} is approached as {end}")
    at = {"s": 2.0 if sign == "s > 0" else -2.0, "K": 3.0}
    ys = _along(model, "y", None, "n", np.geomspace(1e-12, 1e12, 49), at)  # brute force: the bound is the scan's far end, never passed
    value = float(derive.evaluate_result(model, answer, None, **at).magnitude)
    tail = ys[-1] if end == "n -> oo" else ys[0]
    assert tail == pytest.approx(value, abs=1e-9) and np.all((ys <= value + 1e-12) if kind == "max" else (ys >= value - 1e-12))
