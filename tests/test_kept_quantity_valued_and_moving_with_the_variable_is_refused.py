"""A quantity kept as a symbol (``stop_at``, ``--keep``) and given a value, while it depends on the variable
asked about, is refused in one line: held at that value it no longer moves with the variable.

volkov_2016: Latency = mem_lat + alpha*alu_lat. ``extremum(n_needed, over=alpha, stop_at=[Latency])`` with
Latency = 374 answered "maximum 30.44 at alpha = 0, checked", but the model's maximum on Maxwell is 53.47 at
alpha = 48.14 (tester round 14a, F2). A kept quantity that does not depend on the variable keeps working.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

import symgpu
from symgpu import errors
from tests.conftest import assert_one_line_refusal

KEPT = {"stop_at": ["Latency"], "preset": "maxwell", "values": {"Latency": 374}}


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


@pytest.mark.parametrize("ask", [
    lambda m: m.extremum("n_needed", over="alpha", kind="max", **KEPT),
    lambda m: m.solve("n_needed", for_="alpha", target=40, **KEPT),
    lambda m: m.limit("n_needed", "alpha", "oo", **KEPT),
    lambda m: m.boundary("n_needed", for_="alpha", **KEPT),
    lambda m: m.regimes("n_needed", over="alpha", **KEPT),
], ids=["extremum", "solve", "limit", "boundary", "regimes"])
def test_every_operation_refuses_a_valued_kept_quantity_that_depends_on_the_variable(volkov: symgpu.Model, ask: Callable) -> None:
    with pytest.raises(errors.UsageError) as refusal:
        ask(volkov)
    text = str(refusal.value)
    assert "\n" not in text
    assert "Latency is kept" in text and "depends on alpha" in text and "do not keep Latency" in text


def test_the_command_line_keep_refuses_it_in_one_line(cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = cli("extremum", "volkov_2016", "n_needed", "--over", "alpha", "--max", "--preset", "maxwell",
                         "--keep", "Latency", "--set", "Latency=374")
    assert_one_line_refusal(code, out, err, "Latency is kept", "depends on alpha", "do not keep Latency")


def test_a_valued_kept_quantity_independent_of_the_variable_is_still_answered(volkov: symgpu.Model) -> None:
    # memory_throughput = min(n/Latency, mem_thru, ...): Latency does not depend on n; the latency/memory switch is at
    # n = Latency*mem_thru = 374 * 0.0814 (by hand)
    d = volkov.boundary("memory_throughput", ("latency_bound", "memory_bound"), for_="n", stop_at=["Latency"],
                        preset="maxwell", values={"Latency": 374, "alpha": 1})
    got = symgpu.derive.evaluate_result(volkov, d, "maxwell", Latency=374, alpha=1)
    assert got.magnitude == pytest.approx(float(374 * Fraction("0.0814")), rel=1e-12)


def test_a_kept_quantity_without_a_value_stays_a_symbol(volkov: symgpu.Model) -> None:
    d = volkov.extremum("n_needed", over="alpha", kind="max", stop_at=["Latency"])
    assert "Latency" in {s.name for s in d.result.free_symbols}
