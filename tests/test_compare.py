"""symgpu diff / compare / report-comparison: symbolic diffs, sweeps, exit codes and JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import compare
from symgpu.derive import limits
from symgpu.report import comparison, figure_digests, render
from symgpu.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_normalize_moves_sums_and_positive_factors_into_max():
    x, y, z = sympy.symbols("x y z", positive=True)
    assert compare.normalize(x + sympy.Max(y, z)) == sympy.Max(x + y, x + z)
    assert compare.normalize(2 * sympy.Min(x, sympy.Min(y, z))) == sympy.Min(2 * x, 2 * y, 2 * z)
    assert compare.normalize(1 / sympy.Max(x, y)) == sympy.Min(1 / x, 1 / y)


def test_limit_through_max_picks_the_dominant_argument():
    n, k = sympy.symbols("n k", positive=True)
    L = 1 + k
    assert sympy.simplify(compare.limit(n / sympy.Max(L, (n - 1) * (1 - 1 / L) + 1), n, sympy.oo) - L / (L - 1)) == 0


def test_diff_of_a_variant_lists_the_overridden_equation_only():
    result = compare.diff(symgpu.load("prior_zhang_owens"), symgpu.load("prior_zhang_owens_additive"))
    assert [c.id for c in result.changed] == ["s7_3_throughput"]
    assert result.only_a == [] and result.only_b == [] and result.same == len(symgpu.load("prior_zhang_owens").equations) - 1


def test_diff_of_a_model_with_itself_is_identical():
    model = symgpu.load("prior_baghsorkhi")
    result = compare.diff(model, model, "arithmetic_throughput")
    assert not result.changed and result.quantity.identical and result.quantity.difference == 0


def test_diff_quantity_solves_where_two_models_agree():
    result = compare.diff_quantity(symgpu.load("prior_hong_kim"), symgpu.load("prior_hong_kim_fixed"), "arithmetic_throughput")
    first = result.branches[0]
    # HK and the fix agree in the latency mode only where instruction_time*(alpha + 1) = alu_lat*alpha
    assert any(text.startswith("alpha = ") for text in first.agree_when)
    assert result.branches[-1].agree_when == ("always",)


def _ia_variant(tmp_path, *, store_ii_2: bool):
    """interval_analysis with Theta_M declared in TB/s and P_K0 in kthread (and, where ``store_ii_2``, L_K0's stores at
    an initiation interval of 2)."""
    text = ('schema_version = 1\n[model]\nid = "ia_units"\nextends = "interval_analysis"\ntitle = "t"\nsummary = "s"\n'
            '[symbols.Theta_M]\ndescription = "d"\nunit = "TB/s"\nassumptions = ["positive"]\n'
            '[symbols.P_K0]\ndescription = "d"\nunit = "kthread"\nrole = "output"\n')
    if store_ii_2:
        text += ('[[equations]]\nid = "L_K0"\ndefines = "L_K0"\nrhs = "L_M + (M*N + 2*M)*t_issue"\n'
                 'source = { ref = "ia_notes", locator = "x" }\nvalid_when = ["N >= L_F/t_issue", "L_M >= N*t_issue/2"]\n')
    path = tmp_path / "ia_units.toml"
    path.write_text(text)
    return symgpu.load(path)


def test_diff_reads_a_symbol_declared_in_another_unit_as_the_same_amount_and_names_it(tmp_path):
    # before: Theta_M in GB/s vs TB/s and P_K0 in thread vs kthread gave "A / B = 1/1000" and a nonzero A - B for one
    # and the same bandwidth and thread count, and "40 equations identical" named no difference
    ia = symgpu.load("interval_analysis")
    result = compare.diff(ia, _ia_variant(tmp_path, store_ii_2=False), "P_K0")
    assert result.units_changed == [("Theta_M", "GB/s", "TB/s"), ("P_K0", "thread", "kthread")]
    assert result.quantity.identical and result.quantity.difference == 0 and result.quantity.ratio == 1
    assert all(not p.differs for p in result.points) and any(p.a is not None for p in result.points)
    assert "Theta_M (GB/s vs TB/s), P_K0 (thread vs kthread)" in compare.format_diff(result)
    changed = compare.diff_quantity(ia, _ia_variant(tmp_path, store_ii_2=True), "P_K0")
    s = {n: sympy.Symbol(n, positive=True) for n in ("L_M", "M", "N", "t_issue")}
    by_hand = (s["L_M"] + s["t_issue"] * (s["M"] * s["N"] + s["M"])) / (s["L_M"] + s["t_issue"] * (s["M"] * s["N"] + 2 * s["M"]))
    ratio = changed.ratio.subs({sym: sympy.Symbol(sym.name, positive=True) for sym in changed.ratio.free_symbols})
    point = {s["L_M"]: 400, s["M"]: 16, s["N"]: 16, s["t_issue"]: 1}
    assert ratio.subs(point) == by_hand.subs(point) == sympy.Rational(672, 688)


def test_diff_cli_exit_code_and_json(capsys):
    code, out, _ = run(capsys, "diff", "prior_hong_kim", "prior_hong_kim_fixed", "arithmetic_throughput", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["changed"][0]["id"] == "s7_1_time" and data["quantity"]["identical"] is False
    code, out, _ = run(capsys, "diff", "prior_hong_kim", "prior_hong_kim_fixed")
    assert code == 0 and "equations that differ:\n  s7_1_time (" in out


def test_diff_cli_rejects_a_quantity_one_model_lacks(capsys):
    code, _, err = run(capsys, "diff", "prior_hong_kim", "prior_sim", "hk_fix_ratio")
    assert code == 2 and "does not define 'hk_fix_ratio'" in err


def test_sweep_ratio_is_b_over_a_and_extremes_are_located():
    volkov, hk = symgpu.load("volkov_2016"), symgpu.load("prior_hong_kim")
    n = np.arange(1.0, 33.0)
    result = compare.sweep(volkov, hk, "arithmetic_throughput", preset="gt200", values={"alpha": 32}, over=[("n", n)])
    a = volkov.evaluate("arithmetic_throughput", preset="gt200", alpha=32, n=n).magnitude
    b = hk.evaluate("arithmetic_throughput", preset="gt200", alpha=32, n=n).magnitude
    assert np.allclose(result.ratio, b / a)
    high, where = result.extreme("max")
    assert high == pytest.approx(float(hk.evaluate("hk_fix_ratio", preset="gt200", alpha=32).magnitude))
    assert where == {"n": 1.0}


def test_an_extreme_reached_at_several_points_is_located_at_the_first_and_the_ties_counted(capsys):
    # Zhang & Owens against Volkov at GT200, alpha = 16: the ratio is one exact number on the
    # latency-bound side (n = 1..6) and exactly 1 from n = 13 on; as doubles the equal ratios differ
    # in their last bits, which must not move the reported point
    volkov, zo = symgpu.load("volkov_2016"), symgpu.load("prior_zhang_owens")
    ratio = {n: zo.evaluate("arithmetic_throughput", preset="gt200", alpha=16, n=n).magnitude
             / volkov.evaluate("arithmetic_throughput", preset="gt200", alpha=16, n=n).magnitude for n in range(1, 33)}
    top, bottom = max(ratio.values()), min(ratio.values())
    at_top = [n for n, r in ratio.items() if r == pytest.approx(top, rel=1e-9)]
    at_bottom = [n for n, r in ratio.items() if r == pytest.approx(bottom, rel=1e-9)]
    assert len(at_top) > 1 and len(at_bottom) > 1
    code, out, _ = run(capsys, "compare", "volkov_2016", "prior_zhang_owens", "arithmetic_throughput", "--preset", "gt200",
                       "--set", "alpha=16", "--over", "n=1:32:1")
    assert code == 0
    assert f"max ratio {top:.6g} at n = {at_top[0]} (the first of {len(at_top)} points with this ratio)" in out
    assert f"min ratio {bottom:.6g} at n = {at_bottom[0]} (the first of {len(at_bottom)} points with this ratio)" in out


def test_sweep_leaves_out_points_beyond_the_domain_and_counts_them():
    volkov, bw = symgpu.load("volkov_2016"), symgpu.load("prior_huang_bw")
    n = np.arange(1.0, 49.0)
    result = compare.sweep(volkov, bw, "arithmetic_throughput", preset="fermi", values={"alpha": 32}, over=[("n", n)])
    n_singular = float(bw.evaluate("n_singular", preset="fermi").magnitude)
    assert result.invalid_b == int(np.sum(n >= n_singular))
    assert np.all(np.isnan(result.b[n >= n_singular])) and np.all(np.isfinite(result.b[n < n_singular]))


def test_a_compared_grid_equals_evaluating_each_point_on_its_own():
    """A 2-D grid (through symgpu.sweep) with points outside the domain: every value (to rounding)
    and the count equal those of evaluating each point alone, a DomainError there meaning NaN."""
    bw = symgpu.load("prior_huang_bw")
    alphas, n = np.array([1.0, 4.0, 32.0, 256.0]), np.arange(1.0, 61.0, 3.0)
    grid_a, grid_n = np.meshgrid(alphas, n, indexing="ij")
    values, invalid = compare.model_sweep(bw, "arithmetic_throughput", "fermi", {}, [("alpha", alphas, bw), ("n", n, bw)])
    expected, outside = np.full(grid_a.shape, np.nan), 0
    for index in np.ndindex(grid_a.shape):
        try:
            expected[index] = bw.evaluate("arithmetic_throughput", preset="fermi", alpha=grid_a[index], n=grid_n[index]).magnitude
        except symgpu.DomainError:
            outside += 1
    assert 0 < outside < grid_a.size
    assert invalid == outside
    # NaN exactly where a point is outside; values to rounding (a scalar evaluate runs equation by
    # equation, the grid the expanded expression: the same arithmetic in another order)
    np.testing.assert_array_equal(np.isnan(values), np.isnan(expected))
    np.testing.assert_allclose(values, expected, rtol=1e-13)


def test_compare_cli_json_reports_min_max_and_domain(capsys):
    code, out, _ = run(capsys, "compare", "volkov_2016", "prior_huang_bw", "arithmetic_throughput", "--preset", "fermi",
                       "--set", "alpha=32", "--over", "n=1:48", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["ratio_is"] == "B/A" and len(data["ratio"]) == 48
    assert data["outside_domain"]["prior_huang_bw"] > 0 and data["ratio"][-1] is None
    assert data["min"]["ratio"] <= data["max"]["ratio"]


def test_compare_cli_writes_line_and_heat_map_plots(capsys, tmp_path):
    line, heat = tmp_path / "line.svg", tmp_path / "heat.svg"
    code, _, _ = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi",
                     "--set", "alpha=32", "--over", "n=1:48", "--plot", str(line))
    assert code == 0 and line.read_bytes().startswith(b"<?xml")
    code, _, _ = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi",
                     "--over", "alpha=1:64:4", "--over", "n=1:48:4", "--plot", str(heat))
    assert code == 0 and b"<svg" in heat.read_bytes()


def test_compare_cli_preset_in_one_model_only_is_a_usage_error(capsys):
    code, _, err = run(capsys, "compare", "volkov_2016", "prior_hong_kim", "arithmetic_throughput", "-p", "fermi", "--over", "n=1:8")
    assert code == 2 and "preset 'fermi'" in err and "prior_hong_kim" in err


@pytest.mark.parametrize("over", ["n=1:2:3:4", "n=5:1", "n=1:5:0", "n=a:b", "n="])
def test_compare_cli_malformed_range_is_a_usage_error(capsys, over):
    code, _, err = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi", "--over", over)
    assert code == 2 and "--over" in err


def test_compare_s_missing_value_message_names_its_own_option_over_not_sweep_s_grid(capsys):
    code, out, err = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi", "--over", "n=1:48")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "needs a value for alpha" in err and "--set alpha=... or --over alpha=START:STOP" in err and "--grid" not in err
    code, _, err = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi",
                       "--set", "alpha=32", "--over", "n=1:4", "--over", "n=2:5")
    assert code == 2 and "--grid" not in err


def test_compare_cli_unknown_set_name_is_a_usage_error(capsys):
    code, _, err = run(capsys, "compare", "volkov_2016", "prior_sim", "arithmetic_throughput", "-p", "fermi",
                       "--set", "bogus=1", "--over", "n=1:4")
    assert code == 2 and "bogus" in err


def test_report_comparison_is_deterministic_and_shows_the_missing_cusp(capsys, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for target in (first, second):
        code, _, _ = run(capsys, "report-comparison", "-o", str(target), "--models", "prior_zhang_owens")
        assert code == 0
    names = sorted(p.name for p in first.iterdir())
    assert names == ["prior_models.md", "prior_zhang_owens_error.svg", "prior_zhang_owens_needed.svg"]
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
    text = (first / "prior_models.md").read_text()
    assert "no cusp" in text and "cusp:" in text  # prior model flat, Volkov's n_needed has a cusp


def test_committed_comparison_report_matches_a_fresh_render():
    folder = render.REPORTS / "comparison"
    fresh = comparison.comparison_report(None, figures=figure_digests.Book(None))  # as report --all --force renders it
    committed = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert sorted(committed) == sorted(fresh), "reports/comparison has other files than a fresh render; rerun `symgpu report --all`"
    stale = [name for name in sorted(fresh) if committed[name] != fresh[name]]
    assert not stale, f"reports/comparison is out of date ({', '.join(stale)}); rerun `symgpu report --all` and commit reports/"


def test_limit_keeps_a_min_max_free_of_the_variable_and_rejects_a_tie():
    n = sympy.Symbol("n", positive=True)
    a, b = sympy.symbols("a b", positive=True)
    # Max(a, b) does not depend on n: it stays, and n*Max(a, b)/(n + 1) -> Max(a, b)
    assert compare.limit(n * sympy.Max(a, b) / (n + 1) + 1 / sympy.Max(1, n), n, sympy.oo) == sympy.Max(a, b)
    # n and n + sin(n)/n differ by sin(n)/n -> 0: neither is proved to be the largest, so none is guessed
    with pytest.raises(symgpu.errors.DerivationError, match="no argument of .* is proved to be the largest"):
        compare.limit(n**2 * (sympy.Max(n, n + sympy.sin(n) / n) - n), n, sympy.oo)


def test_far_branches_records_the_argument_that_wins_eventually():
    n = sympy.Symbol("n", positive=True)
    chosen = []
    expr = sympy.Min(2 * n, n + 5, evaluate=False) + sympy.Max(3, 7 - n, evaluate=False)
    sign = lambda v: 1 if (v == sympy.oo or v.is_positive) else None
    # for large n: n + 5 < 2*n and 3 > 7 - n
    assert limits.far_branches(expr, n, sympy.oo, sign, record=lambda node, c, why: chosen.append(c)) == n + 8
    assert set(chosen) == {n + 5, sympy.Integer(3)}


def test_compare_reads_its_axes_in_the_sweep_grid_syntax():
    # the list and log forms of symgpu.sweep's grid, besides START:STOP[:STEP]
    name, values = compare.parse_range("n=1,2,4")
    assert name == "n" and values.tolist() == [1.0, 2.0, 4.0]
    name, values = compare.parse_range("x=1:100:log3")
    assert name == "x" and values.tolist() == pytest.approx([1.0, 10.0, 100.0])
    name, values = compare.parse_range("alpha=0.5:2:0.5")
    assert values.tolist() == [0.5, 1.0, 1.5, 2.0]
    with pytest.raises(symgpu.errors.UsageError, match="^--over 'n=4:1'"):
        compare.parse_range("n=4:1")


def test_an_axis_one_model_lacks_leaves_its_values_constant_along_it():
    # an axis only model A declares: B's values repeat along it
    volkov, hk = symgpu.load("volkov_2016"), symgpu.load("prior_hong_kim")
    only_a = sorted(set(volkov.symbols) - set(hk.symbols))
    if not only_a:
        pytest.skip("no symbol declared by volkov_2016 alone")
    values, invalid = compare.model_sweep(hk, "arithmetic_throughput", "gt200", {"alpha": 32},
                                          [(only_a[0], np.array([1.0, 2.0, 3.0]), volkov), ("n", np.arange(1.0, 5.0), hk)])
    alone = hk.evaluate("arithmetic_throughput", preset="gt200", alpha=32, n=np.arange(1.0, 5.0)).magnitude
    assert values.shape == (3, 4) and invalid == 0
    np.testing.assert_allclose(values, np.broadcast_to(alone, (3, 4)), rtol=1e-13)


def test_compare_accepts_a_combined_preset_as_the_values_of_its_parts_in_order(capsys):
    """``a+b`` takes a's values, then b's (later values winning), as every other command reads it (an outside tester's
    finding F8: compare refused it with "exists in neither model but not in ...")."""
    volkov, hk = symgpu.load("volkov_2016"), symgpu.load("prior_hong_kim")
    n = np.arange(1.0, 9.0)
    result = compare.sweep(volkov, hk, "arithmetic_throughput", preset="g80+gt200", values={"alpha": 32}, over=[("n", n)])
    a = volkov.evaluate("arithmetic_throughput", preset="gt200", alpha=32, n=n).magnitude  # gt200 wins over g80 everywhere
    b = hk.evaluate("arithmetic_throughput", preset="gt200", alpha=32, n=n).magnitude
    assert set(volkov.preset("g80")) <= set(volkov.preset("gt200")) and set(hk.preset("g80")) <= set(hk.preset("gt200"))
    assert np.allclose(result.ratio, b / a, rtol=1e-13)
    code, out, err = run(capsys, "compare", "volkov_2016", "prior_hong_kim", "arithmetic_throughput", "-p", "g80+gt200",
                         "--set", "alpha=32", "--over", "n=1:8")
    assert code == 0 and "g80+gt200" in out, err


def test_compare_names_the_part_of_a_combined_preset_a_model_lacks(capsys):
    code, _, err = run(capsys, "compare", "volkov_2016", "prior_hong_kim", "arithmetic_throughput", "-p", "gt200+fermi", "--over", "n=1:8")
    assert code == 2 and "exists in volkov_2016 but not in prior_hong_kim: prior_hong_kim lacks 'fermi'" in err
    assert "neither" not in err
