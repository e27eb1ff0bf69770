"""Run ``check``, ``eval`` and ``report`` on model files, each file in a forked, capped child.

Usage: ``python tests/hostile/driver.py WORKDIR FILE...`` prints one JSON object: file name ->
``{"status": "done"|"hang"|"killed", "commands": {name: {"code", "out", "err"}}, "canary": bool}``.

symgpu is imported once; each file then runs in a child made by ``fork`` (cheap: nothing is
imported again) with ``RLIMIT_CPU`` and ``RLIMIT_AS`` set, in its own working folder, and is
killed when it outlives the wall-clock limit. A payload that ran would leave the file
``HOSTILE_CANARY`` in that folder.
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
WALL_SECONDS = 30.0
CPU_SECONDS = 20
EXTRA_MEMORY = 1 << 30


def commands(path: Path, workdir: Path) -> dict[str, list[str]]:
    """The three command lines run on ``path``."""
    return {
        "check": ["check", str(path)],
        "eval": ["eval", str(path), "P", "--preset", "toy", "--set", "I=10"],
        "report": ["report", str(path), "-o", str(workdir / "report")],
    }


def _child(path: Path, workdir: Path, result: Path) -> None:
    os.chdir(workdir)
    with open("/proc/self/statm") as stream:
        size = int(stream.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + EXTRA_MEMORY, size + EXTRA_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
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
    result.write_text(json.dumps(out), encoding="utf-8")


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
    return {"status": status, "commands": found, "canary": (workdir / CANARY).exists() or Path(CANARY).exists()}


def main(argv: list[str]) -> int:
    """Run every file given after the working folder; print the JSON summary."""
    workroot = Path(argv[0])
    summary = {Path(f).name: run_one(Path(f).resolve(), workroot / Path(f).name) for f in argv[1:]}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
