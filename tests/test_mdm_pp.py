"""MDM 2019 and Perez & Piccoli model files: symbolic identities, regime boundaries, validation.

Expected results are either proven symbolically against the loaded equations, read from the
model file's own [[derivations]] / [[validation]] entries, or computed with the engine; no
published number is copied here.
"""

from __future__ import annotations

import json
import math

import pint
import pytest
import sympy
from sympy import Eq, ceiling, limit, simplify, solve

import symgpu
from symgpu.numbers import number_text
from symgpu.report import render


@pytest.fixture(scope="module")
def mdm():
    return symgpu.load("mdm_2019")


@pytest.fixture(scope="module")
def pp():
    return symgpu.load("perez_piccoli")


def same(a, b) -> bool:
    return simplify(a - b) == 0


def derivation(model, request_id):
    return next(d for d in model.definition.derivations if d.id == request_id)


def expanded(model, text: str) -> sympy.Expr:
    """Parse ``text`` with the model's symbols and expand every defined quantity in it."""
    expr = model.parse(text, "test")
    mapping = {s: model.expression(s.name) for s in expr.free_symbols if s.name in model.defining}
    return expr.xreplace(mapping)


def case_value(model, quantity: str, case_id: str) -> sympy.Expr:
    return next(c.value for c in model.equation_for(quantity).cases if c.id == case_id)


def validation_value(model, case_id: str, quantity: str) -> pint.Quantity:
    case = next(c for c in model.definition.validation if c.id == case_id)
    return symgpu.ureg.Quantity(dict(case.expect)[quantity])


def _decide(condition) -> bool:
    """Truth of a case condition whose sides differ by a quantity of known sign."""
    if condition in (sympy.true, sympy.false):
        return bool(condition)
    difference = sympy.factor(sympy.simplify(condition.gts - condition.lts))
    strict = isinstance(condition, (sympy.StrictGreaterThan, sympy.StrictLessThan))
    holds = difference.is_positive if strict else difference.is_nonnegative
    assert holds is not None, f"cannot decide {condition}"
    return holds


def _pick(*pairs):
    return next(value for value, condition in pairs if _decide(condition))


def one_sided(model, quantity: str, variable: str, point, side: str, stop_at=()):
    """Limit of ``quantity`` as ``variable`` tends to ``point`` from ``side`` ("+" or "-").

    The variable is written point*(1 + eps) (above) or point/(1 + eps) (below) with eps > 0, so
    every case condition has a definite sign; the branches are picked, then eps -> 0+.
    SymPy's own limit cannot decide multivariate Piecewise conditions.
    """
    eps = sympy.Symbol("eps", positive=True)
    approach = point * (1 + eps) if side == "+" else point / (1 + eps)
    expr = model.expression(quantity, stop_at=tuple(stop_at)).subs(model.symbols[variable], approach)
    expr = expr.replace(lambda e: isinstance(e, sympy.Piecewise), lambda e: _pick(*e.args))
    return limit(expr, eps, 0, "+")


# ============================================================================ MDM 2019
def test_mdm_validates(mdm):
    results = symgpu.validate(mdm)
    assert results and all(r.ok for r in results), [r.message for r in results if not r.ok]


def test_mdm_missing_equations_are_inputs(mdm):
    """Eqs. (1)-(3) are missing: the service latencies are inputs, never defined by a formula."""
    for name in ("L_NoCService", "L_DRAMService"):
        assert name not in mdm.defining
        assert mdm.symbol_definitions[name].role == "input"
        assert "(1)-(3)" in mdm.symbol_definitions[name].description
        assert mdm.unit_text(name) == "cycle/req"
    assert "missing" in mdm.definition.summary
    assert "(1)-(3)" in mdm.definition.summary


