"""A root of an equation in a variable declared integer is a root only where it is a whole number
(an outside tester's finding: Perez & Piccoli's SP_count was solved to 136.17 processors, which
`eval` then refused as not an integer)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def per_processor() -> float:
    import symgpu

    preset = symgpu.load("perez_piccoli").preset("gts250")
    # P_theo = SP_count*flop_per_cycle*shader_clock: GFLOP/s per stream processor at the GTS 250
    return preset["flop_per_cycle"].magnitude * preset["shader_clock"].to("GHz").magnitude


def test_a_non_integer_root_of_an_integer_unknown_is_no_root_and_the_error_says_why(cli, per_processor) -> None:  # type: ignore[no-untyped-def]
    assert 136 < 500 / per_processor < 137  # by hand: 500 GFLOP/s lies between 136 and 137 processors
    code, out, err = cli("solve", "perez_piccoli", "P_theo", "--for", "SP_count", "--target", "500", "-p", "gts250")
    assert code == 1 and out == ""
    assert "it is no whole number and SP_count is declared integer" in err


def test_a_whole_root_of_an_integer_unknown_is_given(cli, per_processor) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("solve", "perez_piccoli", "P_theo", "--for", "SP_count", "--target", repr(136 * per_processor), "-p", "gts250")
    assert code == 0, err
    assert "value: 136  (preset gts250)" in out
