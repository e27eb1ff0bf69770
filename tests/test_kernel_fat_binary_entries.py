"""A fat binary's compiler output (one ``Compiling entry function ... for 'sm_XY'`` block per kernel and target):
``symgpu kernel`` reads the entry whose machine code runs on ``--cc``, as the CUDA driver picks it.

Outside tester, round 13a, F1: the first target's entry was read whatever ``--cc`` said (sm_80's 64 registers
answered for cc_9_0, whose sm_90 entry has 72), and ``--launches`` said nothing at all.
The expected occupancy is the CUDA occupancy calculator's arithmetic written out here (cuda_occupancy.h).
"""

from __future__ import annotations

import csv
import json
import math

import pytest

from symgpu import cli
from symgpu.kernel import resources, targets

MANGLED = "_Z7stencilPKfPfi"
#: per target: registers per thread (the same kernel; static shared memory 2048 B, one barrier)
REGISTERS = {"sm_80": 64, "sm_86": 40, "sm_90": 72}
SMEM = 2048
#: compute capability -> (max warps/SM, max blocks/SM, registers/SM, shared memory/SM in B, reserved shared memory/block in B)
DEVICE = {"cc_9_0": (64, 32, 65536, 233472, 1024), "cc_8_0": (64, 32, 65536, 167936, 1024),
          "cc_8_6": (48, 16, 65536, 102400, 1024), "cc_8_9": (48, 24, 65536, 102400, 1024)}


