"""A boundary asked for every pair of regimes keeps a pair's root only where both of its regimes reach it (an outside
tester's round-13 finding F1): the L2 hit rate of tests/fixtures/cache_cases.toml goes fits (footprint <= L2) -> spills
(up to 4*L2) -> streams; fits and streams never meet, yet "fits|streams at L2" was answered beside the two true
boundaries, and the certificate said the regime switches at each of 3. Expected values by hand (L2 = 40960 KiB = 40 MiB)
and the regimes on each side by Model.evaluate of the hit rate."""

from __future__ import annotations

import re
from fractions import Fraction


from conftest import FIXTURES
import symgpu

L2_MIB = Fraction(40960, 1024)  # the preset's 40960 KiB in MiB


def test_every_pair_boundary_names_only_the_cases_that_meet(cli) -> None:
    code, out, err = cli("--no-cache", "boundary", FIXTURES / "cache_cases.toml", "t", "-p", "a100", "--for", "footprint")
    assert code == 0, err
    assert "fits / streams" not in out and "fits|streams" not in out
    assert f"it switches at footprint = {float(L2_MIB):g}, {float(4 * L2_MIB):g}, the regime differing on the two sides" in out
    found = dict((k, float(v)) for v, k in re.findall(r"([0-9.]+) \((\w+\|\w+)\)", out))
    assert found == {"fits|spills": float(L2_MIB), "spills|streams": float(4 * L2_MIB)}
    # the case that holds on each side, by the evaluate path: fits | spills at L2, spills | streams at 4*L2
    model = symgpu.load(FIXTURES / "cache_cases.toml")
    h_max = 0.9

    def case(footprint: float) -> str:
        hit = model.evaluate("hit", preset="a100", footprint=footprint).magnitude
        return "fits" if hit == h_max else "streams" if hit == 0 else "spills"
    for label, at in found.items():
        assert (case(at * (1 - 1e-6)), case(at * (1 + 1e-6))) == tuple(label.split("|"))


def test_the_pair_that_never_meets_is_dropped_saying_why() -> None:
    model = symgpu.load(FIXTURES / "cache_cases.toml")
    answer = model.boundary("t", for_="footprint")
    assert set(answer.result) == {"fits|spills", "spills|streams"}
    dropped = [s for s in answer.steps if s.operation == "not neighbours"]
    assert len(dropped) == 1 and "fits and streams do not meet here" in dropped[0].justification
