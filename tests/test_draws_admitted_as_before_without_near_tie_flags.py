"""A certificate's drawn point is admitted (derive.certify._admits) as before the settled-point shortcut: where the
middle admitted point of the scan has a finite value as a scalar call evaluates it (certify_path._settles_finite), no
near-tie flags of the whole scan are built. The old path (the near-tie flags, then the settled scan) is the oracle here,
on every point the certificate's draws try for questions of case tables, Min/Max limiters, domains and zeros."""

from __future__ import annotations


import numpy as np
import pint
import pytest

import symgpu
from conftest import FIXTURES
from symgpu import errors
from symgpu.derive import certify
from symgpu.derive.certify_path import Asked, _inside, _Point, _quantity, _scan_grid, _settles_finite, _unsettled, _with
from symgpu.evaluate import evaluator, input_values

_CAUGHT = (errors.SymgpuError, ArithmeticError, TypeError, ValueError, pint.PintError)


def _old_admits(model: symgpu.Model, asked: Asked, point: _Point) -> bool:
    """certify._admits as it was before the shortcut: the near-tie flags of the scan, then the settled scan."""
    fixed = {k: v for k, v in _with(model, asked, point, 1.0).items() if k != asked.variable}
    grid = _scan_grid(model, asked.variable, [])
    try:
        input_values.gather_values(model, asked.quantity, point.preset, fixed, check=True)
        with np.errstate(all="ignore"):
            compiled = np.broadcast_to(_quantity(model, asked, point, grid, settle=False), grid.shape)
    except _CAUGHT:
        return False
    inside = _inside(model, asked, point, grid)
    admitted = np.isfinite(compiled) & inside
    near = _unsettled(model, asked, point, grid) if admitted.any() else None
    if near is not None and (admitted & ~near).any():
        return True
    try:
        with np.errstate(all="ignore"):
            scanned = np.broadcast_to(_quantity(model, asked, point, grid), grid.shape)
    except _CAUGHT:
        return False
    return bool((np.isfinite(scanned) & inside).any())


#: (model, op, quantity, variable): case tables near ties (Hong & Kim), steps (occupancy's floors), limiters with zeros
#: drawn (Volkov), a domain and a nonnegative input (MDM), a Min/Max of many arms (Huang)
QUESTIONS = [
    ("hong_kim_2009", "boundary", "Exec_cycles_app", "Active_blocks_per_SM"),
    ("hong_kim_2009", "extremum", "Exec_cycles_app", "Comp_insts"),
    ("occupancy", "extremum", "active_warps_per_SM", "threads_per_block"),
    ("mdm_2019", "limit", "S_Mem", "M_Read"),
    ("hong_kim_2009", "solve", "MWP", "N"),
    ("volkov_2016", "extremum", "n_needed", "alpha"),
    ("prior_huang", "limit", "IPC_gto_alpha_inf", "n"),
]
#: those with a case or a step, where the shortcut applies
STEPPED = QUESTIONS[:4]


def _tried_points(model: symgpu.Model, asked: Asked) -> list[_Point]:
    """Every point the certificate's draws ask _admits about (``certify.draws`` as ``_sampled`` filters them, until four
    are admitted): onto the first three presets and fully drawn, with and without zeros."""
    bases = [_Point(f"preset {p}", p, {}) for p in list(model.presets)[:3]] + [_Point("", None, {})]
    tried: list[_Point] = []
    for base in bases:
        for zeros in (False, True):
            admitted = 0
            for point in certify.draws(model, asked, base, 4, zeros=zeros, seed="/admits-test"):
                tried.append(point)  # as certify._sampled asks: until 4 are admitted
                admitted += certify._admits(model, asked, point)
                if admitted == 4:
                    break
    return tried


