"""An extremum whose regimes could meet in too many pairs is refused at once, saying what to ask
instead: Hong & Kim's ``Exec_cycles_with_synch`` over ``Active_blocks_per_SM`` (16 regimes, 118
pairs) ran past ten minutes, and an outside tester killed it at two (a hang, to a user)."""

from __future__ import annotations

import pytest

import symgpu


def test_an_extremum_with_too_many_regime_pairs_is_refused_quickly_with_what_to_do(cli) -> None:
    # Hong & Kim's Exec_cycles_with_synch over Active_blocks_per_SM: 16 regimes, 118 pairs that may meet at a cusp (over ten
    # minutes of work before; Exec_cycles_app's 7 regimes, 21 pairs, stay under the cap); the grid answers
    code, out, err = cli("extremum", "hong_kim_2009", "Exec_cycles_with_synch", "--over", "Active_blocks_per_SM", "--min")
    assert code != 0 and "value:" not in out
    assert "118 pairs" in err and "--grid" in err
    code, out, err = cli("extremum", "hong_kim_2009", "Exec_cycles_with_synch", "--over", "Active_blocks_per_SM", "--min",
                         "--preset", "table2_example", "--grid", "1:8")
    assert code == 0, err
    hk = symgpu.load("hong_kim_2009")
    by_hand = min(hk.evaluate("Exec_cycles_with_synch", "table2_example", values={"Active_blocks_per_SM": float(b)}).magnitude
                  for b in range(1, 9))
    assert f"value: {by_hand:.10g}" in out or f"{by_hand:.7g}" in out


def test_at_a_point_only_the_regimes_that_hold_there_count_towards_the_cap(cli) -> None:
    # at table2_example most of the 16 regimes hold for no block count (round 12a H2: left out at the point), and the
    # question is answered: Exec_cycles_with_synch falls towards its limit as the blocks grow: no minimum, the infimum
    code, out, err = cli("extremum", "hong_kim_2009", "Exec_cycles_with_synch", "--over", "Active_blocks_per_SM", "--min",
                         "--preset", "table2_example")
    assert code == 0, err
    assert "no minimum: the infimum" in out and "Active_blocks_per_SM -> oo" in out
    tends = float(out.split("the infimum ")[1].split(" cycle")[0])
    hk = symgpu.load("hong_kim_2009")
    by_brute_force = [hk.evaluate("Exec_cycles_with_synch", "table2_example", values={"Active_blocks_per_SM": b}).magnitude
                      for b in (1.0, 2.0, 8.0, 100.0, 1e4, 1e7)]
    assert all(a > b for a, b in zip(by_brute_force, by_brute_force[1:]))  # strictly falling
    assert by_brute_force[-1] == pytest.approx(tends, rel=1e-9) and by_brute_force[-1] > tends
