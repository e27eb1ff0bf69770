"""An extremum asked where the model gives the quantity no value, or a degenerate value, at the
given inputs. Without memory instructions Hong & Kim's CWP is 0/0 at Comp_insts = 0 and 1 at every
other Comp_insts (``(Mem_cycles + Comp_cycles)/Comp_cycles`` with ``Mem_cycles = 0``); the closed
form's plateau edge (CWP = N, 20 warps here) is 0/0 there too, but its closed form cancels to 0, and
the answer said "maximum 20 at Comp_insts = 0" (found by ``benchmarks/differential.py --seed 26
--ops extremum``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

import symgpu
from symgpu import derive, errors
from symgpu.derive import extremum_domain, jobs

from conftest import FIXTURES

NO_MEMORY = {"Active_blocks_per_SM": 5.0, "Coal_Mem_insts": 0.0, "Threads_per_block": 128.0, "Uncoal_Mem_insts": 0.0}


def test_the_premise_without_memory_instructions_cwp_is_one_and_undefined_at_zero_compute() -> None:
    model = symgpu.load("hong_kim_2009_intended")
    assert math.isnan(model.evaluate("CWP", "8800gtx", values={**NO_MEMORY, "Comp_insts": 0.0}).magnitude)
    for comp in (1e-3, 1.0, 1e6):
        assert model.evaluate("CWP", "8800gtx", values={**NO_MEMORY, "Comp_insts": comp}).magnitude == 1.0


def test_the_plateau_edge_holds_only_where_the_quantity_is_defined_there() -> None:
    model = symgpu.load("hong_kim_2009_intended")
    answer = model.extremum("CWP", over="Comp_insts", kind="max")
    assert math.isnan(derive.evaluate_result(model, answer, "8800gtx", **NO_MEMORY).magnitude)  # it said 20
    with_memory = {**NO_MEMORY, "Coal_Mem_insts": 10.0}
    n = 5.0 * 128 / 32  # warps per SM: the CWP = N plateau, reached once Comp_insts is small enough
    assert derive.evaluate_result(model, answer, "8800gtx", **with_memory).magnitude == n
    assert model.evaluate("CWP", "8800gtx", values={**with_memory, "Comp_insts": 1.0}).magnitude == n


def test_at_the_point_a_flat_quantity_is_said_to_reach_its_end_value(cli: Callable[..., tuple[int, str, str]]) -> None:
    sets = [a for k, v in NO_MEMORY.items() for a in ("--set", f"{k}={v}")]
    code, out, err = cli("extremum", "hong_kim_2009_intended", "CWP", "--over", "Comp_insts", "--max", "--preset", "8800gtx", *sets)
    assert code == 2 and out == ""
    assert "CWP takes 1 warp/SM, the value it approaches at an end, already at Comp_insts = " in err and "(exactly)" in err
    assert "check failed" not in err  # it used to claim 20 and be refused by its own certificate


#: x**3/(x**3 + c**3): 1 in the limit, never in exact arithmetic, soon in IEEE doubles
SATURATING = FIXTURES / "saturating.toml"


def test_an_asymptote_that_rounds_to_its_limit_is_still_no_maximum(cli: Callable[..., tuple[int, str, str]]) -> None:
    path = SATURATING
    assert symgpu.load(path).evaluate("y", "toy", values={"x": 1e6}).magnitude == 1.0  # the premise: IEEE rounds it to 1
    code, out, err = cli("extremum", path, "y", "--over", "x", "--max", "--preset", "toy")
    # answered, not refused (tester round 13a, F5): no maximum, the supremum 1 approached as x -> oo
    assert code == 0 and "no maximum: the supremum 1 is approached as x -> oo" in out and "no x attains it" in out, err


def test_a_valid_when_domain_free_of_the_variable_is_the_answers_and_refuses_at_a_point() -> None:
    model = symgpu.load("hong_kim_2009")
    job, _ = jobs.start(model, "extremum", "Exec_cycles_app", "Comp_insts")
    outer = extremum_domain.outer_domain(job, job.symbol("Comp_insts"), ())
    assert [str(c) for c in outer] == ["0 < Coal_Mem_insts + Uncoal_Mem_insts"]  # 0 < Mem_insts (eq22-24), in inputs
    with pytest.raises(errors.DerivationError, match="no value at the given values, at any Comp_insts: its valid_when domain"):
        model.extremum("Exec_cycles_app", over="Comp_insts", kind="max", preset="8800gtx",
                       values={"Coal_Mem_insts": 0, "Uncoal_Mem_insts": 0})
