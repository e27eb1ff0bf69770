"""``solve --relation REL --kind max|min`` gives the largest (smallest) *admissible* value where the
relation holds: inside the variable's declared sign and the quantity's ``valid_when`` domain, the
domain's end where that binds, and a clear error where no admissible value satisfies the relation,
never a number outside the domain (an outside tester's -15.1875, 108099 and -512 B/block).

Expected values are brute force over Model.evaluate (a value is admissible where the model gives the
quantity a value: Model.evaluate refuses the others) or arithmetic from the equation text written here:
interval_analysis L_K0_time = (L_M + (M*N + M)*t_issue)/phi, valid when N >= L_F/t_issue and
L_M >= N*t_issue/2; occupancy's shared_memory case floor(smem_per_SM/(ceiling((S + S_res)/G)*G)).
"""

from __future__ import annotations

import dataclasses
import json
import operator

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify
from symgpu.derive.certify_path import Asked

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt}
_TARGETS_NS = {"100 ns": 100.0, "5 us": 5000.0, "1 ms": 1e6}
_STEP = 0.125  # the brute-force grid of N (every hand answer below is a multiple of it)


@pytest.fixture(scope="module")
def latency_grid(ia):
    """L_K0_time (ns) at gtx1080, M = 16, at every N of a grid where the model gives it a value."""
    found = {}
    for n in np.arange(_STEP, 1000 + _STEP, _STEP):
        try:
            found[float(n)] = float(ia.evaluate("L_K0_time", "gtx1080", values={"M": 16, "N": float(n)}).to("ns").magnitude)
        except errors.DomainError:
            continue  # outside valid_when: not admissible
    return found


def _brute(grid, relation, kind, target):
    """The largest (smallest) admissible grid value where ``L_K0_time REL target`` holds, None where none does."""
    hits = [n for n, value in grid.items() if _OPS[relation](value, target)]
    return None if not hits else (max(hits) if kind == "max" else min(hits))


def _ask(cli, relation, kind, target):
    return cli("solve", "interval_analysis", "L_K0_time", "--for", "N", "--relation", relation, "--target", target, "--kind", kind,
               "--preset", "gtx1080", "--set", "M=16", "--json")


def test_the_brute_force_domain_is_the_valid_when_interval_of_the_equation_text(latency_grid):
    # N >= L_F/t_issue = 6 and N <= 2*L_M/t_issue = 800 (notes_defaults: L_F = 6, L_M = 400 cycles; t_issue = 1 cycle)
    assert min(latency_grid) == 6 and max(latency_grid) == 800
    assert latency_grid[6.0] == pytest.approx((400 + 16 * 6 + 16) / 1.73, rel=1e-12)  # 295.95 ns


@pytest.mark.parametrize("relation", ["<=", "<", ">=", ">"])
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("target", list(_TARGETS_NS))
def test_the_answer_is_the_admissible_extreme_that_brute_force_finds_or_an_error_where_there_is_none(
        cli, ia, latency_grid, relation, kind, target):
    code, out, err = _ask(cli, relation, kind, target)
    expected = _brute(latency_grid, relation, kind, _TARGETS_NS[target])
    if expected is None:
        assert code != 0 and "no admissible N satisfies" in err and "Traceback" not in err
        return
    assert code == 0, err
    value = json.loads(out)["value"]
    assert abs(value - expected) <= _STEP  # the exact answer lies within one grid step of the grid's best
    # and it is admissible itself: the model gives L_K0_time a value there (Model.evaluate refuses one outside valid_when)
    there = ia.evaluate("L_K0_time", "gtx1080", values={"M": 16, "N": value}).to("ns").magnitude
    if relation in ("<=", ">="):  # a strict relation's answer is its supremum (approached, not attained)
        assert _OPS[relation](there, _TARGETS_NS[target] * (1 + 1e-12) if relation == "<=" else _TARGETS_NS[target] * (1 - 1e-12))


@pytest.mark.parametrize(("relation", "kind", "target", "hand"), [
    ("<=", "max", "5 us", (5000 * 1.73 - 400 - 16) / 16),  # the relation's own bound: 514.625
    ("<=", "max", "1 ms", 800),  # the relation holds up to 108099 > 800: the domain's end 2*L_M/t_issue
    ("<=", "min", "1 ms", 6),  # the domain's lower end L_F/t_issue
    (">=", "max", "100 ns", 800),  # the relation bounds N from below only: the domain's upper end answers
    (">=", "min", "5 us", (5000 * 1.73 - 400 - 16) / 16),
])
def test_hand_values_from_the_equation_text(cli, relation, kind, target, hand):
    code, out, err = _ask(cli, relation, kind, target)
    assert code == 0, err
    assert json.loads(out)["value"] == pytest.approx(hand, rel=1e-12)


