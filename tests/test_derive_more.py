"""Derivation engine: identities, case selection, staircase inversion, one-sided limits across
regime switches, switching-condition boundaries, active regimes at presets, and the derive CLI."""

from __future__ import annotations

import pathlib

import pytest
import sympy

import symgpu
from conftest import read_fixture
from symgpu import cli, derive
from symgpu.derive import inequalities

EQUATIONS = pathlib.Path(symgpu.__file__).resolve().parent.parent / "equations"


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def request(model, request_id):
    return next(r for r in model.definition.derivations if r.id == request_id)


def expected(model, request_id, key="expect"):
    return model.parse(str(request(model, request_id).get(key)), key)


@pytest.fixture(scope="module")
def occ():
    return symgpu.load("occupancy")


@pytest.fixture(scope="module")
def mdm():
    return symgpu.load("mdm_2019")


@pytest.fixture(scope="module")
def volkov():
    return symgpu.load("volkov_2016")


# ------------------------------------------------------------------ inversion rules
def test_floor_of_a_over_x_at_least_k_inverts_to_x_at_most_a_over_k():
    a, x = sympy.symbols("a x", positive=True)
    k = sympy.Symbol("k", positive=True, integer=True)
    relation, steps = inequalities.invert(sympy.GreaterThan(sympy.floor(a / x), k), x, lambda e: 1 if e.is_positive else None)
    assert isinstance(relation, sympy.LessThan) and relation.lhs == x
    assert same(relation.rhs, a / k)
    assert any("floor(g) >= c" in s.justification for s in steps)


def test_ceiling_rounding_at_most_c_inverts_to_floor_of_c_over_u_times_u():
    x, u, c = sympy.symbols("x u c", positive=True)
    relation, steps = inequalities.invert(sympy.LessThan(sympy.ceiling(x / u) * u, c), x, lambda e: 1 if e.is_positive else None)
    assert isinstance(relation, sympy.LessThan)
    assert same(relation.rhs, sympy.floor(c / u) * u)
    assert any("ceiling(g) <= c" in s.justification for s in steps)


def test_floor_at_least_integer_k_inverts_to_the_argument_at_least_k():
    x = sympy.Symbol("x", positive=True)
    k = sympy.Symbol("k", positive=True, integer=True)
    relation, _ = inequalities.invert(sympy.GreaterThan(sympy.floor(x), k), x, lambda e: 1 if e.is_positive else None)
    assert isinstance(relation, sympy.GreaterThan) and same(relation.rhs, k)


# ------------------------------------------------------------------ occupancy thresholds
def test_largest_registers_for_k_blocks_is_the_declared_closed_form_with_justified_steps(occ):
    d = derive.run_request(occ, request(occ, "max_regs_for_k_blocks"))
    assert derive.expect_holds(d) is True
    assert d.steps[0].operation == "case"
    inverted = [s for s in d.steps if s.operation == "invert"]
    assert inverted and all(s.justification for s in inverted)
    assert d.unit == occ.unit_text("regs_per_thread")


def test_largest_shared_memory_for_k_blocks_matches_once_the_byte_counts_are_integers(occ):
    d = derive.run_request(occ, request(occ, "max_smem_for_k_blocks"))
    # the engine floors to a whole number of bytes; the file's expectation omits that floor,
    # which is the same only for integer allocation units and reserved bytes
    assert same(d.result, sympy.floor(expected(occ, "max_smem_for_k_blocks")))


def test_occupancy_boundaries_are_where_the_limiting_resource_switches(occ):
    for request_id in ("register_warp_boundary", "smem_register_boundary", "smem_block_boundary"):
        d = derive.run_request(occ, request(occ, request_id))
        assert isinstance(d.result, sympy.Expr) and d.result.has(sympy.floor), request_id
        assert any(s.operation == "switch condition" for s in d.steps), request_id


