"""A notebook user's ordinary slips get the answer or a message about their own argument, never a
model file blamed nor an option silently ignored (an outside tester's findings, round 5)."""

from __future__ import annotations

import numpy as np
import pytest

import symgpu
from symgpu import errors
from symgpu.sweep import build_plan


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_one_assumption_given_as_a_text_is_one_assumption_not_its_characters(volkov):
    # before: assume="alpha <= 40" was iterated character by character: "undeclared symbol 'l'",
    # blamed on equations/volkov_2016.toml
    as_text = volkov.extremum("n_needed", over="alpha", kind="max", assume="alpha <= 40", preset="maxwell")
    as_list = volkov.extremum("n_needed", over="alpha", kind="max", assume=["alpha <= 40"], preset="maxwell")
    assert as_text.result == as_list.result


def test_a_limit_point_that_does_not_parse_is_named_as_the_callers_not_the_model_files(volkov):
    with pytest.raises(errors.ArgumentError, match=r"limit point '100 GB/s': cannot parse") as raised:
        volkov.limit("memory_latency", var="theta", to="100 GB/s", preset="kepler")
    assert ".toml" not in str(raised.value)


def test_a_fixed_point_method_that_does_not_exist_is_refused_not_ignored(volkov):
    with pytest.raises(errors.UsageError, match="method must be 'auto'"):
        volkov.fixed_point("memory_throughput_loaded", "x", method="newton", preset="kepler", values={"n": 32, "alpha": 8})


def test_a_value_given_for_the_variable_of_a_question_is_refused_not_dropped(volkov):
    # before: solve ... --for alpha with alpha=3 given dropped the 3 and reported "no root ... with alpha = 3.0"
    with pytest.raises(errors.UsageError, match="alpha is the variable of this solve; it cannot also be given a value"):
        volkov.solve("n_needed", for_="alpha", target=20, preset="maxwell", values={"alpha": 3})


def test_eval_refuses_a_value_given_for_the_quantity_it_evaluates(cli):  # type: ignore[no-untyped-def]
    # before: eval prior_hong_kim Time -s Time=5 printed the computed Time (1280 cycles), the 5 dropped without a word
    code, out, err = cli("eval", "prior_hong_kim", "Time", "-p", "gt200", "-s", "Time=5", "-s", "n=10", "-s", "alpha=31")
    assert code == 2 and out == "" and "Time is the quantity evaluated" in err
    code, out, _ = cli("eval", "prior_hong_kim", "arithmetic_throughput", "-p", "gt200", "-s", "Time=5", "-s", "n=10", "-s", "alpha=31")
    assert code == 0 and out.startswith("arithmetic_throughput = ")  # a given intermediate quantity is still used


def test_a_domain_error_on_arrays_names_the_element_outside_the_domain(volkov):
    # theta < c = 170 GB/s at kepler: 10 and 100 are inside, 180 is not (before: "theta = 10 GB/s" was quoted)
    with pytest.raises(errors.DomainError, match=r"theta = 180 GB/s \(the first point of the arrays outside it\)"):
        volkov.evaluate("memory_latency", "kepler", theta=np.array([10.0, 100.0, 180.0]))


@pytest.mark.parametrize(("values", "said"), [
    ({"alpha": [1.0, 2.0, 3.0], "n": [10.0, 20.0]}, r"do not broadcast together \(alpha \(3,\), n \(2,\)\)"),
    ({"alpha": [], "n": 10}, "alpha is an empty array"),
    ({"alpha": 10**400, "n": 10}, r"alpha = 1000.*\(401 characters\) is not a number a double holds"),
    ({"alpha": None, "n": 10}, "alpha = None is not a number"),
])
def test_values_no_array_or_double_holds_are_an_evaluation_error_naming_them(volkov, values, said):
    given = {k: np.array(v) if isinstance(v, list) else v for k, v in values.items()}
    with pytest.raises(errors.EvaluationError, match=said):
        volkov.evaluate("memory_throughput", "maxwell", values=given)


def test_a_sweep_missing_inputs_names_only_the_quantities_that_need_them():
    # memory_throughput_ilp sweeps alone at h100; dram_throughput (the loaded-latency model) needs a, b, c
    model = symgpu.load("volkov_2016_ilp")
    build_plan(model, ["memory_throughput_ilp"], preset="h100", grid=["n=1:4"], values={"alpha": 0, "ilp": 1})
    with pytest.raises(errors.EvaluationError, match=r": dram_throughput needs a value for a, b, c "):
        build_plan(model, ["memory_throughput_ilp", "dram_throughput"], preset="h100", grid=["n=1:4"], values={"alpha": 0, "ilp": 1})


def test_a_time_target_for_a_quantity_in_cycles_is_moved_across_the_presets_clock():
    # gt200's clock is 1.296 GHz: 500 ns is 648 cycles (by hand); the command line converted it, the API refused
    model = symgpu.load("prior_hong_kim")
    in_time = model.solve("Time", for_="alpha", target="500 ns", preset="gt200", values={"n": 2})
    in_cycles = model.solve("Time", for_="alpha", target=648, preset="gt200", values={"n": 2})
    root = float(symgpu.derive.evaluate_result(model, in_time, "gt200", n=2).magnitude[0])
    assert root == pytest.approx(float(symgpu.derive.evaluate_result(model, in_cycles, "gt200", n=2).magnitude[0]), rel=1e-12)
    assert float(model.evaluate("Time", "gt200", n=2, alpha=root).magnitude) == pytest.approx(648, rel=1e-9)
    with pytest.raises(errors.UsageError, match="so the target needs a clock: give a preset with"):
        model.solve("Time", for_="alpha", target="500 ns", values={"n": 2})


def test_a_grid_with_a_fractional_step_says_why_and_what_answers_a_continuous_variable(cli):  # type: ignore[no-untyped-def]
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "n", "--max", "--grid", "1:32:0.5", "-p", "maxwell")
    assert code == 2 and out == ""
    assert "that is 1, 1.5, 2, 2.5" in err and "--grid searches whole values START:STOP[:STEP] of warp/SM (a staircase's variable)" in err
    assert "or sweep it: symgpu sweep ... -g n=1:32:0.5" in err
