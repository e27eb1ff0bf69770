"""Every answer is checked numerically before it is shown (symgpu.derive.certify): a right answer
carries a certificate saying what was checked where, and a wrong one — a root off by 10 %, a
missing root, a boundary where nothing switches, a limit or extremum the numbers contradict —
fails loudly with the check and the point, never a silent number."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors, memo, store
from symgpu.derive import certify, solving
from symgpu.entry_kinds import DERIVATIONS
from symgpu.derive.certify import Asked
from symgpu.evaluate import active


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_two_roots_of_a_quadratic_are_checked_at_the_preset(ia: symgpu.Model) -> None:
    answer = ia.solve("P_K0", for_="N", substitute={"M": "N"}, preset="gtx1080", values={"P_K0": 1000})
    assert answer.certificate is not None and answer.certificate.checked
    assert "preset gtx1080" in answer.certificate.where
    assert "2 roots satisfy" in answer.certificate.text()


def test_a_root_off_by_ten_percent_fails_its_certificate(ia: symgpu.Model) -> None:
    answer = solving.solve(ia, "P_K0", for_="N", substitute={"M": "N"})
    wrong = dataclasses.replace(answer, result=sympy.Tuple(*[r * sympy.Rational(11, 10) for r in answer.result]))
    asked = Asked("solve", "P_K0", "N", "gtx1080", (("P_K0", 1000),), (("M", "N"),))
    with pytest.raises(errors.CertificateError, match=r"solve of P_K0 over N at preset gtx1080.*not the target"):
        certify.certify(ia, wrong, asked)


def test_a_missing_root_fails_its_certificate(ia: symgpu.Model) -> None:
    answer = solving.solve(ia, "P_K0", for_="N", substitute={"M": "N"})
    assert isinstance(answer.result, sympy.Tuple) and len(answer.result) == 2
    one = dataclasses.replace(answer, result=answer.result[0])
    asked = Asked("solve", "P_K0", "N", "gtx1080", (("P_K0", 1000),), (("M", "N"),))
    with pytest.raises(errors.CertificateError, match="finds root"):
        certify.certify(ia, one, asked)


def test_the_brute_force_roots_are_where_the_quantity_meets_the_target(ia: symgpu.Model) -> None:
    # independent of the certificate: a dense grid of P_K0(N, M=N) and the sign changes of P_K0 - 1000
    grid = np.linspace(6, 200, 200_000)  # L_K0 is valid for N >= L_F/t_issue = 6 on the gtx1080
    values = ia.evaluate("P_K0", "gtx1080", values={"N": grid, "M": grid}).magnitude - 1000
    crossings = grid[np.nonzero(np.sign(values[:-1]) != np.sign(values[1:]))[0]]
    answer = ia.solve("P_K0", for_="N", substitute={"M": "N"}, preset="gtx1080", values={"P_K0": 1000})
    roots = sorted(float(symgpu.derive.evaluate_result(ia, dataclasses.replace(answer, result=r), "gtx1080",
                                                       P_K0=1000).magnitude) for r in answer.result)
    assert len(crossings) == 2
    assert roots == pytest.approx(list(crossings), abs=2e-3)


def test_the_regime_ranks_switch_where_two_limiters_cross(volkov: symgpu.Model) -> None:
    # maxwell: mem_thru 0.0814, issue_thru 4 winst/cycle/SM; memory and issue limits of the
    # alpha-workload cross at alpha = issue_thru/mem_thru - 1 = 4/0.0814 - 1 = 48.1400...
    crossing = 4 / 0.0814 - 1
    expr = volkov.expression("memory_throughput")
    below = active.binding(volkov, expr, "maxwell", {"alpha": crossing * (1 - 1e-6), "n": 64})
    above = active.binding(volkov, expr, "maxwell", {"alpha": crossing * (1 + 1e-6), "n": 64})
    assert below != above


def test_a_boundary_where_nothing_switches_fails_its_certificate(volkov: symgpu.Model) -> None:
    answer = solving.boundary(volkov, "memory_throughput", ("memory_bound", "issue_bound"), "alpha")
    moved = dataclasses.replace(answer, result=answer.result * 2)
    with pytest.raises(errors.CertificateError, match="the regime is the same just below and just above"):
        certify.certify(volkov, moved, Asked("boundary", "memory_throughput", "alpha", "maxwell", (("n", 64),)))


def test_the_cusp_is_checked_against_a_scan(volkov: symgpu.Model) -> None:
    answer = volkov.extremum("n_needed", over="alpha", kind="max", preset="maxwell")
    assert answer.certificate is not None and answer.certificate.checked
    lower = dataclasses.replace(answer, result=answer.result * sympy.Rational(9, 10), location=None)
    with pytest.raises(errors.CertificateError, match="alpha = .* gives"):
        certify.certify(volkov, lower, Asked("extremum", "n_needed", "alpha", "maxwell", to="max"))


def test_a_wrong_limit_fails_its_certificate(volkov: symgpu.Model) -> None:
    answer = volkov.limit("n_needed", "alpha", "oo", preset="maxwell")
    assert answer.certificate is not None and answer.certificate.checked
    wrong = dataclasses.replace(answer, result=answer.result + 1)
    with pytest.raises(errors.CertificateError, match="approaches"):
        certify.certify(volkov, wrong, Asked("limit", "n_needed", "alpha", "maxwell", to="oo"))


def test_an_undetermined_limit_is_never_a_value(volkov: symgpu.Model) -> None:
    answer = volkov.limit("n_needed", "alpha", "oo", preset="maxwell")
    undetermined = dataclasses.replace(answer, result=sympy.nan)
    with pytest.raises(errors.CertificateError, match="nan"):
        certify.certify(volkov, undetermined, Asked("limit", "n_needed", "alpha", "maxwell", to="oo"))


def test_a_fixed_point_with_a_residual_fails_its_certificate(volkov: symgpu.Model) -> None:
    values = {"n": 32, "alpha": 8}
    answer = volkov.fixed_point("memory_throughput_loaded", "x", preset="kepler", values=values)
    assert answer.certificate is not None and answer.certificate.checked
    off = dataclasses.replace(answer, result=answer.result * sympy.Rational(101, 100))
    with pytest.raises(errors.CertificateError, match="residual"):
        certify.certify(volkov, off, Asked("fixed_point", "memory_throughput_loaded", "x", "kepler", tuple(values.items())))


def test_without_a_preset_the_answer_is_checked_at_the_models_presets(volkov: symgpu.Model) -> None:
    answer = volkov.limit("n_needed", "alpha", "0")
    assert answer.certificate is not None and answer.certificate.where.startswith("preset ")


def test_a_failed_certificate_exits_1_with_one_line(cli: Callable[..., tuple[int, str, str]], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong answer is refused by its check: here the stored boundary edited to twice its value
    (under a valid checksum, as a faulty engine would have stored it) and asked again."""
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    ask = ("boundary", "volkov_2016", "memory_throughput", "--between", "memory_bound", "issue_bound", "--for", "alpha",
           "--preset", "maxwell", "--set", "n=64")
    memo.clear_all()
    code, out, _ = cli(*ask)
    assert code == 0 and "checked numerically at preset maxwell" in out
    (entry,) = (store.folder() / DERIVATIONS.name).rglob("*.txt")
    key = entry.stem
    body = store.get(DERIVATIONS, key)
    right = '"expr": "(issue_thru - mem_thru)/mem_thru"'  # the boundary alpha = (issue_thru - mem_thru)/mem_thru, by hand
    assert body is not None and body.count(right) == 1
    store.put(DERIVATIONS, key, body.replace(right, '"expr": "2*(issue_thru - mem_thru)/mem_thru"'))
    memo.clear_all()
    code, out, err = cli(*ask)
    assert code == 1
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "check failed" in err and "preset maxwell" in err