def test_mdm_boundary_solved_for_W_and_M_Read(mdm):
    s = mdm.symbols
    boundary = Eq(s["M_Read"] * s["W"], s["MSHRs"])
    (w_star,) = solve(boundary, s["W"])
    (m_star,) = solve(boundary, s["M_Read"])
    assert same(w_star, mdm.expression("W_threshold"))
    assert same(m_star, mdm.expression("M_Read_threshold"))
    assert same(w_star, mdm.parse(derivation(mdm, "md_boundary_W").get("expect"), "expect"))
    assert same(m_star, mdm.parse(derivation(mdm, "md_boundary_M_Read").get("expect"), "expect"))
    # the case condition of Eqs. (5) and (8) and the Min of Eq. (4) switch at the same place
    for quantity in ("S_NoC", "S_DRAM", "S_MSHR", "S_MSHR_MDM_MSHR"):
        condition = mdm.equation_for(quantity).cases[0].condition
        assert same(condition.lhs - condition.rhs, s["M_Read"] * s["W"] - s["MSHRs"])
    limiters = dict(mdm.equation_for("M_ReadConcurrent").limiters)
    assert same(limiters["nmd"] - limiters["md"], s["M_Read"] * s["W"] - s["MSHRs"])


def test_mdm_md_threshold_at_full_occupancy(mdm):
    """Table 1: with W_max warps per SM, an interval is MD above MSHRs/W_max read misses per warp."""
    preset = mdm.preset("table1")
    threshold = mdm.evaluate("M_Read_threshold", preset="table1", W=preset["W_max"])
    assert threshold.to("req/warp").magnitude == pytest.approx(
        (preset["MSHRs"] / preset["W_max"]).to("req/warp").magnitude)
    assert threshold == validation_value(mdm, "md_threshold_full_occupancy", "M_Read_threshold")


def test_mdm_regimes_of_M(mdm):
    s = mdm.symbols
    M = mdm.expression("M")
    expect = dict(derivation(mdm, "M_md_regime").get("forms"))
    md = M.subs(s["W"], 2 * s["MSHRs"] / s["M_Read"])       # well inside the MD regime
    nmd = M.subs(s["W"], s["MSHRs"] / (2 * s["M_Read"]))    # well inside the NMD regime
    assert same(md, mdm.parse(expect["md"], "expect").subs(s["W"], 2 * s["MSHRs"] / s["M_Read"]))
    assert same(nmd, mdm.parse(expect["nmd"], "expect").subs(s["W"], s["MSHRs"] / (2 * s["M_Read"])))
    # mdm19.x.M_sat: saturated M does not depend on M_Read
    md_form = mdm.parse(expect["md"], "expect")
    assert sympy.diff(md_form, s["M_Read"]) == 0
    # M is continuous across the boundary
    at = s["MSHRs"] / s["M_Read"]
    assert same(mdm.parse(expect["md"], "expect").subs(s["W"], at), mdm.parse(expect["nmd"], "expect").subs(s["W"], at))


def test_mdm_S_NoC_doubles_across_boundary(mdm):
    s = mdm.symbols
    for quantity, service in (("S_NoC", "L_NoCService"), ("S_DRAM", "L_DRAMService")):
        md, nmd = case_value(mdm, quantity, "md"), case_value(mdm, quantity, "nmd")
        assert same(md / nmd, 2)
        assert same(md, s["SMs"] * s["M"] * s[service])
    # one-sided limits of the fully expanded S_NoC (M through Eq. 4) at W* = MSHRs/M_Read
    request = derivation(mdm, "S_NoC_jump")
    w_star = mdm.parse(request.get("point"), "point")
    above = one_sided(mdm, "S_NoC", "W", w_star, "+")
    below = one_sided(mdm, "S_NoC", "W", w_star, "-")
    assert same(above / below, mdm.parse(request.get("expect"), "expect"))
    at = mdm.expression("S_NoC").subs(s["W"], w_star)
    assert not at.has(sympy.Piecewise) and same(at, below)   # the boundary itself belongs to nmd


