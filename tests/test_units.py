"""symgpu's unit registry keeps GPU counts, cycles and bytes apart."""

from __future__ import annotations

import pint
import pytest

from symgpu import units

ureg = units.registry()
Q = ureg.Quantity


def test_bytes_per_second_is_not_per_second():
    assert Q("1 B/s").dimensionality != Q("1 /s").dimensionality
    with pytest.raises(pint.DimensionalityError):
        Q("1 GB/s").to("1/s")


def test_byte_is_a_base_dimension_and_bit_is_an_eighth():
    assert dict(Q("1 B").dimensionality) == {"[information]": 1}
    assert Q("8 bit").to("B").magnitude == pytest.approx(1.0)


@pytest.mark.parametrize("a, b", [("warp", "thread"), ("warp", "inst"), ("thread", "inst"), ("block", "warp"), ("SM", "scheduler"), ("txn", "req")])
def test_gpu_counts_are_distinct_dimensions(a, b):
    with pytest.raises(pint.DimensionalityError):
        Q(1, a).to(b)


def test_warp_instruction_is_not_a_lane_instruction_without_threads_per_warp():
    with pytest.raises(pint.DimensionalityError):
        Q("1 winst").to("tinst")
    assert (Q("1 winst") * Q("32 thread/warp")).to("tinst").magnitude == pytest.approx(32)


def test_cycle_is_not_an_angle():
    cycle = Q("1 cycle")
    assert dict(cycle.dimensionality) == {"[clock]": 1}
    with pytest.raises(pint.DimensionalityError):
        cycle.to("dimensionless")
    assert Q("1 cycle/s").to("Hz").magnitude == pytest.approx(1.0)


def test_cycles_become_seconds_only_through_a_clock():
    with pytest.raises(pint.DimensionalityError):
        Q("672 cycle").to("ns")
    assert (Q("672 cycle") / Q("1.73 GHz")).to("ns").magnitude == pytest.approx(672 / 1.73)


def test_bandwidth_times_cycles_over_bytes_is_not_a_thread_count_until_divided_by_a_clock():
    raw = Q("320.3 GB/s") * Q("672 cycle") / Q("128 B/thread")
    with pytest.raises(pint.DimensionalityError):
        raw.to("thread")
    threads = (raw / Q("1.73 GHz")).to("thread")
    assert threads.magnitude == pytest.approx(320.3e9 * 672 / (128 * 1.73e9))


def test_redefinition_raises():
    with pytest.raises(pint.errors.RedefinitionError):
        ureg.define("warp = [something_else]")


def test_units_are_not_pint_defaults():
    with pytest.raises(pint.errors.UndefinedUnitError):
        Q("1 radian")


def test_format_dimension_orders_numerator_and_denominator():
    dim = (Q("1 GB/s") * Q("1 cycle") / Q("1 B/thread")).dimensionality
    assert units.format_dimension(dim) == "[clock]*[thread]/[time]"
    assert units.format_dimension(Q("1 B/(cycle*SM)").dimensionality) == "[information]/([SM]*[clock])"


def test_unknown_unit_is_a_clear_error():
    with pytest.raises(ValueError, match=r"^unknown unit 'GBs'"):
        units.unit("GBs")


def test_named_barriers_are_their_own_dimension():
    assert Q("3 barrier/block").to("barrier/block").magnitude == 3
    for other in ("1/block", "reg/block", "thread/block"):
        with pytest.raises(pint.DimensionalityError):
            Q("3 barrier/block").to(other)


def test_registers_are_their_own_dimension():
    with pytest.raises(pint.DimensionalityError):
        Q("64 reg").to("B")
    with pytest.raises(pint.DimensionalityError):
        Q("64 reg/thread").to("1/thread")
