"""``symgpu kernel`` answers many launches in one call: every launch of a profiler export or of a
list of launch configurations, as a table, ``--json`` or ``-o`` CSV, each row what the one-launch
path says, in well under a second per launch."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import symgpu
from symgpu import cli
from symgpu.kernel import answer, batch, mapping, ncu, resources

REPO = Path(__file__).resolve().parent.parent
SM90 = REPO / "data" / "kernels" / "resource_usage_kernels_sm90.txt"
NCU = REPO / "data" / "ncu" / "scale_h100_raw_synthetic.csv"


def one_launch_limiting(result: answer.KernelAnswer) -> str:
    return ", ".join(f"{l.name} [{l.case}]" if l.case else l.name for l in result.limits if l.binding)


def generated_list(path: Path, count: int = 200) -> list[tuple[str, int, int]]:
    """``count`` launch configurations over the four sample kernels: block sizes 32..1024, dynamic shared memory 0..48 KiB."""
    rng = np.random.default_rng(0)
    kernels = [k.name for k in resources.read(SM90)]
    rows = [(kernels[i % len(kernels)], int(rng.integers(1, 33)) * 32, int(rng.choice([0, 1024, 4096, 16384, 49152]))) for i in range(count)]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["kernel", "threads", "dynamic_smem"])
        writer.writerows(rows)
    return rows


def test_200_launch_configurations_answer_in_one_call_as_the_one_launch_path_does(tmp_path, capsys):
    rows = generated_list(tmp_path / "launches.csv")
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--launches", str(tmp_path / "launches.csv"), "--json", "-o", str(tmp_path / "out.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    answers = json.loads(out)
    assert len(answers) == 200  # speed: benchmarks/kernel_launches_speed.py (timing is never a pass/fail test)
    kernels = resources.read(SM90)
    for i in (0, 1, 2, 3, 57, 133, 199):
        name, threads, dynamic = rows[i]
        single = answer.answer(resources.select(kernels, name), "cc_9_0", threads, dynamic)
        got = answers[i]
        assert (got["threads"], got["active_blocks"], got["active_warps"]) == (threads, single.active_blocks, single.active_warps)
        assert got["smem_per_block"] == single.smem_per_block and got["limiting"] == one_launch_limiting(single)
    with (tmp_path / "out.csv").open() as handle:
        table = list(csv.reader(handle))
    assert tuple(table[0]) == batch.HEADER and len(table) == 201 and table[1][0] == "row 2"


def test_a_launch_that_cannot_launch_gets_0_blocks_and_its_reason_in_the_table(tmp_path, capsys):
    (tmp_path / "l.csv").write_text("kernel,threads,dynamic_smem\nscale,2048,0\nscale,256,300000\nscale,256,0\n")
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--launches", str(tmp_path / "l.csv")])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4 and lines[0].startswith("launch  kernel")
    assert "block_limit" not in lines[1] and " 0 " in lines[1] and "[block_too_large]" in lines[1]
    assert "smem_limit" in lines[2] and "warp_limit [warp_slots]" in lines[3]


def export_with(path: Path, count: int) -> None:
    """The bundled export with its two rows repeated to ``count`` launches, block sizes varied."""
    head, units, *data = NCU.read_text().splitlines()
    rows = []
    for i in range(count):
        cells = next(csv.reader([data[i % 2]]))
        cells[0] = str(i)
        if i % 2 == 0:
            cells[7] = f"({32 * (1 + i % 32)}, 1, 1)"
        rows.append(",".join(f'"{c}"' for c in cells))
    path.write_text("\n".join([head, units, *rows]) + "\n")


def test_every_launch_of_an_export_gets_the_prediction_the_one_launch_path_gives(tmp_path, capsys):
    export_with(tmp_path / "ncu.csv", 300)
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--ncu", str(tmp_path / "ncu.csv"), "--all-launches",
                     "--model", "volkov_2016", "--preset", "h100", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    answers = json.loads(out)
    assert len(answers) == 300
    model = symgpu.load("volkov_2016")
    table = mapping.load(model)
    launches = ncu.read(tmp_path / "ncu.csv")
    kernels = resources.read(SM90)
    for i in (0, 1, 6, 77, 298, 299):
        launch = launches[i]
        values = {d.symbol: d.value for d in mapping.derive(table, model, launch, "cc_9_0")}
        predicted = model.evaluate(table.prediction, preset="h100", values=values)
        compared = mapping.compare(table, launch, predicted, "cc_9_0")[0]
        got = answers[i]
        assert got["predicted"] == pytest.approx(float(compared.predicted.magnitude), rel=1e-9)
        assert got["measured"] == pytest.approx(float(compared.measured.magnitude), rel=1e-12)
        assert got["ratio"] == pytest.approx(compared.ratio, rel=1e-9) and got["note"] == ""
        single = answer.answer(resources.select(kernels, launch.kernel.split("(")[0]), "cc_9_0", batch.threads_of(launch.block_size, ""))
        assert got["active_warps"] == single.active_warps and got["limiting"] == one_launch_limiting(single)


def test_the_bundled_export_answers_every_launch_in_a_table(capsys):
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--ncu", str(NCU), "--all-launches"])
    out, _ = capsys.readouterr()
    assert code == 0 and len(out.splitlines()) == 3 and "matmul_tiled" in out and "register_limit [per_warp_allocation]" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--threads", "256", "--json"], "--json and -o answer many launches"),
    (["--all-launches"], "--all-launches answers every launch of an export"),
    ([], "give --threads N (one launch), --launches CSV or --ncu EXPORT --all-launches"),
])
def test_many_launch_options_misused_exit_2_with_one_line(argv, message, capsys):
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", *argv])
    _, err = capsys.readouterr()
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_launch_list_without_a_threads_column_exits_2(tmp_path, capsys):
    (tmp_path / "l.csv").write_text("kernel,block\nscale,256\n")
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--launches", str(tmp_path / "l.csv")])
    _, err = capsys.readouterr()
    assert code == 2 and "must name a 'threads' column" in err


def test_a_launch_naming_a_kernel_the_compiler_output_lacks_is_refused_at_its_file_and_row(tmp_path, capsys):
    # outside tester, round 12b, F16: the message named no file or row, where every other bad cell of the list is "FILE:ROW: ..."
    launches = tmp_path / "l.csv"
    launches.write_text("kernel,threads,dynamic_smem\nscale,128,0\nnosuch,128,0\n")
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--launches", str(launches)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"symgpu: error: {launches}:3: no kernel 'nosuch' in the compiler output (kernels: ")


def test_every_float_of_the_written_table_reads_back_as_the_value_computed(tmp_path, capsys):
    """``-o FILE.csv`` is for programs: each float cell is the shortest round-trip repr, so ``float(cell)``
    equals the value computed (the JSON of the same run, whose floats round-trip, is the second path)."""
    export_with(tmp_path / "ncu.csv", 4)
    code = cli.main(["kernel", str(SM90), "--cc", "cc_9_0", "--ncu", str(tmp_path / "ncu.csv"), "--all-launches",
                     "--model", "volkov_2016", "--preset", "h100", "--json", "-o", str(tmp_path / "out.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    answers = json.loads(out)
    with (tmp_path / "out.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == len(answers) == 4
    values = []
    for row, got in zip(table, answers):
        for key in ("predicted", "measured", "ratio", "occupancy"):
            assert got[key] is not None and float(row[key]) == got[key], (key, row[key], got[key])
            values.append(got[key])
    assert any(float(f"{v:.6g}") != v for v in values)  # six significant digits would not have read back
