"""``regimes`` at a point evaluates the quantity first only to refuse a point outside a ``valid_when`` domain
(:func:`symgpu.derive.at_point.refuse_outside_domain`); where no equation on the way to the quantity has such a
condition (:func:`symgpu.derive.at_point.has_domain` False) it evaluates nothing, since ``evaluate`` raises
``DomainError`` only for a failed ``valid_when`` condition.

Proved here by brute force against the evaluation it skips: for every quantity of the occupancy calculator (no
``valid_when`` anywhere) and of Volkov's and Hong & Kim's models whose chain has none, at every preset of the model,
``evaluate`` raises no ``DomainError``; where a chain has one, ``has_domain`` says so, also with the quantities
the values give taken as given (the chain ``evaluate`` reads), and a point outside it is still refused."""

from __future__ import annotations

import pytest

import symgpu
from symgpu import errors
from symgpu.derive import at_point
from symgpu.evaluate import evaluator


def _chain_has_valid_when(model: symgpu.Model, quantity: str, given: frozenset[str]) -> bool:
    """Walked here by hand: the quantity's equation and, through the defined symbols of each right-hand side (those
    not given), every equation it is computed from."""
    seen, todo, found = set(), [quantity], False
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        equation = model.equation_for(name)
        found |= bool(equation.valid_when)
        todo += [s.name for s in equation.rhs.free_symbols if s.name in model.defining and s.name not in given]
    return found


@pytest.mark.parametrize("model_id", ["occupancy", "volkov_2016", "hong_kim_2009"])
def test_no_domain_on_the_way_means_no_domain_error_at_any_preset(model_id: str) -> None:
    model = symgpu.load(model_id)
    checked = 0
    for quantity in model.quantities:
        has = at_point.has_domain(model, quantity, {})
        assert has == _chain_has_valid_when(model, quantity, frozenset())
        if has:
            continue
        for preset in model.presets:
            try:
                evaluator.evaluate(model, quantity, preset=preset)
            except errors.DomainError as exc:  # what the skipped evaluation would have refused
                pytest.fail(f"{model_id} {quantity} at {preset}: DomainError with no valid_when on the way: {exc}")
            except (errors.SymgpuError, ValueError, ArithmeticError):
                pass  # no value there for another reason: refuse_outside_domain lets these pass too
            checked += 1
    assert checked > 0
    if model_id == "occupancy":
        assert not any(at_point.has_domain(model, q, {}) for q in model.quantities)  # the model has no valid_when at all


def test_a_chain_with_a_domain_is_read_with_the_given_quantities_taken_as_given() -> None:
    model = symgpu.load("volkov_2016")
    with_domain = [q for q in model.quantities if at_point.has_domain(model, q, {})]
    assert "Latency_loaded" in with_domain
    for quantity in with_domain:
        for given in sorted({s.name for s in model.equation_for(quantity).rhs.free_symbols if s.name in model.defining}):
            values = {given: 1}
            assert at_point.has_domain(model, quantity, values) == _chain_has_valid_when(model, quantity, frozenset(values))


def test_occupancy_regimes_at_a_point_answer_as_with_the_evaluation() -> None:
    model = symgpu.load("occupancy")
    values = {"threads_per_block": 256, "regs_per_thread": 40, "smem_per_block": "3073 B/block"}
    answer = model.regimes("active_blocks_per_SM", preset="cc_3_5", values=values)
    expected = evaluator.evaluate(model, "active_blocks_per_SM", preset="cc_3_5", values=values)  # what was evaluated first
    assert answer.extra.value_at == float(expected.magnitude)
    assert answer.extra.active_regimes


def test_a_point_outside_a_domain_on_the_way_is_still_refused() -> None:
    model = symgpu.load("volkov_2016")
    with pytest.raises(errors.DerivationError, match="no regime of Latency_loaded applies.*theta_loaded < c"):
        model.regimes("Latency_loaded", preset="g80", values={"alpha": 2, "x": 0.03})
