"""A regime table is checked before it is shown, like every other answer: the value of the first
regime whose conditions hold must be the model's own value at the point and along a scan of the
variable, with no gap where no regime holds. The ``regimes`` command used to print its table
unchecked (its certificate was ``None``).

Volkov 2016's ``memory_throughput`` (Eq. 8 with latency) is ``Min`` of four limiters; its regimes
over ``alpha`` are memory, ALU, issue and latency bound. The wrong tables below are built by hand
from the right one: two regimes' values swapped, and a regime left out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.derive import certify
from symgpu.derive.certify import Asked
from symgpu.evaluate import active

PRESET = "maxwell"
AT = {"n": 64.0}  # memory bound at small alpha, issue bound beyond (Maxwell has more ALU than issue throughput)


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.fixture(scope="module")
def table(volkov: symgpu.Model) -> symgpu.derive.Derivation:
    return volkov.regimes("memory_throughput", over="alpha")


def _asked() -> Asked:
    """The question at Maxwell with 64 warps, the variable scanned."""
    return Asked("regimes", "memory_throughput", "alpha", PRESET, tuple(AT.items()))


def test_a_regime_table_carries_a_certificate_from_a_scan_of_the_variable(table: symgpu.derive.Derivation) -> None:
    assert table.certificate is not None
    assert len(table.certificate.checks) == 1
    said = table.certificate.checks[0]
    assert said.startswith("the regime table gives the model's value at each of ") and " scanned values of alpha" in said
    # and at a point of the user's: the same table passes there
    assert certify.certify(symgpu.load("volkov_2016"), table, _asked()).certificate.where == f"preset {PRESET} with n"


def test_a_table_with_two_regime_values_swapped_is_refused(volkov: symgpu.Model, table: symgpu.derive.Derivation) -> None:
    pieces = list(table.result.args)
    assert [str(value) for value, _ in pieces] == ["mem_thru", "alu_thru/alpha", "issue_thru/(alpha + 1)", "n/(alpha*alu_lat + mem_lat)"]
    (a, ca), (b, cb) = pieces[0], pieces[2]  # memory and issue bound: both bind at this point
    wrong = dataclasses.replace(table, result=sympy.Piecewise((b, ca), pieces[1], (a, cb), pieces[3], evaluate=False), certificate=None)
    with pytest.raises(errors.CertificateError, match=r"the regime table gives [-0-9.e+]+ at alpha = [-0-9.e+]+, the model "):
        certify.certify(volkov, wrong, _asked())


def test_a_table_with_a_regime_left_out_is_refused_where_it_binds(volkov: symgpu.Model, table: symgpu.derive.Derivation) -> None:
    pieces = list(table.result.args)
    wrong = dataclasses.replace(table, result=sympy.Piecewise(*pieces[1:], evaluate=False), certificate=None)
    # the left-out regime binds somewhere on the scan at this point: the model's own regime there, by brute force
    alphas = [0.01 * 1.5 ** k for k in range(40)]
    binding = {active.active_regime(volkov, "memory_throughput", PRESET, **AT, alpha=x)[0] for x in alphas}
    assert binding == {"memory_bound", "issue_bound"}
    with pytest.raises(errors.CertificateError, match="no regime's conditions hold at alpha = "):
        certify.certify(volkov, wrong, _asked())


def test_the_command_line_says_a_table_asked_at_a_point_was_checked_there(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("regimes", "occupancy", "active_blocks_per_SM", "--preset", "cc_3_5", "--set", "threads_per_block=256",
                         "--set", "regs_per_thread=40", "--set", "smem_per_block=3073 B/block")
    assert code == 0, err
    assert "checked numerically at preset cc_3_5 with regs_per_thread, smem_per_block, threads_per_block: the regime table " \
           "gives the model's value at the point" in out


def test_a_table_asked_without_a_variable_or_a_point_is_checked_at_a_point_for_each_regime(volkov: symgpu.Model) -> None:
    answer = volkov.regimes("memory_throughput")
    assert answer.certificate is not None and answer.certificate.checks == ("the regime table gives the model's value at the point",)
    # each of the four regimes binds at one of the points checked: the points read back from the certificate,
    # each regime there by the model's own rule (evaluate.active), not the table's
    points = re.findall(r"preset (\w+) with alpha=([\d.e+-]+), n=([\d.e+-]+) \(sampled\)", answer.certificate.where)
    binding = {active.active_regime(volkov, "memory_throughput", preset, alpha=float(a), n=float(n))[0] for preset, a, n in points}
    assert binding == {"memory_bound", "alu_bound", "issue_bound", "latency_bound"}


def test_a_table_that_gives_infinity_where_the_model_is_finite_is_refused(volkov: symgpu.Model, table: symgpu.derive.Derivation) -> None:
    alpha = volkov.symbols["alpha"]
    infinite = (volkov.symbols["alu_thru"] / alpha, alpha < sympy.Float(1e-300))  # alu_thru/0 at alpha = 0
    wrong = dataclasses.replace(table, result=sympy.Piecewise(infinite, *table.result.args, evaluate=False), certificate=None)
    at_zero = volkov.evaluate("memory_throughput", PRESET, values={**AT, "alpha": 0.0}).magnitude
    assert 0 < at_zero < float("inf")  # the model is finite there, by the evaluate path
    with pytest.raises(errors.CertificateError, match="the regime table gives inf at alpha = 0, the model "):
        certify.certify(volkov, wrong, _asked())


def test_a_constant_as_the_variable_is_scanned_where_it_is_positive() -> None:
    # Hong & Kim's Threads_per_warp is a constant (32) with no declared sign; the derivation takes it
    # positive, so negative scan values would test a table it never claimed (they used to fail it)
    model = symgpu.load("hong_kim_2009")
    assert model.constants["Threads_per_warp"].magnitude > 0
    assert not model.symbol_definitions["Threads_per_warp"].assumptions
    answer = model.regimes("MWP", over="Threads_per_warp")
    assert answer.certificate is not None and answer.certificate.checks
    assert all("scanned values of Threads_per_warp" in c for c in answer.certificate.checks)


def test_an_assumption_on_the_variable_limits_the_scan_to_where_it_holds(volkov: symgpu.Model) -> None:
    at = {"n": 100000.0, "alpha": 2000.0}
    assumed = volkov.regimes("memory_throughput", over="alpha", assume=["alpha*mem_thru > alu_thru"], preset=PRESET, values=at)
    plain = volkov.regimes("memory_throughput", over="alpha", preset=PRESET, values=at)
    count = [int(re.search(r"each of (\d+) scanned", a.certificate.checks[0]).group(1)) for a in (assumed, plain)]
    assert 0 < count[0] < count[1]


def test_a_point_where_the_tables_conditions_cancel_gets_the_advice_not_a_failed_check(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("regimes", "volkov_2016", "memory_throughput", "--preset", PRESET, "--set", "n=16", "--set", "alpha=0")
    assert code != 0 and "check failed" not in err
    assert "not a number (NaN)" in err and "--substitute" in err


def test_an_integer_variable_is_scanned_at_integers(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("regimes", "occupancy", "active_blocks_per_SM", "--preset", "cc_3_5", "--set", "threads_per_block=256",
                         "--set", "regs_per_thread=40", "--set", "smem_per_block=3073 B/block", "--over", "regs_per_thread")
    assert code == 0, err
    assert re.search(r"the regime table gives the model's value at each of \d+ scanned values of regs_per_thread", out)


def test_an_assumption_error_names_the_value_that_breaks_it() -> None:
    model = symgpu.load("occupancy")
    with pytest.raises(errors.EvaluationError, match=r"regs_per_thread = 40.5 .*violates the declared assumption 'integer'"):
        model.evaluate("active_blocks_per_SM", "cc_3_5", values={"threads_per_block": 256, "smem_per_block": "3073 B/block",
                                                                  "regs_per_thread": np.array([40.0, 40.5])})


def test_a_table_that_keeps_a_quantity_is_answered_at_a_point_with_its_value(cli: Callable[..., tuple[int, str, str]],
                                                                          volkov: symgpu.Model) -> None:
    # --keep Latency used to stop at the point: "the result needs a value for Latency"; it is valued from its equation
    code, out, err = cli("regimes", "volkov_2016", "memory_throughput", "--keep", "Latency", "--preset", PRESET,
                         "--set", "n=64", "--set", "alpha=2")
    assert code == 0, err
    expected = volkov.evaluate("memory_throughput", PRESET, values={"n": 64, "alpha": 2}).magnitude
    shown = float(re.search(r"value: ([0-9.e+-]+) winst/cycle/SM", out).group(1))
    assert shown == pytest.approx(expected, rel=1e-9)
    assert "the regime table gives the model's value at the point" in out
