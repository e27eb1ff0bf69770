"""A bare number in a model's equation has its neighbour's dimension (equations/README.md); a derivation that puts the
sum over one denominator hides it in the fraction: Volkov's ``CWP_full_sim = mem_lat/((alpha + 1)*arithmetic_time) + 1``
(warp/SM) as ``alu_thru -> oo`` is ``(alu_lat*(alpha + 1) + mem_lat*n)/(alu_lat*(alpha + 1))``, whose unit check refused
it as dimensionally inconsistent, blaming the model (the limit and both extrema over alu_thru refused). Read as
``1 + mem_lat*n/(alu_lat*(alpha + 1))`` (polynomial division, a number left whole) it has the declared dimension."""

from __future__ import annotations

import pytest
import sympy

import symgpu
from symgpu import derive


@pytest.fixture(scope="module")
def volkov() -> symgpu.Model:
    return symgpu.load("volkov_2016")


def test_the_limit_as_throughput_grows_is_the_latency_bound_cwp(volkov: symgpu.Model) -> None:
    d = derive.limit(volkov, "CWP_full_sim", "alu_thru", to="oo")
    assert d.unit == "warp/SM"
    point = {"alpha": 4, "n": 32, "mem_lat": 500, "alu_lat": 24}
    # by hand: arithmetic_time = Max(alu_lat/n, 1/alu_thru) -> alu_lat/n, so CWP -> mem_lat*n/((alpha + 1)*alu_lat) + 1
    by_hand = 500 * 32 / (5 * 24) + 1
    written = {volkov.symbols[c.name]: sympy.Rational(c.value) for c in volkov.literal_constants}  # the + 1 is 1 winst/SM
    value = float(d.result.subs({**{volkov.symbols[k]: v for k, v in point.items()}, **written}))
    assert value == pytest.approx(by_hand, rel=1e-15)
    far = volkov.evaluate("CWP_full_sim", **point, alu_thru=1e9)  # brute force on the evaluate path
    assert float(far.magnitude) == pytest.approx(by_hand, rel=1e-12)


def test_a_fraction_whose_division_leaves_no_whole_number_is_still_refused(volkov: symgpu.Model) -> None:
    # (c + s)*c/(2*c + s), c in cycles and s in B/winst: its quotient, c/2, is no number, and no reading is consistent
    from symgpu.model import counted_dimensions
    from symgpu.units import dimensions

    cycles, size = volkov.symbols["alu_lat"], volkov.symbols["bytes_per_inst"]
    dims = {s: volkov.dimension(n) for n, s in volkov.symbols.items()}
    with pytest.raises(dimensions.Mismatch):
        counted_dimensions.reading((cycles + size) * cycles / (cycles * 2 + size), dims)
