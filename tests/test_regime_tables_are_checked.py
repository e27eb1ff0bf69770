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
from collections.abc import Callable

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
    """The question at Maxwell with 16 warps, the variable scanned."""
    return Asked("regimes", "memory_throughput", "alpha", PRESET, tuple(AT.items()))


def volkov_model() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_a_regime_table_carries_a_certificate_from_a_scan_of_the_variable(table: symgpu.derive.Derivation) -> None:
    assert table.certificate is not None
    assert len(table.certificate.checks) == 1
    said = table.certificate.checks[0]
    assert said.startswith("the regime table gives the model's value at each of ") and " scanned values of alpha" in said
    # and at a point of the user's: the same table passes there
    assert certify.certify(volkov_model(), table, _asked()).certificate.where == f"preset {PRESET} with n"


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
    # each of the four regimes binds at one of the points checked: the points, by the model's own regime there
    points = answer.certificate.where.split(", preset ")
    assert len(points) >= 4