def hand_occupancy(cc: str, registers: int, threads: int, smem: int) -> tuple[int, int]:
    """Active blocks and warps per SM by cuda_occupancy.h's rules (4 sub-partitions, 256-register warp allocation,
    128 B shared-memory granularity plus the reserved 1 KiB per block)."""
    max_warps, max_blocks, regs_per_sm, smem_per_sm, reserved = DEVICE[cc]
    warps = math.ceil(threads / 32)
    by_warps = min(max_blocks, max_warps // warps)
    per_warp = math.ceil(registers * 32 / 256) * 256
    by_registers = (regs_per_sm // 4 // per_warp) * 4 // warps
    by_smem = smem_per_sm // (math.ceil(smem / 128) * 128 + reserved)
    blocks = min(by_warps, by_registers, by_smem)
    return blocks, blocks * warps


def fat_output(archs: list[str]) -> str:
    blocks = []
    for arch in archs:
        blocks.append(f"ptxas info    : 0 bytes gmem\n"
                      f"ptxas info    : Compiling entry function '{MANGLED}' for '{arch}'\n"
                      f"ptxas info    : Function properties for {MANGLED}\n"
                      f"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                      f"ptxas info    : Used {REGISTERS[arch]} registers, used 1 barriers, {SMEM} bytes smem, 380 bytes cmem[0]\n"
                      f"ptxas info    : Compile time = 2.000 ms\n")
    return "".join(blocks)


@pytest.mark.parametrize(("archs", "cc", "chosen"), [
    (["sm_80", "sm_90"], "cc_9_0", "sm_90"),   # the tester's file: the second block is the one for cc_9_0
    (["sm_90", "sm_80"], "cc_8_0", "sm_80"),   # and the reverse order
    (["sm_80", "sm_86"], "cc_8_6", "sm_86"),   # the device's own target before one that also runs there
    (["sm_80", "sm_90", "sm_86"], "cc_8_9", "sm_86"),  # none built for 8.9: the highest minor of major 8 (the driver's pick)
    (["sm_86", "sm_80"], "cc_8_0", "sm_80"),   # sm_86 code does not run on 8.0
])
def test_the_entry_compiled_for_the_devices_architecture_is_answered(tmp_path, capsys, archs, cc, chosen):
    usage = tmp_path / "fat.txt"
    usage.write_text(fat_output(archs))
    blocks, warps = hand_occupancy(cc, REGISTERS[chosen], 256, SMEM)
    code = cli.main(["kernel", str(usage), "--kernel", "stencil", "--threads", "256", "--cc", cc])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""  # the entry runs on the device: nothing to recompile
    assert f"({chosen})" in out.splitlines()[0] and f"{REGISTERS[chosen]} reg/thread" in out
    assert f"active blocks per SM: {blocks}; active warps per SM: {warps} of {DEVICE[cc][0]}" in out

    launches = tmp_path / "launches.csv"
    launches.write_text("kernel,threads,dynamic_smem\nstencil,256,0\n")
    code = cli.main(["kernel", str(usage), "--launches", str(launches), "--cc", cc, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (row,) = json.loads(out)
    assert (row["registers"], row["active_blocks"], row["active_warps"], row["note"]) == (REGISTERS[chosen], blocks, warps, "")


def test_the_tester_case_gives_cudas_37_5_percent_on_cc_9_0(tmp_path, capsys):
    # the round's own numbers: 72 registers x 32 = 2304 per warp, 7 warps per sub-partition, 28 per SM, 3 blocks of 8 warps
    usage = tmp_path / "fat.txt"
    usage.write_text(fat_output(["sm_80", "sm_90"]))
    assert hand_occupancy("cc_9_0", 72, 256, SMEM) == (3, 24)
    code = cli.main(["kernel", str(usage), "--kernel", "stencil", "--threads", "256", "--cc", "cc_9_0"])
    out, _ = capsys.readouterr()
    assert code == 0 and "occupancy 37.5%" in out


def test_a_fat_binary_with_no_entry_for_the_device_is_refused_naming_its_targets(tmp_path, capsys):
    usage = tmp_path / "fat.txt"
    usage.write_text(fat_output(["sm_80", "sm_90"]))
    for argv in (["--threads", "256"], ["--launches", str(tmp_path / "l.csv")]):
        (tmp_path / "l.csv").write_text("kernel,threads\nstencil,256\n")
        code = cli.main(["kernel", str(usage), "--kernel", "stencil", "--cc", "cc_7_5", *argv])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "holds it for sm_80, sm_90, none of which runs on cc_7_5" in err and "code=sm_75" in err


def test_the_launch_table_carries_the_note_the_single_launch_prints(tmp_path, capsys):
    # one target only, built for a newer device than --cc: the single launch says so on stderr; every row of the
    # table, its CSV and its JSON says the same (before: an empty note column)
    usage = tmp_path / "one.txt"
    usage.write_text(fat_output(["sm_90"]))
    code = cli.main(["kernel", str(usage), "--threads", "256", "--cc", "cc_8_0"])
    _, err = capsys.readouterr()
    assert code == 0 and err.startswith("symgpu: note: the kernel was compiled for sm_90, which does not run on cc_8_0")
    note = err.removeprefix("symgpu: note: ").strip()
    (tmp_path / "l.csv").write_text("threads\n256\n128\n")
    code = cli.main(["kernel", str(usage), "--launches", str(tmp_path / "l.csv"), "--cc", "cc_8_0", "-o", str(tmp_path / "out.csv"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [row["note"] for row in json.loads(out)] == [note, note]
    with (tmp_path / "out.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert [row["note"] for row in table] == [note, note]


@pytest.mark.parametrize(("arch", "cc", "runs"), [("sm_90", "cc_9_0", True), ("sm_80", "cc_8_6", True), ("sm_86", "cc_8_0", False),
                                                  ("sm_90", "cc_7_5", False), ("sm_90a", "cc_9_0", True), ("sm_75", "cc_8_0", False),
                                                  ("", "cc_9_0", None)])
def test_machine_code_runs_on_its_major_version_at_the_same_or_a_higher_minor(arch, cc, runs):
    assert targets.runs_on(arch, cc) is runs


def test_select_without_a_device_keeps_the_first_entry():
    kernels = resources.parse(fat_output(["sm_80", "sm_90"]), source="fat.txt", demangle=False)
    assert len(kernels) == 2
    assert resources.select(kernels, None).arch == "sm_80"
    assert resources.select(kernels, None, "cc_9_0").registers == REGISTERS["sm_90"]
