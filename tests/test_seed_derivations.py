"""Derivations issue 18 asked for, checked independently of the engine that runs them.

Each expectation is either solved here with plain SymPy on fresh symbols (not the model's
expressions) or found by brute force: the model evaluated point by point, and the point where
its regime changes compared with the derived formula evaluated by hand.
"""

from __future__ import annotations

import math

import pytest
import sympy

import symgpu
from symgpu import derive
from symgpu.derive import results
from symgpu.evaluate import active
from conftest import read_fixture


@pytest.fixture(scope="module")
def hk() -> symgpu.Model:
    return symgpu.load("hong_kim_2009")


def request(model: symgpu.Model, request_id: str):
    return next(r for r in model.definition.derivations if r.id == request_id)


# ------------------------------------------------------------- Hong & Kim: CWP = MWP
# GTX280 (Table 3, Table 6) running the tiled matrix multiply with its 6 loads coalesced
# (128-B transactions, Departure_del_coal = 4), 5 blocks of 4 warps: N = 20 warps per SM.
GTX280_COALESCED = "gtx280+tiled_matmul"
COALESCED = {"Coal_Mem_insts": "6 winst", "Uncoal_Mem_insts": "0 winst", "Active_blocks_per_SM": "5 block/SM"}


def gtx280_switch_by_hand() -> tuple[float, float]:
    """MWP and the #Comp_insts where CWP_full = MWP, from Table 3/6 numbers alone."""
    mem_l = 450.0                                       # Mem_LD: coalesced latency (Eq. 11-12 with weight 1)
    mwp_without_bw = min(mem_l / 4.0, 20.0)             # Eq. (16)-(17): 450/4 = 112.5 capped at N = 20
    mwp_peak_bw = 141.7e9 * mem_l / (1.3e9 * 128 * 30)  # Eq. (6)-(7): 12.77 warps
    mwp = min(mwp_without_bw, mwp_peak_bw, 20.0)        # Eq. (5)
    mem_cycles = mem_l * 6                              # Eq. (18)
    # CWP_full = (Mem_cycles + Comp_cycles)/Comp_cycles = MWP  <=>  Comp_cycles = Mem_cycles/(MWP - 1);
    # Comp_cycles = 4 cycles x (#Comp_insts + 6)  (Eq. 19)
    return mwp, mem_cycles / (4.0 * (mwp - 1.0)) - 6.0


def test_cwp_mwp_switch_solves_cwp_full_equal_to_mwp_as_plain_algebra_does(hk):
    mem, comp, mwp, issue, comp_insts, mem_insts = sympy.symbols("mem comp mwp issue comp_insts mem_insts", positive=True)
    by_hand = sympy.solve(sympy.Eq((mem + comp) / comp, mwp), comp)
    assert len(by_hand) == 1
    derived = derive.run_request(hk, request(hk, "cwp_mwp_boundary")).result
    names = {"Mem_cycles": mem, "MWP": mwp}
    assert sympy.simplify(derived.xreplace({s: names[s.name] for s in derived.free_symbols}) - by_hand[0]) == 0

    in_insts = sympy.solve(sympy.Eq((mem + issue * (comp_insts + mem_insts)) / (issue * (comp_insts + mem_insts)), mwp), comp_insts)
    derived = derive.run_request(hk, request(hk, "cwp_mwp_boundary_insts")).result
    names = {"Mem_cycles": mem, "MWP": mwp, "Issue_cycles": issue, "Mem_insts": mem_insts}
    assert sympy.simplify(derived.xreplace({s: names[s.name] for s in derived.free_symbols}) - in_insts[0]) == 0


