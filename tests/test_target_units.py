"""A solve target with a unit gives the root the same quantity given as a value gives.

The evaluation reads expressions in coherent base units: a target put into the symbolic root
as a bare number in the quantity's declared unit (500 for 500 ns) was read as 500 s. Each root
here is checked independently: the quantity evaluated at the root through ``model.evaluate``
equals the target (converted by pint alone), and ``--set QUANTITY=target`` gives the same root.
"""

from __future__ import annotations

import math

import pytest

import symgpu
from symgpu import derive, units


def value_of(out: str) -> float:
    line = next(line for line in out.splitlines() if line.strip().startswith("value:"))
    return float(line.split()[1])


def root_through_cli(cli, model_id, quantity, var, preset, sets, **how) -> float:
    argv = ["solve", model_id, quantity, "--for", var, "--preset", preset]
    for name, text in sets.items():
        argv += ["--set", f"{name}={text}"]
    if "target" in how:
        argv += ["--target", how["target"]]
    else:
        argv += ["--set", f"{quantity}={how['value']}"]
    code, out, err = cli(*argv)
    assert code == 0, err
    return value_of(out)


def evaluated_at(model_id, quantity, var, root, preset, sets) -> float:
    """The quantity at the root, in its declared unit, through the evaluate path (no solving)."""
    model = symgpu.load(model_id)
    return model.evaluate(quantity, preset, values={**sets, var: root}).to(model.units[quantity]).magnitude


def test_500_ns_target_on_interval_latency_gives_the_root_the_value_route_gives(cli):
    sets = {"N": "16"}
    root = root_through_cli(cli, "interval_analysis", "L_K0_time", "M", "gtx1080", sets, target="500 ns")
    same = root_through_cli(cli, "interval_analysis", "L_K0_time", "M", "gtx1080", sets, value="500 ns")
    ia = symgpu.load("interval_analysis")
    values = ia.preset("gtx1080")
    # by hand: L_K0_time = (L_M + t_issue*(M*N + M))/phi, so M = (500 ns * phi - L_M)/(t_issue*(N + 1))
    cycles = 500e-9 * values["phi"].to("Hz").magnitude
    by_hand = (cycles - values["L_M"].to("cycle").magnitude) / (1 * (16 + 1))
    assert math.isclose(root, by_hand, rel_tol=1e-9) and math.isclose(root, same, rel_tol=1e-12)
    assert math.isclose(root, 27.35294118, rel_tol=1e-8)  # the number, which --set gives
    assert math.isclose(evaluated_at("interval_analysis", "L_K0_time", "M", root, "gtx1080", sets), 500, rel_tol=1e-9)


def test_gb_per_s_target_on_volkov_ilp_throughput_gives_the_root_the_value_route_gives(cli):
    sets = {"alpha": "0", "ilp": "1"}
    root = root_through_cli(cli, "volkov_2016_ilp", "dram_throughput_ilp", "n", "h100", sets, target="2587.5 GB/s")
    same = root_through_cli(cli, "volkov_2016_ilp", "dram_throughput_ilp", "n", "h100", sets, value="2587.5 GB/s")
    assert math.isclose(root, same, rel_tol=1e-12) and 52.2 < root < 52.3  # the 52.2, not 5.2e-8
    assert math.isclose(evaluated_at("volkov_2016_ilp", "dram_throughput_ilp", "n", root, "h100", sets), 2587.5, rel_tol=1e-9)


CASES = [  # (model, quantity [declared unit], variable, target, preset, values)
    ("interval_analysis", "L_K0_time", "M", "0.5 us", "gtx1080", {"N": "16"}),          # ns
    ("interval_analysis", "L_perthd_time", "N", "2 us", "gtx1080", {}),                # ns
    ("hong_kim_2009", "Peak_flops", "SP_cores", "0.5 TFLOP/s", "gtx280", {}),         # GFLOP/s = GHz x FLOP
    ("perez_piccoli", "B_theo", "bus_width", "100 GB/s", "gts250", {}),               # GB/s from MHz x bit
    ("prior_sim", "departure_bw_cap", "SMs", "200 GB/s", "maxwell", {"Delta": "2 cycle*SM/winst"}), # GB/s
    ("volkov_2016", "theta_loaded", "x", "500 GB/s", "maxwell", {}),                  # GB/s = GHz x B
    ("volkov_2016_ilp", "dram_throughput_ilp", "n", "2587500 MB/s", "h100", {"alpha": "0", "ilp": "1"}),  # MB/s
]


@pytest.mark.parametrize("model_id, quantity, var, target, preset, sets", CASES, ids=[f"{c[0]}:{c[1]}:{c[3]}" for c in CASES])
def test_prefixed_unit_target_root_puts_the_quantity_back_at_the_target(cli, model_id, quantity, var, target, preset, sets):
    root = root_through_cli(cli, model_id, quantity, var, preset, sets, target=target)
    model = symgpu.load(model_id)
    wanted = units.quantity(target).to(model.units[quantity]).magnitude  # pint's conversion alone
    assert math.isclose(evaluated_at(model_id, quantity, var, root, preset, sets), wanted, rel_tol=1e-9)
    assert math.isclose(root, root_through_cli(cli, model_id, quantity, var, preset, sets, value=target), rel_tol=1e-12)


@pytest.mark.parametrize("target", ["500 ns", units.quantity(0.5, "us"), 500], ids=["text", "pint", "number"])
def test_api_target_with_a_unit_as_text_pint_or_declared_number_gives_one_root(ia, target):
    derivation = ia.solve("L_K0_time", "M", target=target)
    root = derive.evaluate_result(ia, derivation, "gtx1080", N=16).magnitude
    by_value = derive.evaluate_result(ia, ia.solve("L_K0_time", "M"), "gtx1080", N=16, L_K0_time="500 ns").magnitude
    assert math.isclose(root, by_value, rel_tol=1e-12)
    assert math.isclose(ia.evaluate("L_K0_time", "gtx1080", values={"N": 16, "M": root}).to("ns").magnitude, 500, rel_tol=1e-9)


def test_api_target_in_a_unit_of_another_dimension_is_refused_naming_both(ia):
    with pytest.raises(symgpu.errors.UsageError, match=r"^target '2 GB': interval_analysis: L_K0_time = 2 GB has dimension "):
        ia.solve("L_K0_time", "M", target="2 GB")


def test_target_in_base_units_is_still_put_into_the_result():
    # Mem_L is in cycles and every symbol of its root too: the number means the same in both unit systems
    hk = symgpu.load("hong_kim_2009")
    derivation = hk.solve("Mem_L", "Mem_LD", target=500)
    assert "Mem_L" not in {s.name for s in derivation.result.free_symbols}
    assert derivation.extra.target_value is None