def test_no_admissible_n_below_100_ns_says_the_value_at_the_domains_end(cli):
    code, _, err = _ask(cli, "<=", "max", "100 ns")
    assert code != 0 and "Traceback" not in err
    at_six = (400 + 16 * 6 + 16) / 1.73  # ns, by hand
    assert "no admissible N satisfies L_K0_time <= 100 ns" in err
    assert f"at N = 6 (the domain's end) L_K0_time is {at_six:.10g} ns" in err


def _smem_limits(model, top):
    """blocks_smem_limit at cc_8_6 for every smem_per_block 0..top (Model.evaluate, all cases)."""
    sizes = np.arange(0, top + 1)
    return sizes, np.asarray(model.evaluate("blocks_smem_limit", "cc_8_6", values={"smem_per_block": sizes}).magnitude)


@pytest.mark.parametrize(("relation", "target", "kind"), [(">=", 200, "max"), (">=", 200, "min"), (">=", 16, "max"),
                                                          (">=", 16, "min"), ("<=", 16, "min"), (">", 15, "max")])
def test_shared_memory_per_block_is_what_brute_force_finds_inside_the_declared_sign(cli, relation, target, kind):
    model = symgpu.load("occupancy")
    top = int(model.preset("cc_8_6")["max_smem_per_block"].magnitude)  # beyond it another case (0 blocks) applies
    sizes, limits = _smem_limits(model, top)
    hits = sizes[_OPS[relation](limits, target)]
    code, out, err = cli("solve", "occupancy", "blocks_smem_limit", "--for", "smem_per_block", "--relation", relation, "--target",
                         str(target), "--kind", kind, "--case", "shared_memory", "-p", "cc_8_6", "--json")
    if not len(hits):
        assert code != 0 and "no admissible smem_per_block satisfies" in err and "Traceback" not in err
        assert f"blocks_smem_limit is {int(limits[0])} block/SM" in err  # at smem_per_block = 0 (the domain's end)
        return
    assert code == 0, err
    assert json.loads(out)["value"] == (hits.max() if kind == "max" else hits.min())


def test_the_certificate_refuses_a_value_outside_the_declared_sign_or_the_domain(ia):
    derivation = ia.solve("L_K0_time", "N", target="1 ms", relation="<=", kind="max", preset="gtx1080", values={"M": 16})
    asked = Asked("solve", "L_K0_time", "N", preset="gtx1080", values=(("M", 16),), target="1 ms", relation="<=", kind="max")
    bare = dataclasses.replace(derivation, certificate=None)  # its stated conditions hold at 1 ms: the value is checked
    for shown, what in ((sympy.Rational(-243, 16), "outside its declared range"), (sympy.Integer(108099), "outside the model's valid_when domain")):
        with pytest.raises(errors.CertificateError, match=what):
            certify.certify(ia, dataclasses.replace(bare, result=shown), asked)
    # a value inside the domain that is not the largest one is refused too
    with pytest.raises(errors.CertificateError, match="beyond the maximum"):
        certify.certify(ia, dataclasses.replace(bare, result=sympy.Integer(500)), asked)
    assert certify.certify(ia, bare, asked).certificate.checked


@pytest.mark.parametrize(("target", "admissible"), [("100 ns", False), ("1 ms", True)])
def test_without_a_point_the_answer_states_where_it_is_admissible(ia, target, admissible):
    # at N = L_F/t_issue (the domain's lower end) L_K0_time*phi = L_M + M*(L_F + t_issue) cycles: the largest N with
    # L_K0_time <= T exists exactly where T*phi reaches it (and the domain itself, L_F/t_issue <= 2*L_M/t_issue, is not empty)
    derivation = ia.solve("L_K0_time", "N", target=target, relation="<=", kind="max")
    numbers = {"L_K0_time": _TARGETS_NS[target], "phi": 1.73, "L_F": 6, "L_M": 400, "M": 16, "t_issue": 1}  # gtx1080, M = 16
    put = {ia.symbols[k]: sympy.nsimplify(v) for k, v in numbers.items()}
    stated = [bool(c.xreplace(put)) for c in derivation.extra.valid_when]
    assert all(stated) is admissible
    by_hand = numbers["L_K0_time"] * numbers["phi"] >= numbers["L_M"] + numbers["M"] * (numbers["L_F"] + numbers["t_issue"])
    assert by_hand is admissible
