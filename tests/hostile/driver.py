"""Run ``check``, ``eval`` and ``report`` on model files, each file in a forked, capped child.

Usage: ``python tests/hostile/driver.py WORKDIR FILE...`` prints one JSON object: file name ->
``{"status": "done"|"hang"|"killed", "commands": {name: {"code", "out", "err"}}, "canary": bool}``.

symgpu is imported once, and the valid base model is run through the three commands once in
this process (:func:`warm_up`) before any child is forked: symgpu imports SymPy, pint,
matplotlib and Jinja2 lazily, so without it every child imported them again (about 2 s of CPU
a file, 3.7 minutes for the corpus). Each file then runs in a child made by ``fork`` (cheap:
nothing is imported again) with ``RLIMIT_CPU`` (the per-case budget, in CPU seconds, so a busy
machine does not use it up) and ``RLIMIT_AS`` set, in its own working folder, and is killed
when it outlives the wall-clock hang guard (generous: it only catches a child blocked without
using CPU). A payload that ran would leave the file ``HOSTILE_CANARY`` in that folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import sys
import time
import traceback
from pathlib import Path

from symgpu import cli

CANARY = "HOSTILE_CANARY"
#: Hang guard per file (wall clock): far above the CPU budget, so only a blocked child reaches it.
WALL_SECONDS = 120.0
#: Budget per file (CPU seconds, RLIMIT_CPU): a file takes well under a second once warmed up.
CPU_SECONDS = 20
EXTRA_MEMORY = 1 << 30


def commands(path: Path, workdir: Path) -> dict[str, list[str]]:
    """The three command lines run on ``path``."""
    return {
        "check": ["check", str(path)],
        "eval": ["eval", str(path), "P", "--preset", "toy", "--set", "I=10"],
        "report": ["report", str(path), "-o", str(workdir / "report")],
    }


def run_commands(path: Path, workdir: Path) -> dict[str, dict[str, object]]:
    """Run the three commands on ``path`` in this process: name -> exit code and output tails."""
    out: dict[str, dict[str, object]] = {}
    for name, argv in commands(path, workdir).items():
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code: object = cli.main(argv)
            except BaseException:  # noqa: BLE001 - recorded: an escaping exception is a finding
                code = "escaped"
                traceback.print_exc(file=stderr)
        out[name] = {"code": code, "out": stdout.getvalue()[-4000:], "err": stderr.getvalue()[-4000:]}
    return out


def warm_up(workroot: Path) -> None:
    """Run the valid base model through every command in this process, so the forked children
    start with everything those commands import already imported (each would import it again)."""
    import make_corpus  # beside this file

    folder = workroot / ".warm-up"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hostile_warm_up.toml"
    path.write_text(make_corpus.base(path.stem), encoding="utf-8")
    found = run_commands(path, folder)
    if any(c["code"] != 0 for c in found.values()):
        raise SystemExit(f"driver.py: the warm-up model failed, so the corpus cannot be judged: {json.dumps(found)[-2000:]}")


def _child(path: Path, workdir: Path, result: Path) -> None:
    os.chdir(workdir)
    with open("/proc/self/statm") as stream:
        size = int(stream.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + EXTRA_MEMORY, size + EXTRA_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))  # a forked child's CPU time starts at 0
    result.write_text(json.dumps(run_commands(path, workdir)), encoding="utf-8")


def run_one(path: Path, workdir: Path) -> dict[str, object]:
    """Run the three commands on ``path`` in a capped child; return what happened."""
    workdir.mkdir(parents=True, exist_ok=True)
    result = workdir / "result.json"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            _child(path, workdir, result)
        finally:
            os._exit(0)
    deadline = time.monotonic() + WALL_SECONDS
    status = "hang"
    while time.monotonic() < deadline:
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            status = "done" if os.WIFEXITED(wait_status) and result.exists() else "killed"
            break
        time.sleep(0.01)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    found = json.loads(result.read_text(encoding="utf-8")) if status == "done" else {}
    return {"status": status, "commands": found, "canary": (workdir / CANARY).exists() or Path(CANARY).exists(),
            "seconds": round(time.monotonic() - deadline + WALL_SECONDS, 3)}


def main(argv: list[str]) -> int:
    """Run every file given after the working folder; print the JSON summary."""
    workroot = Path(argv[0]).resolve()
    warm_up(workroot)
    summary = {Path(f).name: run_one(Path(f).resolve(), workroot / Path(f).name) for f in argv[1:]}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
