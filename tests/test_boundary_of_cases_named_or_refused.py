"""A boundary asked without a pair, over regimes in different cases of a case table, is refused at once, naming the
cases to ask between: Hong & Kim's Exec_cycles_app over Uncoal_Mem_insts (eq22, eq23, eq24, each with the MWP
limiters) solved where the cases' values meet for minutes (an outside tester killed it at 120 s), though cases switch
where their condition switches. Asked between eq23 and eq24 at the point, the switches are where the active regime
changes by brute force; a condition at a root too large to tidy (182 operations, whose factoring ran for minutes) is
kept as it is and checked there by its numbers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import symgpu
from symgpu import derive
from symgpu.evaluate import active

POINT = ("--preset", "table2_example", "--set", "Comp_insts=900")


def test_a_boundary_over_cases_asked_without_a_pair_is_refused_at_once_naming_the_cases(
        cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Uncoal_Mem_insts")  # no point (at one: every switch)
    assert code == 2 and "value:" not in out
    assert "--between" in err and all(case in err for case in ("eq22", "eq23", "eq24"))


def _case(model: symgpu.Model, x: float) -> str:
    return active.active_regime(model, "Exec_cycles_app", "table2_example", Comp_insts=900.0, Uncoal_Mem_insts=x)[0]


def test_the_boundaries_between_eq23_and_eq24_are_where_the_active_case_changes_by_brute_force() -> None:
    model = symgpu.load("hong_kim_2009")
    xs = np.linspace(0.5, 12.0, 47)
    brute = []
    for lo, hi in zip(xs[:-1], xs[1:]):
        if _case(model, lo) != _case(model, hi):
            a, b, first = float(lo), float(hi), _case(model, lo)
            for _ in range(60):
                mid = (a + b) / 2
                a, b = (mid, b) if _case(model, mid) == first else (a, mid)
            brute.append((a + b) / 2)
    assert len(brute) == 2  # eq23 -> eq24 near 4.96 (Comp_cycles = Mem_cycles), eq24 -> eq23 near 6.36 (CWP = MWP)
    answer = model.boundary("Exec_cycles_app", ("eq23", "eq24"), for_="Uncoal_Mem_insts", preset="table2_example",
                            values={"Comp_insts": 900.0})
    found = sorted(float(r.value.magnitude) for r in derive.applying_boundaries(model, answer, "table2_example", {"Comp_insts": 900.0}))
    assert found == pytest.approx(brute, rel=1e-9)