def test_smem_block_boundary_expectation_holds_when_counts_are_declared_integer(tmp_path):
    text = (EQUATIONS / "occupancy.toml").read_text()
    for name in ("max_blocks_per_SM", "smem_alloc_unit", "smem_reserved_per_block"):
        start = text.index(f"[symbols.{name}]")
        at = text.index("]", text.index("assumptions", start))
        text = text[:at] + ', "integer"' + text[at:]
    path = tmp_path / "occupancy.toml"
    path.write_text(text)
    model = symgpu.load(str(path))
    for request_id in ("smem_block_boundary", "max_smem_for_k_blocks"):
        assert derive.expect_holds(derive.run_request(model, request(model, request_id))) is True, request_id


def test_staircase_maximum_is_refused_with_a_reason(occ):
    with pytest.raises(symgpu.DerivationError, match="staircase"):
        derive.extremum(occ, "active_warps_per_SM", over="threads_per_block", kind="max")


def test_staircase_maximum_request_with_a_grid_is_searched_exhaustively(occ):
    d = derive.run_request(occ, request(occ, "block_size_maximising_occupancy"))
    assert d.method.startswith("exhaustive evaluation") and len(d.location) >= 1


# ------------------------------------------------------------------ active regimes
def test_tiled_matmul_on_gtx280_is_shared_memory_limited_and_the_request_says_so(occ):
    d = derive.run_request(occ, request(occ, "limiting_resource_hong_kim_tiled_mm_gtx280"))
    assert derive.expect_holds(d) is True
    assert any(s.operation == "active regime" for s in d.steps)


def test_active_regime_names_the_binding_limit_and_how_far_the_next_is(occ):
    inputs = dict(request(occ, "limiting_resource_hong_kim_tiled_mm_gtx280").get("inputs"))
    name, value, next_name, ratio = derive.active_regime(occ, "active_blocks_per_SM", "cc_1_3", **inputs)
    limits = {n: occ.evaluate(q, preset="cc_1_3", **inputs).magnitude for n, q in
              (("warp_limit", "blocks_warp_limit"), ("register_limit", "blocks_register_limit"), ("smem_limit", "blocks_smem_limit"))}
    limits["block_limit"] = occ.preset("cc_1_3")["max_blocks_per_SM"].magnitude
    ordered = sorted(limits, key=limits.get)
    assert name == ordered[0] == request(occ, "limiting_resource_hong_kim_tiled_mm_gtx280").get("expect_regime")
    assert value == pytest.approx(limits[name])
    assert next_name == ordered[1] and ratio == pytest.approx(limits[next_name] / limits[name])


def test_active_regime_of_a_piecewise_is_its_applying_case(mdm):
    values = dict(W="64 warp/SM", M_Write="0 req/warp", LLCMissRate=0.5, L_NoCService="1 cycle/req", L_DRAMService="1 cycle/req")
    threshold = mdm.evaluate("M_Read_threshold", preset="table1", W=values["W"]).magnitude
    above = derive.active_regime(mdm, "S_NoC", "table1", M_Read=f"{2 * threshold} req/warp", **values)
    below = derive.active_regime(mdm, "S_NoC", "table1", M_Read=f"{threshold / 2} req/warp", **values)
    assert above[0] == "md" and below[0] == "nmd"
    assert above[3] == pytest.approx(2.0) and below[3] == pytest.approx(2.0)


