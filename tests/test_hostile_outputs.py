"""Issue 30 (data lost, internal errors): ``-o`` / ``--plot`` replace only a regular file, and a
path that cannot be written (a folder, a device, a pipe, a link, a full disk) is one line, exit 2."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from symgpu.cli import main

REPO = Path(__file__).resolve().parent.parent
MEASURED = REPO / "data" / "h100" / "stream_read_vs_warps_model.csv"
SWEEP = ["sweep", "hong_kim_2009", "Exec_cycles_app", "-p", "table2_example", "--grid", "Mem_LD=100:1000:100"]
FIT = ["fit", "volkov_2016_ilp", "dram_throughput", "--data", str(MEASURED), "--where", "alpha=0",
       "--params", "a,b,c", "--preset", "h100_fit_alpha0", "--preset-id", "x"]


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)
    return path


def _link(tmp_path: Path) -> tuple[Path, Path]:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(victim)
    return link, victim


def _one_line(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("symgpu: error: "), err
    assert "Traceback" not in err and "internal error" not in err, err
    assert all(n in err for n in needles), err
    return err


@pytest.fixture
def sweep_csv(tmp_path: Path) -> Path:
    out = tmp_path / "s.csv"
    assert main([*SWEEP, "-o", str(out)]) == 0
    return out


def test_sweep_to_a_named_pipe_is_refused_and_the_pipe_stays(tmp_path, capsys):
    pipe = _fifo(tmp_path)
    assert main([*SWEEP, "-o", str(pipe)]) == 2
    _one_line(capsys, "-o", str(pipe), "named pipe", "regular files")
    assert Path(pipe).is_fifo()


def test_sweep_to_a_device_is_refused(capsys):
    assert main([*SWEEP, "-o", "/dev/null"]) == 2
    _one_line(capsys, "/dev/null", "a device")
    assert Path("/dev/null").is_char_device()


def test_sweep_through_a_symbolic_link_is_refused_and_its_target_kept(tmp_path, capsys):
    link, victim = _link(tmp_path)
    assert main([*SWEEP, "-o", str(link)]) == 2
    _one_line(capsys, "symbolic link")
    assert link.is_symlink() and victim.read_text(encoding="utf-8") == "precious"


def test_sweep_to_an_existing_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "out.csv").mkdir()
    assert main([*SWEEP, "-o", str(tmp_path / "out.csv")]) == 2
    _one_line(capsys, "a folder")


def test_sweep_into_a_missing_folder_is_one_line(tmp_path, capsys):
    assert main([*SWEEP, "-o", str(tmp_path / "nowhere" / "s.csv")]) == 2
    _one_line(capsys, "does not exist")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_sweep_into_an_unwritable_folder_is_one_line(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert main([*SWEEP, "-o", str(folder / "s.csv")]) == 2
    _one_line(capsys, "not writable")


def _with_no_room(*argv: str) -> str:
    """``symgpu ARGV`` in a process whose files cannot grow past 64 bytes (``RLIMIT_FSIZE``; a write
    over it fails with EFBIG as one on a full disk fails with ENOSPC): its exit code must be 2,
    and its standard error, returned, one line."""

    def no_room() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the signal ending the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    env = {**os.environ, "PYTHONPATH": str(REPO), "SYMGPU_NO_CACHE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "symgpu", *argv], capture_output=True, text=True, env=env, cwd=REPO,
                          preexec_fn=no_room, timeout=300)
    err = done.stderr
    assert done.returncode == 2, (done.stdout, err)
    assert err.count("\n") == 1 and err.startswith("symgpu: error: "), err
    assert "Traceback" not in err and "internal error" not in err and os.strerror(errno.EFBIG) in err, err
    return err


def test_sweep_on_a_full_disk_is_one_line_and_leaves_no_temporary_file(tmp_path):
    _with_no_room(*SWEEP, "-o", str(tmp_path / "s.csv"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["pipe", "link", "folder", "device"])
def test_plot_replaces_only_a_regular_file(sweep_csv, tmp_path, capsys, target):
    capsys.readouterr()
    if target == "pipe":
        path = tmp_path / "p.svg"
        os.mkfifo(path)
    elif target == "link":
        path = tmp_path / "p.svg"
        path.symlink_to(sweep_csv)
    elif target == "folder":
        path = tmp_path / "p.svg"
        path.mkdir()
    else:
        path = Path("/dev/null")
    before = sweep_csv.read_bytes()
    assert main(["plot", str(sweep_csv), "-o", str(path)]) == 2
    _one_line(capsys, "-o")
    assert sweep_csv.read_bytes() == before


def test_plot_on_a_full_disk_is_one_line(sweep_csv, tmp_path):
    _with_no_room("plot", str(sweep_csv), "-o", str(tmp_path / "p.svg"))
    assert [p.name for p in tmp_path.iterdir()] == [sweep_csv.name]  # no plot, no temporary file


def test_fit_output_through_a_link_or_into_a_pipe_is_refused_before_fitting(tmp_path, capsys):
    link, victim = _link(tmp_path)
    assert main([*FIT, "-o", str(link)]) == 2
    _one_line(capsys, "symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious"
    pipe = _fifo(tmp_path)
    assert main([*FIT, "-o", str(pipe)]) == 2
    _one_line(capsys, "named pipe")


def test_fit_output_on_a_full_disk_is_one_line(tmp_path):
    assert "-o" in _with_no_room(*FIT, "-o", str(tmp_path / "x.toml"))
    assert list(tmp_path.iterdir()) == []


def test_fit_output_to_a_regular_file_is_written(tmp_path, capsys):
    out = tmp_path / "x.toml"
    out.write_text("old", encoding="utf-8")
    assert main([*FIT, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("[presets.x")


def test_report_never_replaces_a_non_regular_file_in_its_folder(tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    (folder / "tiny.md").symlink_to(victim)
    assert main(["report", str(REPO / "tests" / "fixtures" / "tiny.toml"), "-f", "md", "-o", str(folder)]) == 2
    _one_line(capsys, "tiny.md", "not a regular file")
    assert victim.read_text(encoding="utf-8") == "precious" and (folder / "tiny.md").is_symlink()