def test_the_summary_says_what_was_checked(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = cli("solve", "volkov_2016", "n_needed", "--for", "mem_lat", "--target", "40", "--preset", "maxwell", "--set", "alpha=8")
    assert code == 0
    assert "checked numerically at preset maxwell" in out


def _huang_max() -> tuple[symgpu.Model, Any]:
    model = symgpu.load("prior_huang")
    return model, model.extremum("NO_alu", over="alu_lat", kind="max")


def test_every_branch_of_a_piecewise_extremum_is_checked_where_it_holds():
    # an answer asked without a point is checked at points where each of its branches holds: a wrong value in the
    # cusp branch (alu_lat = alpha + mem_lat + 1, where n >= issue_units*(alpha + mem_lat + 1) and
    # n >= issue_units*(alpha**2 + alpha*mem_lat + alpha + mem_lat + 1): large n, e.g. alpha = 0, issue_units 8, mem_lat 32,
    # n 4096 >= 8*33) is refused as well as one in the critical point's branch, which holds at the presets tried first
    model, answer = _huang_max()
    asked = Asked("extremum", "NO_alu", "alu_lat", to="max")
    branches = answer.result.args
    assert isinstance(answer.result, sympy.Piecewise) and answer.location.args[0][0] == sum(
        model.symbols[n] for n in ("alpha", "mem_lat")) + 1
    for i in (0, 1):
        shifted = sympy.Piecewise(*((v + (1 if j == i else 0), c) for j, (v, c) in enumerate(branches)))
        with pytest.raises(errors.CertificateError, match="not the extreme value|beyond the maximum"):
            certify.certify(model, dataclasses.replace(answer, result=shifted, certificate=None), asked)


def test_an_extremum_located_outside_the_variables_declared_range_is_refused():
    # alu_lat is declared positive: a location at -1 cycle is no answer even where the formula's value is the largest
    model, answer = _huang_max()
    asked = Asked("extremum", "NO_alu", "alu_lat", "fermi", (("alpha", 16.0), ("n", 16.0)), to="max")
    below = float(model.evaluate("NO_alu", "fermi", values={"alpha": 16.0, "n": 16.0, "alu_lat": -1.0}, checks=False).magnitude)
    wrong = dataclasses.replace(answer, location=sympy.Integer(-1), result=sympy.Float(below), certificate=None)
    with pytest.raises(errors.CertificateError, match="outside its declared range"):
        certify.certify(model, wrong, asked)


def test_a_closed_form_is_not_refused_where_its_stated_conditions_do_not_hold():
    # max over MSHRs of Min(MSHRs, M_Read*W) is at MSHRs = M_Read*W, valid when M_Read > 0; at M_Read = 0 that location,
    # 0, is outside MSHRs > 0, where the answer makes no claim: no refusal there; at M_Read = 3, W = 4 it is checked
    model = symgpu.load("mdm_2019")
    answer = model.extremum("M_ReadConcurrent", over="MSHRs", kind="max")
    assert answer.extra.valid_when == (model.symbols["M_Read"] > 0,)
    outside = certify.certify(model, dataclasses.replace(answer, certificate=None),
                              Asked("extremum", "M_ReadConcurrent", "MSHRs", "table1", (("M_Read", 0.0), ("W", 64.0)), to="max"))
    assert outside.certificate is not None and not outside.certificate.checks
    inside = certify.certify(model, dataclasses.replace(answer, certificate=None),
                             Asked("extremum", "M_ReadConcurrent", "MSHRs", "table1", (("M_Read", 3.0), ("W", 4.0)), to="max"))
    assert inside.certificate is not None and inside.certificate.checks and not inside.certificate.unchecked


def test_the_scan_grid_keeps_each_value_once_in_order_as_np_unique_does():
    from symgpu.derive.certify_path import sorted_unique
    assert sorted_unique(np.array([3.0, -1.0, 0.0, 3.0, -0.0, 2.5, -1.0])).tolist() == [-1.0, 0.0, 2.5, 3.0]
    assert sorted_unique(np.array([4, 0, 4, 2, 2])).tolist() == [0, 2, 4]
    assert sorted_unique(np.array([], dtype=float)).tolist() == []
    grid = np.concatenate([np.geomspace(1e-3, 1e3, 50), np.linspace(5.0, 15.0, 201), np.zeros(1)])
    assert np.array_equal(sorted_unique(grid), np.unique(grid))


def test_a_certificate_too_long_for_one_line_puts_each_check_on_its_own() -> None:
    from symgpu.derive.derivation import Certificate

    short = Certificate(where="preset h100", checks=("1 root", "no other"))
    assert short.lines(80) == ["checked numerically at preset h100: 1 root; no other"]
    long = Certificate(where="preset h100", checks=("a" * 50, "b" * 50))
    assert long.lines(80) == ["checked numerically at preset h100:", "  - " + "a" * 50, "  - " + "b" * 50]
    assert Certificate(unchecked="why").lines(5) == ["not checked numerically: why"]


def test_a_solve_for_a_derived_target_is_checked_with_the_targets_own_inputs() -> None:
    # N (warps per SM) is derived from Active_blocks_per_SM, Threads_per_block, Threads_per_warp: a point
    # drawn with MWP_peak_BW's inputs alone left N without a value, and the answer went out unchecked
    answer = symgpu.load("hong_kim_2009").solve("MWP_peak_BW", for_="Mem_Bandwidth", target="N")
    assert answer.certificate is not None and answer.certificate.checks and not answer.certificate.unchecked
    assert "1 root satisfies the relation" in answer.certificate.text()


def test_a_symbolic_solve_is_checked_at_a_target_off_the_quantitys_plateaus() -> None:
    # MWP_pw = Min(MWP_Without_BW, MWP_peak_BW, N_pw) over Departure_del_coal at the certificate's drawn point (Mem_Bandwidth
    # = 1 GB/s): at Departure_del_coal = 8 the bandwidth bound binds, a plateau at 420/4096 warps that ends in a tie with
    # the departure bound at Departure_del_coal = (4096*102 - 1000)/2 = 208396, where the scan's root and the answer's own
    # fell on either side by rounding: a valid answer was refused (differential seed 91). Off the plateau it is checked.
    answer = symgpu.load("hong_kim_2009_intended").solve("MWP_pw", for_="Departure_del_coal")
    assert answer.certificate is not None and answer.certificate.checks and not answer.certificate.unchecked


def test_a_closed_form_whose_conditions_hold_at_no_point_tried_says_so():
    # the same maximum as above, valid when M_Read > 0, asked only at M_Read = 0: nothing is checked, and the reason
    # says the stated conditions held nowhere it looked (not "the answer has no value")
    model = symgpu.load("mdm_2019")
    answer = model.extremum("M_ReadConcurrent", over="MSHRs", kind="max")
    outside = certify.certify(model, dataclasses.replace(answer, certificate=None),
                              Asked("extremum", "M_ReadConcurrent", "MSHRs", "table1", (("M_Read", 0.0), ("W", 64.0)), to="max"))
    assert outside.certificate is not None and not outside.certificate.checks
    assert outside.certificate.unchecked == "the conditions it holds under (valid when ...) held at none of the 1 point tried: it may hold nowhere"