def test_mdm_S_MSHR_batches_and_jump(mdm):
    s = mdm.symbols
    md = case_value(mdm, "S_MSHR", "md")
    assert same(case_value(mdm, "S_MSHR", "nmd"), 0)
    n_batches = mdm.expression("n_batches")
    assert same(n_batches, ceiling(s["M_Read"] * s["W"] / s["MSHRs"]))
    request = derivation(mdm, "batches")
    expect = mdm.parse(request.get("expect"), "expect").xreplace({s["n_batches"]: n_batches})
    assert same(md, expect)
    # at the boundary S_MSHR is 0; just below too; just above it, one S_Mem
    request = derivation(mdm, "S_MSHR_jump")
    w_star = mdm.parse(request.get("point"), "point")
    stop = request.get("stop_at")
    assert mdm.expression("S_MSHR", stop_at=stop).subs(s["W"], w_star) == 0
    assert one_sided(mdm, "S_MSHR", "W", w_star, "-", stop) == 0
    above = one_sided(mdm, "S_MSHR", "W", w_star, "+", stop)
    assert same(above, mdm.parse(request.get("expect"), "expect"))


def test_mdm_batches_numbers(mdm):
    """n_batches = ceiling(M_Read*W/MSHRs) and S_MSHR = (n_batches - 1)*S_Mem, by the engine."""
    values = dict(W="64 warp/SM", M_Write="0 req/warp", LLCMissRate=0.5,
                  L_NoCService="1 cycle/req", L_DRAMService="1 cycle/req")
    for m_read in (0.5, 1, 2, 2.5, 4, 5):
        v = dict(values, M_Read=f"{m_read} req/warp")
        n = mdm.evaluate("n_batches", preset="table1", **v).magnitude
        assert n == math.ceil(m_read * 64 / 128)
        s_mem = mdm.evaluate("S_Mem", preset="table1", **v).magnitude
        s_mshr = mdm.evaluate("S_MSHR", preset="table1", **v).magnitude
        assert s_mshr == pytest.approx((n - 1) * s_mem if m_read * 64 > 128 else 0.0)


def test_mdm_variants(mdm):
    s = mdm.symbols
    md_at = {s["W"]: 2 * s["MSHRs"] / s["M_Read"]}
    nmd_at = {s["W"]: s["MSHRs"] / (2 * s["M_Read"])}
    mdm_mem, plus_mem = mdm.expression("S_Mem_MDM"), mdm.expression("S_Mem_GPUMech_plus")
    # MDM and MDM-Queue share the queue model; MDM-MSHR keeps GPUMech+'s queues
    assert same(mdm.expression("S_Mem_MDM_Queue"), mdm_mem)
    assert same(mdm.expression("S_Mem_MDM_MSHR"), plus_mem)
    assert same(mdm.expression("S_MSHR_MDM"), mdm.expression("S_MSHR"))
    # for non-divergent intervals MDM's saturation model is GPUMech+'s half-wait model
    assert same(mdm_mem.subs(nmd_at), plus_mem.subs(nmd_at))
    # for divergent intervals it doubles both queueing stalls
    queue = mdm.expression("S_NoC_half") + mdm.expression("S_DRAM_half")
    assert same((mdm_mem - plus_mem).subs(md_at), queue.subs(md_at))
    # GPUMech lacks the NoC queue of GPUMech+
    assert same(plus_mem - mdm.expression("S_Mem_GPUMech"), mdm.expression("S_NoC_half"))
    # the five totals are distinct equations; GPUMech's own MSHR model stays an input
    totals = ["S_Total_GPUMech", "S_Total_GPUMech_plus", "S_Total_MDM_Queue", "S_Total_MDM_MSHR", "S_Total_MDM"]
    assert len({mdm.equation_for(t).id for t in totals}) == 5
    for name in ("S_MSHR_GPUMech", "S_MSHR_GPUMech_plus"):
        assert name not in mdm.defining
    # MDM-MSHR batching uses GPUMech+'s stall per batch, MDM uses its own
    ratio = case_value(mdm, "S_MSHR_MDM_MSHR", "md") / case_value(mdm, "S_MSHR", "md")
    assert same(ratio, s["S_Mem_GPUMech_plus"] / s["S_Mem"])


