"""A `report --all` run is atomic: nothing is written until every report is rendered, Ctrl-C
during the final renames is held back until they are done, and a second run into the same
folder waits for the first (no interleaved files)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from symgpu.cli import main
from symgpu import resources
from symgpu.report import files


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def two_models() -> list[str]:
    """``report --all --models`` over two small models (no comparison report: volkov_2016 is not among them)."""
    return ["interval_analysis", "perez_piccoli"]


def report_all(*argv: str, models: list[str]) -> list[str]:
    return ["report", "--all", "--models", ",".join(models), *argv]


def test_an_interrupted_report_all_leaves_the_previous_reports_untouched(tmp_path, two_models):
    out = tmp_path / "out"
    assert main(report_all("-o", str(out), "-f", "md", models=two_models)) == 0
    before = snapshot(out)
    assert {f"{m}/{m}.md" for m in two_models} <= set(before)
    # a run that would change every report (a template of its own), Ctrl-C while the second model renders
    templates = tmp_path / "templates"
    templates.mkdir()
    bundled = resources.bundled("templates") / "report.md.j2"
    (templates / "report.md.j2").write_text(bundled.read_text(encoding="utf-8") + "\nchanged\n", encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    run = subprocess.Popen([sys.executable, "-m", "symgpu", *report_all("--force", "--jobs", "1", "-o", str(out), "-f", "md",
                                                                        "--templates", str(templates), models=two_models)],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert run.stderr is not None
        lines = []
        for line in run.stderr:
            lines.append(line)
            if line.startswith(f"[2/{len(two_models)}] rendering "):  # the first report is rendered, in memory
                run.send_signal(signal.SIGINT)
                break
        _, err = run.communicate(timeout=120)
    except BaseException:
        os.killpg(run.pid, signal.SIGKILL)
        raise
    assert run.returncode == 130, "".join(lines) + err
    assert snapshot(out) == before
    assert not [p for p in out.rglob("*.tmp")], "temporary files were left behind"


def test_reports_rendered_in_worker_processes_equal_those_rendered_in_one(tmp_path, two_models):
    assert main(report_all("--jobs", "1", "-o", str(tmp_path / "one"), "-f", "md", models=two_models)) == 0
    assert main(report_all("--jobs", "2", "-o", str(tmp_path / "two"), "-f", "md", models=two_models)) == 0
    one, two = snapshot(tmp_path / "one"), snapshot(tmp_path / "two")
    assert {f"{m}/{m}.md" for m in two_models} <= set(one)
    assert two == one


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_report_all_with_fewer_than_one_job_is_a_usage_error(tmp_path, jobs, capsys):
    assert main(["report", "--all", "--jobs", jobs, "-o", str(tmp_path)]) == 2
    assert "--jobs" in capsys.readouterr().err
    assert main(["report", "interval_analysis", "--jobs", "2", "-o", str(tmp_path)]) == 2  # one model: no workers
    assert "--jobs applies to --all" in capsys.readouterr().err


@pytest.mark.parametrize("models, message", [
    ("interval_analysis,no_such_model", "--models: unknown model 'no_such_model'"),
    ("../equations/interval_analysis", "--models: unknown model '../equations/interval_analysis'"),
    (" , ", "--models: give model ids separated by commas"),
])
def test_report_all_with_models_that_are_not_there_is_a_usage_error(tmp_path, capsys, models, message):
    assert main(["report", "--all", "--models", models, "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert main(["report", "interval_analysis", "--models", "interval_analysis", "-o", str(tmp_path)]) == 2
    assert "--models applies to --all" in capsys.readouterr().err


def test_ctrl_c_during_the_renames_is_held_until_every_file_is_in_place(tmp_path):
    calls = []

    def replace_and_interrupt(src, dst):
        os.replace(src, dst)
        calls.append(dst)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, in the middle of the renames

    folders = {"a": {"1.md": b"one", "2.md": b"two"}, "b": {"3.md": b"three"}}
    with pytest.raises(KeyboardInterrupt):
        files.write_run(tmp_path, folders, replace=replace_and_interrupt)
    assert len(calls) == 3
    assert snapshot(tmp_path) == {"a/1.md": b"one", "a/2.md": b"two", "b/3.md": b"three", files.LOCK_NAME: b""}


WRITER = """
import sys
from pathlib import Path
from symgpu.report import files
files.write_run(Path(sys.argv[1]), {"m": {"x.md": b"second run"}})
print("written")
"""


def test_a_second_run_into_the_same_folder_waits_for_the_first(tmp_path):
    files.write_run(tmp_path, {"m": {"x.md": b"first run"}})
    with open(tmp_path / files.LOCK_NAME, "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # a first run is writing
        second = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            second.wait(timeout=3)
        assert (tmp_path / "m" / "x.md").read_bytes() == b"first run"
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    out, _ = second.communicate(timeout=120)
    assert second.returncode == 0 and out.strip() == "written"
    assert (tmp_path / "m" / "x.md").read_bytes() == b"second run"



BATCH_SCRIPT = """
import sys, time
from symgpu import workers
try:
    for name, _ in workers.run([("slow", time.sleep, (60,)), ("fast", time.sleep, (0,))], 2):
        print(name, flush=True)
except KeyboardInterrupt:
    sys.exit(130)
"""


@pytest.mark.parametrize("whom", ["process group", "parent only"])
def test_ctrl_c_stops_the_workers_at_once_without_a_traceback(whom):
    """Ctrl-C while one worker renders (a 60 s task) and the other is idle: the idle worker
    prints no traceback, and the busy one is stopped, not waited for (a 30 s guard is far below
    the task's 60 s). Ctrl-C in a terminal reaches the process group; ``kill -INT`` the parent."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.Popen([sys.executable, "-c", BATCH_SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    assert run.stdout is not None
    assert run.stdout.readline().strip() == "fast"  # one worker idle now, the other in the slow task
    if whom == "parent only":
        os.kill(run.pid, signal.SIGINT)
    else:
        os.killpg(run.pid, signal.SIGINT)
    try:
        _, err = run.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError("the interrupted batch waited for its running task")
    assert run.returncode == 130, err[-2000:]
    assert "Traceback" not in err


STOPPED_EARLY_SCRIPT = """
import threading, time
from symgpu import workers
before = set(threading.enumerate())
batch = workers.run([("slow", time.sleep, (60,)), ("fast", time.sleep, (0,))], 2)
print(next(batch)[0], flush=True)
batch.close()  # the caller stops early while the slow task runs
print(sorted(t.name for t in set(threading.enumerate()) - before), flush=True)
"""


def test_a_batch_stopped_early_leaves_no_thread_of_its_pool_running():
    """A batch stopped while a task runs (Ctrl-C, a failed task, a caller that stops reading) has
    joined its pool's threads when ``run`` returns: a manager thread left running races the
    interpreter's exit hook for its wakeup pipe ("Exception ignored ... Bad file descriptor")."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", STOPPED_EARLY_SCRIPT], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["fast", "[]"], done.stdout + done.stderr[-2000:]
    assert "Exception ignored" not in done.stderr
