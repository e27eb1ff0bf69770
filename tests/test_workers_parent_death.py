"""Issue 30: forked workers end when their parent dies, however it dies (here SIGKILL, which no
handler sees), and no temporary file is left in the output folder.

Each test starts a parent in a session of its own, waits until its workers exist, kills the
parent alone with SIGKILL, then checks every worker it had is gone. Before the fix the workers
stayed alive indefinitely, blocked writing a result to a pipe that nobody read.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"),
                                reason="needs fork and /proc to find the workers")

#: Hang guards only (each wait returns as soon as its condition holds).
START_GUARD_S = 180.0
END_GUARD_S = 20.0

HARNESS = """
import sys, time
from symgpu import workers
workers.USE_PDEATHSIG = sys.argv[1] == "pdeathsig"
def big(seconds):
    time.sleep(seconds)
    return b"x" * (8 << 20)  # far more than a pipe holds: its worker blocks writing once the parent is gone
tasks = [("slow", time.sleep, (600,)), ("big", big, (1.0,))]
for name, _ in workers.run(tasks, 2, lambda index, name: print("started", name, flush=True)):
    print("done", name, flush=True)
"""


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for init to reap it has ended)."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    except PermissionError:
        return True
    return state not in ("Z", "X")


def _wait_for(condition, guard: float, what: str) -> None:
    deadline = time.monotonic() + guard
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _kill_parent_and_check_workers_end(parent: subprocess.Popen[str], workers: set[int]) -> None:
    try:
        os.kill(parent.pid, signal.SIGKILL)  # the parent only: the workers get no signal from us
        parent.wait(timeout=60)
        _wait_for(lambda: not any(map(_alive, workers)), END_GUARD_S,
                  f"workers {sorted(p for p in workers if _alive(p))} outlived their SIGKILLed parent")
    finally:
        for pid in workers:  # never leave one behind, even when the test fails
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("guard", ["pdeathsig", "lifeline pipe only"])
def test_workers_blocked_or_busy_end_when_their_parent_is_killed(guard):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    parent = subprocess.Popen([sys.executable, "-c", HARNESS, guard.split()[0]], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert parent.stdout is not None
        lines = {parent.stdout.readline().strip(), parent.stdout.readline().strip()}
        assert lines == {"started slow", "started big"}
        workers = _children(parent.pid)
        assert len(workers) == 2
        time.sleep(1.5)  # "big" has finished and is blocked writing 8 MB to the result pipe
    except BaseException:
        os.killpg(parent.pid, signal.SIGKILL)
        raise
    _kill_parent_and_check_workers_end(parent, workers)


def test_report_all_workers_end_and_leave_no_temporary_file_when_the_parent_is_killed(tmp_path):
    out = tmp_path / "reports"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), MPLBACKEND="Agg",
               SYMGPU_CACHE_DIR=str(tmp_path / "cache"))  # nothing recorded: every report is rendered
    parent = subprocess.Popen([sys.executable, "-m", "symgpu", "report", "--all", "--jobs", "2", "-o", str(out)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert parent.stderr is not None
        parent.stderr.readline()  # "[1/N] rendering ...": the workers are forked
        _wait_for(lambda: len(_children(parent.pid)) >= 2 or parent.poll() is not None, START_GUARD_S, "no workers started")
        workers = _children(parent.pid)
        assert len(workers) >= 2 and parent.poll() is None
    except BaseException:
        os.killpg(parent.pid, signal.SIGKILL)
        raise
    _kill_parent_and_check_workers_end(parent, workers)
    left = [p for p in out.rglob("*") if p.name.endswith(".tmp")] if out.exists() else []
    assert not left, f"temporary files left behind: {left}"
