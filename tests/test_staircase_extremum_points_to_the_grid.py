"""An extremum over a staircase (floor/ceiling in the variable) has no closed form; the refusal names
the grid search that answers it at a point (an outside tester's finding: it named only other
commands, in model-file syntax)."""

from __future__ import annotations

ASKED = ("extremum", "mdm_2019", "S_Total_MDM", "--over", "W", "--max", "-p", "table1", "-s", "M_Read=3",
         "-s", "M_Write=0.5", "-s", "LLCMissRate=0.5", "-s", "L_NoCService=1", "-s", "L_DRAMService=1")


def test_the_refusal_names_the_grid_and_the_grid_answers(cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = cli(*ASKED)
    assert code == 2 and "search a grid of W (extremum ... --grid START:STOP:STEP" in err
    code, out, err = cli(*ASKED, "--grid", "1:64:1")
    assert code == 0, err
    # by hand (the tester's scan of (0, 64] agrees): at W = 64, 2 batches of 230 + 56*(128 + 32) cycles
    assert f"{2 * (230 + 56 * (128 + 32))}" in out and "W = 64" in out


def test_a_grids_tied_points_are_listed_not_printed_as_a_python_tuple(cli):
    # occupancy at cc_8_6, 40 registers, no shared memory: 48 active warps (the SM's maximum) for every block size whose
    # blocks fill 48 warps: 96, 128, 192, 256, 384, 512 and 768 threads (48 warps = 1536 threads a multiple of the block);
    # with a grid of one size, one point, written alone (an outside tester's finding, round 13c F10: `at blocks = (640,)`)
    code, out, err = cli("extremum", "occupancy", "active_warps_per_SM", "--preset", "cc_8_6", "--set", "regs_per_thread=40",
                         "--set", "smem_per_block=0", "--over", "threads_per_block", "--max", "--grid", "256:256")
    assert code == 0, err
    assert "  at threads_per_block = 256\n" in out and "(256,)" not in out
