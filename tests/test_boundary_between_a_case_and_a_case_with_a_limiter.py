"""A boundary between a case of a case table and a regime named ``case+limiter`` (a case whose value reads a
``Min``: Hong & Kim's ``memory_bound+peak_bandwidth``) is where the regime changes, the case condition's switch with
the named limiter binding beyond it, not where the two values meet (outside tester round 5, F6).

Expected values are by hand from the model file (equations/prior_hong_kim.toml, preset gt200) and by brute force
on the evaluate path (the active case of Time and the binding limiter of MWP, bisected), never from symgpu's answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import symgpu
from symgpu import derive
from symgpu.evaluate import active

from conftest import toy_header

# MWP_peak_bw = pin_BW*mem_lat/(clock*bytes_per_inst*SMs) = 141.7e9*434/(1.296e9*128*30) = 12.3573 warp/SM; at alpha = 1
# CWP = Min(n, 1 + 434/(4*2)) = n up to 55.25, so latency_bound (MWP = CWP = n) holds up to n = MWP_peak_bw and beyond
# it memory_bound (CWP = n >= MWP = MWP_peak_bw) with peak_bandwidth binding. The values there: 434 + 4*2 = 442 cycles
# against 434*n/MWP_peak_bw = 434: Time jumps, so the values meet elsewhere (n = 442/434*12.3573 = 12.585)
PEAK = 141.7e9 * 434 / (1.296e9 * 128 * 30)
PAIR = ("latency_bound", "memory_bound+peak_bandwidth")


def _regime(model: symgpu.Model, n: float) -> str:
    """Time's regime as the regime table names it: the case, and MWP's binding limiter where the case reads MWP."""
    case = active.active_regime(model, "Time", "gt200", alpha=1.0, n=n)[0]
    return case if case == "latency_bound" else f"{case}+{active.active_regime(model, 'MWP', 'gt200', alpha=1.0, n=n)[0]}"


def _brute_switch(model: symgpu.Model) -> float:
    lo, hi = 1.0, 50.0
    assert (_regime(model, lo), _regime(model, hi)) == PAIR
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _regime(model, mid) == PAIR[0] else (lo, mid)
    return (lo + hi) / 2


def test_the_regime_changes_where_n_reaches_the_peak_bandwidth_mwp_not_where_the_values_meet():
    model = symgpu.load("prior_hong_kim")
    assert _brute_switch(model) == pytest.approx(PEAK, rel=1e-9)
    found = model.boundary("Time", PAIR, for_="n")
    at = derive.applying_boundaries(model, found, "gt200", {"alpha": 1.0})
    assert [float(r.value.magnitude) for r in at] == pytest.approx([PEAK], rel=1e-9)
    jumps = [s for s in found.steps if s.operation == "values jump"]
    assert jumps and "discontinuous" in jumps[0].justification


def test_the_command_line_answers_the_switch_at_the_point(cli: Any):
    code, out, err = cli("boundary", "prior_hong_kim", "Time", "--for", "n", "--between", *PAIR, "-p", "gt200", "-s", "alpha=1", "--json")
    assert code == 0, out + err
    assert float(json.loads(out)["value"]) == pytest.approx(PEAK, rel=1e-9)


def test_a_case_with_the_limiter_that_does_not_bind_beyond_the_switch_is_refused_naming_the_switch(cli: Any):
    # beyond n = MWP_peak_bw MWP = MWP_peak_bw: peak_bandwidth binds, not occupancy
    model = symgpu.load("prior_hong_kim")
    assert _regime(model, PEAK * (1 + 1e-6)) == "memory_bound+peak_bandwidth"
    code, out, err = cli("boundary", "prior_hong_kim", "Time", "--for", "n", "--between", "latency_bound", "memory_bound+occupancy",
                         "-p", "gt200", "-s", "alpha=1")
    assert code == 1 and "value:" not in out and len(err.strip().splitlines()) == 1, out + err
    assert "do not meet" in err and "12.357" in err, err


def test_a_case_switch_where_the_other_case_has_no_value_is_answered(cli, write_model) -> None:  # type: ignore[no-untyped-def]
    # blocks = max_blocks where smem <= 0, else Min(floor(smem_sm/smem), max_blocks): the cases switch at smem = 0, where
    # the second case is floor(smem_sm/0); saying whether the values jump there substituted the root into it and raised
    # SymPy's "The argument 'zoo' is not comparable", refusing the boundary (q34g). By brute force on the evaluate path:
    # the case is no_smem at 0 and smem_limited at every positive smem tried
    path = write_model(toy_header("smem_cases", "cases", "blocks by shared memory")
                       + '\n[symbols.smem_sm]\ndescription = "s"\nunit = "KiB/SM"\nassumptions = ["positive"]\n'
                       + '\n[symbols.smem]\ndescription = "s"\nunit = "KiB/block"\nassumptions = ["nonnegative"]\n'
                       + '\n[symbols.max_blocks]\ndescription = "b"\nunit = "block/SM"\nassumptions = ["positive"]\n'
                       + '\n[symbols.blocks]\ndescription = "b"\nunit = "block/SM"\nrole = "output"\n'
                       + '\n[[equations]]\nid = "blocks"\ndefines = "blocks"\ncases = [\n'
                       + '  { id = "no_smem", when = "smem <= 0", value = "max_blocks" },\n'
                       + '  { id = "smem_limited", when = "otherwise", value = "Min(floor(smem_sm/smem), max_blocks)" },\n]\n'
                       + 'source = { ref = "toy2026", locator = "1" }\n', name="smem_cases")
    model = symgpu.load(str(path))
    at = {"smem_sm": "228 KiB/SM", "max_blocks": "32 block/SM"}
    assert active.active_regime(model, "blocks", None, smem=0, **at)[0] == "no_smem"
    assert all(active.active_regime(model, "blocks", None, smem=s, **at)[0] == "smem_limited" for s in (1e-9, 1e-3, 7, 48))
    code, out, err = cli("boundary", path, "blocks", "--between", "no_smem", "smem_limited", "--for", "smem",
                         "--set", "smem_sm=228 KiB/SM", "--set", "max_blocks=32 block/SM")
    assert code == 0, err
    assert "value: 0 KiB/block" in out