@pytest.mark.parametrize("model_id, op, quantity, variable", QUESTIONS)
def test_each_drawn_point_is_admitted_as_the_near_tie_flags_and_settled_scan_admitted_it(
        model_id: str, op: str, quantity: str, variable: str) -> None:
    model = symgpu.load(model_id)
    asked = Asked(op, model.equation_for(quantity).definition.defines, variable)
    points = _tried_points(model, asked)
    assert len(points) >= 8
    verdicts = [certify._admits(model, asked, p) for p in points]
    assert verdicts == [_old_admits(model, asked, p) for p in points]
    assert True in verdicts  # the shortcut's own case is met


@pytest.mark.parametrize("model_id, op, quantity, variable", STEPPED)
def test_a_point_settled_finite_has_that_value_in_the_settled_scan(
        model_id: str, op: str, quantity: str, variable: str) -> None:
    # the claim the shortcut rests on: where the middle admitted point is finite as a scalar call, the settled scan (which
    # evaluates a point near a tie again as that scalar call, and keeps the compiled value elsewhere) is finite there too
    model = symgpu.load(model_id)
    asked = Asked(op, model.equation_for(quantity).definition.defines, variable)
    grid = _scan_grid(model, variable, [])
    shown = 0
    for point in _tried_points(model, asked):
        try:
            with np.errstate(all="ignore"):
                compiled = np.broadcast_to(_quantity(model, asked, point, grid, settle=False), grid.shape)
                scanned = np.broadcast_to(_quantity(model, asked, point, grid), grid.shape)
        except _CAUGHT:
            continue
        admitted = np.isfinite(compiled) & _inside(model, asked, point, grid)
        if not admitted.any():
            continue
        index = int(np.flatnonzero(admitted)[np.flatnonzero(admitted).size // 2])
        if _settles_finite(model, asked, point, grid, index):
            shown += 1
            assert np.isfinite(scanned[index])
    assert shown > 0


def test_no_shortcut_without_a_variable_a_substitution_a_case_or_with_an_array_value() -> None:
    model = symgpu.load("hong_kim_2009")
    grid = _scan_grid(model, "N", [])
    point = _Point("preset table2_example", "table2_example", {})
    cases = model.equation_for("Exec_cycles_app").definition.defines
    assert _settles_finite(model, Asked("boundary", cases, "N"), point, grid, 10)
    assert not _settles_finite(model, Asked("regimes", cases, ""), point, grid, 10)
    assert not _settles_finite(model, Asked("boundary", cases, "N", substitute=(("Mem_LD", "N"),)), point, grid, 10)
    assert not _settles_finite(model, Asked("boundary", cases, "N"), _Point("", "table2_example", {"Mem_LD": np.array([1.0, 2.0])}),
                               grid, 10)
    # MWP is a Min with no case or step: its near-tie flags cost nothing (unsettled_points finds none at once)
    assert not _settles_finite(model, Asked("solve", model.equation_for("MWP").definition.defines, "N"), point, grid, 10)


def test_a_point_near_a_tie_is_read_as_the_settled_scan_reads_it() -> None:
    # x*y = z exactly at the scan's middle point (x that z's double, y = 1): the near-tie flags name that point, the settled
    # scan evaluates it again as a scalar call, and the shortcut reads that value (q: x*y > z false, 100; qe: >=, 200)
    model = symgpu.load(FIXTURES / "decimal_tie.toml")
    grid = _scan_grid(model, "z", [])
    middle = grid.size // 2
    values = {"x": float(grid[middle]), "y": 1.0}
    for quantity, value in (("q", 100.0), ("qe", 200.0)):
        asked = Asked("extremum", quantity, "z")
        point = _Point("given", None, values)
        near = _unsettled(model, asked, point, grid)
        assert near is not None and near[middle] and not near[0]
        scanned = _quantity(model, asked, point, grid)
        at = float(evaluator.evaluate(model, quantity, values={**values, "z": float(grid[middle])}, checks=False).magnitude)
        assert scanned[middle] == at == value
        assert _settles_finite(model, asked, point, grid, middle)
        assert certify._admits(model, asked, point) is _old_admits(model, asked, point) is True
