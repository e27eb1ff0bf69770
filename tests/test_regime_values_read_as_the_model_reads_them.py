"""A regime value is checked against the quantity's unit, but two things the model reads in the
siblings' unit are lost when the value is built and simplified: the bare 1 of ``Max(1, CWP - 1)``
that a regime picks (1 warp/SM, dropped from a product; shown on a small model of Sim et al.'s memory time), and the 1 of ``1 + x/(alpha + 1)``
(``together`` puts ``alpha`` beside it). ``regimes prior_sim cwp_minus_one_factor`` used to stop
on a "dimension" error. And ``simplify`` wrote ``s_fork*log(ilp/ilp_ref)`` as
``log((ilp/ilp_ref)**s_fork)``: a power with a unit in its exponent that overflows far out.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

import symgpu
from symgpu import errors
from symgpu.derive import jobs, regime_split
from symgpu.evaluate import evaluator
from tests.conftest import toy_header

#: Sim et al.'s memory time at its smallest (``prior_sim``'s ``Tmem``, ``Tmem_cwp`` and their ratio, which count warps
#: and SMs as pure numbers there): the bare 1 of ``Max(1, c - 1)`` is 1 warp/SM, read in its sibling's unit
_BARE_ONE = toy_header("bare_one", "bare one", "a bare 1 beside a count of warps per SM") + '''
[symbols.n]
description = "warps per SM"
unit = "warp/SM"
assumptions = ["positive"]
[symbols.c]
description = "warps per SM that compute while one waits"
unit = "warp/SM"
assumptions = ["positive"]
[symbols.mem_lat]
description = "memory latency"
unit = "cycle"
assumptions = ["positive"]
[symbols.t_one_less]
description = "memory time with one warp less computing"
unit = "cycle"
role = "output"
[symbols.t_all]
description = "memory time"
unit = "cycle"
role = "output"
[symbols.factor]
description = "t_one_less/t_all"
unit = "1"
role = "output"
[[equations]]
id = "less"
defines = "t_one_less"
rhs = "n*mem_lat/Max(1, c - 1)"
source = { ref = "toy2026", locator = "1" }
[[equations]]
id = "all"
defines = "t_all"
rhs = "n*mem_lat/Max(1, c)"
source = { ref = "toy2026", locator = "2" }
[[equations]]
id = "ratio"
defines = "factor"
rhs = "t_one_less/t_all"
source = { ref = "toy2026", locator = "3" }
'''


def test_volkovs_cwp_minus_one_factor_has_its_regimes_and_the_n_over_n_minus_1_one_is_the_papers() -> None:
    model = symgpu.load("prior_sim")
    answer = model.regimes("cwp_minus_one_factor")
    assert answer.certificate is not None and answer.certificate.checks
    values = {r.name: str(r.expression) for r in answer.regimes}
    assert "n/(n - 1)" in values.values()  # §7.4: n/(n - 1) when CWP = MWP = n
    # the paper's "factor of 2 at n = 2" on the evaluate path, and n/(n - 1) at n = 2
    assert model.evaluate("cwp_minus_one_factor", "fermi", values={"alpha": 1, "n": 2}).magnitude == pytest.approx(2 / (2 - 1))


def test_a_regime_value_whose_unit_is_wrong_as_built_is_still_refused(write_model) -> None:
    model = symgpu.load(write_model(_BARE_ONE, name="bare_one"))
    job, _ = jobs.start(model, "regimes", "factor", "")
    n = model.symbols["n"]  # warp/SM, not the factor's pure number
    with pytest.raises(errors.DerivationError, match="has dimension"):
        regime_split._check_quiet(job, n, "factor", None, n)
    # read with the dimension of Max(1, c - 1) (warp/SM) for a picked bare 1, the same value is n/(1 warp/SM)
    source = job.quantity_expression("factor", None, ())[0]
    assert regime_split._literal_dimensions(job, source)  # Max(1, c - 1) is there
    regime_split._check_quiet(job, n, "factor", source, n)


def test_a_log_keeps_its_factor_outside_and_stays_finite_far_out() -> None:
    model = symgpu.load("volkov_2016_h100")
    answer = model.regimes("latency_unloaded_h100", over="ilp_ref")
    assert answer.certificate is not None and answer.certificate.checks
    shown = [str(r.expression) for r in answer.regimes]
    assert all("s_fork*log(ilp/ilp_ref)" in v and "log((" not in v for v in shown)
    point = {"ilp": 1000, "ilp_ref": 1e-6, "alpha": 2}  # (1e9)**s_fork overflows; s_fork*log(1e9) does not
    table = evaluator.evaluate_expression(model, answer.result, model.units["latency_unloaded_h100"], preset="h100_fit", values=point)
    direct = model.evaluate("latency_unloaded_h100", "h100_fit", values=point)
    assert math.isfinite(table.magnitude) and table.magnitude == pytest.approx(direct.magnitude, rel=1e-12)


def test_a_literal_excuses_one_power_of_its_unit_not_two(write_model) -> None:
    model = symgpu.load(write_model(_BARE_ONE, name="bare_one"))
    job, _ = jobs.start(model, "regimes", "factor", "")
    source = job.quantity_expression("factor", None, ())[0]
    n = model.symbols["n"]
    with pytest.raises(errors.DerivationError, match="has dimension"):
        regime_split._check_quiet(job, n**2, "factor", source, n**2)  # (warp/SM)**2: no bare 1 explains it


def test_the_bare_ones_regimes_are_answered_with_their_values_checked(write_model) -> None:
    model = symgpu.load(write_model(_BARE_ONE, name="bare_one"))
    answer = model.regimes("factor")
    assert answer.certificate is not None and answer.certificate.checks
    c = model.symbols["c"]
    assert any(r.expression == c for r in answer.regimes)  # c - 1 <= 1 < c: the 1 warp/SM picked, as built c/1


def test_a_tables_values_are_checked_once_each_and_refused_at_the_first_wrong_row() -> None:
    # _check_values (each distinct value once, in the table's order) against _check_quiet row by row: the occupancy
    # table passes both with no step left; with a wrong value put into two rows, both refuse with the same message
    model = symgpu.load("occupancy")
    job, _ = jobs.start(model, "regimes", "active_blocks_per_SM", "")
    source = job.quantity_expression("active_blocks_per_SM", None, ())[0]
    found = regime_split._regimes(job, source, None, record=False)
    assert len({(r.expression, r.built) for r in found}) < len(found) // 4
    steps = len(job.steps)
    for r in found:
        regime_split._check_quiet(job, r.expression, "active_blocks_per_SM", source, r.built)
    regime_split._check_values(job, found, "active_blocks_per_SM", source)
    assert len(job.steps) == steps
    wrong = model.symbols["smem_per_block"]  # bytes per block, not blocks per SM
    broken = [dataclasses.replace(r, expression=wrong, built=wrong) if i in (5, 9) else r for i, r in enumerate(found)]
    messages = []
    for check in (lambda: [regime_split._check_quiet(job, r.expression, "active_blocks_per_SM", source, r.built) for r in broken],
                  lambda: regime_split._check_values(job, broken, "active_blocks_per_SM", source)):
        with pytest.raises(errors.DerivationError, match="has dimension") as refused:
            check()
        messages.append(str(refused.value))
    assert messages[0] == messages[1]
