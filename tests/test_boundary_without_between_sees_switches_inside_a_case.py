"""A boundary asked without --between of a quantity defined by cases, at a point: every value where its formula changes,
the case or the binding argument of a Min/Max its value goes through, not only where the case switches (outside tester
round 13b, F8: Sim et al.'s Texec over n at fermi with alpha = 10 was "its regimes do not meet at any boundary n", though
arith_cpi = Max(18/n, 1) switches at 18); and it answers in about a minute, the regimes that hold for no n there left out
before pairing.

The expected values come from a transcription of the model's equations in exact Fractions (Volkov 2016 §7.4, Table 7.1's
fermi numbers), scanned and bisected: nothing is read from symgpu's derivation."""

from __future__ import annotations

from fractions import Fraction

import symgpu
from symgpu import derive

PEAK = Fraction(161) * 513 / (Fraction(14, 10) * 128 * 15)  # MWP_peak_bw = BW*mem_lat/(clock*bytes_per_inst*SMs)


def _key(n: Fraction, alpha: int = 10) -> tuple[bool, ...]:
    """Which case of Texec holds at ``n`` and which argument binds in each Min/Max its value goes through (fermi:
    mem_lat 513, alu_lat 18, alu_thru 1), the first of equal arguments binding. A Min met only in the case condition
    (CWP's, past n = 1 + 513/11 where MWP is Tmem's denominator) changes no formula of Texec and is not in the key."""
    latency_bound = Fraction(18) / n >= 1  # arith_cpi = Max(alu_lat/n, 1/alu_thru)
    arith_cpi = Fraction(18) / n if latency_bound else Fraction(1)
    cwp_full = 1 + 513 / ((alpha + 1) * arith_cpi)
    cwp_is_n = n <= cwp_full  # CWP = Min(n, cwp_full)
    cwp = n if cwp_is_n else cwp_full
    mwp_is_n = n <= PEAK  # MWP = Min(n, MWP_peak_bw)
    mwp = n if mwp_is_n else PEAK
    inner_is_one = 1 >= cwp - 1  # Max(1, CWP - 1)
    inner = Fraction(1) if inner_is_one else cwp - 1
    mwp_binds = mwp <= inner  # Tmem = n*mem_lat/Min(MWP, Max(1, CWP - 1))
    tmem = n * 513 / (mwp if mwp_binds else inner)
    tcomp = (alpha + 1) * n * arith_cpi
    above = cwp > mwp  # cases: Max(Tcomp, Tmem) where CWP > MWP, else Max(Tcomp, Tmem + Tcomp/n)
    tcomp_binds = tcomp >= (tmem if above else tmem + tcomp / n)
    key = [above, tcomp_binds]
    cpi_reached = tcomp_binds or not above  # Tcomp's arith_cpi, or Tcomp/n's beside Tmem
    if not tcomp_binds:
        key.append(mwp_binds)
        if mwp_binds:
            key.append(mwp_is_n)
        else:
            key.append(inner_is_one)
            if not inner_is_one:
                key.append(cwp_is_n)
                cpi_reached = cpi_reached or not cwp_is_n
    return (*key, latency_bound) if cpi_reached else tuple(key)


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


def test_texec_boundaries_without_between_are_every_change_of_its_formula_inside_and_between_its_cases():
    model = symgpu.load("prior_sim")
    derivation = derive.boundary(model, "Texec", None, for_="n", preset="fermi", values={"alpha": 10})
    found = derive.applying_boundaries(model, derivation, "fermi", {"alpha": 10})
    values = sorted(float(r.value.magnitude) for r in found)
    expected = _switches()
    assert 18.0 in expected and abs(expected[3] - float(PEAK)) < 1e-12 and len(expected) == 5  # 1, 2, 18, MWP_peak_bw, +1
    assert len(values) == len(expected)
    assert all(abs(v - e) <= 1e-9 * e for v, e in zip(values, expected))
    below, above = next(r.regime for r in found if abs(float(r.value.magnitude) - 18) < 1e-9).split("|")
    assert below.startswith("cwp_at_most_mwp") and above.startswith("cwp_at_most_mwp") and below != above


def test_texec_boundary_at_a_point_pairs_only_the_regimes_that_hold_there():
    model = symgpu.load("prior_sim")
    at_point = derive.boundary(model, "Texec", None, for_="n", preset="fermi", values={"alpha": 10})
    left_out = [s for s in at_point.steps if s.operation == "regimes not there"]
    assert len(left_out) == 1 and len(left_out[0].expression.args) > 0
    every = {r.name for r in derive.regimes(model, "Texec", over="n").regimes}
    kept = every - {str(s) for s in left_out[0].expression.args}
    assert all(set(label.split("|")) <= kept for label in at_point.result)  # no pair with a regime absent at the point
