"""``--unit`` moves a per-scheduler value (Volkov's Ch. 6 ``op/cycle/sched``) to a per-SM one at the model's schedulers per
SM (its one input in sched/SM), said on stderr, as it does per SM and per GPU at the SM count (an audit's finding: asking
Volkov's per-scheduler throughput in ``winst/cycle/SM`` was refused though the preset gives the schedulers); a model
without such an input refuses in one line saying why and what to ask instead."""

from __future__ import annotations

import json

import pytest

from conftest import assert_one_line_refusal, toy_header

OPS = ("eval", "volkov_2016", "ops_per_sched", "-p", "kepler")


def _number(out: str) -> float:
    return float(json.loads(out)["value"])


def test_a_per_scheduler_throughput_per_sm_is_the_per_sm_ipc_in_lanes(cli):
    # ops_per_sched = ipc_per_SM*simd_width/schedulers (s6_1_ops_per_scheduler): per SM it is ipc_per_SM * 32 lanes,
    # with ipc_per_SM by the eval path (a second path), the schedulers per SM undone by hand
    code, out, err = cli("eval", "volkov_2016", "ipc_per_SM", "-p", "kepler", "--json")
    assert code == 0, err
    ipc = _number(out)
    code, out, err = cli(*OPS, "--unit", "op/cycle/SM", "--json")
    assert code == 0, err
    assert _number(out) == pytest.approx(ipc * 32, rel=1e-12)
    assert "per-scheduler values converted at schedulers = 4 sched / SM" in err
    code, out, err = cli(*OPS, "--unit", "winst/cycle/SM", "--json")  # and in warp instructions: 32 lanes a warp instruction
    assert code == 0, err
    assert _number(out) == pytest.approx(ipc, rel=1e-12)
    code, out, err = cli(*OPS, "--unit", "op/cycle", "--json")  # per GPU: times the 8 SMs of the GTX680 too
    assert code == 0, err
    assert _number(out) == pytest.approx(ipc * 32 * 8, rel=1e-12)


NO_SCHEDULERS = (toy_header("no_sched", "t", "t")
                 + '\n[symbols.thr]\ndescription = "rate"\nunit = "op/cycle/sched"\nassumptions = ["positive"]\n'
                 + '\n[symbols.per_sched]\ndescription = "rate per scheduler"\nunit = "op/cycle/sched"\nrole = "output"\n'
                 + '\n[[equations]]\nid = "e1"\ndefines = "per_sched"\nrhs = "thr"\nsource = { ref = "toy2026", locator = "1" }\n'
                 + '\n[presets.p]\ndescription = "p"\nsource = { ref = "toy2026", locator = "p" }\n[presets.p.values]\nthr = "2 op/cycle/sched"\n')


def test_a_model_without_schedulers_per_sm_says_why_and_what_to_ask(cli, write_model):
    path = str(write_model(NO_SCHEDULERS, name="no_sched"))
    code, out, err = cli("eval", path, "per_sched", "-p", "p", "--unit", "op/cycle/SM")
    assert_one_line_refusal(code, out, err, "cannot be expressed in op/cycle/SM",
                            "per scheduler and per SM differ by the schedulers per SM", "no one input in sched/SM",
                            "ask in the value's own unit")
