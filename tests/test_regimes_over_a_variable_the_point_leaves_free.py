"""``regimes ... --over VAR`` at a preset that gives VAR no value is the regime table along VAR there,
checked along a scan of VAR, with no value at the point (an outside tester's finding: it demanded a
value for VAR, which played no part in the table)."""

from __future__ import annotations


def test_the_table_along_alpha_at_maxwell_is_given_and_checked_without_a_value_of_alpha(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli("regimes", "volkov_2016", "n_needed", "-p", "maxwell", "--over", "alpha")
    assert code == 0, err
    # Volkov's n_needed = Latency*Min(mem_thru, alu_thru/alpha, issue_thru/(alpha + 1)): three regimes
    assert "3 regime(s):" in out
    assert all(f"  {name} " in out for name in ("memory_bound", "alu_bound", "issue_bound"))
    assert "checked numerically at preset maxwell: the regime table gives the model's value at each of" in out
    assert "value:" not in out and "active:" not in out
    # with alpha given, the regime active there and the value are shown, as before
    code, out, err = cli("regimes", "volkov_2016", "n_needed", "-p", "maxwell", "--over", "alpha", "-s", "alpha=10")
    assert code == 0, err
    assert "active: memory_bound" in out and "value:" in out
