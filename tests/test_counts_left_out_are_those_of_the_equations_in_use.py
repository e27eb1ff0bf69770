"""Every check of an expression against a symbol's dimension leaves out the dimensions counted as pure numbers by the
equations in use, the quantity's own and every one it is defined through, never another equation's of the model
(:mod:`symgpu.model.counted_dimensions`): a derivation's substitutions and unit checks, a solve's target, a limit's point and
an assumption all read the same. A target, limit point or assumption left out every equation's counts instead, so where
any equation counted instructions (Volkov's ``n_needed``) a target in cycles times instructions for ``Latency`` (in cycles,
whose equation counts none) was taken and the solution's unit check refused the answer after, blaming the model's
equations, while the same expression given as a ``--substitute`` value was refused up front. Dimensions by hand from the
declared units (``winst`` is a warp times an instruction)."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu import errors
from symgpu.model import counted_dimensions
from tests.conftest import assert_one_line_refusal

CYCLES_TIMES_INSTRUCTIONS = "alu_lat*needed_concurrency/needed_occupancy"  # cycle * (winst/SM)/(warp/SM)


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_the_counts_are_those_the_quantitys_equations_declare(volkov: symgpu.Model) -> None:
    own = {e.defines: e.counts for e in volkov.definition.equations}
    assert own["n_needed"] == ("instruction",) and own["Latency"] == ()
    assert volkov.counted("n_needed") == {"instruction"}
    assert volkov.counted("Latency") == frozenset()  # another equation's counts are not Latency's
    assert volkov.counted("n_needed", ("n_needed",)) == {"instruction"}  # its own equation is read whatever is kept


def test_one_check_reads_an_expression_with_the_counts_it_is_given(volkov: symgpu.Model) -> None:
    concurrency = volkov.symbols["needed_concurrency"]  # winst/SM: warp/SM where instructions are counted
    assert volkov.dimension_as(concurrency, "n_needed", {"instruction"}) == volkov.uncounted_dims({"instruction"})[volkov.symbols["n"]]
    with pytest.raises(counted_dimensions.Differs) as differs:
        volkov.dimension_as(concurrency, "n_needed")
    assert (differs.value.found, differs.value.expected) == ("[instruction]*[warp]/[SM]", "[warp]/[SM]")


@pytest.mark.parametrize("question, said", [
    (("solve", "volkov_2016", "Latency", "--for", "mem_lat", "--target", CYCLES_TIMES_INSTRUCTIONS), "target"),
    (("limit", "volkov_2016", "Latency", "--var", "mem_lat", "--to", CYCLES_TIMES_INSTRUCTIONS), "limit point"),
    (("solve", "volkov_2016", "Latency", "--for", "mem_lat", "--target", "100", "--substitute",
      f"alu_lat={CYCLES_TIMES_INSTRUCTIONS}"), "substitute alu_lat"),
])
def test_an_expression_in_cycles_times_instructions_for_a_latency_is_refused_up_front(cli, question: tuple[str, ...], said: str) -> None:
    code, out, err = cli("--no-cache", *question)
    assert_one_line_refusal(code, out, err, said, "[clock]*[instruction]", "[clock]")
    assert "solution" not in err and "the model's equations" not in err  # refused as the caller's, not the answer's


def test_the_same_target_reads_alike_where_the_quantitys_equations_count_instructions(volkov: symgpu.Model) -> None:
    # n_needed counts instructions: a target in winst/SM is one in warp/SM there
    answer = volkov.solve("n_needed", for_="alpha", target="needed_concurrency")
    assert answer.result and answer.unit == volkov.unit_text("alpha")


def test_an_assumption_reads_the_counts_of_the_quantity_asked_about(volkov: symgpu.Model) -> None:
    relation = "n < insts_in_execution"  # warp/SM against winst/SM
    with pytest.raises(errors.UsageError, match="different dimensions"):
        volkov.limit("Latency", "alpha", "oo", assume=[relation])
    parsed = sympy.StrictLessThan(volkov.symbols["n"], volkov.symbols["insts_in_execution"])
    assert volkov.in_one_dimension((parsed,), volkov.counted("n_needed")) == (parsed,)
