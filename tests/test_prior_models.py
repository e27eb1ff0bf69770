"""Volkov 2016 Ch. 4/7 prior models: the symbolic results Volkov derives for them hold in the
model files, and Huang et al.'s bandwidth delay is a domain violation beyond rho = 1.

Numbers are computed with the engine or read from the files' own [[validation]] /
[[derivations]] entries, never copied here."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgpu
from symgpu import compare, validation

PRIOR = [m for m in symgpu.list_models() if m.startswith("prior_")]


def case(model, case_id):
    return next(c for c in model.definition.validation if c.id == case_id)


def request(model, request_id):
    return next(r for r in model.definition.derivations if r.id == request_id)


@pytest.mark.parametrize("model_id", PRIOR)
def test_every_prior_model_exposes_arithmetic_throughput_in_volkovs_unit(model_id):
    volkov = symgpu.load("volkov_2016")
    model = symgpu.load(model_id)
    assert "arithmetic_throughput" in model.defining
    assert model.dimension("arithmetic_throughput") == volkov.dimension("arithmetic_throughput")
    inputs = set(model.inputs("arithmetic_throughput"))
    assert {"n", "alpha"} <= inputs


@pytest.mark.parametrize("model_id", PRIOR)
def test_every_prior_model_shares_a_gpu_preset_with_volkov(model_id):
    volkov = symgpu.load("volkov_2016")
    model = symgpu.load(model_id)
    shared = [p for p in model.presets if p in volkov.presets]
    assert shared and all("n_max" in model.presets[p] for p in shared)


def test_baghsorkhi_warp_latency_simplifies_to_volkovs_max_form():
    model = symgpu.load("prior_baghsorkhi")
    full = compare.normalize(model.expression("Warp_latency"))
    simplified = compare.normalize(model.expression("Warp_latency_simplified"))
    assert sympy.simplify(full - simplified) == 0


def test_baghsorkhi_g80_form_is_max_37_x_440_minus_n_minus_2_x():
    model = symgpu.load("prior_baghsorkhi")
    g80 = {model.symbols[k]: sympy.nsimplify(v.magnitude) for k, v in model.preset("g80").items()
           if k in ("mem_lat", "issue_lat", "cyc_mem")}
    n, x = model.symbols["n"], sympy.Symbol("x", positive=True)
    # Volkov's printed constants follow from the preset: 37 = cyc_mem, 440 = mem_lat - issue_lat.
    expr = model.equations["s7_2_warp_latency_simplified"].rhs.xreplace(g80).xreplace({model.symbols["CYCcompute"]: x})
    cyc_mem, mem_lat, issue_lat = (g80[model.symbols[k]] for k in ("cyc_mem", "mem_lat", "issue_lat"))
    assert compare.normalize(expr) == compare.normalize(sympy.Max(cyc_mem, x, (mem_lat - issue_lat) - (n - 2) * x))


def test_baghsorkhi_alpha0_ipc_and_its_saturation_occupancy():
    model = symgpu.load("prior_baghsorkhi")
    ipc = model.expression("instruction_throughput").subs(model.symbols["alpha"], 0)
    values = {model.symbols[k]: sympy.nsimplify(v.magnitude) for k, v in model.preset("g80").items() if model.symbols[k] in ipc.free_symbols}
    ipc = ipc.xreplace(values)
    n = model.symbols["n"]
    saturated = sympy.solve(sympy.Eq(sympy.Max(*[a for a in (1 / ipc).args if a.has(n)]), min(a for a in (1 / ipc).args if not a.has(n))), n)
    expected = float(case(model, "s7_2_saturation_occupancy").expect[0][1].split()[0])
    assert [float(s) for s in saturated] == [pytest.approx(expected)]
    assert float(model.evaluate("n_saturation_alpha0", preset="g80").magnitude) == pytest.approx(expected)


def test_hong_kim_overestimate_is_the_fix_ratio_in_the_latency_mode():
    hk, fixed = symgpu.load("prior_hong_kim"), symgpu.load("prior_hong_kim_fixed")
    inputs = dict(case(hk, "s7_1_latency_throughput").inputs)
    ratio = hk.evaluate("arithmetic_throughput", preset="gt200", **inputs) / fixed.evaluate("arithmetic_throughput", preset="gt200", **inputs)
    assert float(ratio.magnitude) == pytest.approx(float(hk.evaluate("hk_fix_ratio", preset="gt200", alpha=inputs["alpha"]).magnitude))
    assert [r.ok for r in validation.validate(hk, ("s7_1_mwp_peak_bw", "s7_1_cwp", "s7_1_overestimate"))] == [True] * 4


def test_hong_kim_fix_changes_only_the_latency_bound_branch():
    result = compare.diff(symgpu.load("prior_hong_kim"), symgpu.load("prior_hong_kim_fixed"), "arithmetic_throughput")
    assert [c.id for c in result.changed] == ["s7_1_time"] and not result.only_a and not result.only_b
    q = result.quantity
    assert not q.identical
    assert q.branches[-1].difference == 0 and q.branches[-1].agree_when == ("always",)
    assert any(b.difference != 0 for b in q.branches[:-1])


def test_zhang_owens_min_form_equals_the_overlap_time_form():
    model = symgpu.load("prior_zhang_owens")
    a = compare.normalize(model.expression("arithmetic_throughput"))
    b = compare.normalize(model.expression("arithmetic_throughput_overlap"))
    assert sympy.simplify(a - b) == 0


def test_additive_times_equal_volkovs_latency_bound_at_small_occupancy():
    model = symgpu.load("prior_zhang_owens_additive")
    volkov = symgpu.load("volkov_2016")
    a, n = model.symbols["alpha"], model.symbols["n"]
    latency_bound = model.symbols["simd_width"] * a * n / (model.symbols["mem_lat"] + a * model.symbols["alu_lat"])
    small_n = model.expression("arithmetic_throughput").replace(
        sympy.Max, lambda *args: next(x for x in args if x.has(n)))
    assert sympy.simplify(small_n - latency_bound) == 0
    gt200 = dict(case(model, "s7_3_gt200_small_n").inputs)
    assert float(model.evaluate("arithmetic_throughput", preset="gt200", **gt200).magnitude) == pytest.approx(
        float(volkov.evaluate("arithmetic_throughput", preset="gt200", **gt200).magnitude))


def test_sim_cwp_minus_one_factor_is_n_over_n_minus_1():
    model = symgpu.load("prior_sim")
    expr = model.expression("cwp_minus_one_factor", stop_at=("CWP", "MWP"))
    m = sympy.Symbol("m", positive=True)
    n = model.symbols["n"]
    # CWP = MWP = n >= 2 (n = m + 2): the factor is n/(n - 1)
    at = expr.xreplace({model.symbols["CWP"]: n, model.symbols["MWP"]: n}).xreplace({n: m + 2})
    assert sympy.simplify(at - (m + 2) / (m + 1)) == 0
    for case_id in ("s7_4_cwp_minus_one_n2", "s7_4_cwp_minus_one_n4"):
        occupancy = dict(case(model, case_id).inputs)["n"]
        value = float(symgpu.ureg.Quantity(occupancy).magnitude) if isinstance(occupancy, str) else float(occupancy)
        inputs = dict(case(model, case_id).inputs)
        computed = float(model.evaluate("cwp_minus_one_factor", preset="fermi", **inputs).magnitude)
        assert computed == pytest.approx(value / (value - 1))


def test_sim_memory_time_solves_for_occupancy_through_its_max_one_floor():
    """Tmem = n*mem_lat/Min(MWP, Max(1, CWP - 1)): the 1 is one warp per SM, counted (as in Texec), so solving
    for n is answered, not refused because the root of the Max's 1 regime, Tmem/mem_lat, reads as dimensionless.
    By hand at Fermi, alpha = 2: Tmem = 3000 cycles only where MWP = BW*mem_lat/(SMs*bytes_per_inst*clock) = 30.7
    binds, n = 3000*BW/(SMs*bytes_per_inst*clock) = 3000*161/(15*128*1.4) = 179.6875; Tmem_cwp (Max(1, CWP)) alike."""
    model = symgpu.load("prior_sim")
    tmem, mem_lat = (model.symbols[name] for name in ("Tmem", "mem_lat"))
    assert tmem / mem_lat in {r.root for r in model.solve("Tmem", for_="n").extra.roots}  # Tmem = n*mem_lat/1
    for quantity in ("Tmem", "Tmem_cwp"):
        solved = model.solve(quantity, for_="n", target=3000, preset="fermi", values={"alpha": 2})
        assert [v.value for v in solved.extra.values_at] == [pytest.approx(179.6875, rel=1e-12)]


def test_huang_gto_limit_as_n_grows_is_L_over_L_minus_1():
    model = symgpu.load("prior_huang")
    expr = model.expression("IPC_gto_alpha_inf")
    L, k = model.symbols["alu_lat"], sympy.Symbol("k", positive=True)
    limit = compare.limit(expr.xreplace({L: 1 + k}), model.symbols["n"], sympy.oo)
    assert sympy.simplify(limit - model.expression("IPC_gto_limit").xreplace({L: 1 + k})) == 0
    assert sympy.simplify(model.expression("IPC_gto_limit") - L / (L - 1)) == 0
    assert sympy.simplify(model.parse(request(model, "gto_limit").get("expect"), "test") - L / (L - 1)) == 0


def test_huang_gto_general_formula_tends_to_its_alpha_infinity_form():
    model = symgpu.load("prior_huang")
    inputs = dict(case(model, "s7_6_gto_alpha_inf_maxwell_full").inputs)
    general = model.evaluate("IPC_gto", preset="maxwell", **inputs).magnitude
    limit = model.evaluate("IPC_gto_alpha_inf", preset="maxwell", **inputs).magnitude
    assert general == pytest.approx(limit, rel=1e-6)
    assert limit > 1  # above the 1 IPC issue peak per scheduler


def test_huang_rho_is_one_at_mem_lat_over_cores_s():
    model = symgpu.load("prior_huang")
    rho = model.expression("rho", stop_at=("s",))
    n = model.symbols["n"]
    (root,) = sympy.solve(sympy.Eq(rho, 1), n)
    sym = model.symbols
    assert sympy.simplify(root - sym["mem_lat"] / (sym["reqs_per_inst"] * sym["cores"] * sym["s"])) == 0
    assert sympy.simplify(root - model.expression("n_singular", stop_at=("s",))) == 0
    full = sympy.solve(sympy.Eq(model.expression("rho"), 1), n)[0]
    assert sympy.simplify(full - model.parse(request(model, "rho_equals_one").get("expect"), "test")) == 0


def test_huang_bandwidth_delay_beyond_rho_one_is_a_domain_error_not_a_negative_time():
    model = symgpu.load("prior_huang_bw")
    n_singular = float(model.evaluate("n_singular", preset="fermi").magnitude)
    below = model.evaluate("arithmetic_throughput", preset="fermi", n=np.floor(n_singular), alpha=32)
    assert float(below.magnitude) > 0
    with pytest.raises(symgpu.DomainError, match="rho < 1"):
        model.evaluate("arithmetic_throughput", preset="fermi", n=np.ceil(n_singular), alpha=32)
    with pytest.raises(symgpu.DomainError):
        model.evaluate("Bandwidth_delay", preset="synthetic", n="29 warp/SM")
    # the unguarded twin reproduces the negative value Volkov prints, proving the same formula
    printed = case(model, "s7_7_rho_n29")
    assert [r.ok for r in validation.run_case(model, printed)] == [True, True]
    assert float(model.evaluate("Bandwidth_delay_printed", preset="synthetic", n="29 warp/SM").magnitude) < 0


def test_hong_kim_intended_variant_differs_only_in_the_eq23_condition():
    import tomllib

    base = symgpu.load("hong_kim_2009")
    intended = symgpu.load("hong_kim_2009_intended")
    changed = [i for i in base.equations if str(base.equations[i].rhs) != str(intended.equations[i].rhs)]
    assert changed == ["eq22_24"]
    printed = [c.condition for c in base.equations["eq22_24"].cases]
    fixed = [c.condition for c in intended.equations["eq22_24"].cases]
    assert printed[0] == fixed[0] and printed[2] == fixed[2] and printed[1] != fixed[1]
    assert isinstance(printed[1], sympy.Or) and isinstance(fixed[1], sympy.And)
    assert tomllib.loads((symgpu.model.loader.ROOT / "equations" / "hong_kim_2009_intended.toml").read_text())["model"]["extends"] == "hong_kim_2009"


def test_needed_occupancy_counts_an_exact_ninety_percent_tie_lost_to_rounding():
    # Zhang & Owens on g80 at alpha >= 22.6: arithmetic_throughput = 32/max(20/n, 4) (the memory
    # term is far larger), largest 32/4 = 8 (n >= 5). At n = 4.5: 32*4.5/20 = 7.2 = 0.9*8 exactly,
    # at n = 4.25: 6.8 < 7.2, so the needed occupancy is 4.5 (the sweep's floats give 7.199999999999999).
    model = symgpu.load("prior_zhang_owens")
    needed = compare.needed_occupancy(model, "g80", compare.prior_study.ALPHAS, 48.0)
    assert needed[-1] == 4.5
    assert needed[9] == 4.5  # alpha = 2**4.5 = 22.6, the same tie


def test_needed_occupancy_decides_a_near_tie_exactly_not_by_the_tie_width():
    # 0.9000000000001*8 = 7.2000000000008 is within the tie rule's 1e-12 of 7.2, but exactly
    # above it: n = 4.5 (7.2) falls short, n = 4.75 (32*4.75/20 = 7.6) attains it.
    model = symgpu.load("prior_zhang_owens")
    needed = compare.needed_occupancy(model, "g80", compare.prior_study.ALPHAS, 48.0, fraction=0.9000000000001)
    assert needed[-1] == 4.75
