"""Issue 30, the remaining hostile inputs: a template, a model, a base model or a profiler export
that is not a regular text file is refused in one line naming it (never read whole, never waited
on), a user model with a bundled model's id is marked by ``symgpu list``, and a fit that did not
converge exits 1."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from symgpu.cli import main
from symgpu.measure import data
from symgpu.report import templates

from conftest import FIXTURES

REPO = Path(__file__).resolve().parent.parent
NCU = REPO / "data" / "ncu" / "scale_h100_raw_synthetic.csv"
#: the most seconds one refusal may take: a hang guard, not a timing (each is a check before any work; 20 s seen under a load of 8+)
BUDGET = 60.0


def _refused(capsys, argv: list[str], *needles: str, code: int = 2) -> str:
    begin = time.monotonic()
    got = main([str(a) for a in argv])
    took = time.monotonic() - begin
    out, err = capsys.readouterr()
    assert got == code, out + err
    message = err if code == 2 else out + err
    assert message.count("\n") == 1, message
    assert "Traceback" not in message and "internal error" not in message, message
    assert all(n in message for n in needles), message
    assert took < BUDGET, f"refusal took {took:.1f} s"
    return message


# ---------------------------------------------------------------- --templates: only regular files, bounded
def _report_with(tmp_path: Path, capsys, make_template) -> str:
    folder = tmp_path / "tpl"
    folder.mkdir()
    make_template(folder / "report.md.j2")
    model = tmp_path / "tiny.toml"
    shutil.copy(FIXTURES / "tiny.toml", model)
    return _refused(capsys, ["report", model, "-f", "md", "--templates", folder, "-o", tmp_path / "out"], "report.md.j2")


def test_a_template_that_is_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    err = _report_with(tmp_path, capsys, os.mkfifo)
    assert "named pipe" in err and "regular file" in err


def test_a_template_that_is_a_device_is_refused_not_read_for_ever(tmp_path, capsys):
    err = _report_with(tmp_path, capsys, lambda path: path.symlink_to("/dev/zero"))
    assert "a device" in err


def test_a_template_over_the_size_limit_is_refused_before_it_is_read(tmp_path, capsys):
    def huge(path: Path) -> None:
        with open(path, "wb") as stream:
            stream.truncate(templates.MAX_TEMPLATE_BYTES + 1)  # sparse: no disk used
    err = _report_with(tmp_path, capsys, huge)
    assert f"limit {templates.MAX_TEMPLATE_BYTES}" in err


def test_a_template_name_that_is_not_a_file_does_not_fall_back_to_the_bundled_one(tmp_path, capsys):
    err = _report_with(tmp_path, capsys, Path.mkdir)
    assert "a folder" in err


# ---------------------------------------------------------------- profiler export with binary bytes
@pytest.mark.parametrize("insert, byte", [(b"\x00", "0x00"), (b"\xff\xfe", "0xff"), (b"\x1b[31m", "0x1b")])
def test_binary_bytes_in_a_profiler_export_are_refused_naming_the_file_and_the_offset(tmp_path, capsys, insert, byte):
    raw = NCU.read_bytes()
    at = raw.index(b"\n", raw.index(b"\n") + 1) + 5  # inside the first launch's row
    export = tmp_path / "export.csv"
    export.write_bytes(raw[:at] + insert + raw[at:])
    kernel = REPO / "data" / "kernels" / "ptxas_v_kernels_sm90.txt"
    err = _refused(capsys, ["kernel", kernel, "-k", "scale", "-t", "128", "--cc", "cc_9_0", "--model", "hong_kim_2009", "--ncu", export],
                   str(export), f"byte {byte} at offset {at}")
    assert err.startswith("symgpu: error: ")


# ---------------------------------------------------------------- symgpu list marks a shadowing user model
def test_list_marks_a_bundled_model_that_hides_a_user_model_with_its_id(tmp_path, monkeypatch, capsys):
    shutil.copy(REPO / "equations" / "occupancy.toml", tmp_path / "occupancy.toml")
    monkeypatch.setenv("SYMGPU_MODEL_PATH", str(tmp_path))
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("occupancy "))
    assert "! hides" in lines[row + 1] and str(tmp_path / "occupancy.toml") in lines[row + 1]
    assert sum("! hides" in line for line in lines) == 1
    assert main(["list", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["occupancy"]["hides"] == [str(tmp_path / "occupancy.toml")]
    assert all(not row["hides"] for model_id, row in rows.items() if model_id != "occupancy")


# ---------------------------------------------------------------- named pipes as models and bases
def test_a_model_given_by_path_that_is_a_named_pipe_is_refused_in_one_line(tmp_path, capsys):
    pipe = tmp_path / "m.toml"
    os.mkfifo(pipe)
    for command in (["check", pipe], ["eval", pipe, "P"]):
        _refused(capsys, command, str(pipe), "is a named pipe, not a model file", "regular .toml file")


def test_an_extends_base_that_is_a_named_pipe_is_refused_not_replaced_by_the_bundled_model(tmp_path, capsys):
    os.mkfifo(tmp_path / "occupancy.toml")  # beside the variant, with a bundled model's id
    variant = tmp_path / "v.toml"
    variant.write_text('[model]\nid = "v"\ntitle = "variant"\nextends = "occupancy"\n', encoding="utf-8")
    _refused(capsys, ["check", variant], str(tmp_path / "occupancy.toml"), "named pipe", code=1)


# ---------------------------------------------------------------- a fit that did not converge
def test_a_fit_that_did_not_converge_exits_1_naming_the_converged_check(tmp_path, capsys):
    import symgpu

    model = symgpu.load("volkov_2016")
    theta = (10.0, 30.0, 60.0, 90.0, 120.0, 150.0, 170.0, 185.0, 200.0, 210.0)
    latency = model.evaluate("memory_latency", values={"theta": list(theta), "a": 372.0, "b": 22.0, "c": 221.0}).magnitude
    path = tmp_path / "latency.csv"
    data.write_csv(path, data.MeasuredData("latency.csv", (data.Column("theta", "GB/s", theta),
                                                           data.Column("memory_latency", "cycle", tuple(float(v) for v in latency)))))
    # the optimiser stopped after one evaluation of the residuals: status 0, "maximum number of function evaluations"
    code = main(["fit", "volkov_2016", "memory_latency", "--data", str(path), "--params", "a,b,c", "--preset", "maxwell",
                 "--max-evaluations", "1",
                 "--init", "a=500", "--init", "b=50", "--init", "c=400"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert err.count("\n") == 1 and err.startswith("symgpu: error: ") and "converge" in err, err
    assert "FAILED (converged)" in out, out
    assert "[presets." not in out  # no preset block printed for a failed fit


@pytest.mark.parametrize("given", ["0", "-3"])
def test_a_fit_allowed_fewer_than_one_evaluation_is_a_usage_error(tmp_path, capsys, given):
    path = tmp_path / "latency.csv"
    data.write_csv(path, data.MeasuredData("latency.csv", (data.Column("theta", "GB/s", (10.0, 30.0, 60.0)),
                                                           data.Column("memory_latency", "cycle", (400.0, 420.0, 450.0)))))
    code = main(["fit", "volkov_2016", "memory_latency", "--data", str(path), "--params", "a,b,c", "--preset", "maxwell",
                 "--max-evaluations", given])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"--max-evaluations {given}: give a number of evaluations, 1 or more" in err, err
