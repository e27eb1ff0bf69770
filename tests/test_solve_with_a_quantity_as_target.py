"""A solve whose target names a model quantity (``--target warps_needed_mem``) is valued at a point
through that quantity's equation, in the roots and in their regime conditions alike (an outside
tester's finding: ``needs a value for n_cusp_alu``, exit 2, though ``eval`` gives it)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from conftest import bisect_sign_change


def _scan(preset: str, target: str) -> tuple[float, np.ndarray, np.ndarray]:
    model = symgpu.load("volkov_2016")
    alpha = np.linspace(0.0, 400.0, 400_001)
    gap = model.evaluate("n_needed", preset, values={"alpha": alpha}).magnitude - model.evaluate(target, preset).magnitude
    return float(gap.max()), alpha, gap


def test_a_reachable_quantity_as_target_gives_the_roots_a_scan_finds(cli) -> None:
    _, alpha, gap = _scan("maxwell", "warps_needed_mem")
    crossings = alpha[np.nonzero(np.sign(gap[:-1]) * np.sign(gap[1:]) < 0)[0]]
    expected = sorted([*alpha[gap == 0], *crossings])  # n_needed(0) = mem_lat*mem_thru exactly, and one crossing far out
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "warps_needed_mem", "--preset", "maxwell")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.strip().startswith("value:"))
    found = [float(part.split()[0]) for part in line.split("value:")[1].split(",")]
    assert len(found) == len(expected) == 2
    assert found == pytest.approx(expected, abs=2e-3)


@pytest.mark.parametrize("preset", ["kepler", "maxwell"])
def test_an_unreachable_quantity_as_target_has_no_root(cli, preset: str) -> None:
    # n_cusp_alu = alu_lat*alu_thru + mem_lat*mem_thru lies above n_needed's maximum at these presets
    highest, _, _ = _scan(preset, "n_cusp_alu")
    assert highest < 0
    code, out, err = cli("solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "n_cusp_alu", "--preset", preset)
    assert code == 1 and out == ""
    assert "none of the 3 root(s)" in err


def test_a_target_quantity_that_depends_on_the_unknown_is_not_valued_at_the_presets_value(cli) -> None:
    # n_cusp_alu = alu_lat*alu_thru + mem_lat*mem_thru depends on mem_lat: solved for mem_lat it has no value at the
    # point (the preset's mem_lat is not the root's); by brute force n_needed - n_cusp_alu never changes sign
    model = symgpu.load("volkov_2016")
    mem_lat = np.linspace(1.0, 3000.0, 30_001)
    gap = (model.evaluate("n_needed", "maxwell", values={"alpha": 8, "mem_lat": mem_lat}).magnitude
           - model.evaluate("n_cusp_alu", "maxwell", values={"mem_lat": mem_lat}).magnitude)
    assert np.all(gap < 0)
    code, out, _ = cli("solve", "volkov_2016", "n_needed", "--for", "mem_lat", "--target", "n_cusp_alu", "--preset", "maxwell",
                       "--set", "alpha=8")
    assert code != 0 and "value:" not in out


def test_a_quantity_target_in_a_flat_regimes_condition_is_valued_at_the_point(cli) -> None:
    # CWP = Min(CWP_full, N) solved for Comp_insts against MWP: the flat regime CWP = N holds where MWP = N, a condition
    # on the target quantity, which was evaluated without it ('needs a value for MWP', exit 2; q34g). The root by brute
    # force: CWP - MWP changes sign once over Comp_insts at table2_example (by hand 34794/41: Mem_cycles 4380 over
    # MWP - 1 = 41/32, in 4-cycle issues, less the 6 memory instructions)
    model = symgpu.load("hong_kim_2009")
    comp = np.linspace(0.0, 5000.0, 50_001)
    gap = (model.evaluate("CWP", "table2_example", values={"Comp_insts": comp}).magnitude
           - model.evaluate("MWP", "table2_example").magnitude)
    signs = np.nonzero(np.sign(gap[:-1]) * np.sign(gap[1:]) < 0)[0]
    assert len(signs) == 1
    root = bisect_sign_change(lambda c: float(model.evaluate("CWP", "table2_example", Comp_insts=c).magnitude
                                              - model.evaluate("MWP", "table2_example").magnitude),
                              float(comp[signs[0]]), float(comp[signs[0] + 1]))
    assert root == pytest.approx(34794 / 41, rel=1e-9)
    code, out, err = cli("solve", "hong_kim_2009", "CWP", "--for", "Comp_insts", "--target", "MWP", "--preset", "table2_example")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.strip().startswith("value:"))
    assert float(line.split("value:")[1].split()[0]) == pytest.approx(root, rel=1e-9)
    assert "checked numerically at preset table2_example" in out
