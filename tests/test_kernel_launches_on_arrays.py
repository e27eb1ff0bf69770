"""``symgpu kernel --launches`` answers the whole table on arrays (symgpu.kernel.occupancy_arrays), and every
row is what the one-launch path (:func:`symgpu.kernel.occupancy.compute`, one call per launch) says: the same
numbers, the same binding limits with their cases, the same reason where a block cannot launch, the same
bytes in ``-o`` CSV and ``--json``. The one-at-a-time answers are the reference, computed here launch by launch."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from symgpu import cli, memo
from symgpu.kernel import answer, batch, occupancy, resources, targets

#: (registers, static shared memory, barriers line): 0 registers, Fermi's listed counts, the register file's edges
KERNELS = [(0, 0, ""), (8, 0, ", used 1 barriers"), (21, 100, ""), (32, 4096, ", used 0 barriers"), (64, 0, ", used 3 barriers"),
           (65, 48000, ""), (88, 1024, ", used 2 barriers"), (128, 16384, ""), (200, 0, ", used 1 barriers"), (255, 3072, ""),
           (256, 0, "")]
THREADS = [1, 31, 32, 33, 64, 96, 100, 128, 257, 320, 352, 512, 672, 768, 1000, 1024, 1025, 2048]
#: compute capabilities with their own rules: 1.x per-block registers, 2.x listed counts, 6.0 GP10x check, 8.0 and 9.0 reserved
#: shared memory and (9.0) named barriers, 12.0 one barrier per block slot
CCS = ["cc_1_3", "cc_2_0", "cc_6_0", "cc_8_0", "cc_9_0", "cc_12_0"]


def ptxas_text() -> str:
    out = []
    for regs, smem, barriers in KERNELS:
        name = f"k_r{regs}_s{smem}"
        out += [f"ptxas info    : Compiling entry function '{name}' for 'sm_90'", f"ptxas info    : Function properties for {name}",
                "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                f"ptxas info    : Used {regs} registers{barriers}" + (f", {smem} bytes smem" if smem else "")]
    return "\n".join(out) + "\n"


def launch_table(cc: str, kernels: tuple[resources.KernelResources, ...], count: int, seed: int) -> list[tuple[str, int, int]]:
    """Launches over every kernel: block sizes (non-multiples of 32 among them), dynamic shared memory 0, small,
    and at the per-block limit (one byte under, at, one over), and beyond it."""
    limit = int(occupancy.occupancy_model().preset(cc)["max_smem_per_block"].magnitude)
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(count):
        kernel = kernels[i % len(kernels)]
        edge = limit - kernel.shared_bytes
        dynamic = int(rng.choice([0, 0, 1, 16, 1000, 8192, max(edge - 1, 0), max(edge, 0), max(edge + 1, 0), limit * 2]))
        rows.append((kernel.name, int(rng.choice(THREADS)), dynamic))
    return rows


def list_text(rows: list[tuple[str, int, int]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["kernel", "threads", "dynamic_smem"])
    writer.writerows(rows)
    return buffer.getvalue()


def one_at_a_time(cc: str, kernels: tuple[resources.KernelResources, ...], rows: list[tuple[str, int, int]]) -> list[batch.LaunchAnswer]:
    """The reference: each launch answered alone by the scalar path, with the note the one launch prints."""
    by_name = {k.name: k for k in kernels}
    out = []
    for number, (name, threads, dynamic) in enumerate(rows, start=2):
        kernel = by_name[name]
        smem = kernel.shared_bytes + dynamic
        one = occupancy.compute(cc, threads, kernel.registers, smem, extra=answer.launch_barriers(kernel))
        out.append(batch.LaunchAnswer(
            label=f"row {number}", kernel=kernel.display_name, threads=threads, registers=kernel.registers, smem_per_block=smem,
            active_blocks=int(one.active_blocks.magnitude), active_warps=int(one.active_warps.magnitude),
            max_warps=int(occupancy.occupancy_model().preset(cc)["max_warps_per_SM"].magnitude),
            occupancy=float(one.occupancy.magnitude), limiting=one.limiting_text(),
            note=targets.note(kernel.arch, cc)))  # what `symgpu kernel` prints for a build that does not run on cc
    return out


@pytest.fixture(scope="module")
def kernels() -> tuple[resources.KernelResources, ...]:
    return resources.parse(ptxas_text(), source="kernels.txt")


@pytest.mark.parametrize("cc", CCS)
def test_a_varied_launch_table_on_arrays_is_row_for_row_the_one_launch_answer(cc, kernels):
    rows = launch_table(cc, kernels, 90, seed=CCS.index(cc))
    got = batch.answer_all(batch.from_list(kernels, list_text(rows), "launches.csv"), cc)
    expected = one_at_a_time(cc, kernels, rows)
    assert [batch.cells(r) for r in got] == [batch.cells(r) for r in expected]
    assert [batch.as_json(r) for r in got] == [batch.as_json(r) for r in expected]
    reasons = {r.limiting for r in expected if r.active_blocks == 0}
    assert reasons, "the table holds launches that cannot launch (their reason compared too)"


def test_the_table_asks_the_one_launch_path_only_for_launches_the_arrays_cannot_decide(kernels):
    """0 registers: the register file's warps are infinite there, and the one-launch record names no register case:
    those launches alone (each distinct one once) are answered one at a time; every other one on arrays."""
    rows = launch_table("cc_9_0", kernels, 66, seed=7)
    configs = batch.from_list(kernels, list_text(rows), "launches.csv")
    before = memo.tallies()["kernel.occupancy_arrays.scalar_launches"]
    batch.answer_all(configs, "cc_9_0")
    no_registers = {(t, d) for name, t, d in rows if name == "k_r0_s0"}
    assert no_registers and memo.tallies()["kernel.occupancy_arrays.scalar_launches"] - before == len(no_registers)


def test_launches_csv_and_json_are_byte_for_byte_the_one_launch_answers(kernels, tmp_path, capsys):
    rows = launch_table("cc_9_0", kernels, 120, seed=11) * 2  # repeated launches answered once, each row still its own
    (tmp_path / "kernels.txt").write_text(ptxas_text())
    (tmp_path / "launches.csv").write_text(list_text(rows))
    argv = ["kernel", str(tmp_path / "kernels.txt"), "--cc", "cc_9_0", "--launches", str(tmp_path / "launches.csv")]
    assert cli.main([*argv, "-o", str(tmp_path / "out.csv"), "--json"]) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    expected = one_at_a_time("cc_9_0", resources.parse(ptxas_text(), source=str(tmp_path / "kernels.txt")), rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(batch.HEADER)
    writer.writerows(batch.cells(r, exact=True) for r in expected)
    assert (tmp_path / "out.csv").read_text() == buffer.getvalue()
    assert shown == json.loads(json.dumps([batch.as_json(r) for r in expected]))