def test_maxwell_cusp_selects_the_issue_branch_because_issue_does_not_exceed_alu_plus_memory(volkov):
    d = derive.extremum(volkov, "n_needed", over="alpha", kind="max", assume=["mem_lat > alu_lat"], preset="maxwell")
    (step,) = [s for s in d.steps if s.operation == "select branch"]
    # the deciding relations: issue_thru <= alu_thru + mem_thru, given issue_thru > mem_thru (issue cannot bind at
    # alpha = 0), i.e. (issue_thru - mem_thru)*(alu_thru + mem_thru - issue_thru) >= 0 with its first factor positive;
    # each is printed with its numbers at the preset: "REL: a <= b (base units)"
    because = step.justification.split(" because ", 1)[1]
    relations = [volkov.parse(part.split(":", 1)[0], "because", boolean=True) for part in because.split(" and ")]
    issue, alu, mem = (volkov.symbols[n] for n in ("issue_thru", "alu_thru", "mem_thru"))

    def larger_side_minus_smaller(relation):
        return relation.lhs - relation.rhs if relation.rel_op in (">=", ">") else relation.rhs - relation.lhs

    gaps = {sympy.expand(larger_side_minus_smaller(r)) for r in relations}
    assert sympy.expand(alu + mem - issue) in gaps and sympy.expand(issue - mem) in gaps
    assert same(step.expression, volkov.parse("issue_thru/mem_thru - 1", "x"))


# ------------------------------------------------------------------ MDM switch
def test_S_NoC_regimes_drop_the_mixed_md_nmd_combinations(mdm):
    d = derive.regimes(mdm, "S_NoC", over="W")
    names = [r.name for r in derive.regime_list(d)]
    assert sorted(names) == ["md", "nmd"]
    assert any(s.operation == "drop degenerate" for s in d.steps)


def test_S_NoC_doubles_across_the_md_switch_by_one_sided_limits(mdm):
    d = derive.run_request(mdm, request(mdm, "S_NoC_jump"))
    assert derive.expect_holds(d) is True
    assert same(d.extra.above / d.extra.below, expected(mdm, "S_NoC_jump"))
    assert any(s.operation.endswith("select regime") for s in d.steps)


def test_S_MSHR_is_zero_below_and_one_S_Mem_above_the_switch(mdm):
    stop = ("S_Mem",)
    point = mdm.parse(request(mdm, "S_MSHR_jump").get("point"), "point")
    above = derive.limit(mdm, "S_MSHR", "W", point, direction="+", stop_at=stop)
    below = derive.limit(mdm, "S_MSHR", "W", point, direction="-", stop_at=stop)
    assert same(above.result, mdm.symbols["S_Mem"]) and below.result == 0
    assert any(s.operation == "one-sided ceiling" for s in above.steps)


def test_piecewise_boundary_is_where_the_case_condition_switches_not_where_values_meet(mdm):
    d = derive.boundary(mdm, "S_NoC", ("md", "nmd"), for_="W")
    assert same(d.result, mdm.expression("W_threshold"))


def test_substituted_case_value_gives_the_batch_form(mdm):
    d = derive.run_request(mdm, request(mdm, "batches"))
    assert derive.expect_holds(d) is True


# ------------------------------------------------------------------ identities
def test_simplify_op_proves_the_perez_piccoli_identities():
    pp = symgpu.load("perez_piccoli")
    for entry in pp.definition.derivations:
        if entry.op == "simplify":
            assert derive.expect_holds(derive.run_request(pp, entry)) is True, entry.id


def test_substitute_op_gives_hong_kim_eq4_at_mwp_equal_n():
    hk = symgpu.load("hong_kim_2009")
    d = derive.run_request(hk, request(hk, "eq4_simplify"))
    written = {hk.symbols[c.name]: sympy.Rational(c.value) for c in hk.literal_constants}  # MWP - 1: 1 warp/SM, as the file writes it
    assert same(d.result.xreplace(written), expected(hk, "eq4_simplify")) and d.extra.expectations_hold


# ------------------------------------------------------------------ CLI
MINI = read_fixture("mini_derive")


def test_derive_cli_runs_every_request_and_exits_1_when_one_fails(tmp_path, capsys):
    text = MINI.replace('variable = "nope_symbol_is_checked_at_load"', 'variable = "x"\nto = "1"\ndirection = "sideways"')
    path = tmp_path / "mini_derive.toml"
    path.write_text(text)
    code = cli.main(["derive", str(path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL wrong" in out and "ok   right" in out and "FAIL broken" in out
    assert "1 of 3 derivations ok, 2 failed" in out
