"""A limit asked at a point (a preset, values) decides a Min/Max whose winning argument far out the
symbols leave open by the point's own numbers. An outside tester found Volkov's H100 throughput as
``n -> oo`` refused at ``h100_fit`` ("no argument of Max(...) is proved to be the largest"): the
unloaded latency holds ``Max(alu_lat, ilp*warp_issue_cycle)``, lifted out of the root's square it
becomes a Max of two arguments whose gap tends to ``(alu_lat - ilp*warp_issue_cycle)*capacity``, of no
sign for the symbols and of a plain one at the point. Its limit then needs the capacity
``Min(...)``, free of ``n``, kept whole (part by part it is ``oo*0``). Asked without a point, the
question is refused as before.
"""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors
from symgpu.evaluate import evaluator

PRESET = "h100_fit"
# by hand, from equations/volkov_2016_h100.toml (h100_fit on h100_stream on h100): GB/s per winst/cycle/SM is
# clock*SMs*bytes_per_inst = 1.98 GHz * 132 SM * 128 B/winst = 33454.08 GB/s
PER_IPC = 1.98 * 132 * 128.0
C_GBS, ALU_SAT, ILP_HALF, ISSUE, ADDR, LOOP = 3139.56, 2.67127, 0.349041, 4.0, 1.0, 3.0


def _capacity(alpha: float, ilp: float) -> float:
    """Min(c, alu_sat*ilp/((alpha + 1)*(ilp + ilp_half)), issue_thru/(1 + alpha + 1 + addr_insts + loop_insts/ilp)) in GB/s."""
    alu = ALU_SAT * ilp / ((alpha + 1) * (ilp + ILP_HALF)) * PER_IPC
    issue = ISSUE / (1 + alpha + 1 + ADDR + LOOP / ilp) * PER_IPC
    return min(C_GBS, alu, issue)


@pytest.mark.parametrize("at", [
    {"ilp": 1, "alpha": 0},  # the memory capacity c binds: 3139.56 GB/s
    {"ilp": 1, "alpha": 40},  # the ALU bound binds: 1615.69 GB/s
    {"ilp": 1, "alpha": 0, "alu_lat": 1},  # alu_lat = ilp*warp_issue_cycle: the Max's arguments are equal there
])
def test_the_throughput_tends_to_the_binding_capacity_at_the_given_values(at: dict) -> None:
    model = symgpu.load("volkov_2016_h100")
    answer = model.limit("dram_throughput", "n", "oo", preset=PRESET, values=at)
    assert answer.certificate is not None and answer.certificate.checks
    expected = _capacity(at["alpha"], at["ilp"])
    value = evaluator.evaluate_expression(model, answer.result, "GB/s", preset=PRESET, values=at).magnitude
    assert value == pytest.approx(expected, rel=1e-9)
    # brute force on the evaluate path: the throughput at very large n is the same number
    far = model.evaluate("dram_throughput", PRESET, values={**at, "n": 1e12}).to("GB/s").magnitude
    assert far == pytest.approx(expected, rel=1e-9)


def test_the_choice_made_at_the_point_is_an_assumption_of_the_answer() -> None:
    # alu_lat = 4.055 cycles at h100 against ilp*warp_issue_cycle = 1 cycle: the first argument wins there
    answer = symgpu.load("volkov_2016_h100").limit("dram_throughput", "n", "oo", preset=PRESET, values={"ilp": 1, "alpha": 40})
    decided = [a for a in answer.assumptions if "(decided at the given values: preset h100_fit" in a]
    assert decided and decided[0].startswith("ilp*warp_issue_cycle < alu_lat")
    assert any("positive at the given values" in s.justification for s in answer.steps)


def test_without_a_point_the_same_limit_is_still_refused() -> None:
    with pytest.raises(errors.DerivationError, match="no argument of Max"):
        symgpu.load("volkov_2016_h100").limit("dram_throughput", "n", "oo")


def test_a_regime_far_out_that_the_symbols_leave_open_is_decided_at_the_given_values() -> None:
    # Volkov's ILP n_needed_ilp as alpha -> oo: the issue bound's regime holds far out where alu_thru >= issue_thru,
    # which the symbols leave open and h100 decides (4 = 4: the gap alu_thru/alpha - issue_thru/(alpha + 1) stays
    # positive); it was refused ("no regime ... is proved to apply")
    model = symgpu.load("volkov_2016_ilp")
    answer = model.limit("n_needed_ilp", "alpha", "oo", preset="h100", values={"ilp": 2})
    assert answer.certificate is not None and answer.certificate.checks
    expected = 4.055 * 4.0 / 2  # alu_lat*issue_thru/ilp from the h100 preset (cycle * winst/cycle/SM / (winst/warp))
    assert evaluator.evaluate_expression(model, answer.result, "warp/SM", preset="h100", values={"ilp": 2}).magnitude \
        == pytest.approx(expected, rel=1e-12)
    far = model.evaluate("n_needed_ilp", "h100", values={"ilp": 2, "alpha": 1e9}).magnitude
    assert far == pytest.approx(expected, rel=1e-6)


def test_a_sign_the_symbols_leave_open_is_decided_at_the_given_values(cli) -> None:  # type: ignore[no-untyped-def]
    # MDM's S_Total_MDM as M_Read -> oo is oo*sign(LLCMissRate*L_MinDRAM + L_DRAMService*MSHRs*SMs + L_MinLLC +
    # L_NoCService*MSHRs*SMs); at table1 with these values it is 0.5*220 + 1*128*28 + 120 + 1*128*28 = 7398 > 0: oo
    # (an outside tester's finding: refused, asking for values that were all given)
    assert 0.5 * 220 + 1 * 128 * 28 + 120 + 1 * 128 * 28 == 7398
    code, out, err = cli("limit", "mdm_2019", "S_Total_MDM", "--var", "M_Read", "--to", "oo", "-p", "table1", "-s", "W=64",
                         "-s", "M_Write=0", "-s", "LLCMissRate=0.5", "-s", "L_NoCService=1", "-s", "L_DRAMService=1")
    assert code == 0, err
    assert "value: oo cycle" in out


def test_a_limit_point_that_does_not_parse_is_said_to_be_the_options_not_the_model_files(cli) -> None:  # type: ignore[no-untyped-def]
    # an outside tester's finding: the message named equations/mdm_2019.toml for the user's --to text
    # (a quantity in W's unit, '128/3 warp/SM', is read now: a unit it does not know is the option's fault)
    code, out, err = cli("limit", "mdm_2019", "S_Total_MDM", "--var", "W", "--to", "128/3 warps per SM", "-p", "table1", "-s", "M_Read=3")
    assert code == 2 and out == ""
    assert err.startswith("symgpu: error: --to '128/3 warps per SM': cannot read") and ".toml" not in err
