"""``--set`` of a quantity an equation defines replaces that equation alone; ``symgpu eval`` says so on stderr, naming
the inputs it is computed from that other equations still read at their own values (an audit's finding:
``eval hong_kim_2009 Exec_cycles_app -p table2_example -s N=5`` set N = 5 while MWP_Without_BW kept reading
Active_warps_per_SM = 20, with no word of it)."""

from __future__ import annotations

import symgpu

HONG_KIM = ("eval", "hong_kim_2009", "Exec_cycles_app", "-p", "table2_example")


def test_setting_n_names_eq20_and_the_equation_that_still_reads_active_warps(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("hong_kim_2009")
    # the claims the note makes, read from the model: Eq. (20) is N = Active_warps_per_SM, and on Exec_cycles_app's way
    # with N given only MWP_Without_BW's equation reads Active_warps_per_SM
    assert str(model.equation_for("N").rhs) == "Active_warps_per_SM"
    readers = [e.definition.defines for e in model.dependencies("Exec_cycles_app", stop_at=("N",))
               if "Active_warps_per_SM" in {s.name for s in e.rhs.free_symbols}]
    assert readers == ["MWP_Without_BW"]
    # ... at its own value: MWP_Without_BW is the same with N = 5 given as without
    alone = model.evaluate("MWP_Without_BW", "table2_example")
    assert model.evaluate("MWP_Without_BW", "table2_example", values={"N": 5}) == alone
    code, out, err = cli(*HONG_KIM, "-s", "N=5")
    assert code == 0 and out.startswith("Exec_cycles_app = ")
    assert err == ("symgpu: note: --set N replaces only equation eq20 (Eq. (20)), which computes N from Active_warps_per_SM; "
                   "other equations keep reading those at their own values: Active_warps_per_SM (read by MWP_Without_BW)\n")


def test_no_note_where_no_other_equation_reads_its_inputs_or_they_are_given_too(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("hong_kim_2009")
    # Comp_cycles' inputs are read by no other equation on the way: the given value stands for all of them
    sources = {s.name for s in model.equation_for("Comp_cycles").rhs.free_symbols}
    others = [e for e in model.dependencies("Exec_cycles_app", stop_at=("Comp_cycles",))
              if sources & {s.name for s in e.rhs.free_symbols}]
    assert others == []
    code, out, err = cli(*HONG_KIM, "-s", "Comp_cycles=500")
    assert code == 0 and err == ""
    # CWP is computed from CWP_full and N, and N is read elsewhere: given too, it is the caller's value, not named
    code, out, err = cli(*HONG_KIM, "-s", "CWP=5", "-s", "N=5")
    assert code == 0 and "--set CWP" not in err and "--set N replaces only equation eq20" in err
