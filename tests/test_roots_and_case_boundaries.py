"""Every root of a solve across regimes, and case boundaries where the case conditions switch
(issue 25, classes 3 and 4). Expected values come from brute force on the evaluate path (a
dense grid, then bisection) and from a hand-written if/else of Hong & Kim's Eq. (22)-(24)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import symgpu
from symgpu import cli, derive
from symgpu.evaluate import active


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.fixture(scope="module")
def hong() -> symgpu.Model:
    return symgpu.load("hong_kim_2009")


def _bisect(inside, lo: float, hi: float, steps: int = 80) -> float:
    """The point in [lo, hi] where ``inside`` (True at lo, False at hi) changes."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if inside(mid) else (lo, mid)
    return (lo + hi) / 2


# ------------------------------------------------------------------ class 3: roots in several regimes
ALPHAS = np.concatenate([np.linspace(0, 10, 2001)[:-1], np.geomspace(10, 1e5, 4000)])


def _brute_roots(model: symgpu.Model, preset: str, target: float) -> list[float]:
    """Every alpha where n_needed(alpha) = target: sign changes on a dense grid, then bisection."""
    def gap(alpha: float) -> float:
        return float(model.evaluate("n_needed", preset, values={"alpha": alpha}).magnitude) - target

    values = model.evaluate("n_needed", preset, values={"alpha": ALPHAS}).magnitude - target
    roots = []
    for i in np.nonzero(np.sign(values[:-1]) != np.sign(values[1:]))[0]:
        sign = np.sign(values[i])
        roots.append(_bisect(lambda a: np.sign(gap(a)) == sign, ALPHAS[i], ALPHAS[i + 1]))
    return roots


# (preset, target): targets between the alpha = 0 / alpha -> oo needs and the cusp maximum have two
# roots (h100: 58.0 at 0, 73.9 at the cusp, 29.6 as alpha -> oo; maxwell 30.0, 53.5, 31.2; kepler 40.3, 75.0,
# 41.8); h100 at 40 lies below the alpha = 0 need, so only the falling (issue-bound) side reaches it
@pytest.mark.parametrize("preset, target, count", [("h100", 65, 2), ("h100", 40, 1), ("maxwell", 45, 2), ("kepler", 60, 2)])
def test_solve_gives_every_root_that_a_dense_scan_finds(volkov, preset, target, count):
    expected = _brute_roots(volkov, preset, target)
    assert len(expected) == count
    d = volkov.solve("n_needed", "alpha", target=target, preset=preset)
    got = sorted(v.value for v in d.extra.values_at)
    assert got == pytest.approx(expected, rel=1e-7)
    regimes = [v.regime for v in d.extra.values_at]
    assert regimes[0] == "memory_bound" if count == 2 else "memory_bound" not in regimes


def test_several_roots_are_a_tuple_with_each_regime_and_its_conditions(volkov):
    d = volkov.solve("n_needed", "alpha", target=65)
    roots = d.extra.roots
    assert [r.regime for r in roots] == ["memory_bound", "alu_bound", "issue_bound"]
    assert list(d.result) == [r.root for r in roots]  # a Tuple in regime order, not a first-match Piecewise
    assert all(r.when is not None for r in roots)


