"""A notebook user's ordinary slips get the answer or a message about their own argument, never a
model file blamed nor an option silently ignored (an outside tester's findings, round 5)."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors


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
