"""Issue 30, leftovers: a command stopped by SIGINT (Ctrl-C), SIGTERM or SIGKILL leaves no
temporary file and no process behind.

Each test starts ``symgpu sweep`` in a session of its own, waits until it writes (its temporary
file or folder exists) or until its Dask workers start, sends the signal, then checks the
output folder and the processes. Every process the command starts carries a marker in its
environment, so one that outlived its parent (and was handed to init) is still found.
Before the fix, SIGTERM left ``.OUT.csv.XXXXXXXX.tmp`` (Python's default SIGTERM action runs no
``finally``), and a SIGKILLed run's temporary file stayed for ever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from symgpu import leftovers

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to find the processes")

#: Hang guards only: each wait returns as soon as its condition holds.
START_GUARD_S = 240.0
END_GUARD_S = 60.0
#: A grid far larger than a test waits for: the command is always stopped mid-run.
BIG = ["hong_kim_2009", "Exec_cycles_app", "--preset", "table2_example", "--grid", "Active_blocks_per_SM=1:8",
       "--grid", "Comp_insts=1:1250", "--grid", "Mem_LD=100:10099", "--no-progress"]
SMALL = ["hong_kim_2009", "Exec_cycles_app", "--preset", "table2_example", "--grid", "Mem_LD=100:199", "--no-progress"]
MARK = "SYMGPU_LEFTOVER_TEST"
#: Ctrl-C: symgpu returns 130; CPython may instead end the process by SIGINT itself once a
#: KeyboardInterrupt passed through an inner interpreter call (its cleanup has run either way)
INTERRUPTED = (130, -signal.SIGINT)


def _default_interrupts() -> None:
    # NOTE: a shell without job control starts background commands with SIGINT ignored, and Python
    # then never raises KeyboardInterrupt: give the command what a terminal gives it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args: list[str], mark: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]), **{MARK: mark})
    return subprocess.Popen([sys.executable, "-m", "symgpu", "sweep", *args], cwd=REPO, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_default_interrupts)


def _marked(mark: str) -> set[int]:
    """The running processes (zombies are not running) whose environment holds ``mark``."""
    found = set()
    needle = f"{MARK}={mark}".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle not in environ.read_bytes().split(b"\0"):
                continue
            state = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            found.add(int(environ.parent.name))
    return found


def _wait(condition, guard: float, what: str) -> None:
    deadline = time.monotonic() + guard
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {guard:.0f} s for {what}")
        time.sleep(0.05)


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _stop(proc: subprocess.Popen[str], signum: int, *, group: bool = False) -> tuple[int, str]:
    (os.killpg if group else os.kill)(proc.pid, signum)
    try:
        _, err = proc.communicate(timeout=END_GUARD_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"symgpu sweep still running {END_GUARD_S:.0f} s after signal {signum}") from None
    return proc.returncode, err


def _no_process_left(mark: str) -> None:
    _wait(lambda: not _marked(mark), END_GUARD_S, "the command's processes to end")


def _writing(proc: subprocess.Popen[str], folder: Path) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"symgpu sweep ended (exit {proc.returncode}) before it was stopped: {proc.stderr.read() if proc.stderr else ''}")
    return bool(_temporaries(folder))


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("name, signum, codes", [("SIGINT", signal.SIGINT, INTERRUPTED), ("SIGTERM", signal.SIGTERM, (143,))])
def test_a_sweep_stopped_by_sigint_or_sigterm_leaves_no_temporary_file(tmp_path: Path, suffix: str, name: str, signum: int, codes: tuple[int, ...]) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    mark = uuid.uuid4().hex
    proc = _start([*BIG, "-o", str(tmp_path / f"out{suffix}")], mark)
    _wait(lambda: _writing(proc, tmp_path), START_GUARD_S, "the sweep to start writing")
    returncode, err = _stop(proc, signum)
    assert returncode in codes, err
    assert "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []
    _no_process_left(mark)


def test_a_sigkilled_sweeps_temporary_file_is_removed_by_the_next_run_into_the_folder(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    proc = _start([*BIG, "-o", str(tmp_path / "out.csv")], mark)
    _wait(lambda: _writing(proc, tmp_path), START_GUARD_S, "the sweep to start writing")
    _stop(proc, signal.SIGKILL)
    stale = _temporaries(tmp_path)
    assert len(stale) == 1 and leftovers.is_temporary(stale[0]) and f"-{proc.pid}-" in stale[0]
    again = _start([*SMALL, "-o", str(tmp_path / "small.csv")], mark)
    _, err = again.communicate(timeout=START_GUARD_S)
    assert again.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.csv"]
    _no_process_left(mark)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs signal masks")
def test_a_process_started_while_interrupts_are_kept_from_children_never_receives_ctrl_c() -> None:
    import threading

    seen: list[set[int]] = []
    with leftovers.interrupts_kept_from_children():
        thread = threading.Thread(target=lambda: seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, set())))
        thread.start()
        thread.join()
        child = subprocess.run([sys.executable, "-c", "import signal; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))"],
                               capture_output=True, text=True, check=True)
    assert signal.SIGINT in seen[0] and child.stdout.strip() == "True"
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # this thread's mask is back


# -- the dask engine: a local cluster of worker processes ---------------------------------------

DASK = ["--engine", "dask", "--workers", "2", "--chunk-size", "200000"]


def _workers_started(proc: subprocess.Popen[str], mark: str) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"symgpu sweep ended (exit {proc.returncode}) before it was stopped: {proc.stderr.read() if proc.stderr else ''}")
    return len(_marked(mark) - {proc.pid}) >= 2


@pytest.fixture
def dask_ready() -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("dask.distributed")


@pytest.mark.parametrize("moment", ["cluster starting", "writing"])
def test_ctrl_c_of_a_dask_sweep_leaves_no_process_and_no_temporary_folder(tmp_path: Path, dask_ready: None, moment: str) -> None:
    mark = uuid.uuid4().hex
    proc = _start([*BIG, *DASK, "-o", str(tmp_path / "out.pq")], mark)
    if moment == "writing":
        _wait(lambda: _writing(proc, tmp_path), START_GUARD_S, "the sweep to start writing")
    else:
        _wait(lambda: _workers_started(proc, mark), START_GUARD_S, "the cluster's processes to start")
    returncode, err = _stop(proc, signal.SIGINT, group=True)  # Ctrl-C: the whole process group
    assert returncode in INTERRUPTED, err
    assert "Traceback" not in err, err  # the workers never took the Ctrl-C: they were closed, not broken
    assert list(tmp_path.iterdir()) == []
    _no_process_left(mark)


def test_sigterm_of_a_dask_sweep_leaves_no_process_and_no_temporary_folder(tmp_path: Path, dask_ready: None) -> None:
    mark = uuid.uuid4().hex
    proc = _start([*BIG, *DASK, "-o", str(tmp_path / "out.pq")], mark)
    _wait(lambda: _writing(proc, tmp_path), START_GUARD_S, "the sweep to start writing")
    returncode, err = _stop(proc, signal.SIGTERM)
    assert returncode == 143, err
    assert list(tmp_path.iterdir()) == []
    _no_process_left(mark)


def test_sigkill_of_a_dask_sweep_orphans_no_worker_and_the_next_run_removes_its_folder(tmp_path: Path, dask_ready: None) -> None:
    mark = uuid.uuid4().hex
    proc = _start([*BIG, *DASK, "-o", str(tmp_path / "out.pq")], mark)
    _wait(lambda: _writing(proc, tmp_path), START_GUARD_S, "the sweep to start writing")
    _stop(proc, signal.SIGKILL)
    _no_process_left(mark)
    assert len(_temporaries(tmp_path)) == 1
    again = _start([*SMALL, "-o", str(tmp_path / "small.csv")], mark)
    _, err = again.communicate(timeout=START_GUARD_S)
    assert again.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.csv"]


# -- report --all: temporary files of a run killed during its final writes ----------------------

def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_report_run_removes_a_killed_runs_temporary_files_while_holding_the_lock(tmp_path: Path) -> None:
    from symgpu.report import files

    folder = tmp_path / "roofline"
    folder.mkdir()
    old = folder / ".roofline.md.k3j_x9a0.tmp"  # symgpu's earlier names: no process id in them
    dead = folder / f".roofline.json.symgpu-{leftovers.HOST}-{_dead_pid()}-abcd1234.tmp"
    live = folder / f".roofline.tex.symgpu-{leftovers.HOST}-{os.getpid()}-abcd1234.tmp"  # a run still writing
    other = folder / ".notes.txt.k3j_x9a0.tmp"  # not a file this run writes: not ours to judge
    for path in (old, dead, live, other):
        path.write_bytes(b"half")
    files.write_run(tmp_path, {"roofline": {"roofline.md": b"# new\n", "roofline.json": b"{}\n"}})
    assert sorted(p.name for p in folder.iterdir()) == sorted([live.name, other.name, "roofline.json", "roofline.md"])


def test_stale_temporaries_of_another_machine_or_a_link_are_kept(tmp_path: Path) -> None:
    pid = _dead_pid()
    foreign = tmp_path / f".x.csv.symgpu-{'0' * 8 if leftovers.HOST != '0' * 8 else '1' * 8}-{pid}-abcd1234.tmp"
    foreign.write_bytes(b"")
    target = tmp_path / "keep.txt"
    target.write_bytes(b"keep")
    link = tmp_path / f".y.csv.symgpu-{leftovers.HOST}-{pid}-abcd1234.tmp"
    link.symlink_to(target)
    mine = tmp_path / f".z.csv.symgpu-{leftovers.HOST}-{pid}-abcd1234.tmp"
    mine.mkdir()
    (mine / "part-000000.parquet").write_bytes(b"")
    assert leftovers.remove_stale(tmp_path) == [mine.name]
    assert foreign.exists() and link.is_symlink() and target.read_bytes() == b"keep"


def test_sigterm_during_the_final_renames_is_held_until_they_are_done(tmp_path: Path) -> None:
    from symgpu.report import files

    def replace_then_signal(source: str, destination: Path) -> None:
        os.replace(source, destination)
        os.kill(os.getpid(), signal.SIGTERM)  # a real SIGTERM after the first rename

    with pytest.raises(KeyboardInterrupt), leftovers.terminations_raise():
        files.write_run(tmp_path, {"m": {"a.md": b"a", "b.md": b"b"}}, replace=replace_then_signal)
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["a.md", "b.md"]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowing, as Python does it
def test_a_termination_swallowed_inside_a_garbage_collector_callback_is_raised_at_the_next_step() -> None:
    import gc

    from symgpu import errors

    def callback(phase: str, info: dict) -> None:
        if phase == "start" and not fired:
            fired.append(True)
            os.kill(os.getpid(), signal.SIGTERM)  # its handler runs here, inside the callback

    fired: list[bool] = []
    with leftovers.terminations_raise():
        gc.callbacks.append(callback)
        try:
            gc.collect()  # Python prints "Exception ignored in ..." and goes on
        finally:
            gc.callbacks.remove(callback)
        assert fired
        with pytest.raises(errors.Terminated):
            leftovers.raise_pending()
    leftovers.raise_pending()  # the block is over: nothing is pending any more