def test_cwp_mwp_switch_on_gtx280_is_where_brute_force_sees_eq23_turn_into_eq24(hk):
    mwp_hand, switch_hand = gtx280_switch_by_hand()
    assert float(hk.evaluate("MWP", GTX280_COALESCED, values=COALESCED).magnitude) == pytest.approx(mwp_hand, rel=1e-12)
    derivation = derive.run_request(hk, request(hk, "cwp_mwp_boundary_insts"))
    kept = {name: hk.evaluate(name, GTX280_COALESCED, values=COALESCED) for name in ("MWP", "Mem_cycles", "Mem_insts")}
    derived = results.evaluate_result(hk, derivation, GTX280_COALESCED, **COALESCED, **kept)
    assert derived.to("winst").magnitude == pytest.approx(switch_hand, rel=1e-12)
    assert 51 < switch_hand < 52                          # so the regime must change between 51 and 52

    def case(comp_insts: int) -> str:
        return active.active_regime(hk, "Exec_cycles_app", GTX280_COALESCED, **COALESCED, Comp_insts=f"{comp_insts} winst")[0]

    below = {case(k) for k in range(1, math.floor(switch_hand) + 1)}
    above = {case(k) for k in range(math.ceil(switch_hand), 400, 7)}   # Comp_cycles stays below Mem_cycles = 2700
    assert below == {"eq23"} and above == {"eq24"}


def test_cwp_mwp_switch_with_mwp_below_two_is_masked_by_the_printed_or(hk):
    """The tiled matrix multiply as printed (32 transactions per warp) on the GTX280: MWP =
    1690/1280 < 2, so Mem_cycles/(MWP - 1) > Mem_cycles and 'or Comp_cycles > Mem_cycles' keeps Eq. (23)."""
    values = {"Active_blocks_per_SM": "5 block/SM"}
    mwp = 1690.0 / 1280.0                                # Mem_L = 450 + 31 x 40, Departure_delay = 40 x 32
    switch = 1690.0 * 6 / (4.0 * (mwp - 1.0)) - 6.0      # 7908 computation instructions
    assert float(hk.evaluate("MWP", GTX280_COALESCED, values=values).magnitude) == pytest.approx(mwp, rel=1e-12)
    for comp_insts in (switch / 2, switch * 2):
        assert active.active_regime(hk, "Exec_cycles_app", GTX280_COALESCED, **values, Comp_insts=f"{comp_insts} winst")[0] == "eq23"


# ------------------------------------------------------------- Chen & Aamodt (Volkov §4.13): model 3 -> 1
def test_chen_aamodt_model_3_tends_to_the_one_ipc_issue_bound():
    volkov = symgpu.load("volkov_2016")
    derivation = derive.run_request(volkov, request(volkov, "chen_aamodt_3_to_1"))
    assert derivation.result == 1 and derive.expect_holds(derivation) is True
    # by hand: 0 < 1 - rho < 1, so (1 - rho)**n -> 0 and rho3 = 1 - (1 - rho)**n -> 1; at n = 10**4 the
    # remainder (1 - rho)**n is below 1e-40 for every rho >= 0.01, so the model's value is 1 to double precision
    for rho in (0.01, 0.3, 0.9, 1.0):
        value = volkov.evaluate("rho_ca3", values={"rho_single": rho, "n_threads_ca": 10**4})
        assert float(value.magnitude) == 1.0
    # model 2 (n x rho, no throughput bound) has no such limit
    assert derive.run_request(volkov, symgpu.model.schema.DerivationRequest("ca2", "limit", (
        ("quantity", "rho_ca2"), ("variable", "n_threads_ca"), ("to", "oo")))).result == sympy.oo


def test_chen_aamodt_limit_needs_rho_below_one_and_says_so_without_it():
    volkov = symgpu.load("volkov_2016")
    with pytest.raises(symgpu.DerivationError, match=r"rho_ca3 as n_threads_ca -> oo: .*log\(1 - rho_single\)"):
        volkov.limit("rho_ca3", "n_threads_ca", "oo")


GEOMETRIC = read_fixture("geometric")


@pytest.mark.parametrize("assume, expected", [("b < 1", 0), ("b > 1", sympy.oo)])
def test_limit_of_a_geometric_term_follows_the_assumed_side_of_one(write_model, assume, expected):
    model = symgpu.load(str(write_model(GEOMETRIC, name="geometric")))
    assert model.limit("y", "n", "oo", assume=[assume]).result == expected   # 2*b*(b**(1/3))**n: 0 for b < 1, oo for b > 1
    with pytest.raises(symgpu.DerivationError, match=r"state that sign with an assumption"):
        model.limit("y", "n", "oo")
