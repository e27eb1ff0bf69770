"""``symgpu eval`` prints no rounding residue as if its digits were known: where the IEEE value of a scalar is off
from its exact value (the inputs as the decimals given) by more than ``exact_digits.RELATIVE``, as when nearly
equal terms cancel, the exact value is shown and the IEEE digits are named on stderr; every other value keeps
its IEEE digits."""

from __future__ import annotations

import json
from fractions import Fraction

import sympy

import symgpu
from symgpu.evaluate import evaluator, exact_digits

VOLKOV_MAXWELL = {"mem_lat": Fraction(368), "alu_lat": Fraction(6), "alu_thru": Fraction(4)}  # equations/volkov_2016.toml [presets.maxwell]


def exposed_latency_by_hand(alpha: str, n: str) -> Fraction:
    """s4_10_exposed_latency, mem_lat - (n - 1 warp)*(alpha + 1)*arithmetic_time, arithmetic_time = max(alu_lat/n,
    1/alu_thru) (s4_10_arithmetic_time), in Fraction arithmetic from the decimals given."""
    a, w = Fraction(alpha), Fraction(n)
    arithmetic_time = max(VOLKOV_MAXWELL["alu_lat"] / w, 1 / VOLKOV_MAXWELL["alu_thru"])
    return VOLKOV_MAXWELL["mem_lat"] - (w - 1) * (a + 1) * arithmetic_time


def test_a_difference_of_nearly_equal_terms_is_printed_as_its_exact_value_with_a_note(cli):
    expected = exposed_latency_by_hand("0.1", "1339.1818181818182")
    assert expected == Fraction(-5, 10**15)
    ieee = float(symgpu.load("volkov_2016").evaluate("exposed_latency", "maxwell", values={"alpha": "0.1", "n": "1339.1818181818182"}).magnitude)
    assert abs(ieee - float(expected)) > 10 * abs(float(expected))  # IEEE's digits are noise here (-5.68e-14)
    code, out, err = cli("eval", "volkov_2016", "exposed_latency", "-p", "maxwell", "-s", "alpha=0.1", "-s", "n=1339.1818181818182")
    assert code == 0 and out == f"exposed_latency = {float(expected):.10g} cycle\n"
    assert err.startswith("symgpu: note: exposed_latency = -5e-15 cycle in exact arithmetic") and "IEEE doubles gave" in err
    code, out, _ = cli("eval", "volkov_2016", "exposed_latency", "-p", "maxwell", "-s", "alpha=0.1", "-s", "n=1339.1818181818182", "--json")
    assert code == 0 and json.loads(out)["value"] == float(expected)


def test_a_value_without_cancellation_keeps_its_ieee_digits_and_says_nothing(cli):
    model = symgpu.load("volkov_2016")
    ieee = float(model.evaluate("exposed_latency", "maxwell", values={"alpha": "0.1", "n": "100"}).magnitude)
    assert abs(ieee - float(exposed_latency_by_hand("0.1", "100"))) <= 1e-12 * abs(ieee)
    code, out, err = cli("eval", "volkov_2016", "exposed_latency", "-p", "maxwell", "-s", "alpha=0.1", "-s", "n=100", "--json")
    assert code == 0 and json.loads(out)["value"] == ieee and err == ""


def test_the_exact_value_is_the_equations_value_in_fraction_arithmetic():
    model = symgpu.load("volkov_2016")
    for n in ("100", "1339.1818181818182", "3.7"):
        got = exact_digits.exact_value(model, "exposed_latency", preset="maxwell", values={"alpha": "0.1", "n": n})
        assert got == exposed_latency_by_hand("0.1", n)


def test_the_exact_value_equation_by_equation_is_sympys_exact_value_and_corrects_no_preset_value():
    """The second path: :func:`evaluator.exact` (SymPy rationals on the expanded expression) gives the same number for
    every quantity at every preset of two models, and no IEEE value there is off by more than RELATIVE."""
    compared = 0
    for model_id in ("volkov_2016", "hong_kim_2009"):
        model = symgpu.load(model_id)
        for preset in model.presets:
            for quantity in model.defining:
                try:
                    ieee = float(model.evaluate(quantity, preset).magnitude)
                    reference = evaluator.exact(model, quantity, preset=preset)
                except symgpu.SymgpuError:
                    continue  # an input the preset lacks, or outside a domain: no value to compare
                mine = exact_digits.exact_value(model, quantity, preset=preset, values={})
                if not reference.is_Rational or mine is None:
                    continue
                assert sympy.Rational(mine.numerator, mine.denominator) == reference, (model_id, preset, quantity)
                assert not exact_digits.checked(model, quantity, ieee, preset=preset, values={}).corrected, (model_id, preset, quantity)
                compared += 1
    assert compared > 300
