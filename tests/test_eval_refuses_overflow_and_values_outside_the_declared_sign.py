"""A value at a point is never an overflow's inf (its true value is finite, beyond IEEE doubles) nor
a number its quantity's declared sign rules out: both are refused with one line (an outside
tester's findings: `inf` with exit 0 and NumPy's warning printed with the generated source, and
Hong & Kim's Exec_cycles_with_synch, declared positive, printed as -2682.5 cycles)."""

from __future__ import annotations


def test_a_negative_value_of_a_quantity_declared_positive_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    # by hand (Hong & Kim at table2_example, 8-thread blocks): N = 1.25 warps, MWP = CWP = N, so Eq. (22) gives 4517.5
    # cycles; NpWB = min(N, 0.25) = 0.25 and Eq. (26) adds 320*(0.25 - 1)*6*5 = -7200: -2682.5 cycles
    code, out, err = cli("eval", "hong_kim_2009", "Exec_cycles_with_synch", "-p", "table2_example", "-s", "Threads_per_block=8")
    assert code == 2 and out == ""
    assert "the equations give Exec_cycles_with_synch = -2682.5 cycle at these inputs, but Exec_cycles_with_synch is declared " \
           "positive" in err
    assert err.count("\n") == 1


def test_an_overflow_at_a_point_is_refused_without_numpys_warning(cli, recwarn) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("eval", "hong_kim_2009", "Exec_cycles_with_synch", "-p", "table2_example", "-s", "Synch_insts=1e308")
    assert code == 2 and out == ""
    assert "Exec_cycles_with_synch overflows IEEE doubles at these inputs" in err and "lambdifygenerated" not in err
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_an_overflow_a_min_discards_leaves_the_finite_answer(cli) -> None:  # type: ignore[no-untyped-def]
    # y = Min(a, b**2) at a = 3, b = 1e200: b**2 overflows, and the Min is 3 (a reviewer's finding: it was refused)
    code, out, err = cli("eval", "tests/fixtures/overflow_discarded.toml", "y", "--set", "a=3", "--set", "b=1e200")
    assert code == 0, err
    assert out.strip() == "y = 3"
