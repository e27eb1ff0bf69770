"""A solve whose target names a quantity that depends on the unknown (Hong & Kim's ``--target CWP``
solved for N) is checked with the target read at each value of the unknown, not left unchecked (an
outside tester's finding: a range the model's own evaluation contradicts was printed with exit 0 and
the false reason "CWP = nan")."""

from __future__ import annotations

import symgpu

POINT = ("-p", "table2_example", "-s", "Coal_Mem_insts=6", "-s", "Uncoal_Mem_insts=0", "-s", "Mem_Bandwidth=1000e9",
         "-s", "Active_blocks_per_SM=1")


def test_a_range_the_evaluate_path_contradicts_fails_its_check(cli) -> None:  # type: ignore[no-untyped-def]
    model = symgpu.load("hong_kim_2009")
    values = {"Coal_Mem_insts": 6, "Uncoal_Mem_insts": 0, "Mem_Bandwidth": 1000e9, "Active_blocks_per_SM": 1}
    # brute force on the evaluate path: MWP = CWP at N = 3, not at N = 10 (MWP is capped at the 4 active warps)
    at = {n: (model.evaluate("MWP", "table2_example", values={**values, "N": n}).magnitude,
              model.evaluate("CWP", "table2_example", values={**values, "N": n}).magnitude) for n in (3, 10)}
    assert at[3][0] == at[3][1] and at[10][0] != at[10][1]
    code, out, err = cli("solve", "hong_kim_2009", "MWP", "--for", "N", "--target", "CWP", *POINT)
    assert code == 1 and out == ""
    assert err.startswith("symgpu: check failed: hong_kim_2009: solve of MWP over N") and "the answer says N = " in err
