"""The command line asks what the API and model files ask: an inequality (``--relation``, ``--kind``),
one case of a quantity defined by cases (``--case``) and a quantity without a named limiter
(``--omit``). Expected values are brute force on the evaluate path or arithmetic written here."""

from __future__ import annotations

import json

import numpy as np
import pytest

import symgpu
from symgpu import derive

_REGISTERS = ("solve", "occupancy", "blocks_register_limit", "--for", "regs_per_thread", "--relation", ">=", "--kind", "max",
              "--case", "per_warp_allocation", "-S", "reg_alloc_exception_factor=1",
              "-S", "compat_subpartitions_per_SM=subpartitions_per_SM", "-p", "cc_7_0", "-s", "threads_per_block=128")


def _most_registers_with(blocks: float) -> int:
    """The largest registers per thread (1..255) at which the model keeps ``blocks`` blocks of 128 threads on CC 7.0."""
    model = symgpu.load("occupancy")
    registers = np.arange(1, 256)
    limit = np.asarray(model.evaluate("blocks_register_limit", "cc_7_0",
                                      values={"threads_per_block": 128, "regs_per_thread": registers}).magnitude)
    return int(registers[limit >= blocks].max())


@pytest.mark.parametrize("target", ["12", "12 block/SM"])
def test_the_most_registers_for_twelve_blocks_is_what_brute_force_finds(cli, target):
    code, out, err = cli(*_REGISTERS, "--target", target)
    assert code == 0, err
    assert f"value: {_most_registers_with(12)} reg/thread" in out


def test_a_numeric_inequality_target_gives_what_the_same_target_as_a_symbol_gives():
    model = symgpu.load("occupancy")
    common = dict(for_="regs_per_thread", relation=">=", kind="max", case="per_warp_allocation",
                  substitute={"reg_alloc_exception_factor": "1", "compat_subpartitions_per_SM": "subpartitions_per_SM"})
    by_number = model.solve("blocks_register_limit", target=6, **common)
    by_symbol = model.solve("blocks_register_limit", target="k_blocks", **common)
    at = {"threads_per_block": 256, "k_blocks": 6}
    assert float(derive.evaluate_result(model, by_number, "cc_8_6", **at).magnitude) == \
        float(derive.evaluate_result(model, by_symbol, "cc_8_6", **at).magnitude)


def test_kind_without_relation_is_a_usage_error(cli):
    code, _, err = cli("solve", "occupancy", "blocks_register_limit", "--for", "regs_per_thread", "--kind", "max")
    assert code == 2 and "give --relation too" in err and "Traceback" not in err


def test_omitting_the_issue_bound_gives_volkovs_alu_form_of_the_cusp(cli):
    # without issue_thru/(alpha + 1), n_needed = Latency*Min(mem_thru, alu_thru/alpha) peaks where the two meet,
    # alpha = alu_thru/mem_thru, at alu_lat*alu_thru + mem_lat*mem_thru (Volkov 2016, §4.5)
    model = symgpu.load("volkov_2016")
    g80 = {name: float(q.magnitude) for name, q in model.preset("g80").items()}
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--omit", "s4_1_model.issue_bound",
                         "-p", "g80", "--json")
    assert code == 0, err
    answer = json.loads(out)
    hand = g80["alu_lat"] * g80["alu_thru"] + g80["mem_lat"] * g80["mem_thru"]
    assert answer["value"] == pytest.approx(hand, rel=1e-12)
    assert "limiters were omitted" in answer["certificate"]["unchecked"]


def test_an_unknown_limiter_to_omit_says_which_terms_there_are(cli):
    code, _, err = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--omit", "no_such_bound")
    assert code != 0 and "no_such_bound" in err and "Traceback" not in err
