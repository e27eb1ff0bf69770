"""A boundary asked without --between of a quantity defined by cases, at a point: every value where its regime, as
its regime table names it (the case and the limiters inside it), changes; not only where the case switches, and each
labelled with the regimes that hold on its two sides there (outside tester round 13b, F8: Sim et al.'s Texec over n at
fermi with alpha = 10 was "its regimes do not meet at any boundary n", though arith_cpi = Max(18/n, 1) switches at 18).

The expected values come from a transcription of the model's equations in exact Fractions (Volkov 2016 §7.4,
Table 7.1's fermi numbers), scanned and bisected: nothing is read from symgpu's derivation."""

from __future__ import annotations

from fractions import Fraction

import symgpu
from symgpu import derive


def _key(n: Fraction, alpha: int = 10) -> tuple[bool, ...]:
    """Which branch each Min/Max/case of Texec takes at ``n`` (fermi: mem_lat 513, alu_lat 18, alu_thru 1, 161 GB/s,
    1.4 GHz, 128 B, 15 SMs), the first of equal arguments binding."""
    mem_lat, alu_lat, alu_thru = 513, 18, 1
    mwp_peak_bw = Fraction(161) * mem_lat / (Fraction(14, 10) * 128 * 15)
    latency_bound = Fraction(alu_lat) / n >= Fraction(1, alu_thru)
    arith_cpi = Fraction(alu_lat) / n if latency_bound else Fraction(1, alu_thru)
    cwp_full = 1 + mem_lat / ((alpha + 1) * arith_cpi)
    cwp = min(n, cwp_full)
    mwp = min(n, mwp_peak_bw)
    inner = max(Fraction(1), cwp - 1)
    tmem = n * mem_lat / min(mwp, inner)
    tcomp = (alpha + 1) * n * arith_cpi
    above = cwp > mwp
    return (above, latency_bound, n <= cwp_full, n <= mwp_peak_bw, 1 >= cwp - 1, mwp <= inner,
            tcomp >= (tmem if above else tmem + tcomp / n))


def _switches() -> list[float]:
    """Where the key changes on (0, 64], scanned at steps of 0.01 and bisected."""
    xs = [Fraction(i, 100) for i in range(1, 6401)]
    keys = [_key(x) for x in xs]
    found = []
    for i in range(len(xs) - 1):
        if keys[i] == keys[i + 1]:
            continue
        lo, hi = xs[i], xs[i + 1]
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _key(mid) == keys[i] else (lo, mid)
        found.append(float(hi))
    return found


def test_texec_boundaries_without_between_are_every_switch_inside_and_between_its_cases():
    model = symgpu.load("prior_sim")
    found = derive.applying_boundaries(model, model.boundary("Texec", None, for_="n"), "fermi", {"alpha": 10})
    values = sorted(float(r.value.magnitude) for r in found)
    expected = _switches()
    assert 18.0 in expected and len(expected) == 6  # arith_cpi's switch at alu_lat*alu_thru is among them
    assert len(values) == len(expected)
    assert all(abs(v - e) <= 1e-9 * e for v, e in zip(values, expected))
    below, above = next(r.regime for r in found if abs(float(r.value.magnitude) - 18) < 1e-9).split("|")
    assert below.startswith("cwp_at_most_mwp+latency_bound+") and above.startswith("cwp_at_most_mwp+throughput_bound+")