def test_cli_prints_each_root_that_holds_at_the_preset_with_its_regime(capsys, volkov):
    expected = _brute_roots(volkov, "h100", 65)
    code = cli.main(["solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "65", "--preset", "h100", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["regimes"] == ["memory_bound", "issue_bound"]
    assert sorted(data["value"]) == pytest.approx(expected, rel=1e-7)
    code = cli.main(["solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "65", "--preset", "h100"])
    value_line = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  value:")][0]
    assert code == 0 and "(memory_bound)" in value_line and "(issue_bound)" in value_line and "alu_bound" not in value_line


def test_a_target_above_the_cusp_has_no_root_at_the_preset_and_fails(capsys, volkov):
    # h100's n_needed peaks at 73.86 (dense scan): 80 warps/SM are never needed
    assert max(volkov.evaluate("n_needed", "h100", values={"alpha": ALPHAS}).magnitude) < 80
    code = cli.main(["solve", "volkov_2016", "n_needed", "--for", "alpha", "--target", "80", "--preset", "h100"])
    captured = capsys.readouterr()
    assert code == 1 and "value:" not in captured.out and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    with pytest.raises(symgpu.DerivationError, match="no root for alpha applies at preset h100"):
        volkov.solve("n_needed", "alpha", target=80, preset="h100")


# ------------------------------------------------------------------ class 4: case boundaries
GTX280_TILED = "gtx280+tiled_matmul"
COALESCED = {"Coal_Mem_insts": 6, "Uncoal_Mem_insts": 0}


def _paper_case(comp_insts: float, blocks_per_sm: float, coal: float, uncoal: float) -> str:
    """Hong & Kim 2009 Eq. (22)-(24) as printed, written out by hand for the GTX280 (Table 3/6:
    Mem_LD 450 cycles, departure delays 40 (uncoalesced) and 4 (coalesced) cycles, 1.3 GHz,
    141.7 GB/s, 30 SMs, Issue_cycles 4) running the tiled matmul (128 threads/block, 32
    transactions per uncoalesced warp, 128 B per warp)."""
    mem_insts = coal + uncoal
    w_unc, w_coal = uncoal / mem_insts, coal / mem_insts
    mem_l = (450 + 31 * 40) * w_unc + 450 * w_coal                 # Eq. (10)-(12)
    departure = 40 * 32 * w_unc + 4 * w_coal                       # Eq. (13)
    n = blocks_per_sm * 128 / 32                                   # active warps per SM
    bw_per_warp = 1.3e9 * 128 / mem_l                              # Eq. (7)
    mwp = min(min(mem_l / departure, n), 141.7e9 / (bw_per_warp * 30), n)  # Eq. (5), (6), (16), (17)
    mem_cycles = (450 + 31 * 40) * uncoal + 450 * coal             # Eq. (18)
    comp_cycles = 4 * (comp_insts + mem_insts)                     # Eq. (19)
    cwp = min((mem_cycles + comp_cycles) / comp_cycles, n)         # Eq. (8), (9)
    if mwp == n and cwp == n:
        return "eq22"
    if cwp >= mwp or comp_cycles > mem_cycles:
        return "eq23"
    return "eq24"


def _brute_switches(model: symgpu.Model, values: dict, a: str, b: str, top: float = 2000.0) -> list[float]:
    """Comp_insts where the case of Exec_cycles_app, as evaluate decides it, goes from a to b or back."""
    def case(c: float) -> str:
        return active.active_regime(model, "Exec_cycles_app", GTX280_TILED, **values, Comp_insts=c)[0]

    grid = np.linspace(0, top, 401)
    cases = [case(c) for c in grid]
    found = []
    for i in range(len(grid) - 1):
        if {cases[i], cases[i + 1]} == {a, b}:
            first = cases[i]
            found.append(_bisect(lambda c: case(c) == first, grid[i], grid[i + 1]))
    return found


@pytest.fixture(scope="module")
def eq23_eq24(hong):
    return hong.boundary("Exec_cycles_app", ("eq23", "eq24"), for_="Comp_insts")


# Active_blocks_per_SM 4 is the issue's point (35.7 before, from equal values; 51.33 where the cases switch)
@pytest.mark.parametrize("blocks, loads", [(4, COALESCED), (5, COALESCED), (8, COALESCED), (3, COALESCED), (5, {})])
def test_case_boundary_is_where_the_case_switches_by_brute_force(hong, eq23_eq24, blocks, loads):
    values = {"Active_blocks_per_SM": blocks, **loads}
    expected = _brute_switches(hong, values, "eq23", "eq24")
    found = derive.applying_roots(hong, derive.roots_of(eq23_eq24), GTX280_TILED, values, eq23_eq24.unit)
    got = sorted(float(r.value.magnitude) for r in found if r.value.magnitude <= 2000)
    assert got == pytest.approx(expected, rel=1e-9)
    for where in got:  # the case evaluate picks differs just below and just above, as the paper's if/else says
        below, above = where * (1 - 1e-6), where * (1 + 1e-6)
        sides = [active.active_regime(hong, "Exec_cycles_app", GTX280_TILED, **values, Comp_insts=c)[0] for c in (below, above)]
        assert set(sides) == {"eq23", "eq24"}
        loads_full = {"coal": 0, "uncoal": 6, **{k.split("_")[0].lower(): v for k, v in loads.items()}}
        assert sides == [_paper_case(c, blocks, loads_full["coal"], loads_full["uncoal"]) for c in (below, above)]


def test_issue_point_switches_at_51_33_not_where_the_values_meet(hong, eq23_eq24, capsys):
    # by hand: MWP = MWP_peak_BW = 141.7e9*450/(1.3e9*128*30) = 12.7734 (< N = 16); CWP_full = MWP where
    # Comp_cycles = Mem_cycles/(MWP - 1) = 2700/11.7734 = 229.33 = 4*(Comp_insts + 6): Comp_insts = 51.33;
    # and eq24 -> eq23 again where Comp_cycles > Mem_cycles: 4*(Comp_insts + 6) = 2700, Comp_insts = 669
    mwp = 141.7e9 * 450 / (1.3e9 * 128 * 30)
    switch = 2700 / (mwp - 1) / 4 - 6
    assert _paper_case(switch - 1e-6, 4, 6, 0) == "eq23" and _paper_case(switch + 1e-6, 4, 6, 0) == "eq24"
    code = cli.main(["boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Comp_insts", "--between", "eq23", "eq24",
                     "--preset", GTX280_TILED, "--set", "Active_blocks_per_SM=4", "--set", "Coal_Mem_insts=6",
                     "--set", "Uncoal_Mem_insts=0", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and sorted(data["value"]) == pytest.approx([switch, 669], rel=1e-9)


def test_cases_that_never_switch_at_the_point_fail_instead_of_printing_a_number(capsys):
    # uncoalesced tiled matmul on the GTX280: Mem_cycles = 6*(450 + 31*40) = 10140 and MWP < 2, so Eq. (23)
    # holds for every Comp_insts up to 2000 (brute force in the test above finds no switch)
    code = cli.main(["boundary", "hong_kim_2009", "Exec_cycles_app", "--for", "Comp_insts", "--between", "eq23", "eq24",
                     "--preset", GTX280_TILED, "--set", "Active_blocks_per_SM=5"])
    captured = capsys.readouterr()
    assert code == 1 and "value:" not in captured.out and "do not meet" in captured.err
