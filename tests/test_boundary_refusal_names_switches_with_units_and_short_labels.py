"""A boundary refusal that names what does switch there gives the value with its unit and each unnamed argument shortened
(Hong & Kim's MWP between warp_bound and bandwidth_bound over Mem_Bandwidth at table2_example: "Mem_Bandwidth =
6400000000" with no unit, beside two 300-character expressions; a newcomer's question, round 34g).

Expected by a second path on ``Model.evaluate``: MWP_peak_BW is proportional to Mem_Bandwidth, so the switch to the
departure bound is where MWP_peak_BW(B) = MWP_Without_BW: B = MWP_Without_BW / MWP_peak_BW(1 B/s) (6.4e9 B/s by hand:
2.28125*16*1e9*128/730).
"""

from __future__ import annotations

import re

import pytest

import symgpu


def test_the_refusal_gives_the_switch_with_its_unit_and_folds_expressions(cli) -> None:  # type: ignore[no-untyped-def]
    hk = symgpu.load("hong_kim_2009")
    without = float(hk.evaluate("MWP_Without_BW", "table2_example").magnitude)
    per_byte = float(hk.evaluate("MWP_peak_BW", "table2_example", Mem_Bandwidth="1 B/s").magnitude)
    expected = without / per_byte
    code, _, err = cli("boundary", "hong_kim_2009", "MWP", "--between", "warp_bound", "bandwidth_bound", "--for", "Mem_Bandwidth",
                       "-p", "table2_example")
    assert code == 1
    found = re.search(r"at Mem_Bandwidth = ([0-9.e+]+) B ?/ ?s the regime switches from", err)
    assert found, err
    assert float(found.group(1)) == pytest.approx(expected, rel=1e-9) == 6.4e9
    assert "(an unnamed argument; --full shows it)" in err
    assert len(err) < 700 and "Departure_del_uncoal*(Uncoal_per_mw" not in err