# ===================================================================== Perez & Piccoli
def test_pp_validates(pp):
    results = symgpu.validate(pp)
    assert results and all(r.ok for r in results), [r.message for r in results if not r.ok]
    errata = {r.case.id for r in results if r.status == "erratum"}
    assert {"gtx470_thread_delay", "gtx470_parallel_pipes", "gtx260_blank_T_from_W_recovery"} <= errata


@pytest.mark.parametrize("request_id", ["pipes_times_depth", "sms_times_depth", "bandwidth_from_W_T",
                                        "bandwidth_from_blocks", "bandwidth_from_waste"])
def test_pp_identities(pp, request_id):
    request = derivation(pp, request_id)
    assert request.op == "simplify"
    assert same(expanded(pp, request.get("expression")), expanded(pp, request.get("expect")))


def test_pp_identities_spelled_out(pp):
    s = pp.symbols
    e = pp.expression
    assert same(e("N_PPipe") * e("L_Pipe"), s["Cp_OneAll"] / s["Cp_OneOne"])
    assert same(e("SM_count") * e("L_Pipe"), s["Cp_AllOne"] / s["Cp_OneOne"])
    assert same(e("W_MemoryBus") * e("T_ThreadDelay") * s["GMb_OneOne"], e("B"))


@pytest.mark.parametrize("request_id, table_symbol, quantity", [
    ("GMb_AllOne_from_W", "W_MemoryBus_table", "GMb_AllOne_from_W"),
    ("GMb_AllOne_from_T", "T_ThreadDelay_table", "GMb_AllOne_from_T"),
])
def test_pp_inverse_questions(pp, request_id, table_symbol, quantity):
    request = derivation(pp, request_id)
    feature = pp.symbols[request.get("quantity")]
    variable = pp.symbols[request.get("variable")]
    (root,) = solve(Eq(feature, pp.expression(request.get("quantity"))), variable)
    assert same(root, pp.parse(request.get("expect"), "expect"))
    # the model's recovery quantity is that root with the printed feature value
    assert same(root.xreplace({feature: pp.symbols[table_symbol]}), pp.expression(quantity))


def test_pp_gtx260_blank_recoveries_agree(pp):
    assert "GMb_AllOne" not in pp.preset("gtx260")          # the blank cell stays blank
    from_w = pp.evaluate("GMb_AllOne_from_W", preset="gtx260").to("GB/s").magnitude
    from_t = pp.evaluate("GMb_AllOne_from_T", preset="gtx260").to("GB/s").magnitude
    assert from_w == pytest.approx(validation_value(pp, "gtx260_blank_GMb_AllOne_from_W", "GMb_AllOne_from_W").to("GB/s").magnitude, abs=5e-4)
    assert from_t == pytest.approx(validation_value(pp, "gtx260_blank_GMb_AllOne_from_T", "GMb_AllOne_from_T").to("GB/s").magnitude, abs=5e-4)
    # they agree within the precision of the printed W (two digits: 0.5/27)
    w_printed = pp.preset("gtx260")["W_MemoryBus_table"].magnitude
    assert abs(from_w / from_t - 1) < 0.5 / w_printed
    with pytest.raises(symgpu.EvaluationError):
        pp.evaluate("W_MemoryBus", preset="gtx260")


@pytest.mark.parametrize("preset", ["gts250", "gtx260", "gtx470"])
def test_pp_theoretical_peaks_units(pp, preset):
    """The engine's P_theo and B_theo equal an independent pint computation of the printed formulas."""
    v = pp.preset(preset)
    p_theo = (v["flop_per_cycle"] * v["shader_clock"] * v["SP_count"]).to("GFLOP/s")
    b_theo = (v["mem_clock"] * v["bus_width"] * pp.constants["transfers_per_cycle"]).to("GB/s")
    # the printed B = clock x width x 2 / 8, with clock in Hz and width as a number of bits
    printed = v["mem_clock"].to("Hz").magnitude * v["bus_width"].to("bit").magnitude * 2 / 8 / 1e9
    assert b_theo.magnitude == pytest.approx(printed, rel=1e-12)
    assert pp.evaluate("P_theo", preset=preset).to("GFLOP/s").magnitude == pytest.approx(p_theo.magnitude, rel=1e-12)
    assert pp.evaluate("B_theo", preset=preset).to("GB/s").magnitude == pytest.approx(b_theo.magnitude, rel=1e-12)


@pytest.mark.parametrize("preset", ["gts250", "gtx260", "gtx470"])
def test_pp_bandwidth_not_one_magnitude_lower(pp, preset):
    """The paper: measured bandwidth is 'one magnitude lower' than B_theo. It is not."""
    ratio = pp.evaluate("GMb_efficiency", preset=preset).to("").magnitude
    claim = validation_value(pp, f"{preset}_one_magnitude_claim", "GMb_efficiency").magnitude
    assert 0.5 < ratio < 1
    assert ratio / claim > 5          # nowhere near an order of magnitude
    cp_ratio = pp.evaluate("Cp_efficiency", preset=preset).to("").magnitude
    assert 0.9 < cp_ratio < 1


def test_pp_gtx470_printed_errata(pp):
    t = pp.evaluate("T_ThreadDelay", preset="gtx470").magnitude
    printed = validation_value(pp, "gtx470_thread_delay", "T_ThreadDelay").magnitude
    assert round(t, 2) != printed
    case = next(c for c in pp.definition.validation if c.id == "gtx470_parallel_pipes")
    n = pp.evaluate("N_PPipe", preset="gtx470").magnitude
    printed = validation_value(pp, case.id, "N_PPipe").magnitude
    assert round(n) == printed and abs(n - printed) > case.abs_tol   # rounds to it, but not to "x2.25" precision


def test_pp_report_prints_measured_peaks_next_to_theoretical_ones(pp):
    """The report's table: measured All-All values from the presets, theoretical peaks computed
    here by hand from the GPU characteristics table (flop/SP/cycle x shader clock x SPs; memory
    clock x bus bits x 2 / 8)."""
    by_hand = {   # (measured Cp, theoretical P, measured GMb, theoretical B)
        "gts250": (436.344289, 2 * 1.836 * 128, 57.312697, 1.100 * 256 * 2 / 8),
        "gtx260": (562.329588, 2 * 1.400 * 216, 104.866219, 1.150 * 448 * 2 / 8),
        "gtx470": (503.849162, 1 * 1.215 * 448, 108.394003, 1.674 * 320 * 2 / 8),
    }
    report = render.render_report(pp, formats=["json", "md", "tex"], draw_plots=False)
    table = next(t for t in json.loads(report.files["perez_piccoli.json"])["tables"] if t["id"] == "peaks_measured_vs_theoretical")
    assert [c["name"] for c in table["columns"]] == ["Cp_AllAll", "P_theo", "Cp_efficiency", "GMb_AllAll", "B_theo", "GMb_efficiency"]
    assert [r["preset"] for r in table["rows"]] == list(by_hand)
    for row in table["rows"]:
        cp, p, gmb, b = by_hand[row["preset"]]
        # the JSON holds each value as the report prints it: 6 significant digits
        assert [c["value"] for c in row["cells"]] == pytest.approx([cp, p, cp / p, gmb, b, gmb / b], rel=5e-6)
    md, tex = report.files["perez_piccoli.md"].decode(), report.files["perez_piccoli.tex"].decode()
    for preset, (cp, p, gmb, b) in by_hand.items():
        cells = [number_text(v) for v in (cp, p, cp / p, gmb, b, gmb / b)]   # 6 significant digits, as every report table
        assert f"| `{preset}` | " + " | ".join(cells) + " |" in md
        assert f"\\texttt{{{preset}}} & " + " & ".join(cells) + " \\\\" in tex
